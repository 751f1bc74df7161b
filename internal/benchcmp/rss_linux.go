package benchcmp

import (
	"os"
	"syscall"
)

// MaxRSS is the peak RSS of a process that has exited: ru_maxrss, which Linux gives
// in KiB. For a process that waited for others, Linux gives the largest of its own and
// its waited-for descendants' peaks, never their sum.
func MaxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}
