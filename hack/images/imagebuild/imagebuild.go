// Package imagebuild assembles Agentry's container images without a container engine: a
// static Go binary on a minimal non-root base (what distroless static:nonroot holds: passwd and
// group with nonroot 65532, CA certificates, /tmp), written as a docker-archive tarball that
// `docker load`, `podman load`, `kind load image-archive`, `minikube image load` and
// `ctr images import` all take. `make images` (hack/images) builds the product's two images
// with it; the cluster tests build their stand-ins (pause, CoreDNS) the same way.
package imagebuild

import (
	"archive/tar"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// NonRoot is the user and group the images run as (distroless's nonroot).
const NonRoot = 65532

// DefaultCABundle is where Debian keeps the CA bundle the base layer copies.
const DefaultCABundle = "/etc/ssl/certs/ca-certificates.crt"

// Spec is one image: a binary at Path in a base layer.
type Spec struct {
	Ref    string // e.g. ghcr.io/agentry-dev/agentry:0.1.0
	Binary string // the static binary on this machine
	Path   string // where it lands in the image (default /usr/local/bin/<base name of Ref's repository>)
	// Entrypoint and Cmd of the image config (default Entrypoint [Path]).
	Entrypoint, Cmd []string
	Ports           []string          // exposed, e.g. "4111/tcp"
	Labels          map[string]string // OCI annotations as labels
	// CABundle is copied to /etc/ssl/certs/ca-certificates.crt (default DefaultCABundle; "-"
	// for none).
	CABundle string
	// Created stamps the config and every file (default the Unix epoch: reproducible builds).
	Created time.Time
}

// Build makes the image of s.
func Build(s Spec) (v1.Image, error) {
	if s.Path == "" {
		return nil, fmt.Errorf("failed to build image %q: no path for the binary", s.Ref)
	}
	bin, err := os.ReadFile(s.Binary)
	if err != nil {
		return nil, fmt.Errorf("failed to read binary %q for image %q: %w", s.Binary, s.Ref, err)
	}
	base, err := baseLayer(s)
	if err != nil {
		return nil, fmt.Errorf("failed to build the base layer of %q: %w", s.Ref, err)
	}
	app, err := layer([]file{{name: s.Path, mode: 0o755, data: bin}}, s.Created)
	if err != nil {
		return nil, fmt.Errorf("failed to build the binary layer of %q: %w", s.Ref, err)
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), base, app)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	// containerd's CRI plugin skips an image whose platform does not match the node's.
	cf.OS, cf.Architecture = "linux", runtime.GOARCH
	cf.Created = v1.Time{Time: s.Created}
	cf.Config.User = fmt.Sprintf("%d:%d", NonRoot, NonRoot)
	cf.Config.WorkingDir = "/"
	cf.Config.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cf.Config.Entrypoint = s.Entrypoint
	if len(cf.Config.Entrypoint) == 0 {
		cf.Config.Entrypoint = []string{s.Path}
	}
	cf.Config.Cmd = s.Cmd
	cf.Config.Labels = s.Labels
	if len(s.Ports) > 0 {
		cf.Config.ExposedPorts = map[string]struct{}{}
		for _, p := range s.Ports {
			cf.Config.ExposedPorts[p] = struct{}{}
		}
	}
	return mutate.ConfigFile(img, cf)
}

// WriteArchive writes the images, each under its reference, into one docker-archive tarball.
func WriteArchive(path string, imgs map[string]v1.Image) error {
	refs := map[name.Reference]v1.Image{}
	for ref, img := range imgs {
		r, err := name.ParseReference(ref)
		if err != nil {
			return fmt.Errorf("failed to parse image reference %q: %w", ref, err)
		}
		refs[r] = img
	}
	tmp := path + ".tmp"
	if err := tarball.MultiRefWriteToFile(tmp, refs); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("failed to write image archive %q: %w", path, err)
	}
	return os.Rename(tmp, path)
}

type file struct {
	name string
	mode int64
	dir  bool
	uid  int
	data []byte
}

// baseLayer is what a static binary needs around it: users, CA certificates, a writable /tmp
// and the nonroot home.
func baseLayer(s Spec) (v1.Layer, error) {
	files := []file{
		{name: "etc", mode: 0o755, dir: true},
		{name: "etc/passwd", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", NonRoot, NonRoot))},
		{name: "etc/group", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:\nnobody:x:65534:\nnonroot:x:%d:\n", NonRoot))},
		{name: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{name: "home", mode: 0o755, dir: true},
		{name: "home/nonroot", mode: 0o700, dir: true, uid: NonRoot},
		{name: "tmp", mode: 0o1777, dir: true},
		{name: "usr", mode: 0o755, dir: true},
		{name: "usr/local", mode: 0o755, dir: true},
		{name: "usr/local/bin", mode: 0o755, dir: true},
	}
	ca := s.CABundle
	ca = cmp.Or(ca, DefaultCABundle)
	if ca != "-" {
		data, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("failed to read the CA bundle %q (Debian: apt-get install ca-certificates): %w", ca, err)
		}
		files = append(files, file{name: "etc/ssl", mode: 0o755, dir: true}, file{name: "etc/ssl/certs", mode: 0o755, dir: true},
			file{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: data})
	}
	return layer(files, s.Created)
}

// layer tars files (parents before children) into an uncompressed-then-gzipped layer.
func layer(files []file, created time.Time) (v1.Layer, error) {
	sort.SliceStable(files, func(i, j int) bool { return files[i].name < files[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		name := f.name
		for len(name) > 0 && name[0] == '/' {
			name = name[1:]
		}
		h := &tar.Header{Name: name, Mode: f.mode, Uid: f.uid, Gid: f.uid, ModTime: created, Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag, h.Name = tar.TypeDir, name+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if !f.dir {
			if _, err := tw.Write(f.data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
}
