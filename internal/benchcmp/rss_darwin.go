package benchcmp

import (
	"os"
	"syscall"
)

// MaxRSS is the peak RSS of a process that has exited: ru_maxrss, which macOS gives
// in bytes.
func MaxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
