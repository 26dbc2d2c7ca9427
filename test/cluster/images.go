package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/agentry-dev/agentry/hack/images/imagebuild"
)

// nodeImages builds the node's own images into one archive: the pod sandbox (pause, built from
// ./pause) and CoreDNS (the binary setup-cluster.sh built from its module).
func nodeImages(out, nodeBin string) (string, error) {
	pause := filepath.Join(filepath.Dir(out), "pause")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", pause, "github.com/agentry-dev/agentry/test/cluster/pause")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("failed to build the pause binary: %w: %s", err, b)
	}
	specs := []imagebuild.Spec{
		{Ref: PauseImage, Binary: pause, Path: "/pause", CABundle: "-"},
		{Ref: CoreDNSImage, Binary: filepath.Join(nodeBin, "coredns"), Path: "/coredns", Cmd: []string{"-conf", "/etc/coredns/Corefile"}, CABundle: "-"},
	}
	imgs := map[string]v1.Image{}
	for _, s := range specs {
		img, err := imagebuild.Build(s)
		if err != nil {
			return "", err
		}
		imgs[s.Ref] = img
	}
	return out, imagebuild.WriteArchive(out, imgs)
}
