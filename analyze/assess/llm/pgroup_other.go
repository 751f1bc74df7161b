//go:build !unix

package llm

import "os/exec"

// ownProcessGroup: no process groups here; cancellation kills the process alone.
func ownProcessGroup(*exec.Cmd) {}

func killProcessGroup(*exec.Cmd) {}
