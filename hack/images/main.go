// Command images builds Agentry's two container images from binaries built by `make build`, with
// no container engine (hack/images/imagebuild), into one docker-archive tarball:
//
//	go run ./hack/images --tag 0.1.0 --out bin/images/agentry-images.tar
//
// agentry          the operator, the chat service, serve and dev (bin/agentry)
// agentry-runtime  the agent pods: agentry built with -tags agentry_runtime (bin/agentry-runtime)
//
// Load them with `docker load -i`, `podman load -i`, `kind load image-archive`, `minikube image
// load` or `ctr -n k8s.io images import`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/agentry-dev/agentry/hack/images/imagebuild"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run() error {
	repo := flag.String("repository", "ghcr.io/agentry-dev/agentry", "repository of the agentry image; the runtime's is the same with -runtime appended")
	tag := flag.String("tag", "dev", "tag of both images (make images: the chart's appVersion)")
	full := flag.String("agentry", "bin/agentry", "the agentry binary (make build)")
	rt := flag.String("runtime", "bin/agentry-runtime", "the agentry-runtime binary (make build)")
	out := flag.String("out", "bin/images/agentry-images.tar", "the docker-archive tarball to write")
	ca := flag.String("ca-bundle", imagebuild.DefaultCABundle, "CA certificates to put in the images")
	flag.Parse()

	labels := map[string]string{
		"org.opencontainers.image.source":  "https://github.com/agentry-dev/agentry",
		"org.opencontainers.image.version": *tag,
		"org.opencontainers.image.title":   "agentry",
	}
	rtLabels := map[string]string{}
	for k, v := range labels {
		rtLabels[k] = v
	}
	rtLabels["org.opencontainers.image.title"] = "agentry-runtime"
	specs := imageSpecs(*repo, *tag, *full, *rt, *ca, labels, rtLabels)
	imgs := map[string]v1.Image{}
	for _, s := range specs {
		s.Created = time.Unix(0, 0).UTC()
		img, err := imagebuild.Build(s)
		if err != nil {
			return err
		}
		imgs[s.Ref] = img
		d, err := img.Digest()
		if err != nil {
			return err
		}
		fmt.Printf("%s %s\n", s.Ref, d)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := imagebuild.WriteArchive(*out, imgs); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", *out)
	return nil
}

// imageSpecs are the two images; the Dockerfile's stages agentry and runtime say the same
// (main_test.go holds them to it).
func imageSpecs(repo, tag, full, rt, ca string, labels, rtLabels map[string]string) []imagebuild.Spec {
	return []imagebuild.Spec{
		// Everything but the agent pods; its CMD serves hand-written manifests.
		{Ref: repo + ":" + tag, Binary: full, Path: "/usr/local/bin/agentry", Cmd: []string{"serve", "--config", "/etc/agentry/config"},
			Ports: []string{"4111/tcp"}, Labels: labels, CABundle: ca},
		// The agent pods: serves the config the operator renders.
		{Ref: repo + "-runtime:" + tag, Binary: rt, Path: "/usr/local/bin/agentry", Cmd: []string{"serve", "--config", "/etc/agentry/config", "--prevalidated"},
			Ports: []string{"4111/tcp"}, Labels: rtLabels, CABundle: ca},
	}
}
