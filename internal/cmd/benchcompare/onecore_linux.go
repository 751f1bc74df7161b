//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// canPinOneCore says whether oneCore can run a command on one core here.
const canPinOneCore = true

// oneCore replaces this process with the command args, run on one core: it pins its
// own thread to the first CPU the process may run on, then executes args[0] in its
// place. The command keeps the pin — exec keeps the calling thread's affinity, and
// every thread a process makes inherits its maker's — and the Go runtime of a command
// so pinned starts with GOMAXPROCS 1: it runs as it would on a one-core machine. It
// returns only on failure.
func oneCore(args []string) error {
	if len(args) == 0 {
		return errors.New("no command")
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return err
	}
	runtime.LockOSThread() // the affinity set is this thread's, and exec must run on it
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return fmt.Errorf("sched_getaffinity: %w", err)
	}
	cpu := firstCPU(&allowed)
	if cpu < 0 {
		return errors.New("sched_getaffinity: no CPU allowed")
	}
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		return fmt.Errorf("sched_setaffinity to CPU %d: %w", cpu, err)
	}
	return syscall.Exec(path, args, os.Environ())
}

// firstCPU is the lowest CPU in set, or -1 when it is empty.
func firstCPU(set *unix.CPUSet) int {
	for cpu := range 8 * int(unsafe.Sizeof(*set)) {
		if set.IsSet(cpu) {
			return cpu
		}
	}
	return -1
}
