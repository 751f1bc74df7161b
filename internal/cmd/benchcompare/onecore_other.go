//go:build !linux

package main

import "errors"

// canPinOneCore says whether oneCore can run a command on one core here.
const canPinOneCore = false

// oneCore fails: pinning a command to one core is done on Linux only.
func oneCore([]string) error {
	return errors.New("running a command on one core is supported on Linux only")
}
