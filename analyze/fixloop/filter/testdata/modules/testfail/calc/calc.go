// Package calc has bugs that its tests catch.
package calc

// Add returns a+b, but is off by one.
func Add(a, b int) int { return a + b + 1 }

// Abs returns |x|, but is wrong for negative x.
func Abs(x int) int { return x }
