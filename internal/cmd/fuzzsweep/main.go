package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	flag "github.com/spf13/pflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `Usage: fuzzsweep [--fuzztime D] [--retries N] [--go CMD] [PACKAGE ...]

Runs every fuzz target of the packages (default ./...) in turn, each alone for
--fuzztime, passing go test's output through. A failing target does not stop the
sweep; the sweep exits with status 1 and names every target that failed, and every
package whose targets could not be listed (its tests do not build).

A run whose only failure is "context deadline exceeded" at the --fuzztime deadline,
with no failing input written, is Go's fuzzing coordinator reporting its own deadline
(go.dev/issue/75804), not a failure of the code: that target is run again, up to
--retries times, and the summary says so. One that keeps ending that way fails.

Examples:
  fuzzsweep
  fuzzsweep --fuzztime 5s ./replay/...
  fuzzsweep --fuzztime 1000x --retries 0 ./replay/eventlogfile

Flags:
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	s := sweep{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("fuzzsweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.fuzztime, "fuzztime", "30s", "how long each target is fuzzed: a duration (30s, 2m) or a count of runs (1000x), as go test -fuzztime takes")
	fs.IntVar(&s.retries, "retries", 2, "times a target is run again when Go's fuzzing coordinator reported its own deadline as its failure (go.dev/issue/75804)")
	goCmd := fs.String("go", "go", "the go command")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "fuzzsweep: %v (see fuzzsweep --help)\n", err)
		return 2
	}
	var err error
	if s.timed, err = parseFuzztime(s.fuzztime); err == nil && s.retries < 0 {
		err = fmt.Errorf("--retries %d: want 0 or more", s.retries)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fuzzsweep: %v (see fuzzsweep --help)\n", err)
		return 2
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	s.list = func(ctx context.Context) ([]target, []error, error) { return listTargets(ctx, *goCmd, patterns) }
	s.fuzz = func(ctx context.Context, t target, out io.Writer) error {
		// -v: a target that skips itself says so only then.
		cmd := exec.CommandContext(ctx, *goCmd, "test", "-v", "-run", "^$", "-fuzz", "^"+t.name+"$", "-fuzztime", s.fuzztime, t.pkg)
		cmd.Stdout, cmd.Stderr = out, out
		return cmd.Run()
	}
	if err := s.run(ctx); err != nil {
		fmt.Fprintf(stderr, "fuzzsweep: FAILED: %v\n", err)
		return 1
	}
	return 0
}
