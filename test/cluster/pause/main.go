// Command pause is the cluster tests' pod sandbox image (containerd's sandbox_image): it holds
// a pod's namespaces and exits when told to stop. Built into an image by the cluster harness.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}
