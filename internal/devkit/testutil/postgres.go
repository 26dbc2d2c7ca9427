package testutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Postgres is a real PostgreSQL server (Debian's packages) on a loopback port with its own data
// directory, started for a test and stopped at its end. Tests may stop and start it to play an
// outage.
type Postgres struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	// also is an address the server listens on beside loopback (StartPostgresOn).
	also string
	// URL connects to the test database.
	URL string
}

// StartPostgresOn is StartPostgres also listening on addr, trusting clients from network (a
// CIDR): a real cluster's pods reach it on the node's address in the cluster network the test
// made. It returns the server and its URL from that network.
func StartPostgresOn(t testing.TB, addr, network string) (*Postgres, string) {
	t.Helper()
	p := startPostgres(t, addr, network)
	return p, fmt.Sprintf("postgres://agentry@%s:%d/agentry?sslmode=disable", addr, p.port)
}

// StartPostgres initialises and starts a server. It fails the test (it does not skip) when
// PostgreSQL is not installed: `make test` installs it.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	return startPostgres(t, "", "")
}

func startPostgres(t testing.TB, also, network string) *Postgres {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Fatal("PostgreSQL is not installed (/usr/lib/postgresql/*/bin): run `make test`, which installs Debian's postgresql")
	}
	sort.Strings(bins)
	p := &Postgres{t: t, bin: filepath.Dir(bins[len(bins)-1]), also: also}
	dir, err := os.MkdirTemp("", "agentry-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	chownToPostgres(t, dir)
	if p.port, err = FreePort(); err != nil {
		t.Fatal(err)
	}
	p.run("initdb", "-D", filepath.Join(dir, "data"), "-U", "agentry", "--auth=trust", "-E", "UTF8", "--no-sync")
	if network != "" {
		hba, err := os.OpenFile(filepath.Join(dir, "data", "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = fmt.Fprintf(hba, "host all all %s trust\n", network)
			err = errors.Join(err, hba.Close())
		}
		if err != nil {
			t.Fatalf("failed to let %s in: %v", network, err)
		}
	}
	p.Start()
	p.run("createdb", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port), "-U", "agentry", "agentry")
	p.URL = fmt.Sprintf("postgres://agentry@127.0.0.1:%d/agentry?sslmode=disable", p.port)
	t.Cleanup(func() {
		_ = p.cmd("pg_ctl", "-D", filepath.Join(dir, "data"), "-m", "immediate", "stop").Run()
		_ = os.RemoveAll(dir)
	})
	return p
}

// Start starts the (stopped) server and waits until it accepts connections. A server pg_ctl
// gave up on while it still recovers (after an immediate stop, on a loaded machine) is waited
// for, not started a second time beside itself.
func (p *Postgres) Start() {
	p.t.Helper()
	data := filepath.Join(p.dir, "data")
	listen := "127.0.0.1"
	if p.also != "" {
		listen += "," + p.also
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=%s -k %s -c fsync=on -c max_connections=100", p.port, listen, p.dir)
	var out []byte
	var err error
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if p.cmd("pg_ctl", "-D", data, "status").Run() != nil {
			out, err = p.cmd("pg_ctl", "-D", data, "-l", filepath.Join(p.dir, "log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput()
		} else {
			out, err = p.cmd("pg_isready", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port)).CombinedOutput()
		}
		if err == nil {
			return
		}
	}
	log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
	p.t.Fatalf("PostgreSQL did not start: %v\n%s\nserver log:\n%s", err, out, log)
}

// Stop stops the server at once, as a crash or an outage would.
func (p *Postgres) Stop() {
	p.t.Helper()
	p.run("pg_ctl", "-D", filepath.Join(p.dir, "data"), "-m", "immediate", "-w", "stop")
}

func (p *Postgres) cmd(name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root.
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (p *Postgres) run(name string, args ...string) {
	p.t.Helper()
	var out []byte
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if out, err = p.cmd(name, args...).CombinedOutput(); err == nil {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
	p.t.Fatalf("%s %s: %v\n%s\nserver log:\n%s", name, strings.Join(args, " "), err, out, log)
}

func chownToPostgres(t testing.TB, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("no postgres user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
}
