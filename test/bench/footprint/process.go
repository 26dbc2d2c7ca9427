package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// The runtime's processes: started until /readyz answers, loaded with generate requests, and
// their resident memory.

type proc struct {
	*testutil.Proc
	addr  string
	ready time.Duration
}

// start runs `bin args --addr 127.0.0.1:PORT` and polls /readyz until it answers 200: the
// time from exec to ready is what a rollout waits for (before the kubelet's probe period).
func (b *bench) start(bin string, args, env []string) (*proc, error) {
	port, err := testutil.FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, append(args, "--addr", addr)...)
	cmd.Env = append(append(testutil.CleanEnv(), "OPENAI_API_KEY=bench", "OPENAI_BASE_URL="+b.modelURL), env...)
	client := &http.Client{Timeout: time.Second}
	t0 := time.Now()
	tp, err := testutil.Run(cmd, nil)
	if err != nil {
		return nil, err
	}
	p := &proc{Proc: tp}
	for deadline := t0.Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		resp, err := client.Get("http://" + addr + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				p.addr, p.ready = addr, time.Since(t0)
				return p, nil
			}
		}
		select {
		case <-p.Exited():
			return nil, fmt.Errorf("%s %v exited:\n%s", bin, args, p.Output())
		default:
		}
	}
	p.Stop()
	return nil, fmt.Errorf("%s %v did not get ready:\n%s", bin, args, p.Output())
}

// clients is how many users (client addresses) the load comes from.
const clients = 256

// load sends b.requests generate requests, alternating between the agents, from
// b.concurrency connections on behalf of clients users; every answer must be complete.
func (b *bench) load(addr string) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: b.concurrency}}
	body := `{"messages":[{"id":"u1","role":"user","content":"Say something short."}]}`
	var next, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < b.concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.requests) {
					return
				}
				agent := []string{"chef", "weather"}[i%2]
				req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/agents/"+agent+"/generate", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				// Users behind a proxy (loopback is trusted), each within the per-IP rate limit.
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.0.%d.%d", i%clients/256, i%clients%256))
				resp, err := client.Do(req)
				if err == nil {
					data, rerr := io.ReadAll(resp.Body)
					resp.Body.Close()
					if rerr == nil && resp.StatusCode == http.StatusOK && bytes.Contains(data, []byte("thirty words")) {
						continue
					}
					err = fmt.Errorf("%s: %d %s", agent, resp.StatusCode, data)
				}
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err)
			}
		}()
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d of %d generate requests failed, the first: %v", n, b.requests, firstErr.Load())
	}
	return nil
}

func readRSS(pid string) (rss, float64, error) {
	m, err := testutil.MemoryStatus(pid)
	return rss{m["VmRSS"], m["RssAnon"], m["RssFile"]}, m["VmHWM"], err
}
