//go:build linux

package main

import (
	"testing"

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
