// Package slow has a function that never returns for negative input.
package slow

import "time"

// Wait sleeps until d has passed, polling; it loops forever when d is negative.
func Wait(d time.Duration) {
	for start := time.Now(); d < 0 || time.Since(start) < d; {
		time.Sleep(10 * time.Millisecond)
	}
}
