//go:build unix

package reports

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists (one we may not signal
// counts: it is alive).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// canCheckProcesses: signal 0 tells whether a pid is alive.
const canCheckProcesses = true
