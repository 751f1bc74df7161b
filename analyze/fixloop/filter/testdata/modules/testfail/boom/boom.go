// Package boom is fine; its test panics in the test file itself.
package boom

// Lookup returns the value stored under key, or nil.
func Lookup(m map[string]*int, key string) *int { return m[key] }
