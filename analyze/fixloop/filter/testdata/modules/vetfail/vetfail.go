// Package vetfail builds but fails go vet: a printf verb mismatch, a
// self-assignment and a lock copied by value.
package vetfail

import (
	"fmt"
	"sync"
)

// Counter is a mutex-guarded counter.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Greet prints a greeting.
func Greet(name string) {
	fmt.Printf("hello %d\n", name)
}

// Reset sets n to itself, which vet reports.
func Reset(n int) int {
	n = n
	return n
}

// Snapshot copies the counter, lock included.
func Snapshot(c Counter) int {
	return c.n
}
