//go:build unix

package llm

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup runs cmd in a process group of its own, and makes the context's
// cancellation (a timeout) kill the whole group: claude's children too.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killProcessGroup kills what is left of cmd's process group, once cmd has ended.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
