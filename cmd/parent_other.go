//go:build !linux

package cmd

// stopWithParent is Linux's only (prctl PR_SET_PDEATHSIG); elsewhere Ctrl-C stops make dev.
func stopWithParent() {}
