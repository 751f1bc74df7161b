//go:build !unix

package main

import "time"

// processCPU reports that this system gives no CPU time here.
func processCPU() (time.Duration, bool) { return 0, false }
