package benchcmp

import (
	"os"
	"syscall"
)

// maxRSS reads ru_maxrss, which macOS gives in bytes.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
