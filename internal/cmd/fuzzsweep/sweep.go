package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// target is one fuzz target: its package's import path and folder, and its name.
type target struct {
	pkg, dir, name string
}

func (t target) String() string { return t.pkg + " " + t.name }

// corpusDir is the folder go test writes a target's failing inputs into.
func (t target) corpusDir() string { return filepath.Join(t.dir, "testdata", "fuzz", t.name) }

// parseFuzztime checks a --fuzztime as go test takes it — a positive duration, or a
// positive count of runs followed by x — and reports whether it is a duration.
func parseFuzztime(s string) (timed bool, err error) {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		if c, err := strconv.ParseUint(n, 10, 63); err == nil && c > 0 {
			return false, nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return true, nil
	}
	return false, fmt.Errorf("--fuzztime %q: want a positive duration (30s) or a positive count of runs (1000x)", s)
}

// listTargets lists the fuzz targets of the packages patterns name, in go list's
// order of packages and go test -list's order within one. A package whose targets
// cannot be listed (its tests do not build) is left out, with its error in unlisted;
// err is go list's own failure.
func listTargets(ctx context.Context, goCmd string, patterns []string) (targets []target, unlisted []error, err error) {
	out, err := command(ctx, goCmd, append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}"}, patterns...)...)
	if err != nil {
		return nil, nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, dir, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		names, err := command(ctx, goCmd, "test", "-list", "^Fuzz", pkg)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			unlisted = append(unlisted, err)
			continue
		}
		for _, name := range strings.Fields(string(names)) {
			if strings.HasPrefix(name, "Fuzz") {
				targets = append(targets, target{pkg: pkg, dir: dir, name: name})
			}
		}
	}
	return targets, unlisted, nil
}

// command runs the go command and returns its standard output; its error says what
// it printed on standard error.
func command(ctx context.Context, goCmd string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, goCmd, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", goCmd, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// sweep runs every target in turn.
type sweep struct {
	fuzztime string
	timed    bool // fuzztime is a duration (the coordinator's deadline race needs one)
	retries  int
	stdout   io.Writer
	stderr   io.Writer
	list     func(ctx context.Context) (targets []target, unlisted []error, err error) // see listTargets
	// fuzz runs one target, writing go test's output to out; its error is the run's
	// exit.
	fuzz func(ctx context.Context, t target, out io.Writer) error
}

// outcome is what a target's runs came to.
type outcome struct {
	t       target
	runs    int    // runs made, re-runs included
	failed  string // why it failed; "" when it passed
	skipped string // why it skipped itself; "" when it fuzzed
}

// run runs every target and prints a summary; its error names the targets that
// failed.
func (s *sweep) run(ctx context.Context) error {
	targets, unlisted, err := s.list(ctx)
	if err != nil {
		return err
	}
	if len(targets) == 0 && len(unlisted) == 0 {
		return errors.New("no fuzz targets in the packages")
	}
	outcomes := make([]outcome, 0, len(targets))
	for _, t := range targets {
		o := s.target(ctx, t)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted at %s: %w", t, err)
		}
		outcomes = append(outcomes, o)
	}
	return s.summary(outcomes, unlisted)
}

// target runs one target until it passes, fails, or has raced with the deadline
// retries+1 times.
func (s *sweep) target(ctx context.Context, t target) outcome {
	o := outcome{t: t}
	for {
		fmt.Fprintf(s.stdout, "fuzz %s\n", t)
		before := corpusFiles(t.corpusDir())
		var tail tailBuffer
		err := s.fuzz(ctx, t, io.MultiWriter(s.stdout, &tail))
		o.runs++
		if ctx.Err() != nil {
			return o
		}
		v, why := classify(t.name, err, tail.Bytes(), newFile(before, corpusFiles(t.corpusDir())), s.timed)
		switch {
		case v == passed:
			return o
		case v == skipped:
			o.skipped = why
			return o
		case v == raced && o.runs <= s.retries:
			fmt.Fprintf(s.stderr, "fuzzsweep: %s: %s; running it again (%d of %d)\n", t, why, o.runs, s.retries)
		default:
			o.failed = why
			return o
		}
	}
}

// summary prints what the sweep came to; its error names the targets that failed and
// the packages whose targets could not be listed.
func (s *sweep) summary(outcomes []outcome, unlisted []error) error {
	pkgs := map[string]bool{}
	var rerun, failed, skips []string
	for _, o := range outcomes {
		pkgs[o.t.pkg] = true
		switch {
		case o.failed != "":
			failed = append(failed, fmt.Sprintf("%s (%s)", o.t, o.failed))
		case o.skipped != "":
			skips = append(skips, fmt.Sprintf("%s (%s)", o.t, o.skipped))
		case o.runs > 1:
			rerun = append(rerun, o.t.String())
		}
	}
	notListed := ""
	if len(unlisted) > 0 {
		notListed = fmt.Sprintf("; the targets of %s not listed", count(len(unlisted), "more package"))
	}
	skipped := ""
	if len(skips) > 0 {
		skipped = fmt.Sprintf(", %d skipped without fuzzing", len(skips))
	}
	fmt.Fprintf(s.stdout, "fuzzsweep: %s in %s, --fuzztime %s each: %d passed, %d failed%s%s\n",
		count(len(outcomes), "fuzz target"), count(len(pkgs), "package"), s.fuzztime, len(outcomes)-len(failed)-len(skips), len(failed),
		skipped, notListed)
	if len(skips) > 0 {
		fmt.Fprintf(s.stdout, "fuzzsweep: skipped by their own test code: %s\n", strings.Join(skips, "; "))
	}
	if len(rerun) > 0 {
		fmt.Fprintf(s.stdout, "fuzzsweep: passed on a re-run, after Go's fuzzing coordinator reported its own deadline as a failure (go.dev/issue/75804): %s\n",
			strings.Join(rerun, ", "))
	}
	var errs []error
	if len(failed) > 0 {
		errs = append(errs, fmt.Errorf("%d of %s: %s", len(failed), count(len(outcomes), "fuzz target"), strings.Join(failed, "; ")))
	}
	if len(unlisted) > 0 {
		errs = append(errs, fmt.Errorf("the fuzz targets of %s could not be listed: %w", count(len(unlisted), "package"), errors.Join(unlisted...)))
	}
	return errors.Join(errs...)
}

// count is n things, one of which is called one.
func count(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// verdict is what one run of a target came to.
type verdict int

const (
	passed  verdict = iota
	skipped         // the target called t.Skip or f.Skip: it passed without fuzzing
	raced           // Go's fuzzing coordinator reported its own deadline (go.dev/issue/75804)
	failed
)

// deadlineMessage is what go test prints under the FAIL line when the coordinator
// reports its own deadline.
const deadlineMessage = "context deadline exceeded"

// classify tells what a run of target name came to from its exit (err), the end of
// its output, whether a new file appeared in its corpus folder (written), and whether
// --fuzztime was a duration; why says it for any verdict but passed.
func classify(name string, err error, out []byte, written, timed bool) (v verdict, why string) {
	if err == nil {
		// go test -v says "--- SKIP: Name (…)" and, indented under it, why.
		lines := strings.Split(string(out), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "--- SKIP: "+name+" (") {
				why = "skipped"
				if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") {
					why = "skipped: " + strings.TrimSpace(lines[i+1])
				}
				return skipped, why
			}
		}
		return passed, ""
	}
	if written || bytes.Contains(out, []byte("Failing input written to")) {
		return failed, "a failing input was written to testdata/fuzz/" + name
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return failed, err.Error()
	}
	lines := strings.Split(string(out), "\n")
	failLine := -1
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "--- FAIL: "):
			if failLine >= 0 || !strings.HasPrefix(l, "--- FAIL: "+name+" (") {
				return failed, lastFailure(lines, err)
			}
			failLine = i
		case strings.HasPrefix(l, "panic: "), strings.HasPrefix(l, "fatal error: "):
			return failed, strings.TrimSpace(l)
		}
	}
	if failLine < 0 {
		return failed, lastFailure(lines, err)
	}
	if messages := messagesUnder(lines, failLine); len(messages) != 1 || messages[0] != deadlineMessage {
		return failed, lastFailure(lines, err)
	}
	if !timed {
		// A count of runs sets no deadline: this is no race with one.
		return failed, deadlineMessage + ", with a --fuzztime that sets no deadline"
	}
	return raced, `"` + deadlineMessage + `" at the --fuzztime deadline, no failing input written: Go's fuzzing coordinator reporting its own deadline (go.dev/issue/75804)`
}

// lastFailure says why a run failed from its output: the messages under its last FAIL
// line (the nested FAIL lines of subtests skipped, the coordinator's deadline left out
// when there are others), else the compiler's first error, else the last line go test
// printed on a failed package, else the run's exit.
func lastFailure(lines []string, err error) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(lines[i], "--- FAIL: ") {
			continue
		}
		var messages []string
		for _, m := range messagesUnder(lines, i) {
			if !strings.HasPrefix(m, "--- FAIL: ") && m != deadlineMessage {
				messages = append(messages, m)
			}
		}
		switch {
		case len(messages) > 3:
			messages = append(messages[:3], "…")
		case len(messages) == 0:
			messages = []string{deadlineMessage}
		}
		return strings.Join(messages, "; ")
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "# ") && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			return strings.TrimSpace(lines[i+1])
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "FAIL\t") {
			return strings.ReplaceAll(strings.TrimSpace(lines[i]), "\t", " ")
		}
	}
	return err.Error()
}

// messagesUnder returns the messages under lines[i], a FAIL line: the indented lines
// after it, trimmed, blank ones skipped, up to the first line that is not indented.
func messagesUnder(lines []string, i int) []string {
	var messages []string
	for _, l := range lines[i+1:] {
		m := strings.TrimSpace(l)
		switch {
		case m == "":
		case !strings.HasPrefix(l, " "):
			return messages
		default:
			messages = append(messages, m)
		}
	}
	return messages
}

// corpusFiles lists the names in a target's corpus folder (none when it is absent).
func corpusFiles(dir string) map[string]bool {
	entries, _ := os.ReadDir(dir)
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// newFile reports whether after holds a name before does not.
func newFile(before, after map[string]bool) bool {
	for name := range after {
		if !before[name] {
			return true
		}
	}
	return false
}

// tailKeep is how much of a run's output tailBuffer keeps: what go test prints at
// the end of a run is all classify reads.
const tailKeep = 1 << 20

// tailBuffer keeps the last tailKeep bytes written to it (at most twice that held).
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailKeep {
		t.b = append(t.b[:0], t.b[len(t.b)-tailKeep:]...)
	}
	return len(p), nil
}

// Bytes returns the end of what was written: at least the last tailKeep bytes.
func (t *tailBuffer) Bytes() []byte { return t.b }
