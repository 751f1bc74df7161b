package benchcmp

import (
	"os"
	"syscall"
)

// maxRSS reads ru_maxrss, which Linux gives in KiB.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}
