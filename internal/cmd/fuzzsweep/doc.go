// Command fuzzsweep runs every fuzz target of the given packages in turn, each for
// --fuzztime (make fuzz).
//
// Usage:
//
//	fuzzsweep [--fuzztime D] [--retries N] [--go CMD] [PACKAGE ...]
//
// The packages (default ./...) are listed with go list, each package's fuzz targets
// with go test -list, and each target is run alone with go test -run '^$' -fuzz
// '^Target$' -fuzztime D, its output passed through as it comes. A target that fails
// does not stop the sweep: the others still run, and the sweep exits with status 1
// naming every target that failed, with why (a failing input written to its corpus
// folder, testdata/fuzz/Target, or the failure go test printed), and every package
// whose targets could not be listed (its tests do not build).
//
// What it does not take for a failure of the code: Go's fuzzing coordinator, up to Go
// 1.26 at least, can report its own -fuzztime deadline as the target's failure. When
// the deadline fires, the coordinator compares the error it stops with against the
// workers' context, which may not be cancelled yet, and go test then prints "---
// FAIL: Target" with "context deadline exceeded" as the only message, having written
// no failing input (go.dev/issue/75804). A run that ends that way — that message and
// nothing else under its FAIL line, no panic, no new file in the target's corpus
// folder, with a time-based --fuzztime, the only kind the race comes with — is run
// again, up to --retries times, and the summary names it. A target that keeps ending
// that way fails the sweep: nothing is turned into a pass without a run that passed.
//
// What it refuses: a --fuzztime that go test would not take (a positive duration, or
// a positive count of runs such as 1000x), a negative --retries.
//
// Examples:
//
//	fuzzsweep
//	fuzzsweep --fuzztime 5s ./replay/...
//	fuzzsweep --fuzztime 1000x --retries 0 ./replay/eventlogfile
package main
