package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/internal/browser"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/internal/doctest"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeInputs lays out what the examples name, in dir: runs/ with labels.csv,
// sessions/ with session-labels.csv, quasar-history/, grid.txt and heldout.txt.
func writeInputs(t *testing.T, dir string) {
	t.Helper()
	write := func(name string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs := synth.Generate(synth.SampleConfig())
	for name, b := range synth.Files(runs) {
		write("runs/"+name, b)
	}
	write("labels.csv", synth.Labels(runs))
	var keys []string
	for name, b := range synth.SampleFiles() {
		if rest, ok := strings.CutPrefix(name, synth.InputsDir+"/sessions/"); ok {
			write("sessions/"+rest, b)
		}
		if name == synth.SessionLabelsFile {
			write("session-labels.csv", b)
			for _, line := range strings.Split(string(b), "\n")[1:] {
				if k, _, ok := strings.Cut(line, ","); ok && !strings.HasPrefix(k, "vibes") {
					keys = append(keys, k)
				}
			}
		}
	}
	slices.Sort(keys)
	write("heldout.txt", []byte("# every other session\n"+strings.Join(keys[:len(keys)/2], "\n")+"\n"))
	write("grid.txt", []byte("# the struggle grid\ncomposite_threshold=0.2:0.8:0.2\nweights.budget_burn=0,0.25\n"))
	if err := os.CopyFS(filepath.Join(dir, "quasar-history"), os.DirFS(filepath.Join("..", "replay", "testdata", "quasar"))); err != nil {
		t.Fatal(err)
	}
}

// TestDocExamples runs every example of the package documentation (which must also be
// in the usage text) on the sample's files.
func TestDocExamples(t *testing.T) {
	examples := doctest.Examples(t, "tune", usage, 6)
	dir := t.TempDir()
	writeInputs(t, dir)
	t.Chdir(dir)
	for _, ex := range examples {
		args := strings.Fields(ex)[1:]
		out := "sweep.parquet"
		if i := slices.Index(args, "--out"); i >= 0 {
			out = args[i+1]
		}
		os.Remove(out)
		args = append(args, "--resamples", "100")
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s", ex, code, stderr)
			continue
		}
		switch {
		case slices.Contains(args, "--list-params"):
			if !strings.Contains(stdout, "struggle.composite_threshold") || !strings.Contains(stdout, "assess.breaker.cooldown") {
				t.Errorf("%s: no parameters listed\n%s", ex, stdout)
			}
		case slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--print-config") }):
			if !strings.Contains(stdout, `"composite_threshold"`) {
				t.Errorf("%s: %s", ex, stdout)
			}
		default:
			if !strings.Contains(stdout, "verdict:") || !strings.Contains(stdout, "wrote "+out) {
				t.Errorf("%s: no verdict or output line\n%s", ex, stdout)
			}
			if _, err := reports.ReadManifest(out); err != nil {
				t.Errorf("%s: %v", ex, err)
			}
		}
	}
}

// TestUsageErrors: every bad invocation is one line on stderr, exit status 2 and no
// output.
func TestUsageErrors(t *testing.T) {
	emptyGrid := filepath.Join(t.TempDir(), "grid.txt")
	if err := os.WriteFile(emptyGrid, []byte("# nothing but a comment\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"--grid", "nope=1"}, `unknown parameter "nope"`},
		{[]string{"--grid", "enabled=true"}, "ambiguous"},
		{[]string{"--grid", "composite_threshold=0.8:0.2:0.1"}, "empty range"},
		{[]string{"--grid", "composite_threshold=0.2:0.8:0.25"}, "does not divide"},
		{[]string{"--grid", "composite_threshold=0.2:0.8"}, "not a number"},
		{[]string{"--grid", "ema.alpha=0,1"}, "alpha"},
		{[]string{"--grid", "composite_threshold=0:1:0.01", "--grid", "budget_burn_threshold=0:10:0.1"}, "sample it with --samples"},
		{[]string{"--objective", "accuracy"}, "unknown objective"},
		{[]string{"--objective", "recall@precision>=2"}, "in [0, 1]"},
		{[]string{"--target", "struggle", "--objective", "recall@false_alarms<=5"}, "only the friction target"},
		{[]string{"--target", "nope"}, "unknown target"},
		{[]string{"--folds", "1"}, "--folds 1"},
		{[]string{"--folds", "0"}, "--folds 0: need at least 2"},
		{[]string{"--max-configs", "0"}, "--max-configs 0: must be ≥ 1"},
		{[]string{"--max-configs", "-1"}, "--max-configs -1"},
		{[]string{"--in", ""}, "--in is empty"},
		{[]string{"--samples", "-3"}, "--samples -3"},
		{[]string{"--holdout", "/no/such/file"}, "--holdout /no/such/file"},
		{[]string{"--out", "sweep.csv"}, "must end in .parquet"},
		{[]string{"--out", "sub/.parquet"}, "name before .parquet is empty"},
		{[]string{"--out", "missing/s.parquet"}, "--out missing/s.parquet: no such folder missing/"},
		{[]string{"--report", "missing/r.html"}, "cannot write to missing: no such folder"},
		{[]string{"--report", "r.pdf"}, "must end in .html"},
		{[]string{"--ci-level", "2"}, "--ci-level"},
		{[]string{"--resamples", "100001"}, "--resamples 100001: must be between 0 (no bootstrap) and 100000"},
		{[]string{"--grid-file", "/no/such/grid"}, "--grid-file"},
		{[]string{"--grid-file", emptyGrid}, "--grid-file " + emptyGrid + ": no grid specification"},
		{[]string{"extra"}, "unexpected argument"},
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.err) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || stdout != "" {
			t.Errorf("tune %v: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tt.args, code, stderr, stdout, tt.err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("usage errors left files: %v", entries)
	}
}

// TestReport renders tune's HTML report of the sample in headless Chromium.
func TestReport(t *testing.T) {
	exe := browser.ForTest(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "tune.html")
	code, stdout, stderr := runCLI(t, "--out", filepath.Join(dir, "sweep.parquet"), "--report", report, "--resamples", "200")
	if code != 0 || !strings.Contains(stdout, "wrote the report "+report) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	html, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h3>struggle</h3>", "<h3>breaker</h3>", "tuned − default on the held-out units", "verdict: ",
		": struggle score per cycle</title>", ": frustration per event</title>", "the best configuration at each struggle.composite_threshold",
		"under the configuration to ship (every unit, those it was chosen on included: in-sample)"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report has no %q", want)
		}
	}
	// The sample's tuned curves are perfect: they run along the axes, mostly hidden;
	// the default's colour must show.
	browser.CheckFile(t, exe, report, htmlreport.SeriesColours()[:1])
}

// TestCorpusTune tunes on the shared corpora (skipped when absent): it must choose
// with held-out scores and the paired comparison and write the whole set.
func TestCorpusTune(t *testing.T) {
	for _, c := range []struct {
		corpus string
		args   []string
		target string
	}{
		{"claude-code", []string{"--labels", "labels.csv"}, "friction"},
		{"quasar", []string{"--derive-labels"}, "struggle"},
	} {
		dir, err := corpus.Dir(c.corpus)
		if err != nil {
			t.Skip(err)
		}
		for i, a := range c.args {
			if a == "labels.csv" {
				c.args[i] = filepath.Join(dir, a)
			}
		}
		out := filepath.Join(t.TempDir(), "sweep.parquet")
		code, stdout, stderr := runCLI(t, append([]string{"--in", dir, "--out", out, "--resamples", "500"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.corpus, code, stderr)
		}
		for _, want := range []string{"\n" + c.target + ": ", "chosen per fold: ", "tuned − default, ", "verdict: ", "sweep." + c.target + ".json"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: no %q in\n%s", c.corpus, want, stdout)
			}
		}
	}
}

// readmeBlocks returns the README's fenced blocks.
func readmeBlocks(t *testing.T) []string {
	t.Helper()
	parts := strings.Split(corpus.Readme(t), "```")
	var blocks []string
	for i := 1; i < len(parts); i += 2 {
		blocks = append(blocks, strings.TrimPrefix(parts[i], "\n"))
	}
	return blocks
}

// TestReadmeShowsTheDemo checks that the tune output the README quotes is what
// `make demo` prints today.
func TestReadmeShowsTheDemo(t *testing.T) {
	var block string
	for _, b := range readmeBlocks(t) {
		if strings.HasPrefix(b, "input:") && strings.Contains(b, "verdict:") {
			block = b
		}
	}
	if block == "" {
		t.Fatal("the README quotes no tune demo output")
	}
	code, stdout, stderr := runCLI(t, "--out", filepath.Join(t.TempDir(), "sweep.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	summary, _, _ := strings.Cut(stdout, "\nwrote ")
	if strings.TrimSpace(summary) != strings.TrimSpace(block) {
		t.Errorf("README's tune demo output is stale; `make demo` prints:\n%s", summary)
	}
}

// TestReadmeCorpusFigures checks that the lines the README quotes of tune on the
// shared corpora are lines the commands print (skipped when the corpora are absent).
func TestReadmeCorpusFigures(t *testing.T) {
	quoted := 0
	for _, b := range readmeBlocks(t) {
		cmdline, rest, ok := strings.Cut(b, "\n")
		args, isTune := strings.CutPrefix(cmdline, "$ bin/tune ")
		if !ok || !isTune {
			continue
		}
		quoted++
		fields := strings.Fields(args)
		for i, f := range fields {
			if rel, ok := strings.CutPrefix(f, "../shared/corpora/"); ok {
				name, sub, _ := strings.Cut(rel, "/")
				dir, err := corpus.Dir(name)
				if err != nil {
					t.Skip(err)
				}
				fields[i] = filepath.Join(dir, sub)
			}
		}
		code, stdout, stderr := runCLI(t, append(fields, "--out", filepath.Join(t.TempDir(), "sweep.parquet"))...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmdline, code, stderr)
		}
		lines := strings.Split(stdout, "\n")
		for _, want := range strings.Split(strings.TrimSpace(rest), "\n") {
			if !slices.Contains(lines, want) {
				t.Errorf("%s: the README quotes a line the command does not print:\n%s\nit prints:\n%s", cmdline, want, stdout)
				break
			}
		}
	}
	if quoted < 2 {
		t.Errorf("the README quotes %d tune runs on the corpora, want 2", quoted)
	}
}

// TestLabelProblems: a bad row of a labels file is reported with its file and line and
// counted in the summary; the sweep goes on (exit 0), and --strict fails it.
func TestLabelProblems(t *testing.T) {
	runs, err := os.ReadFile(filepath.Join("..", "..", "datasets", "sample", "labels", "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	labels := filepath.Join(dir, "runs.csv")
	if err := os.WriteFile(labels, append(runs, "synth-0099@e1,maybe,,human,\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(runs), "\n") + 1
	args := []string{"--in", filepath.Join("..", "..", "datasets", "sample", "inputs", "runs"), "--labels", labels,
		"--target", "struggle", "--grid", "composite_threshold=0.5,0.6", "--resamples", "0", "--out", filepath.Join(dir, "sweep.parquet")}
	code, stdout, stderr := runCLI(t, args...)
	if want := fmt.Sprintf("tune: %s:%d: label: label \"maybe\" is not", labels, line); code != 0 || !strings.Contains(stderr, want) ||
		!strings.Contains(stdout, "; 1 problem in the labels (listed above, by file and line)") {
		t.Fatalf("exit %d, want 0, %q in stderr and the count in the summary\n%s%s", code, want, stdout, stderr)
	}
	code, _, stderr = runCLI(t, append(args, "--strict")...)
	if code != 1 || !strings.Contains(stderr, "tune: 1 problem in the input or its labels and --strict is set") {
		t.Errorf("--strict: exit %d, want 1\n%s", code, stderr)
	}
	// A label key that matches nothing scores nothing: one more problem, as in replay.
	if err := os.WriteFile(labels, append(runs, "synth-0099@e1,maybe,,human,\nsynth-0098@e1,positive,,human,\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, append(args, "--strict")...)
	if code != 1 || !strings.Contains(stderr, "tune: 2 problems in the input or its labels and --strict is set") {
		t.Errorf("--strict, a bad row and a key matching nothing: exit %d, want 1\n%s", code, stderr)
	}
}

// TestOneClassStrict: labels of one class on the units a choice is made on choose
// nothing — the output says why and what to keep, a warning is printed — and --strict
// fails the sweep.
func TestOneClassStrict(t *testing.T) {
	runs, err := os.ReadFile(filepath.Join("..", "..", "datasets", "sample", "labels", "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var negative []string
	for _, l := range strings.Split(string(runs), "\n") {
		if strings.HasPrefix(l, "run_key,") || strings.Contains(l, ",negative,") {
			negative = append(negative, l)
		}
	}
	dir := t.TempDir()
	labels := filepath.Join(dir, "negative.csv")
	if err := os.WriteFile(labels, []byte(strings.Join(negative, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--in", filepath.Join("..", "..", "datasets", "sample", "inputs", "runs"), "--labels", labels,
		"--resamples", "20", "--grid", "struggle.composite_threshold=0.2,0.6", "--out", filepath.Join(dir, "sweep.parquet")}
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 || !strings.Contains(stdout, "to ship: nothing — f1 cannot be measured on the runs it is chosen on (they hold no positive run): keep the default") ||
		!strings.Contains(stderr, "tune: struggle: objective f1 cannot be measured on the runs the configuration to ship is chosen on: they hold no positive run") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep.struggle.json")); !os.IsNotExist(err) {
		t.Errorf("a configuration was written: %v", err)
	}
	code, _, stderr = runCLI(t, append(args, "--strict")...)
	if code != 1 || !strings.Contains(stderr, "tune: the objective cannot be measured on the units a choice is made on (one class) for 1 target and --strict is set") {
		t.Errorf("--strict: exit %d, want 1\n%s", code, stderr)
	}
}

// TestHoldoutStrict: holdout keys that match no run, or repeat one, are reported; the
// sweep goes on (exit 0), and --strict fails it.
func TestHoldoutStrict(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, keys, warning string
	}{
		{"a key that matches nothing", "synth-0001@e1\nsynth-0003@e1\nno-such-run\n", "1 key matches no run or session (e.g. no-such-run)"},
		{"a key given twice", "synth-0001@e1\nsynth-0003@e1\nsynth-0001@e1\n", "1 key given more than once (e.g. synth-0001@e1)"},
	} {
		holdout := filepath.Join(dir, "holdout.txt")
		if err := os.WriteFile(holdout, []byte(tt.keys), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--in", filepath.Join("..", "..", "datasets", "sample", "inputs", "runs"), "--labels",
			filepath.Join("..", "..", "datasets", "sample", "labels", "runs.csv"), "--holdout", holdout,
			"--grid", "composite_threshold=0.2,0.5", "--resamples", "0", "--out", filepath.Join(dir, "sweep.parquet")}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(stderr, "tune: --holdout "+holdout+": "+tt.warning) {
			t.Errorf("%s: exit %d, want 0 and %q\n%s%s", tt.name, code, tt.warning, stdout, stderr)
		}
		code, _, stderr = runCLI(t, append(args, "--strict")...)
		if code != 1 || !strings.Contains(stderr, "tune: 1 --holdout problem (a key that matches no run or session, or is given again: see above) and --strict is set") {
			t.Errorf("%s, --strict: exit %d, want 1\n%s", tt.name, code, stderr)
		}
	}
}

// TestInterrupted: a tune whose context ends (SIGINT, SIGTERM) says so, exits 130 and
// writes nothing.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"--out", filepath.Join(dir, "sweep.parquet")}, &out, &errb); code != 130 || errb.String() != "tune: interrupted; nothing was written\n" {
		t.Errorf("exit %d, want 130\n%s", code, errb.String())
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("an interrupted tune left %v", left)
	}
}

// TestReadmeListParams: the README's count of what --list-params lists is the
// command's.
func TestReadmeListParams(t *testing.T) {
	code, stdout, stderr := runCLI(t, "--list-params")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rows := strings.Split(strings.TrimSpace(stdout), "\n")[1:]
	sections := 0
	for _, r := range rows {
		if f := strings.Fields(r); len(f) > 1 && f[1] == "section" {
			sections++
		}
	}
	want := fmt.Sprintf("`tune --list-params` lists all %d paths — %d parameters and %d sections —", len(rows), len(rows)-sections, sections)
	if !strings.Contains(corpus.Readme(t), want) {
		t.Errorf("the README does not say %q", want)
	}
}

// TestPreviousSweepsFiles: a sweep written where another was removes, and names, the
// previous sweep's chosen configuration it does not write — unless edited since that
// sweep wrote it, which is left, with a warning naming it.
func TestPreviousSweepsFiles(t *testing.T) {
	for _, tt := range []struct {
		name           string
		edit           bool
		stdout, stderr string
		left           bool
	}{
		{"as written", false, "removed the previous sweep's sweep.breaker.json, which this one does not write", "", false},
		{"edited by hand", true, "", "tune: warning: left %s: changed since the sweep that wrote it", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, breaker := filepath.Join(dir, "sweep.parquet"), filepath.Join(dir, "sweep.breaker.json")
			if code, _, stderr := runCLI(t, "--out", out, "--resamples", "0", "--target", "breaker", "--grid", "assess.breaker.frustration_threshold=0.2,0.4"); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if tt.edit {
				b, err := os.ReadFile(breaker)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(breaker, bytes.Replace(b, []byte("  "), []byte("\t"), 1), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := runCLI(t, "--out", out, "--resamples", "0", "--target", "struggle", "--grid", "struggle.composite_threshold=0.4,0.6")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if want := fmt.Sprintf(tt.stderr, breaker); tt.stderr != "" && !strings.Contains(stderr, want) || tt.stderr == "" && stderr != "" {
				t.Errorf("stderr %q, want %q", stderr, want)
			}
			if strings.Contains(stdout, "removed the previous") != (tt.stdout != "") || !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
			if _, err := os.Stat(breaker); (err == nil) != tt.left {
				t.Errorf("%s left: %v, want %v", breaker, err == nil, tt.left)
			}
		})
	}
}
