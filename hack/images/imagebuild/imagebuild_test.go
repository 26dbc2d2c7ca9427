package imagebuild

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestImageRunsNonRootWithItsBinary: the image's config runs the binary as 65532 on this
// platform, and its files hold the binary, users, CA certificates and a sticky /tmp; the
// archive loads back under its reference.
func TestImageRunsNonRootWithItsBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tool")
	testutil.Check(t, os.WriteFile(bin, []byte("#!binary"), 0o755))
	ca := filepath.Join(dir, "ca.crt")
	testutil.Check(t, os.WriteFile(ca, []byte("CERTS"), 0o644))
	img, err := Build(Spec{Ref: "example.com/tool:1", Binary: bin, Path: "/usr/local/bin/tool", Cmd: []string{"serve"}, Ports: []string{"4111/tcp"}, CABundle: ca})
	testutil.Check(t, err)
	out := filepath.Join(dir, "images.tar")
	testutil.Check(t, WriteArchive(out, map[string]v1.Image{"example.com/tool:1": img}))
	tag, _ := name.NewTag("example.com/tool:1")
	loaded, err := tarball.ImageFromPath(out, &tag)
	testutil.Check(t, err)
	cf, err := loaded.ConfigFile()
	testutil.Check(t, err)
	if cf.Config.User != "65532:65532" || cf.OS != "linux" || cf.Architecture != runtime.GOARCH || cf.Config.Entrypoint[0] != "/usr/local/bin/tool" || cf.Config.Cmd[0] != "serve" {
		t.Errorf("config %+v (os %s, arch %s)", cf.Config, cf.OS, cf.Architecture)
	}
	if _, ok := cf.Config.ExposedPorts["4111/tcp"]; !ok {
		t.Error("port 4111 not exposed")
	}
	files := map[string]*tar.Header{}
	contents := map[string]string{}
	rc := mutate.Extract(loaded)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		testutil.Check(t, err)
		files[h.Name] = h
		b, _ := io.ReadAll(tr)
		contents[h.Name] = string(b)
	}
	for name, want := range map[string]string{"usr/local/bin/tool": "#!binary", "etc/ssl/certs/ca-certificates.crt": "CERTS"} {
		if contents[name] != want {
			t.Errorf("%s = %q, want %q", name, contents[name], want)
		}
	}
	if h := files["usr/local/bin/tool"]; h == nil || h.Mode&0o111 == 0 {
		t.Error("the binary is not executable")
	}
	if h := dirEntry(files, "tmp"); h == nil || h.Mode&0o1777 != 0o1777 {
		t.Errorf("/tmp is not world-writable and sticky: %+v", h)
	}
	if h := dirEntry(files, "home/nonroot"); h == nil || h.Uid != NonRoot {
		t.Errorf("/home/nonroot is not the nonroot user's: %+v", h)
	}
	if c := contents["etc/passwd"]; !strings.Contains(c, "nonroot:x:65532:65532") {
		t.Errorf("passwd %q", c)
	}
}

// dirEntry finds a directory's header, with or without the trailing slash.
func dirEntry(files map[string]*tar.Header, name string) *tar.Header {
	if h := files[name+"/"]; h != nil {
		return h
	}
	return files[name]
}
