package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/internal/browser"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/internal/doctest"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

// workspace copies testdata/ (a registry over the built-in sample, with the
// "worsened" configuration at the seed's composite threshold) into a fresh folder.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"registry.toml", "worsened.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runRegress(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestWorsenedThreshold: the registry's baselines are recorded; a configuration
// whose composite threshold is then raised makes regress fail, naming the metrics
// that regressed, in its summary, regress.md and the HTML report; --update-baseline records the worse figures deliberately, showing
// each change, and regress passes again.
func TestWorsenedThreshold(t *testing.T) {
	t.Setenv(corpus.EnvVar, "") // the registry's corpora folder, /nonexistent: the corpus dataset is skipped
	dir := workspace(t)
	reg, out := filepath.Join(dir, "registry.toml"), filepath.Join(dir, "out")
	flags := []string{"--registry", reg, "--out", out, "--workers", "2"}

	code, stdout, stderr := runRegress(t, append(flags, "--update-baseline")...)
	if code != 0 || !strings.Contains(stdout, "0 baselines changed, 18 recorded for the first time, 0 removed") {
		t.Fatalf("recording the baselines: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = runRegress(t, flags...); code != 0 || !strings.Contains(stdout, "regress: PASS: 1 dataset replayed, 1 skipped; 19 metrics: 18 ok") {
		t.Fatalf("with the recorded baselines: exit %d\n%s%s", code, stdout, stderr)
	}

	// Raise the threshold a little: recall drops from 5 to 3 of the sample's 7
	// struggling runs, beyond the tolerance but inside the bootstrap interval of 16
	// runs — noise, not a regression.
	worsen := func(threshold string) {
		if err := os.WriteFile(filepath.Join(dir, "worsened.json"), []byte(`{"composite_threshold": `+threshold+`}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	worsen("0.95")
	if code, stdout, stderr = runRegress(t, flags...); code != 0 || !strings.Contains(stdout, "19 metrics: 18 ok") {
		t.Fatalf("a worsening inside the noise: exit %d\n%s%s", code, stdout, stderr)
	}
	// Raise it to 1: recall drops to 2 of 7, and the baseline is outside the interval.
	// The HTML report of the run is written too, into --out (its folder is made).
	worsen("1.0")
	report := filepath.Join(out, "regress.html")
	code, stdout, stderr = runRegress(t, append(flags, "--report", report)...)
	if code != 1 || !strings.Contains(stdout, report) {
		t.Fatalf("a worsened threshold: exit %d, want 1 and the report written\n%s%s", code, stdout, stderr)
	}
	checkReport(t, report)
	for _, want := range []string{
		"regress: FAIL: 1 dataset replayed, 1 skipped; 19 metrics: 16 ok, 0 improved, 2 regressed, 0 new, 0 missing, 1 skipped",
		"regressed sample/worsened/struggle/recall: 0.7142857142857143 → 0.2857142857142857 (tolerance 0.02, interval [0.000, 0.",
		"regressed sample/worsened/struggle/f1: 0.8333333333333334 → 0.4444444444444444",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "sample/default/") {
		t.Errorf("the default configuration moved:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "regress.md"))
	if !bytes.Contains(md, []byte("# loopwatch regression: FAIL")) || !bytes.Contains(md, []byte("| sample | worsened | struggle | recall | 0.7143 | 0.2857 | -0.4286 | [0.000, 0.")) {
		t.Errorf("regress.md:\n%s", md)
	}

	// Record the worse figures deliberately: the diff names each change.
	before, _ := os.ReadFile(reg)
	code, stdout, stderr = runRegress(t, append(flags, "--update-baseline")...)
	if code != 0 {
		t.Fatalf("--update-baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"--update-baseline: rewrote " + reg + ": 2 baselines changed, 0 recorded for the first time, 0 removed",
		"sample/worsened/struggle/recall: 0.7142857142857143 → 0.2857142857142857",
		"sample/worsened/struggle/f1: 0.8333333333333334 → 0.4444444444444444",
		"elsewhere: skipped, its baselines kept",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--update-baseline stdout lacks %q:\n%s", want, stdout)
		}
	}
	after, _ := os.ReadFile(reg)
	if !bytes.Contains(after, []byte("# The worsened configuration's figures.\n")) || !bytes.Contains(after, []byte("recall = { value = 0.2857142857142857, tolerance = 0.02 }")) ||
		len(bytes.Split(after, []byte("\n"))) != len(bytes.Split(before, []byte("\n"))) {
		t.Errorf("the registry was not rewritten in place:\n%s", after)
	}
	if code, stdout, stderr = runRegress(t, flags...); code != 0 {
		t.Fatalf("after --update-baseline: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestUsage(t *testing.T) {
	dir := workspace(t)
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("version = 1\n[[datasets]]\nname = \"s\"\ninput = \"builtin:sample\"\ndetectors = [\"struggles\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir+".html", 0o755); err != nil { // a --report that names a folder
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--registry", bad}, "bad.toml:5: dataset s: unknown detector \"struggles\""},
		{[]string{"--registry", filepath.Join(dir, "none.toml")}, "none.toml: no such file or directory"},
		{[]string{"--registry", filepath.Join(dir, "registry.toml"), "--only", "nope"}, `no dataset "nope"`},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"sample"}, `unexpected argument "sample"`},
		{[]string{"--workers", "-1"}, "--workers -1"},
		{[]string{"--report", filepath.Join(dir, "r.txt")}, "--report " + filepath.Join(dir, "r.txt") + ": must end in .html"},
		{[]string{"--report", dir + ".html"}, "--report " + dir + ".html: is a folder"},
		{[]string{"--report", filepath.Join(dir, "registry.toml", "r.html")}, "not a folder"},
	} {
		code, _, stderr := runRegress(t, append(tt.args, "--out", filepath.Join(dir, "out"))...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	if code, _, _ := runRegress(t, "--help"); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
}

// TestDocExamples runs every example invocation of the command's documentation, so the
// manual cannot rot: each must appear in the --help text too and succeed, on a small
// registry over the sample standing where the real one does.
func TestDocExamples(t *testing.T) {
	examples := doctest.Examples(t, "regress", usage, 4)
	dir := t.TempDir()
	small := "version = 1\n[eval]\nresamples = 100\n[[datasets]]\nname = \"sample\"\ninput = \"builtin:sample\"\ndetectors = [\"struggle\"]\n"
	for _, p := range []string{"datasets/registry.toml", "my-registry.toml"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(small), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, ex := range examples {
		code, stdout, stderr := runRegress(t, strings.Fields(ex)[1:]...)
		if code != 0 || !strings.Contains(stdout, "regress: PASS: 1 dataset replayed") {
			t.Errorf("%s: exit %d\n%s%s", ex, code, stdout, stderr)
		}
	}
	for _, f := range []string{"regress-out/regress.md", "regress-out/regress.json", "regress-out/sample/default/results.parquet", "regress-out/regress.html", "nightly/regress.json"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}

// TestStrictFailsOnNew: a registry whose dataset has no baselines passes with every
// metric new, and fails with --strict, which lists each as a failure — in the summary,
// regress.md and regress.json; once the baselines are recorded, --strict passes.
func TestStrictFailsOnNew(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "registry.toml")
	small := "version = 1\n[eval]\nresamples = 100\n[[datasets]]\nname = \"sample\"\ninput = \"builtin:sample\"\ndetectors = [\"struggle\"]\n"
	if err := os.WriteFile(reg, []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runRegress(t, "--registry", reg, "--out", out)
	if code != 0 || !strings.Contains(stdout, "regress: PASS") || !strings.Contains(stdout, " new,") {
		t.Fatalf("without --strict: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runRegress(t, "--registry", reg, "--out", out, "--strict")
	if code != 1 || !strings.Contains(stdout, "regress: FAIL") || !strings.Contains(stdout, "  new       sample/default/struggle/") {
		t.Fatalf("--strict: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	md, _ := os.ReadFile(filepath.Join(out, "regress.md"))
	js, _ := os.ReadFile(filepath.Join(out, "regress.json"))
	failures := string(md)[strings.Index(string(md), "## Failures"):]
	if !strings.Contains(string(md), "so does one with no baseline (--strict)") || !strings.Contains(failures, "| **new** |") ||
		!strings.Contains(string(js), `"strict": true`) || !strings.Contains(string(js), `"status": "fail"`) {
		t.Errorf("--strict: regress.md\n%s\nregress.json\n%.400s", md, js)
	}
	if code, stdout, stderr = runRegress(t, "--registry", reg, "--out", out, "--update-baseline"); code != 0 {
		t.Fatalf("--update-baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = runRegress(t, "--registry", reg, "--out", out, "--strict"); code != 0 || !strings.Contains(stdout, "regress: PASS") {
		t.Errorf("--strict with the baselines recorded: exit %d\n%s%s", code, stdout, stderr)
	}
}

// checkReport checks the HTML page regress --report wrote of the worsened run: the
// failing metrics in red rows, each detector's curves with both configurations
// overlaid and their baseline (ring) and measured (dot) operating points,
// trajectories; and, in headless Chromium, no console error, no request but the file,
// and a screenshot that is not blank and shows both configurations' colours.
func checkReport(t *testing.T, report string) {
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{
		"<title>loopwatch regression: FAIL</title>",
		"<h3>sample · struggle</h3>", "<h3>sample · breaker</h3>", "<h3>sample · outcome</h3>",
		`class="op ring s0"`, `class="op ring s1"`, `class="op f0"`, `class="op f1"`,
		"worsened now: precision 1.000, recall 0.286", "worsened baseline: precision 1.000, recall 0.714",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if !regexp.MustCompile(`<tr class="bad"><td>sample</td><td>worsened</td><td>struggle</td><td>recall</td>`).MatchString(html) {
		t.Errorf("the regressed recall is not a red row")
	}
	if n := strings.Count(html, ": struggle score per cycle</title>"); n != 3 {
		t.Errorf("%d run trajectories, want 3", n)
	}
	t.Run("chromium", func(t *testing.T) {
		browser.CheckFile(t, browser.ForTest(t), report, htmlreport.SeriesColours()[:2])
	})
}

// TestCorpusReadmeTable checks the README's table of regress.md rows for the Claude
// Code corpus under the default configuration against what regress writes today
// (regress --only claude-code over the repository's registry; skipped when the corpus
// is absent), so the table cannot go stale when a detector's defaults move.
func TestCorpusReadmeTable(t *testing.T) {
	if _, err := corpus.Dir("claude-code"); err != nil {
		t.Skip(err)
	}
	root, readme := moduleReadme(t)
	_, section, ok := strings.Cut(readme, "the Claude Code corpus under the default configuration:\n")
	if !ok {
		t.Fatal("the README quotes no regress.md table of the Claude Code corpus")
	}
	var quoted []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| default |") {
			quoted = append(quoted, line)
		} else if len(quoted) > 0 {
			break
		}
	}
	out := t.TempDir()
	code, stdout, stderr := runRegress(t, "--registry", filepath.Join(root, "datasets", "registry.toml"), "--out", out, "--only", "claude-code")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "regress.md"))
	if err != nil {
		t.Fatal(err)
	}
	var now []string
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "| default |") {
			now = append(now, line)
		}
	}
	if strings.Join(quoted, "\n") != strings.Join(now, "\n") {
		t.Errorf("the README's regress table is stale; regress.md has:\n%s", strings.Join(now, "\n"))
	}
}

// TestInterrupted: a regress whose context ends (SIGINT, SIGTERM) says so and exits
// 130, not as a regression (1).
func TestInterrupted(t *testing.T) {
	dir := workspace(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"--registry", filepath.Join(dir, "registry.toml"), "--out", filepath.Join(dir, "out")}, &out, &errb)
	if code != 130 || !strings.HasPrefix(errb.String(), "regress: interrupted") {
		t.Errorf("exit %d, want 130\n%s", code, errb.String())
	}
}

// TestReadmeBadRegistry checks the README's example of a registry that does not load
// against what regress says of the committed registry with "struggle" misspelt in the
// synth dataset's detectors, so its line numbers follow the registry's baselines.
func TestReadmeBadRegistry(t *testing.T) {
	root, readme := moduleReadme(t)
	const cmd = "$ regress --registry /tmp/rg/bad/registry.toml"
	_, block, ok := strings.Cut(readme, cmd)
	if !ok {
		t.Fatal("the README shows no bad registry")
	}
	_, block, _ = strings.Cut(block, "\n")
	block, _, _ = strings.Cut(block, "$ echo $?")
	src, err := os.ReadFile(filepath.Join(root, "datasets", "registry.toml"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(src, []byte(`name = "synth"`))
	j := bytes.Index(src[i:], []byte("detectors = ["))
	if i < 0 || j < 0 {
		t.Fatal("no synth dataset with detectors in the registry")
	}
	at := i + j
	end := at + bytes.IndexByte(src[at:], '\n')
	line := bytes.Replace(src[at:end], []byte(`"struggle"`), []byte(`"strugle"`), 1)
	bad := append(append(append([]byte(nil), src[:at]...), line...), src[end:]...)
	path := filepath.Join(t.TempDir(), "registry.toml")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runRegress(t, "--registry", path)
	if got := strings.ReplaceAll(stderr, path, "/tmp/rg/bad/registry.toml"); code != 2 || got != block {
		t.Errorf("exit %d; regress says:\n%s\nthe README:\n%s", code, got, block)
	}
}

// moduleReadme returns the module's root folder and its README's text.
func moduleReadme(t *testing.T) (root, readme string) {
	t.Helper()
	root, err := corpus.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root, corpus.Readme(t)
}

// TestMisspeltCorporaVariable: a corpora folder named by $LOOPWATCH_CORPORA that is
// not there is a setup error (exit 2) naming the variable and the path, with or
// without --strict — before it, a misspelt path skipped the corpus datasets and the
// nightly run passed.
func TestMisspeltCorporaVariable(t *testing.T) {
	dir := workspace(t)
	missing := filepath.Join(dir, "corpra")
	t.Setenv(corpus.EnvVar, missing)
	reg, out := filepath.Join(dir, "registry.toml"), filepath.Join(dir, "out")
	for _, extra := range [][]string{nil, {"--strict"}} {
		code, stdout, stderr := runRegress(t, append([]string{"--registry", reg, "--out", out}, extra...)...)
		want := "regress: " + corpus.EnvVar + "=" + missing + " names no corpora folder: no such file or directory"
		if code != 2 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "the dataset elsewhere reads it") || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", extra, code, stdout, stderr, want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: %s: %v, want nothing written", extra, out, err)
		}
	}
	// A run of the datasets that read no corpus does not need the folder.
	if code, _, stderr := runRegress(t, "--registry", reg, "--out", out, "--only", "sample"); code != 0 {
		t.Errorf("--only sample: exit %d\n%s", code, stderr)
	}
}
