//go:build unix

package filter

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup runs cmd in a process group of its own and makes the context's end
// kill the whole group: a check's command (go test, a shell) starts processes of its
// own, which killing it alone would leave running.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills what is left of cmd's process group: once the command has ended, the
// processes it started and left behind.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
