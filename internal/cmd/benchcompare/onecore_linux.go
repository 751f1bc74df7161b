//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// canPinOneCore says whether oneCore can run a command on one core here.
const canPinOneCore = true

// oneCore replaces this process with the command args[1:], run on one core: it pins
// its own thread to a CPU the process may run on — the n-th, counting round, for n in
// args[0] — then executes args[1] in its place. The command keeps the pin — exec keeps
// the calling thread's affinity, and every thread a process makes inherits its
// maker's — and the Go runtime of a command so pinned starts with GOMAXPROCS 1: it
// runs as it would on a one-core machine. It returns only on failure.
func oneCore(args []string) error {
	if len(args) < 2 {
		return errors.New("usage: one-core N COMMAND [ARG...]")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 0 {
		return fmt.Errorf("the CPU's number %q is not a number ≥ 0", args[0])
	}
	path, err := exec.LookPath(args[1])
	if err != nil {
		return err
	}
	runtime.LockOSThread() // the affinity set is this thread's, and exec must run on it
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return fmt.Errorf("sched_getaffinity: %w", err)
	}
	cpu := nthCPU(&allowed, n)
	if cpu < 0 {
		return errors.New("sched_getaffinity: no CPU allowed")
	}
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		return fmt.Errorf("sched_setaffinity to CPU %d: %w", cpu, err)
	}
	return syscall.Exec(path, args[1:], os.Environ())
}

// nthCPU is the n-th CPU of set (from 0, counting round), or -1 when it is empty.
func nthCPU(set *unix.CPUSet, n int) int {
	count := set.Count()
	if count == 0 {
		return -1
	}
	n %= count
	for cpu := range 8 * int(unsafe.Sizeof(*set)) {
		if set.IsSet(cpu) {
			if n == 0 {
				return cpu
			}
			n--
		}
	}
	return -1
}
