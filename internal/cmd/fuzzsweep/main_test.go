package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/internal/doctest"
)

// exitError is a real *exec.ExitError of status 1, as go test's failing exit is.
func exitError(t testing.TB) error {
	t.Helper()
	err := exec.Command("sh", "-c", "exit 1").Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("sh -c 'exit 1': %v", err)
	}
	return err
}

// The outputs below are go test's, as go1.26 prints them.
const (
	racedOutput = `fuzz: elapsed: 18s, execs: 990148 (60929/sec), new interesting: 21 (total: 272)
fuzz: elapsed: 20s, execs: 1119404 (61866/sec), new interesting: 24 (total: 275)
--- FAIL: FuzzDecodeEvent (20.19s)
    context deadline exceeded
FAIL
exit status 1
FAIL	github.com/loopwatch/loopwatch/analyze/assess/eventlog	20.212s
`
	crashOutput = `fuzz: elapsed: 0s, gathering baseline coverage: 0/12 completed
fuzz: elapsed: 1s, execs: 3120 (3120/sec), new interesting: 0 (total: 12)
--- FAIL: FuzzDecodeEvent (1.31s)
    --- FAIL: FuzzDecodeEvent (0.00s)
        eventlog_test.go:366: round trip: {} != {Kind:x} (<nil>)

    Failing input written to testdata/fuzz/FuzzDecodeEvent/582528ddfad69eb5
    To re-run:
    go test -run=FuzzDecodeEvent/582528ddfad69eb5
FAIL
exit status 1
FAIL	github.com/loopwatch/loopwatch/analyze/assess/eventlog	1.333s
`
	seedOutput = `--- FAIL: FuzzDecodeEvent (0.01s)
    --- FAIL: FuzzDecodeEvent/seed#1 (0.00s)
        eventlog_test.go:366: round trip: {} != {Kind:x} (<nil>)
FAIL
exit status 1
FAIL	github.com/loopwatch/loopwatch/analyze/assess/eventlog	0.033s
`
	buildOutput = `# github.com/loopwatch/loopwatch/analyze/assess/eventlog [github.com/loopwatch/loopwatch/analyze/assess/eventlog.test]
./eventlog_test.go:3:1: syntax error: non-declaration statement outside function body
FAIL	github.com/loopwatch/loopwatch/analyze/assess/eventlog [build failed]
`
)

func TestClassify(t *testing.T) {
	exit := exitError(t)
	for _, tc := range []struct {
		name    string
		err     error
		out     string
		written bool
		timed   bool
		want    verdict
		why     string // a part of why
	}{
		{name: "passed", out: "fuzz: elapsed: 20s\nPASS\nok\tpkg\t20.1s\n", timed: true, want: passed},
		{name: "the coordinator's deadline", err: exit, out: racedOutput, timed: true, want: raced, why: "go.dev/issue/75804"},
		{name: "cut to its end", err: exit, out: racedOutput[strings.Index(racedOutput, "--- FAIL"):], timed: true, want: raced},
		{name: "a count of runs sets no deadline", err: exit, out: racedOutput, want: failed, why: "sets no deadline"},
		{name: "a failing input written", err: exit, out: racedOutput, written: true, timed: true, want: failed, why: "testdata/fuzz/FuzzDecodeEvent"},
		{name: "a crasher", err: exit, out: crashOutput, timed: true, want: failed, why: "testdata/fuzz/FuzzDecodeEvent"},
		{name: "a seed that fails", err: exit, out: seedOutput, timed: true, want: failed, why: "round trip"},
		{name: "a build that fails", err: exit, out: buildOutput, timed: true, want: failed, why: "syntax error: non-declaration statement"},
		{name: "the deadline and another message", err: exit, timed: true, want: failed, why: "x_test.go:9: slow",
			out: "--- FAIL: FuzzDecodeEvent (20.1s)\n    context deadline exceeded\n    x_test.go:9: slow\nFAIL\n"},
		{name: "the deadline under another target", err: exit, timed: true, want: failed, why: deadlineMessage,
			out: "--- FAIL: FuzzOther (20.1s)\n    context deadline exceeded\nFAIL\n"},
		{name: "two FAIL lines", err: exit, timed: true, want: failed,
			out: "--- FAIL: FuzzDecodeEvent (20.1s)\n    context deadline exceeded\n--- FAIL: FuzzDecodeEvent (0.1s)\n    boom\nFAIL\n"},
		{name: "a panic beside it", err: exit, timed: true, want: failed, why: "panic: boom",
			out: "panic: boom\n--- FAIL: FuzzDecodeEvent (20.1s)\n    context deadline exceeded\nFAIL\n"},
		{name: "no FAIL line", err: exit, out: "signal: killed\n", timed: true, want: failed, why: "exit status 1"},
		{name: "go not run", err: errors.New(`exec: "go": executable file not found in $PATH`), out: racedOutput, timed: true, want: failed, why: "executable file not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, why := classify("FuzzDecodeEvent", tc.err, []byte(tc.out), tc.written, tc.timed)
			if v != tc.want || !strings.Contains(why, tc.why) || (v != passed) != (why != "") {
				t.Errorf("classify = %d, %q; want %d with %q", v, why, tc.want, tc.why)
			}
		})
	}
}

func FuzzClassify(f *testing.F) {
	for _, out := range []string{racedOutput, crashOutput, seedOutput, buildOutput, ""} {
		f.Add(out, true, true)
	}
	exit := exitError(f)
	f.Fuzz(func(t *testing.T, out string, failedExit, timed bool) {
		var err error
		if failedExit {
			err = exit
		}
		v, why := classify("FuzzDecodeEvent", err, []byte(out), false, timed)
		switch {
		case !failedExit && (v != passed || why != ""):
			t.Fatalf("a run that exited 0: %d, %q", v, why)
		case failedExit && (v == passed || why == ""):
			t.Fatalf("a run that failed: %d, %q", v, why)
		case v == raced && (!timed || strings.Contains(out, "Failing input written to") || !strings.Contains(out, deadlineMessage)):
			t.Fatalf("raced on %q (timed %v)", out, timed)
		}
		if v, _ := classify("FuzzDecodeEvent", err, []byte(out), true, timed); failedExit && v != failed {
			t.Fatalf("a failing input written, yet %d", v)
		}
	})
}

func TestParseFuzztime(t *testing.T) {
	for _, tc := range []struct {
		in    string
		timed bool
		ok    bool
	}{
		{"30s", true, true}, {"2m", true, true}, {"1000x", false, true}, {"1x", false, true},
		{"0s", false, false}, {"-1s", false, false}, {"0x", false, false}, {"x", false, false},
		{"-3x", false, false}, {"30", false, false}, {"", false, false}, {"1.5x", false, false},
	} {
		timed, err := parseFuzztime(tc.in)
		if (err == nil) != tc.ok || timed != tc.timed {
			t.Errorf("parseFuzztime(%q) = %v, %v", tc.in, timed, err)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	var b tailBuffer
	chunk := strings.Repeat("x", 4096)
	for range 3 * tailKeep / len(chunk) {
		b.Write([]byte(chunk))
	}
	b.Write([]byte("the end\n"))
	if got := b.Bytes(); len(got) < tailKeep || len(got) > 2*tailKeep || !strings.HasSuffix(string(got), "xthe end\n") {
		t.Errorf("%d bytes kept, ending %q", len(got), got[max(0, len(got)-10):])
	}
}

// scripted is a sweep over fake targets whose runs print the outputs of script in
// turn (a missing one passes), recording the runs made.
func scripted(t *testing.T, retries int, timed bool, script map[string][]string, unlisted []error) (*sweep, *strings.Builder, *strings.Builder, map[string]int) {
	t.Helper()
	exit := exitError(t)
	dir := t.TempDir()
	var targets []target
	for _, name := range []string{"FuzzA", "FuzzB", "FuzzC"} {
		targets = append(targets, target{pkg: "example.com/p", dir: dir, name: name})
	}
	var stdout, stderr strings.Builder
	runs := map[string]int{}
	s := &sweep{fuzztime: "20s", timed: timed, retries: retries, stdout: &stdout, stderr: &stderr,
		list: func(context.Context) ([]target, []error, error) { return targets, unlisted, nil },
		fuzz: func(_ context.Context, tg target, out io.Writer) error {
			n := runs[tg.name]
			runs[tg.name]++
			outs := script[tg.name]
			if n >= len(outs) || outs[n] == "" {
				fmt.Fprintf(out, "PASS\nok\t%s\t20.1s\n", tg.pkg)
				return nil
			}
			o := strings.ReplaceAll(outs[n], "FuzzDecodeEvent", tg.name)
			if strings.Contains(o, "Failing input written to") {
				if err := os.MkdirAll(tg.corpusDir(), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(tg.corpusDir(), fmt.Sprint(n)), []byte("go test fuzz v1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			io.WriteString(out, o)
			if strings.Contains(o, "--- SKIP: ") {
				return nil // a target that skips itself exits 0
			}
			return exit
		}}
	return s, &stdout, &stderr, runs
}

func TestSweep(t *testing.T) {
	for _, tc := range []struct {
		name     string
		retries  int
		timed    bool
		script   map[string][]string
		unlisted []error
		runs     map[string]int
		failed   []string // parts of the error; none: the sweep passes
		summary  string
	}{
		{name: "every target passes", retries: 2, timed: true,
			runs: map[string]int{"FuzzA": 1, "FuzzB": 1, "FuzzC": 1}, summary: "3 fuzz targets in 1 package, --fuzztime 20s each: 3 passed, 0 failed"},
		{name: "a race, then a pass", retries: 2, timed: true, script: map[string][]string{"FuzzB": {racedOutput}},
			runs: map[string]int{"FuzzA": 1, "FuzzB": 2, "FuzzC": 1}, summary: "passed on a re-run, after Go's fuzzing coordinator reported its own deadline as a failure (go.dev/issue/75804): example.com/p FuzzB"},
		{name: "races past the retries", retries: 2, timed: true, script: map[string][]string{"FuzzA": {racedOutput, racedOutput, racedOutput}},
			runs: map[string]int{"FuzzA": 3, "FuzzB": 1, "FuzzC": 1}, failed: []string{"1 of 3 fuzz targets", "example.com/p FuzzA", "go.dev/issue/75804"}},
		{name: "no retries", retries: 0, timed: true, script: map[string][]string{"FuzzA": {racedOutput}},
			runs: map[string]int{"FuzzA": 1, "FuzzB": 1, "FuzzC": 1}, failed: []string{"example.com/p FuzzA"}},
		{name: "a crasher is not run again, and the others still run", retries: 2, timed: true,
			script: map[string][]string{"FuzzA": {crashOutput}, "FuzzC": {seedOutput}},
			runs:   map[string]int{"FuzzA": 1, "FuzzB": 1, "FuzzC": 1},
			failed: []string{"2 of 3 fuzz targets", "example.com/p FuzzA (a failing input was written to testdata/fuzz/FuzzA)", "example.com/p FuzzC (eventlog_test.go:366: round trip"}},
		{name: "a package not listed, the others run", retries: 2, timed: true, script: map[string][]string{"FuzzB": {crashOutput}},
			unlisted: []error{errors.New("go test -list ^Fuzz example.com/q: exit status 1: # example.com/q")},
			runs:     map[string]int{"FuzzA": 1, "FuzzB": 1, "FuzzC": 1}, summary: "3 fuzz targets in 1 package, --fuzztime 20s each: 2 passed, 1 failed; the targets of 1 more package not listed",
			failed: []string{"1 of 3 fuzz targets: example.com/p FuzzB", "the fuzz targets of 1 package could not be listed: go test -list ^Fuzz example.com/q"}},
		{name: "a target that skips itself is said to, not counted as passed", retries: 2, timed: true,
			script:  map[string][]string{"FuzzB": {"=== RUN   FuzzDecodeEvent\n--- SKIP: FuzzDecodeEvent (0.00s)\n    x_test.go:9: needs ../shared/corpora\nPASS\nok\texample.com/p\t0.01s\n"}},
			runs:    map[string]int{"FuzzA": 1, "FuzzB": 1, "FuzzC": 1},
			summary: "3 fuzz targets in 1 package, --fuzztime 20s each: 2 passed, 0 failed, 1 skipped without fuzzing\nfuzzsweep: skipped by their own test code: example.com/p FuzzB (skipped: x_test.go:9: needs ../shared/corpora)"},
		{name: "a count of runs is never raced", retries: 2, timed: false, script: map[string][]string{"FuzzB": {racedOutput}},
			runs: map[string]int{"FuzzA": 1, "FuzzB": 1, "FuzzC": 1}, failed: []string{"example.com/p FuzzB", "sets no deadline"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, stdout, _, runs := scripted(t, tc.retries, tc.timed, tc.script, tc.unlisted)
			err := s.run(context.Background())
			if len(tc.failed) == 0 && err != nil {
				t.Fatalf("run: %v", err)
			}
			if len(tc.failed) > 0 {
				if err == nil {
					t.Fatal("run passed")
				}
				for _, part := range tc.failed {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q lacks %q", err, part)
					}
				}
			}
			if fmt.Sprint(runs) != fmt.Sprint(tc.runs) {
				t.Errorf("runs %v, want %v", runs, tc.runs)
			}
			if !strings.Contains(stdout.String(), tc.summary) {
				t.Errorf("stdout lacks %q:\n%s", tc.summary, stdout)
			}
		})
	}
}

func TestSweepNothingToRun(t *testing.T) {
	s := &sweep{fuzztime: "1s", timed: true, stdout: io.Discard, stderr: io.Discard,
		list: func(context.Context) ([]target, []error, error) { return nil, nil, nil }}
	if err := s.run(context.Background()); err == nil || !strings.Contains(err.Error(), "no fuzz targets") {
		t.Errorf("run = %v", err)
	}
}

func TestSweepInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	runs := 0
	s := &sweep{fuzztime: "1s", timed: true, retries: 2, stdout: io.Discard, stderr: io.Discard,
		list: func(context.Context) ([]target, []error, error) {
			return []target{{pkg: "p", dir: t.TempDir(), name: "FuzzA"}, {pkg: "p", dir: t.TempDir(), name: "FuzzB"}}, nil, nil
		},
		fuzz: func(context.Context, target, io.Writer) error { runs++; cancel(); return exitError(t) }}
	if err := s.run(ctx); err == nil || !strings.Contains(err.Error(), "interrupted at p FuzzA") || runs != 1 {
		t.Errorf("run = %v after %d runs", err, runs)
	}
}

func TestUsage(t *testing.T) {
	var stderr strings.Builder
	if code := run(context.Background(), []string{"--help"}, io.Discard, &stderr); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	doctest.Examples(t, "fuzzsweep", stderr.String(), 3)
	for _, args := range [][]string{
		{"--fuzztime", "0s"},
		{"--fuzztime", "soon"},
		{"--fuzztime", "0x"},
		{"--retries", "-1"},
		{"--nope"},
	} {
		var stderr strings.Builder
		if code := run(context.Background(), args, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "see fuzzsweep --help") {
			t.Errorf("%v: exit %d, %s", args, code, stderr.String())
		}
	}
}

// TestEndToEnd fuzzes this package's own target with the go command, once by a count
// of runs and once for a second; a package whose tests do not build fails the sweep
// after the others ran, and so does a package that is not there.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs go test -fuzz (make fuzz runs the sweep)")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	for _, fuzztime := range []string{"50x", "1s"} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), []string{"--go", goCmd, "--fuzztime", fuzztime, "."}, &stdout, &stderr)
		want := fmt.Sprintf("fuzzsweep: 1 fuzz target in 1 package, --fuzztime %s each: 1 passed, 0 failed", fuzztime)
		if code != 0 || !strings.Contains(stdout.String(), "fuzz github.com/loopwatch/loopwatch/internal/cmd/fuzzsweep FuzzClassify\n") ||
			!strings.Contains(stdout.String(), want) {
			t.Errorf("--fuzztime %s: exit %d\nstdout:\n%s\nstderr:\n%s", fuzztime, code, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"--go", goCmd, "--fuzztime", "50x", ".", "./testdata/broken"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), "fuzzsweep: 1 fuzz target in 1 package, --fuzztime 50x each: 1 passed, 0 failed; the targets of 1 more package not listed\n") ||
		!strings.Contains(stderr.String(), "fuzzsweep: FAILED: the fuzz targets of 1 package could not be listed: ") ||
		!strings.Contains(stderr.String(), "internal/cmd/fuzzsweep/testdata/broken") {
		t.Errorf("with a package whose tests do not build: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"--go", goCmd, "./no/such/package"}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "fuzzsweep: FAILED: ") {
		t.Errorf("a package that is not there: exit %d, %s", code, stderr.String())
	}
}
