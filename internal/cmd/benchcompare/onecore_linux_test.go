//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestNthCPU(t *testing.T) {
	var set unix.CPUSet
	for _, cpu := range []int{1, 3, 64} {
		set.Set(cpu)
	}
	for n, want := range []int{1, 3, 64, 1, 3} {
		if got := nthCPU(&set, n); got != want {
			t.Errorf("nthCPU(%d) = %d, want %d", n, got, want)
		}
	}
	var empty unix.CPUSet
	if got := nthCPU(&empty, 0); got != -1 {
		t.Errorf("nthCPU of no CPU = %d", got)
	}
}

// TestOnCores: the on-cores subcommand runs every process at once, each given its
// number in place of {i} and pinned to one core; a process that fails fails the set at
// once, naming it and quoting its stderr, and the others are stopped.
func TestOnCores(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	processes := func(mode string, n string) (string, error) {
		t.Setenv(childEnv, mode)
		var out bytes.Buffer
		err := onCores(context.Background(), exe, []string{n, exe, "-test.run", "^$", "--shard", "{i}/" + n}, &out)
		if err != nil && strings.Contains(err.Error(), "operation not permitted") {
			t.Skipf("this machine refuses to set a CPU affinity: %v", err)
		}
		return out.String(), err
	}
	out, err := processes("cores", "3")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	slices.Sort(lines)
	if want := []string{"1 1 0/3", "1 1 1/3", "1 1 2/3"}; !slices.Equal(lines, want) {
		t.Errorf("the processes printed %q, want %q (GOMAXPROCS, NumCPU, shard)", lines, want)
	}

	// The processes' peak RSS, summed: two that hold 64 MiB each at once held 128 MiB,
	// which wait4 does not say (it gives the caller the largest).
	sumFile := filepath.Join(t.TempDir(), "rss")
	t.Setenv(rssSumEnv, sumFile)
	if _, err := processes("hold", "2"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(sumFile); err != nil {
		t.Error(err)
	} else if sum, err := strconv.ParseInt(string(b), 10, 64); err != nil || sum < 128<<20 {
		t.Errorf("summed peak RSS %q (%v), want at least 128 MiB", b, err)
	}
	os.Unsetenv(rssSumEnv)

	start := time.Now()
	_, err = processes("shard-fails", "2")
	if err == nil || !strings.Contains(err.Error(), "process 1 of 2") || !strings.Contains(err.Error(), "cannot replay shard 1") {
		t.Errorf("a failing process: %v, want process 1 of 2 named and its stderr quoted", err)
	}
	if strings.Contains(fmt.Sprint(err), "process 0 of 2") {
		t.Errorf("the process stopped for another's failure is reported as failing: %v", err)
	}
	if waited := time.Since(start); waited > 50*time.Second {
		t.Errorf("the set waited %v for the shard that would run a minute", waited)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"0", exe}, `"0" is not a number ≥ 1`},
		{[]string{"2"}, "usage: on-cores N COMMAND"},
		{[]string{"2", filepath.Join(t.TempDir(), "missing")}, "of 2: exit status 1; its stderr ends:\nbenchcompare one-core: exec: \""}, // whichever fails first
	} {
		if err := onCores(context.Background(), exe, tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("on-cores %q: %v, want %q", tt.args, err, tt.want)
		}
	}
}
