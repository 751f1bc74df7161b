// Package testbuildfail builds, but its test file does not.
package testbuildfail

// Double returns 2x.
func Double(x int) int { return 2 * x }
