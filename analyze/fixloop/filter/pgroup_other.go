//go:build !unix

package filter

import "os/exec"

// ownProcessGroup leaves cmd as it is where process groups are not Unix's: the
// context's end kills the command, and its WaitDelay bounds the wait for the rest.
func ownProcessGroup(*exec.Cmd) {}

// killGroup does nothing where process groups are not Unix's.
func killGroup(*exec.Cmd) error { return nil }
