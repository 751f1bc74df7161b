package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/internal/browser"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/internal/doctest"
	"github.com/loopwatch/loopwatch/internal/duckdb"
	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

// writeSample writes the built-in sample's runs and labels into dir/runs and
// dir/labels.csv, as files on disk.
func writeSample(t *testing.T, dir string) {
	t.Helper()
	runs := synth.Generate(synth.SampleConfig())
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range synth.Files(runs) {
		if err := os.WriteFile(filepath.Join(dir, "runs", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "labels.csv"), synth.Labels(runs), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestDocExamples runs every example invocation of the command's documentation, so the
// manual cannot rot: each must appear in the --help text too and succeed on the sample.
func TestDocExamples(t *testing.T) {
	examples := doctest.Examples(t, "replay", usage, 4)
	dir := t.TempDir()
	writeSample(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "struggle.json"), []byte(`{"composite_threshold": 0.5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "quasar-history"), os.DirFS(filepath.Join("testdata", "quasar"))); err != nil {
		t.Fatal(err)
	}
	for name, b := range synth.SampleFiles() {
		p := filepath.Join(dir, "datasets", "sample", filepath.FromSlash(name)) // as in the repository, where the examples run as they are
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, ex := range examples {
		args := strings.Fields(ex)[1:]
		out := "results.parquet"
		if i := slices.Index(args, "--out"); i >= 0 {
			out = args[i+1]
		}
		os.Remove(out)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s", ex, code, stderr)
			continue
		}
		if slices.Contains(args, "--shard") {
			if !strings.Contains(stdout, "the metrics need every shard") || strings.Contains(stdout, "DETECTOR") {
				t.Errorf("%s: a shard prints what it read and no metrics:\n%s", ex, stdout)
			}
		} else if !strings.Contains(stdout, "DETECTOR") {
			t.Errorf("%s: no summary table:\n%s", ex, stdout)
		}
		if _, err := os.Stat(out); err != nil {
			t.Errorf("%s: %v", ex, err)
		}
	}
}

// TestDeterministicAcrossWorkers checks that the output files are byte-identical
// whatever the number of workers.
func TestDeterministicAcrossWorkers(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	var outputs [][]string
	for _, workers := range []string{"1", "8", "3"} {
		out := filepath.Join(dir, "w"+workers)
		os.Mkdir(out, 0o755)
		code, _, stderr := runCLI(t, "--in", filepath.Join(dir, "runs"), "--labels", filepath.Join(dir, "labels.csv"),
			"--out", filepath.Join(out, "r.parquet"), "--workers", workers)
		if code != 0 {
			t.Fatalf("workers %s: exit %d: %s", workers, code, stderr)
		}
		var contents []string
		for _, name := range files(t, out) {
			b, _ := os.ReadFile(filepath.Join(out, name))
			contents = append(contents, name+"\x00"+string(b))
		}
		outputs = append(outputs, contents)
	}
	if len(outputs[0]) != 13 {
		t.Fatalf("expected 12 tables and the manifest, got %d files", len(outputs[0]))
	}
	for i := 1; i < len(outputs); i++ {
		if fmt.Sprint(outputs[i]) != fmt.Sprint(outputs[0]) {
			t.Errorf("output of run %d differs from run 0", i)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	runs := filepath.Join(dir, "runs")
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"composite_threshhold": 1}`), 0o644)
	os.WriteFile(filepath.Join(dir, "nolabel.csv"), []byte("run_key,outcome\nq,approved\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "allbad.csv"), []byte("run_key,label\nq,maybe\nr,perhaps\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.csv"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "header.csv"), []byte("run_key,label,rule\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "neg.json"), []byte(`{"composite_threshold": -5}`), 0o644)
	os.WriteFile(filepath.Join(dir, "trailing.json"), []byte(`{"composite_threshold": 0.5} {"enabled": false}`), 0o644)
	os.WriteFile(filepath.Join(dir, "assess-trailing.json"), []byte(`{"breaker": {"cooldown": "1m"}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "assess-unknown.json"), []byte(`{"breaker": {"colldown": "1m"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "assess-alpha.json"), []byte(`{"detect": {"ema": {"alpha": 7}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "assess-checkpoint.json"), []byte(`{"checkpoint": {"message_threshold": -4}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "assess-frustration.json"), []byte(`{"breaker": {"frustration_threshold": 1.5}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "assess-empty.json"), nil, 0o644)
	notADir := filepath.Join(dir, "labels.csv")
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"missing --in", []string{"--in", filepath.Join(dir, "nope")}, "--in " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"--out in a missing folder", []string{"--in", runs, "--out", filepath.Join(dir, "missing", "r.parquet")}, "cannot write to " + filepath.Join(dir, "missing") + ": no such folder"},
		{"--out under a file", []string{"--in", runs, "--out", filepath.Join(notADir, "r.parquet")}, "cannot write to " + notADir},
		{"--out not .parquet", []string{"--in", runs, "--out", filepath.Join(dir, "r.csv")}, "must end in .parquet"},
		{"--out with no name before .parquet", []string{"--in", runs, "--out", filepath.Join(dir, ".parquet")}, "the run table's name before .parquet is empty"},
		{"--out a folder under a file", []string{"--in", runs, "--out", filepath.Join(notADir, "out") + "/"}, "output " + filepath.Join(notADir, "out") + ": not a directory"},
		{"--shard out of range", []string{"--in", runs, "--shard", "4/4", "--out", filepath.Join(dir, "sh") + "/"}, "--shard \"4/4\": shards of 4 are numbered 0 to 3"},
		{"--shard not i/n", []string{"--in", runs, "--shard", "2", "--out", filepath.Join(dir, "sh") + "/"}, "want i/n"},
		{"--compare none with a preset", []string{"--in", runs, "--compare", "none,seed"}, `--compare none,seed: "none" compares nothing, and stands alone`},
		{"--shard into a file", []string{"--in", runs, "--shard", "0/2", "--out", filepath.Join(dir, "r.parquet")}, "a shard writes into a folder: give --out a folder"},
		{"--report of a shard", []string{"--in", runs, "--shard", "1/2", "--out", filepath.Join(dir, "sh") + "/", "--report", filepath.Join(dir, "r.html")}, "--report needs the whole replay"},
		{"missing --labels", []string{"--in", runs, "--labels", filepath.Join(dir, "nope.csv"), "--out", filepath.Join(dir, "r.parquet")}, "--labels " + filepath.Join(dir, "nope.csv")},
		{"labels without a label column", []string{"--in", runs, "--labels", filepath.Join(dir, "nolabel.csv"), "--out", filepath.Join(dir, "r.parquet")}, "run_key and label"},
		{"unknown struggle config field", []string{"--in", runs, "--struggle-config", filepath.Join(dir, "bad.json"), "--out", filepath.Join(dir, "r.parquet")}, `unknown field "composite_threshhold"`},
		{"stray argument", []string{"runs/"}, `unexpected argument "runs/"`},
		{"bad fix pass probability", []string{"--in", runs, "--fix-pass-prob", "build=1.5", "--out", filepath.Join(dir, "r.parquet")}, `"build=1.5" is not a probability`},
		{"bad fix pass probability word", []string{"--in", runs, "--fix-pass-prob", "always", "--out", filepath.Join(dir, "r.parquet")}, `--fix-pass-prob "always"`},
		{"fix pass probability of no check", []string{"--in", runs, "--fix-pass-prob", "biuld=0.9", "--out", filepath.Join(dir, "r.parquet")}, `"biuld" is not a check of quasar's filter chain`},
		{"fix pass probability given twice", []string{"--in", runs, "--fix-pass-prob", "build=0.5,build=0.6", "--out", filepath.Join(dir, "r.parquet")}, `check "build" is given twice`},
		{"empty --in", []string{"--in", "", "--out", filepath.Join(dir, "r.parquet")}, "--in is empty"},
		{"unknown flag", []string{"--frobnicate"}, "unknown flag: --frobnicate"},
		{"labels file with no usable row", []string{"--in", runs, "--labels", filepath.Join(dir, "allbad.csv"), "--out", filepath.Join(dir, "r.parquet")}, "none of its 2 rows is usable"},
		{"empty labels file", []string{"--in", runs, "--labels", filepath.Join(dir, "empty.csv"), "--out", filepath.Join(dir, "r.parquet")}, "--labels " + filepath.Join(dir, "empty.csv") + ": no label rows"},
		{"labels file with a header only", []string{"--in", runs, "--labels", filepath.Join(dir, "header.csv"), "--out", filepath.Join(dir, "r.parquet")}, "--labels " + filepath.Join(dir, "header.csv") + ": no label rows"},
		{"negative composite threshold", []string{"--in", runs, "--struggle-config", filepath.Join(dir, "neg.json"), "--out", filepath.Join(dir, "r.parquet")}, "composite_threshold -5 must be in [0, 1]"},
		{"data after the struggle config", []string{"--in", runs, "--struggle-config", filepath.Join(dir, "trailing.json"), "--out", filepath.Join(dir, "r.parquet")}, "data after the JSON object"},
		{"data after the assess config", []string{"--in", runs, "--assess-config", filepath.Join(dir, "assess-trailing.json"), "--out", filepath.Join(dir, "r.parquet")}, "data after the JSON object"},
		{"unknown assess config field lists the fields", []string{"--in", runs, "--assess-config", filepath.Join(dir, "assess-unknown.json"), "--out", filepath.Join(dir, "r.parquet")}, "breaker.cooldown"},
		{"an EMA alpha out of range", []string{"--in", runs, "--assess-config", filepath.Join(dir, "assess-alpha.json")}, "--assess-config " + filepath.Join(dir, "assess-alpha.json") + ": detect: EMA alpha 7 outside (0, 1]"},
		{"a negative checkpoint threshold", []string{"--in", runs, "--assess-config", filepath.Join(dir, "assess-checkpoint.json")}, "checkpoint: message_threshold must be ≥ 1"},
		{"a frustration threshold the EMA never reaches", []string{"--in", runs, "--assess-config", filepath.Join(dir, "assess-frustration.json")}, "frustration_threshold 1.5 must be in (0, 1]"},
		{"an empty assess config", []string{"--in", runs, "--assess-config", filepath.Join(dir, "assess-empty.json")}, "the file is empty"},
		{"ci level 2", []string{"--in", runs, "--ci-level", "2"}, "--ci-level 2: must be between 0 and 1"},
		{"ci level 0", []string{"--in", runs, "--ci-level", "0"}, "--ci-level 0: must be between 0 and 1"},
		{"ci level NaN", []string{"--in", runs, "--ci-level", "NaN"}, "--ci-level NaN: must be between 0 and 1"},
		{"negative beta", []string{"--in", runs, "--beta", "-1"}, "--beta -1: must be a positive number"},
		{"negative fix cost", []string{"--in", runs, "--fix-cost-fraction", "-3"}, "--fix-cost-fraction -3"},
		{"no fix draws", []string{"--in", runs, "--fix-draws", "0"}, "--fix-draws 0: must be ≥ 1"},
		{"negative fix trials", []string{"--in", runs, "--fix-trials", "-1"}, "--fix-trials -1: must be ≥ 1"},
		{"no filter fixes", []string{"--in", runs, "--max-filter-fixes", "0"}, "--max-filter-fixes 0: must be between 1 and 100"},
		{"negative resamples", []string{"--in", runs, "--resamples", "-5"}, "--resamples -5: must be between 0 (no bootstrap) and 100000"},
		{"resamples past the bound", []string{"--in", runs, "--resamples", "100001"}, "--resamples 100001: must be between 0 (no bootstrap) and 100000"},
		{"report not .html", []string{"--in", runs, "--report", filepath.Join(dir, "r.txt")}, "--report " + filepath.Join(dir, "r.txt") + ": must end in .html"},
		{"report in a missing folder", []string{"--in", runs, "--report", filepath.Join(dir, "missing", "r.html")}, "cannot write to " + filepath.Join(dir, "missing") + ": no such folder"},
		{"negative friction window", []string{"--in", runs, "--friction-window", "-1m"}, "--friction-window -1m0s: must be positive"},
	}
	before := files(t, dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.want)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 && !strings.Contains(tt.name, "flag") {
				t.Errorf("more than one line of error:\n%s", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
		})
	}
	if after := files(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("usage errors left files behind: %v → %v", before, after)
	}
}

func TestBadInputIsReportedAndTheRestGoesOn(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	runs := filepath.Join(dir, "runs")
	good := `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"extra","data":{"cycle":1,"total_cost_usd":1,"findings":[]}}`
	os.WriteFile(filepath.Join(runs, "broken.jsonl"), []byte(good+"\n{not json}\n"+
		`{"ts":"2026-03-01T10:00:00Z","kind":"telepathy","task":"extra","data":{}}`+"\n"+
		`{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"extra","data":{"cycle":2,"total`), 0o644)
	os.WriteFile(filepath.Join(runs, "notes.csv"), []byte("a,b\n"), 0o644)
	os.WriteFile(filepath.Join(runs, "README.md"), []byte("# runs\n"), 0o644)
	out := filepath.Join(dir, "r.parquet")
	code, stdout, stderr := runCLI(t, "--in", runs, "--labels", filepath.Join(dir, "labels.csv"), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"broken.jsonl:2: malformed_line", "broken.jsonl:3: unknown_kind", "broken.jsonl:4: truncated_line", "notes.csv: unknown_file"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "README") {
		t.Errorf("README.md reported as a problem:\n%s", stderr)
	}
	if !strings.Contains(stdout, "17 runs, 4 problems") {
		t.Errorf("summary does not count the extra run and the problems:\n%s", stdout)
	}
	problems, err := parquet.ReadFile[reports.ProblemRow](strings.TrimSuffix(out, ".parquet") + ".problems.parquet")
	if err != nil || len(problems) != 4 || problems[0].File != "broken.jsonl" || problems[0].Line != 2 {
		t.Errorf("problems table: %+v, %v", problems, err)
	}
	code, _, stderr = runCLI(t, "--in", runs, "--out", out, "--strict")
	if code != 1 || !strings.Contains(stderr, "4 problems in the input or its labels and --strict is set") {
		t.Errorf("--strict: exit %d\n%s", code, stderr)
	}
}

func TestFixLoopSimulation(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.parquet")
	code, stdout, stderr := runCLI(t, "--out", out, "--fix-pass-prob", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "fixloop (simulated): 15 filter failures in 5 runs") {
		t.Errorf("no fix-loop line:\n%s", stdout)
	}
	rows, err := parquet.ReadFile[reports.FixFailureRow](strings.TrimSuffix(out, ".parquet") + ".fixloop.parquet")
	if err != nil || len(rows) != 15 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	for _, r := range rows {
		if r.PassProbSource != "given" || r.PassProb != 1 {
			t.Errorf("%s cycle %d: p %v from %s", r.RunKey, r.Cycle, r.PassProb, r.PassProbSource)
		}
		if r.Skipped == nil && (r.PFixed != 1 || r.ExpectedAttempts != 1) {
			t.Errorf("%s cycle %d: with p = 1 every failure is fixed at the first attempt: %+v", r.RunKey, r.Cycle, r)
		}
	}
	runRows, err := parquet.ReadFile[reports.FixRunRow](strings.TrimSuffix(out, ".parquet") + ".fixloop_runs.parquet")
	if err != nil || len(runRows) != 5 {
		t.Fatalf("%d run rows, %v", len(runRows), err)
	}
	for _, r := range runRows {
		if r.Outcome == "max_cycles" && (r.PWithinLimit == nil || *r.PWithinLimit != 1) {
			t.Errorf("%s: a limit-stopped run with every failure fixed finishes: %+v", r.RunKey, r.PWithinLimit)
		}
	}
}

func TestSingleFileInput(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	out := filepath.Join(dir, "r.parquet")
	code, stdout, stderr := runCLI(t, "--in", filepath.Join(dir, "runs", "synth-0007.jsonl"), "--out", out)
	if code != 0 || !strings.Contains(stdout, "1 file (trace 1), 2 runs") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	rows, err := parquet.ReadFile[reports.RunRow](out)
	if err != nil || len(rows) != 2 || rows[0].RunKey != "synth-0007@e1" || rows[1].RunKey != "synth-0007@e2" {
		t.Fatalf("rows %+v, %v", rows, err)
	}
}

func TestCancelledReplayLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"--in", filepath.Join(dir, "runs"), "--out", filepath.Join(out, "r.parquet")}, &stdout, &stderr); code != 130 ||
		stderr.String() != "replay: interrupted; no table was written\n" {
		t.Errorf("exit %d, want 130 (interrupted)\n%s", code, stderr.String())
	}
	if left := files(t, out); len(left) != 0 {
		t.Errorf("a cancelled replay left %v", left)
	}
}

// TestInteropDuckDB reads the replay's Parquet files with DuckDB, an independent
// reader, the way an analyst would, and checks them against what replay printed.
func TestInteropDuckDB(t *testing.T) {
	duckdb.Require(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "results.parquet")
	code, stdout, stderr := runCLI(t, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^struggle\s+loopwatch\s+runs\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+).*\s(\S+)\s+\S+$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no struggle line in the summary:\n%s", stdout)
	}
	printedRuns, _ := strconv.Atoi(m[1])
	printedTP, _ := strconv.Atoi(m[3])
	printedPrecision, _ := strconv.ParseFloat(m[7], 64)
	printedAP := m[8]
	cyclesLine := regexp.MustCompile(`cycles \((\d+)\)`).FindStringSubmatch(stdout)

	stem := strings.TrimSuffix(out, ".parquet")
	q := func(sql ...string) [][]map[string]any { return duckdb.Maps(t, dir, sql...) }
	res := q(
		fmt.Sprintf(`SELECT count(*) AS n FROM read_parquet('%s.parquet') WHERE kind = 'quasar_run'`, stem),
		fmt.Sprintf(`SELECT count(*) AS n FROM read_parquet('%s.cycles.parquet')`, stem),
		fmt.Sprintf(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s.parquet'))`, stem),
		fmt.Sprintf(`SELECT metric, value FROM read_parquet('%s.metrics.parquet') WHERE detector = 'struggle' AND config = 'loopwatch' ORDER BY metric`, stem),
		fmt.Sprintf(`SELECT count(*) FILTER (WHERE struggle_confusion = 'tp') AS tp, count(*) FILTER (WHERE actual) AS positives,
			min(started_at) < max(ended_at) AS ordered, epoch(min(started_at)) AS first_start
			FROM read_parquet('%s.parquet')`, stem),
		fmt.Sprintf(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('%s.metrics.parquet')`, stem),
		fmt.Sprintf(`SELECT count(*) AS n, sum(expected_cycles_saved) AS saved FROM read_parquet('%s.fixloop.parquet')`, stem),
		fmt.Sprintf(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s.events.parquet'))`, stem),
		fmt.Sprintf(`SELECT count(*) AS n, count(*) FILTER (WHERE list_contains(signals, 'user_correction')) AS corrections,
			count(*) FILTER (WHERE intervention IS NOT NULL) AS interventions FROM read_parquet('%s.events.parquet')`, stem),
		fmt.Sprintf(`SELECT r.run_key, r.interventions, count(i.event_index) AS rows FROM read_parquet('%s.parquet') r
			LEFT JOIN read_parquet('%s.interventions.parquet') i ON i.run_key = r.run_key
			WHERE r.kind = 'session' GROUP BY ALL HAVING r.interventions <> count(i.event_index)`, stem, stem),
		fmt.Sprintf(`SELECT count(*) FILTER (WHERE kind = 'session') AS sessions, count(*) FILTER (WHERE kind = 'session' AND cycles IS NULL) AS null_cycles
			FROM read_parquet('%s.parquet')`, stem),
		// Average precision recomputed from the PR curve's points, the step-wise sum.
		fmt.Sprintf(`SELECT sum(step) AS ap FROM (SELECT (recall - coalesce(lag(recall) OVER (ORDER BY point), 0)) * precision AS step
			FROM read_parquet('%s.curves.parquet') WHERE detector = 'struggle' AND config = 'loopwatch' AND curve = 'pr')`, stem),
	)
	if n := int(num(t, res[0][0]["n"])); n != printedRuns {
		t.Errorf("DuckDB counts %d runs, replay printed %d", n, printedRuns)
	}
	if n := num(t, res[1][0]["n"]); cyclesLine == nil || fmt.Sprint(n) != cyclesLine[1] {
		t.Errorf("DuckDB counts %v cycles, replay printed %v", n, cyclesLine)
	}
	types := map[string]string{}
	for _, row := range res[2] {
		types[row["column_name"].(string)] = row["column_type"].(string)
	}
	for col, want := range map[string]string{"run_key": "VARCHAR", "outcome": "VARCHAR", "label": "VARCHAR",
		"started_at": "TIMESTAMP WITH TIME ZONE", "ended_at": "TIMESTAMP WITH TIME ZONE", "struggle_first_at": "TIMESTAMP WITH TIME ZONE",
		"cycles": "INTEGER", "total_cost_usd": "DOUBLE", "struggle_predicted": "BOOLEAN"} {
		if types[col] != want {
			t.Errorf("column %s is %q in DuckDB, want %s", col, types[col], want)
		}
	}
	metrics := map[string]float64{}
	for _, row := range res[3] {
		if row["value"] != nil {
			metrics[row["metric"].(string)] = num(t, row["value"])
		}
	}
	if fmt.Sprintf("%.3f", metrics["precision"]) != fmt.Sprintf("%.3f", printedPrecision) {
		t.Errorf("DuckDB reads precision %v, replay printed %v", metrics["precision"], printedPrecision)
	}
	if int(metrics["tp"]) != printedTP || int(num(t, res[4][0]["tp"])) != printedTP {
		t.Errorf("TP: metrics %v, run rows %v, printed %d", metrics["tp"], res[4][0]["tp"], printedTP)
	}
	// The sample's first run starts at 2026-03-02T09:00:00Z: the instant must survive as
	// a UTC timestamp whatever DuckDB's session time zone.
	if want := float64(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).Unix()); res[4][0]["ordered"] != true || num(t, res[4][0]["first_start"]) != want {
		t.Errorf("timestamps: %v, want first start %v", res[4][0], want)
	}
	kv := map[string]string{}
	for _, row := range res[5] {
		kv[row["k"].(string)] = row["v"].(string)
	}
	for _, k := range []string{"loopwatch.version", "loopwatch.struggle_config", "loopwatch.config_hash", "loopwatch.input_fingerprint", "loopwatch.labels"} {
		if kv[k] == "" {
			t.Errorf("metadata %s missing: %v", k, kv)
		}
	}
	fixLine := regexp.MustCompile(`fixloop \(simulated\): (\d+) filter failures in \d+ runs: ([\d.]+) `).FindStringSubmatch(stdout)
	if fixLine == nil || fmt.Sprint(num(t, res[6][0]["n"])) != fixLine[1] || fmt.Sprintf("%.1f", num(t, res[6][0]["saved"])) != fixLine[2] {
		t.Errorf("fixloop table in DuckDB %v, replay printed %v", res[6][0], fixLine)
	}
	evTypes := map[string]string{}
	for _, row := range res[7] {
		evTypes[row["column_name"].(string)] = row["column_type"].(string)
	}
	for col, want := range map[string]string{"run_key": "VARCHAR", "at": "TIMESTAMP WITH TIME ZONE", "signals": "VARCHAR[]",
		"frustration_ema": "DOUBLE", "friction_label": "BOOLEAN"} {
		if evTypes[col] != want {
			t.Errorf("events column %s is %q in DuckDB, want %s", col, evTypes[col], want)
		}
	}
	eventsLine := regexp.MustCompile(`sessions \((\d+) events\)`).FindStringSubmatch(stdout)
	if eventsLine == nil || fmt.Sprint(num(t, res[8][0]["n"])) != eventsLine[1] || num(t, res[8][0]["corrections"]) == 0 || num(t, res[8][0]["interventions"]) == 0 {
		t.Errorf("events table in DuckDB %v, replay printed %v", res[8][0], eventsLine)
	}
	if got := fmt.Sprintf("%.3f", num(t, res[11][0]["ap"])); got != printedAP {
		t.Errorf("AP from the curves table in DuckDB %s, replay printed %s", got, printedAP)
	}
	if len(res[9]) != 0 {
		t.Errorf("sessions whose intervention count disagrees with the interventions table: %v", res[9])
	}
	sessionsLine := regexp.MustCompile(`(\d+) sessions \(`).FindStringSubmatch(stdout)
	if sessionsLine == nil || fmt.Sprint(num(t, res[10][0]["sessions"])) != sessionsLine[1] || res[10][0]["sessions"] != res[10][0]["null_cycles"] {
		t.Errorf("session rows %v, printed %v", res[10][0], sessionsLine)
	}
	if kv["loopwatch.table"] != "metrics" {
		t.Errorf("loopwatch.table = %q", kv["loopwatch.table"])
	}
}

// num reads a number from DuckDB's JSON, which writes BIGINT values as strings.
func num(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err == nil {
			return f
		}
	}
	t.Fatalf("not a number: %#v", v)
	return 0
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := corpus.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestReadmeShowsTheDemo checks that the output quoted in the README is what `make demo`
// prints today, so no number in the README drifts from the command that produces it.
func TestReadmeShowsTheDemo(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```\ninput:")
	if !ok {
		t.Fatal("README has no demo output block")
	}
	block = "input:" + block[:strings.Index(block, "```")]
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "--out", filepath.Join(dir, "results.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	summary, _, _ := strings.Cut(stdout, "\nwrote ")
	if strings.TrimSpace(summary) != strings.TrimSpace(block) {
		t.Errorf("README's demo output is stale; `make demo` prints:\n%s", summary)
	}
}

// TestReadmeFixLoopCheck: the outer check the README quotes is what a replay of the
// dataset it names prints.
func TestReadmeFixLoopCheck(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	oneLine := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	text := oneLine(string(readme))
	if !strings.Contains(text, "`datagen --runs 200 --fix-loop-every 2 --seed 3`") {
		t.Fatal("the README no longer names the dataset of its fix-loop check")
	}
	dir := t.TempDir()
	if _, err := synth.WriteDataset(synth.DirDest(dir), synth.DatasetConfig{Runs: 200, Seed: 3, FixLoopEvery: 2}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "--in", filepath.Join(dir, synth.InputsDir), "--labels", filepath.Join(dir, synth.RunLabelsFile),
		"--out", filepath.Join(dir, "results.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, check, ok := strings.Cut(stdout, "; checked on the loops that ran: ")
	if !ok {
		t.Fatalf("no outer check printed:\n%s", stdout)
	}
	check, _, _ = strings.Cut(check, "\n")
	if want := "`checked on the loops that ran: " + check + "`"; !strings.Contains(text, oneLine(want)) {
		t.Errorf("README's fix-loop check is stale; the replay prints %s", want)
	}
}

// TestCorpusClaudeCode pins the figures the README quotes for the shared Claude Code
// corpus: the defaults, and the seed's literal tool reading and failure side
// (detect.WithSeedTools, breaker.WithSeedFailures) spelled as an --assess-config —
// among them the session analysis's outcome accuracy by outcome, the seed preset's
// beside it, which must agree with the README's preset table (loopwatch 70/72, seed
// 50/69).
func TestCorpusClaudeCode(t *testing.T) {
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	out := t.TempDir()
	cfg := filepath.Join(out, "seed-tools.json")
	os.WriteFile(cfg, []byte(`{"detect": {"extra_tool_rules": [], "tools": {"status_rules": false, "failure_drops_success": false,
		"commands": false, "command_rules": [], "text_tools": [], "quiet_tools": [], "collateral": [], "scan_bytes": 0}},
	"breaker": {"tool_error_is_failure": false, "lint_error_is_failure": false, "correction_is_failure": true,
		"count_per_signal": true, "failure_streaks": "session", "pivot_once_per_streak": false}}`), 0o644)
	for _, tt := range []struct {
		args  []string
		want  string
		types string // interventions by type; how many within the window after a moment; sessions with an approach_pivot
		// outcome: the configured session analysis's outcome accuracy by outcome (the
		// summary's line, its confusion by outcome, correct of scored in the metrics
		// table), the same figures as the README's preset table.
		outcome, matrix string
		correct, scored int
	}{
		{[]string{"--assess-config", cfg}, `(?m)^configured\s+143\s+0\.712 \[0\.56, 0\.85\]\s+0\.250 \[0\.13, 0\.50\]\s+22\.6 \[8\.0, 44\.6\]`,
			"map[approach_pivot:100 clarification_pause:1 explicit_check_in:42] 34 8",
			`(?m)^configured\s+0\.833 \[0\.74, 0\.92\]\s+60/72\s+0\.903\s+0\.554\s+0\.444\s+0$`, "56 0 0 9 0|1 0 0 1 0|0 0 0 0 0|1 0 0 4 0|0 0 0 0 1", 60, 72},
		// The defaults: approach_pivot fires once per failure streak of one kind of
		// command; the check-ins and clarification pauses land at the human's friction
		// turns.
		{nil, `(?m)^loopwatch\s+45\s+0\.712 \[0\.56, 0\.85\]\s+0\.740 \[0\.58, 0\.89\]\s+2\.6 \[1\.0, 4\.6\]`,
			"map[approach_pivot:1 clarification_pause:1 explicit_check_in:43] 32 1",
			`(?m)^loopwatch\s+0\.972 \[0\.93, 1\.00\]\s+70/72\s+0\.903\s+0\.767\s+0\.847\s+0$`, "65 0 0 0 0|1 1 0 0 0|0 0 0 0 0|1 0 0 4 0|0 0 0 0 1", 70, 72},
	} {
		args := append([]string{"--in", dir, "--labels", filepath.Join(dir, "labels.csv"), "--out", filepath.Join(out, "cc.parquet")}, tt.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "73 sessions (10363 events), 2 problems") || !strings.Contains(stdout, "73 sessions, 52 moments, 491 human turns") ||
			!regexp.MustCompile(tt.want).MatchString(stdout) ||
			!regexp.MustCompile(`(?m)^shipped-today\s+100\s+0\.173 \[0\.08, 0\.27\]\s+0\.089 \[0\.04, 0\.15\]\s+18\.7 \[15\.1, 23\.5\]`).MatchString(stdout) {
			t.Errorf("%v: summary lacks %q:\n%s", tt.args, tt.want, stdout)
		}
		// The seed preset scored beside it: three sessions get no final analysis.
		if !regexp.MustCompile(tt.outcome).MatchString(stdout) ||
			!regexp.MustCompile(`(?m)^seed\s+0\.725 \[0\.62, 0\.83\]\s+50/69\s+0\.913\s+0\.510\s+0\.390\s+3$`).MatchString(stdout) {
			t.Errorf("%v: the outcome accuracy by outcome is not %q (and the seed's 50/69):\n%s", tt.args, tt.outcome, stdout)
		}
		_, matrix, _ := strings.Cut(stdout, "by outcome (rows labelled, columns predicted")
		var cells []string
		for _, line := range strings.Split(matrix+"\n\n\n\n\n\n", "\n")[2:7] {
			f := strings.Fields(line)
			cells = append(cells, strings.Join(f[min(1, len(f)):], " "))
		}
		if got := strings.Join(cells, "|"); got != tt.matrix {
			t.Errorf("%v: confusion by outcome %s, want %s", tt.args, got, tt.matrix)
		}
		if tt.args == nil { // the README quotes the defaults' lines
			readme, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			_, block, _ := strings.Cut(stdout, "\noutcome by class")
			block, _, _ = strings.Cut("outcome by class"+block, "\n\n")
			if block += "\n"; !strings.Contains(string(readme), "```\n"+block+"```\n") {
				t.Errorf("README does not quote the summary's outcome accuracy by outcome; the replay prints:\n%s", block)
			}
		}
		metrics, err := parquet.ReadFile[reports.MetricRow](filepath.Join(out, "cc.metrics.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, m := range metrics {
			// The calibration the README quotes (mean confidence 0.66, Brier 0.127).
			if want := map[string]string{"mean_confidence": "0.66", "brier": "0.127"}[m.Metric]; tt.args == nil && want != "" &&
				m.Target == "session_outcome" && m.Config == metrics[0].Config {
				if m.Value == nil || strconv.FormatFloat(*m.Value, 'f', len(want)-2, 64) != want {
					t.Errorf("the metrics table's %s %v, the README says %s", m.Metric, m.Value, want)
				}
			}
			if m.Target == "session_outcome" && m.Metric == "accuracy" && m.Config == metrics[0].Config {
				found++
				if m.Value == nil || *m.Value != float64(tt.correct)/float64(tt.scored) || m.Scored != int32(tt.scored) || m.Runs != 73 || m.Excluded != 1 {
					t.Errorf("%v: the metrics table's outcome accuracy %+v, want %d/%d", tt.args, m, tt.correct, tt.scored)
				}
			}
		}
		if found != 1 {
			t.Errorf("%v: %d rows of the configured outcome accuracy in the metrics table", tt.args, found)
		}
		ivs, err := parquet.ReadFile[reports.InterventionRow](filepath.Join(out, "cc.interventions.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		byType := map[string]int{}
		pivoted := map[string]bool{}
		after := 0
		for _, iv := range ivs {
			byType[iv.Type]++
			if iv.AfterFriction != nil && *iv.AfterFriction {
				after++
			}
			if iv.Type == "approach_pivot" {
				pivoted[iv.SessionKey] = true
			}
		}
		if got := fmt.Sprint(byType, " ", after, " ", len(pivoted)); got != tt.types {
			t.Errorf("%v: interventions by type, after friction, sessions pivoted: %s, want %s", tt.args, got, tt.types)
		}
	}
}

// TestUnmatchedLabels: label keys that match no run or session are reported in the
// summary, and fail --strict; the rest of the labels still score.
func TestUnmatchedLabels(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	labels, err := os.ReadFile(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(dir, "extra.csv")
	os.WriteFile(extra, append(labels, "ghost-1,positive,,human,\nghost-2,negative,,human,\n"...), 0o644)
	args := []string{"--in", filepath.Join(dir, "runs"), "--labels", extra, "--out", filepath.Join(dir, "r.parquet")}
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 || !strings.Contains(stdout, "18 labelled; 2 label keys match no run or session (ghost-1, ghost-2)") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`struggle\s+loopwatch\s+runs\s+16\s+16\s+5\s+0\s+2\s+9`).MatchString(stdout) {
		t.Errorf("the matching labels no longer score:\n%s", stdout)
	}
	code, _, stderr = runCLI(t, append(args, "--strict")...)
	if code != 1 || !strings.Contains(stderr, "2 problems") {
		t.Errorf("--strict: exit %d, %s", code, stderr)
	}
}

// TestComparedOnce: a preset compared is scored once under its name — not again where
// it is the configured side's (--assess-config seed beside the default struggle
// detection), and not twice when --compare names it twice. Every metric and every
// unit's prediction is one row per configuration.
func TestComparedOnce(t *testing.T) {
	sample := filepath.Join("..", "..", "datasets", "sample")
	for _, extra := range [][]string{
		{"--assess-config", "seed"},
		{"--struggle-config", "seed"},
		{"--compare", "seed,seed,shipped-today,shipped-today"},
	} {
		out := filepath.Join(t.TempDir(), "r.parquet")
		args := append([]string{"--in", filepath.Join(sample, "inputs"), "--labels", filepath.Join(sample, "labels", "runs.csv"),
			"--labels", filepath.Join(sample, "labels", "sessions.csv"), "--out", out}, extra...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", extra, code, stderr)
		}
		metrics, err := parquet.ReadFile[reports.MetricRow](strings.TrimSuffix(out, ".parquet") + ".metrics.parquet")
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		configs := map[string]bool{}
		for _, m := range metrics {
			k := strings.Join([]string{m.Detector, m.Config, m.Target, m.Metric}, "/")
			if seen[k] {
				t.Errorf("%v: metric %s twice", extra, k)
			}
			seen[k], configs[m.Detector+"/"+m.Config] = true, true
		}
		for _, want := range []string{"struggle/seed", "breaker/seed", "outcome/seed", "struggle/shipped-today", "breaker/shipped-today"} {
			if !configs[want] {
				t.Errorf("%v: no %s metrics (have %v)", extra, want, configs)
			}
		}
		preds, err := parquet.ReadFile[reports.PredictionRow](strings.TrimSuffix(out, ".parquet") + ".predictions.parquet")
		if err != nil {
			t.Fatal(err)
		}
		units := map[string]bool{}
		for _, p := range preds {
			if k := p.Kind + "/" + p.RunKey + "/" + p.Config; units[k] {
				t.Errorf("%v: prediction %s twice", extra, k)
			} else {
				units[k] = true
			}
		}
	}
}

// TestOutputsAmongInputs: the files a loopwatch manifest in the input lists are its
// output, ignored like the Parquet tables — an Arrow export and a chosen
// configuration that tune wrote into the folder it read, say — in a file output's
// folder and below a folder output's _manifests; without the manifest they are
// unknown files.
func TestOutputsAmongInputs(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	runs := filepath.Join(dir, "runs")
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(runs, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(runs, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sweep.arrow", "ARROW1\x00\x00 not an input")
	write("sweep.struggle.json", "{\n  \"composite_threshold\": 0.2\n}\n")
	write("sweep.manifest.json", `{"tables": [{"table": "", "file": "sweep.parquet"}, {"table": "sweep_arrow", "file": "sweep.arrow"},
		{"table": "config_struggle", "file": "sweep.struggle.json"}]}`)
	write("out/extra/chosen.json", "{\n}\n")
	write("out/_manifests/set.manifest.json", `{"tables": [{"file": "extra/chosen.json"}]}`)
	args := []string{"--in", runs, "--out", filepath.Join(dir, "r.parquet"), "--strict"}
	if code, stdout, stderr := runCLI(t, args...); code != 0 || !strings.Contains(stdout, "14 files (trace 14), 16 runs, 0 problems") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, m := range []string{"sweep.manifest.json", filepath.Join("out", "_manifests", "set.manifest.json")} {
		if err := os.Remove(filepath.Join(runs, m)); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := runCLI(t, args...)
	for _, f := range []string{"sweep.arrow", "sweep.struggle.json", "out/extra/chosen.json"} {
		if code != 1 || !strings.Contains(stderr, f+": unknown_file") {
			t.Errorf("without the manifests, %s: exit %d\n%s", f, code, stderr)
		}
	}
}

// TestMissingMomentsUnderStrict: a labelled friction moment that is no event of its
// session is left out of the scoring with a warning, and fails --strict: a label that
// scores nothing is a problem.
func TestMissingMomentsUnderStrict(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join("..", "..", "datasets", "sample")
	labels, err := os.ReadFile(filepath.Join(sample, "labels", "sessions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	const moment = "b27af008-e317-47ec-a272-7bdde2e224d6"
	if !bytes.Contains(labels, []byte(","+moment+",")) {
		t.Fatalf("the sample's labels no longer mark %s", moment)
	}
	bad := filepath.Join(dir, "moments.csv")
	os.WriteFile(bad, bytes.Replace(labels, []byte(","+moment+","), []byte(",not-a-uuid;"+moment+","), 1), 0o644)
	args := []string{"--in", filepath.Join(sample, "inputs", "sessions"), "--labels", bad, "--out", filepath.Join(dir, "r.parquet")}
	code, _, stderr := runCLI(t, args...)
	if code != 0 || !strings.Contains(stderr, "1 labelled friction moment left out: no event of their session") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The sample's sessions alone leave its other labels unmatched: problems already;
	// the moment is one more.
	good := filepath.Join(dir, "good.csv")
	os.WriteFile(good, labels, 0o644)
	problems := regexp.MustCompile(`replay: (\d+) problems in the input or its labels and --strict is set`)
	count := func(labels string) int {
		code, _, stderr := runCLI(t, "--in", args[1], "--labels", labels, "--out", filepath.Join(dir, "s.parquet"), "--strict")
		m := problems.FindStringSubmatch(stderr)
		if code != 1 || m == nil {
			t.Fatalf("--strict with %s: exit %d, want 1\n%s", labels, code, stderr)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if before, after := count(good), count(bad); after != before+1 {
		t.Errorf("--strict: %d problems with the moment missing, %d without it", after, before)
	}
}

// TestEmptyInputUnderStrict: a folder with no input file (an artifact that was not
// downloaded, say) replays to a warning, and fails --strict; a shard that owns no file
// of a non-empty input does not.
func TestEmptyInputUnderStrict(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"--in", empty, "--out", filepath.Join(dir, "r.parquet")}
	code, _, stderr := runCLI(t, args...)
	if code != 0 || !strings.Contains(stderr, "no input file is in a recognised format") {
		t.Fatalf("without --strict: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, append(args, "--strict")...)
	if code != 1 || !strings.Contains(stderr, "no input file is in a recognised format and --strict is set") {
		t.Errorf("--strict: exit %d, %s", code, stderr)
	}
	one := filepath.Join(dir, "one")
	writeSample(t, one)
	entries, _ := os.ReadDir(filepath.Join(one, "runs"))
	if len(entries) == 0 {
		t.Fatal("the sample has no run file")
	}
	run := filepath.Join(one, "runs", entries[0].Name())
	for i := range 8 { // eight shards of one file: seven own nothing, and pass
		code, _, stderr := runCLI(t, "--in", run, "--out", filepath.Join(dir, "sh")+"/", "--shard", fmt.Sprintf("%d/8", i), "--strict")
		if code != 0 {
			t.Errorf("shard %d/8 of one file: exit %d, %s", i, code, stderr)
		}
	}
}

// TestLabelProblems: a bad row of a labels file (a quote left open, a label or outcome
// that is none, a friction time that is no time, more fields than the header) is
// reported with its file and line and counted in the summary; the rest of the file is
// read, the replay exits 0, and --strict fails it — a whole replay into a file, and
// into a folder (through the merge, as metrics reads it).
func TestLabelProblems(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	runs := filepath.Join(dir, "runs")
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	quotes := write("quotes.csv", "run_key,label,rule\n\"q-0001\",positive,x\n\"q-0002,negative\nq-0003,negative,x\n")
	rows := write("rows.csv", "run_key,label,rule\nq-0001,positive,x\nq-0002,maybe,x\nq-0003,negative,x,extra\n")
	sessions := write("sessions.csv", "session_id,outcome,friction_times\ns-1,failure,\ns-2,weird_outcome,\ns-3,success,notatime\n")
	for _, tt := range []struct {
		labels []string
		want   []string // in stderr
		n      int      // label problems
	}{
		{[]string{quotes}, []string{quotes + `:3: label: extraneous or missing " in quoted-field (the record runs from line 3 to line 4); skipped`}, 1},
		{[]string{rows}, []string{rows + `:3: label: label "maybe" is not`, rows + ":4: label: 4 fields, the header names 3; the extra fields are ignored"}, 2},
		{[]string{sessions}, []string{sessions + `:3: label: no label, and outcome "weird_outcome" is not a session outcome`,
			sessions + `:4: label: friction time "notatime" is not an RFC 3339 time; ignored`}, 2},
	} {
		for _, out := range []string{filepath.Join(dir, "r.parquet"), filepath.Join(dir, "out") + "/"} {
			args := []string{"--in", runs, "--out", out}
			for _, l := range tt.labels {
				args = append(args, "--labels", l)
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, "replay: "+w) {
					t.Errorf("%v: stderr does not report %q:\n%s", args, w, stderr)
				}
			}
			if want := fmt.Sprintf("; %s in the labels (listed above, by file and line)", plural.Count(tt.n, "problem")); !strings.Contains(stdout, want) {
				t.Errorf("%v: the summary does not count them (%q):\n%s", args, want, stdout)
			}
			// The labels' other rows are read.
			if !strings.Contains(stdout, ": 1 labelled") && !strings.Contains(stdout, ": 2 labelled") {
				t.Errorf("%v: the file's good rows are not read:\n%s", args, stdout)
			}
			code, _, stderr = runCLI(t, append(args, "--strict")...)
			// The sample's runs are not q-… nor s-…: the good rows match nothing, and count too.
			if code != 1 || !regexp.MustCompile(`replay: \d+ problems in the input or its labels and --strict is set`).MatchString(stderr) {
				t.Errorf("%v --strict: exit %d, want 1\n%s", args, code, stderr)
			}
		}
	}
	// With the sample's own labels and a bad row, --strict fails on the bad row alone.
	sample, err := os.ReadFile(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	bad := write("sample-bad.csv", string(sample)+"q-9,maybe,,human,\n")
	args := []string{"--in", runs, "--labels", bad, "--out", filepath.Join(dir, "s.parquet")}
	if code, stdout, stderr := runCLI(t, args...); code != 0 || !strings.Contains(stdout, "16 labelled; 1 problem in the labels") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, append(args, "--strict")...); code != 1 || !strings.Contains(stderr, "replay: 1 problem in the input or its labels and --strict is set") {
		t.Errorf("--strict: exit %d, want 1\n%s", code, stderr)
	}
}

// TestSingleTranscriptKeepsItsSubagents: --in naming one Claude Code transcript
// replays its subagent folder with it, as a folder holding only them would.
func TestSingleTranscriptKeepsItsSubagents(t *testing.T) {
	root := moduleRoot(t)
	dir := filepath.Join(root, "datasets", "sample", "inputs", "sessions", "-home-dev-src-ledger")
	out := t.TempDir()
	code, single, stderr := runCLI(t, "--in", filepath.Join(dir, "880aa009-0e96-4e59-95ae-38969e51f3b2.jsonl"), "--out", filepath.Join(out, "a.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(single, "2 files (claude_code 1, claude_code_subagent 1), 1 session") {
		t.Errorf("the subagent transcript is not replayed with its parent:\n%s", single)
	}
	// The same events as replaying a folder holding the transcript and its subagents.
	copyTree(t, filepath.Join(dir, "880aa009-0e96-4e59-95ae-38969e51f3b2"), filepath.Join(out, "in", "880aa009-0e96-4e59-95ae-38969e51f3b2"))
	copyTree(t, filepath.Join(dir, "880aa009-0e96-4e59-95ae-38969e51f3b2.jsonl"), filepath.Join(out, "in", "880aa009-0e96-4e59-95ae-38969e51f3b2.jsonl"))
	code, folder, stderr := runCLI(t, "--in", filepath.Join(out, "in"), "--out", filepath.Join(out, "b.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	events := regexp.MustCompile(`sessions? \((\d+) events?\)`)
	if a, b := events.FindStringSubmatch(single), events.FindStringSubmatch(folder); a == nil || b == nil || a[1] != b[1] {
		t.Errorf("single file %v events, folder %v", a, b)
	}
}

// copyTree copies a file or a folder.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPresetsAndPrintConfig: presets by name and as the base of a file; what
// --print-config prints is accepted back as it is and means the same configuration.
func TestPresetsAndPrintConfig(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want []string // in stdout
	}{
		{[]string{"--print-config=struggle"}, []string{`"case_fold": true`, `"budget_burn": 0.25`}},
		{[]string{"--print-config=struggle", "--struggle-config", "seed"}, []string{`"case_fold": false`}},
		{[]string{"--print-config=assess", "--assess-config", "seed"}, []string{`"interrupt_is_correction": false`, `"end_hooks": [` + "\n" + `    "Stop"`}},
		{[]string{"--print-config"}, []string{`"struggle": {`, `"assess": {`}},
	} {
		code, stdout, stderr := runCLI(t, tt.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", tt.args, code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: no %q in\n%s", tt.args, w, stdout)
			}
		}
	}
	for _, which := range []string{"struggle", "assess"} {
		for _, preset := range []string{"loopwatch", "seed"} {
			_, printed, _ := runCLI(t, "--print-config="+which, "--"+which+"-config", preset)
			file := filepath.Join(dir, which+"-"+preset+".json")
			os.WriteFile(file, []byte(printed), 0o644)
			code, again, stderr := runCLI(t, "--print-config="+which, "--"+which+"-config", file)
			if code != 0 || again != printed {
				t.Errorf("%s %s: printed config read back differs (exit %d %s):\n%s\nvs\n%s", which, preset, code, stderr, printed, again)
			}
		}
	}
	over := filepath.Join(dir, "over.json")
	os.WriteFile(over, []byte(`{"preset": "seed", "breaker": {"cooldown": "1m"}}`), 0o644)
	_, stdout, _ := runCLI(t, "--print-config=assess", "--assess-config", over)
	if !strings.Contains(stdout, `"cooldown": "1m0s"`) || !strings.Contains(stdout, `"tool_error_is_failure": false`) {
		t.Errorf("a file over the seed preset:\n%s", stdout)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"preset": "newest"}`), 0o644)
	if code, _, stderr := runCLI(t, "--print-config=assess", "--assess-config", bad); code != 2 || !strings.Contains(stderr, `unknown preset "newest"`) {
		t.Errorf("unknown preset: exit %d %s", code, stderr)
	}
}

// TestReport writes the HTML report of the sample (runs and sessions) and of the
// shared Claude Code corpus, and opens each in headless Chromium: no console error,
// no request but the file itself, a screenshot that is not blank and shows the
// curves of the three configurations (configured, seed, shipped-today), and the
// trajectories drawn.
func TestReport(t *testing.T) {
	html := checkReport(t, nil, []string{"struggle", "breaker", "outcome"}, 6, 6)
	// The sample's sessions are labelled with outcomes: the outcome accuracy and the
	// sessions by outcome are in the report, as in the summary.
	for _, want := range []string{"Session outcomes: the final analysis", "sessions by outcome, labelled (rows) and predicted (columns)", "majority baseline"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// TestCorpusReport is TestReport on the shared Claude Code corpus.
func TestCorpusReport(t *testing.T) {
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	checkReport(t, []string{"--in", dir, "--labels", filepath.Join(dir, "labels.csv")}, []string{"breaker", "outcome"}, 0, 6)
}

// checkReport writes and checks the report of a replay with args; it returns the HTML.
func checkReport(t *testing.T, args []string, detectors []string, runs, sessions int) string {
	t.Helper()
	exe := browser.ForTest(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "report.html")
	code, stdout, stderr := runCLI(t, append(args, "--out", filepath.Join(dir, "r.parquet"), "--report", report)...)
	if code != 0 || !strings.Contains(stdout, "wrote the report "+report) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	html, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, det := range detectors {
		if !strings.Contains(string(html), "<h3>"+det+"</h3>") {
			t.Errorf("no curves of %s in the report", det)
		}
	}
	if got := strings.Count(string(html), ": struggle score per cycle</title>"); got != runs {
		t.Errorf("%d run trajectories, want %d", got, runs)
	}
	if got := strings.Count(string(html), ": frustration per event</title>"); got != sessions {
		t.Errorf("%d session trajectories, want %d", got, sessions)
	}
	browser.CheckFile(t, exe, report, htmlreport.SeriesColours()[:3])
	return string(html)
}

// TestStreamInput: --in naming a named pipe (as /dev/stdin or a process substitution
// is) reads it once, as a stream: its runs are replayed, not lost to a second read.
func TestStreamInput(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	trace, err := os.ReadFile(filepath.Join(dir, "runs", "synth-0007.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "stream")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(trace)
		f.Close()
	}()
	code, stdout, stderr := runCLI(t, "--in", fifo, "--out", filepath.Join(dir, "r.parquet"), "--strict")
	if code != 0 || !strings.Contains(stdout, "1 file (trace 1), 2 runs") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestOutputInsideInput: an output written inside the input folder is not input the
// next time: the same results, no unknown_file problem, --strict passes.
func TestOutputInsideInput(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	runs := filepath.Join(dir, "runs")
	args := []string{"--in", runs, "--labels", filepath.Join(dir, "labels.csv"), "--out", filepath.Join(runs, "out", "r.parquet"), "--strict"}
	os.Mkdir(filepath.Join(runs, "out"), 0o755)
	var summaries []string
	for range 2 {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		summary, _, _ := strings.Cut(stdout, "\nwrote ")
		summaries = append(summaries, summary)
	}
	if summaries[0] != summaries[1] || !strings.Contains(summaries[1], "14 files (trace 14), 16 runs, 0 problems") {
		t.Errorf("the second replay read its own output:\n%s\nvs\n%s", summaries[0], summaries[1])
	}
}

// TestEveryProblemInTheTable: the problems table holds every problem, far past what
// the summary keeps in memory for display.
func TestEveryProblemInTheTable(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	var bad strings.Builder
	first, _ := os.ReadFile(filepath.Join(dir, "runs", "synth-0007.jsonl"))
	bad.Write(first)
	for range 10050 {
		bad.WriteString("{not json\n")
	}
	os.WriteFile(filepath.Join(dir, "runs", "zz-bad.jsonl"), []byte(bad.String()), 0o644)
	out := filepath.Join(dir, "r.parquet")
	code, _, stderr := runCLI(t, "--in", filepath.Join(dir, "runs"), "--out", out, "--show-problems", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := parquet.ReadFile[reports.ProblemRow](filepath.Join(dir, "r.problems.parquet"))
	if err != nil || len(rows) < 10050 {
		t.Errorf("%d problem rows, want ≥ 10050 (%v)", len(rows), err)
	}
}

// TestFailingAnalyzer: a claude that fails (non-zero exit, an answer that is no
// analysis) is a problem per session, the sessions' outcomes are left out of the
// outcome scores instead of counting as predicted good, and --strict fails.
func TestFailingAnalyzer(t *testing.T) {
	dir := t.TempDir()
	for name, script := range map[string]string{
		"exit":    "#!/bin/sh\ncat >/dev/null\necho boom >&2\nexit 3\n",
		"garbage": "#!/bin/sh\ncat >/dev/null\necho 'not json at all'\n",
	} {
		t.Run(name, func(t *testing.T) {
			fake := filepath.Join(dir, "claude-"+name)
			os.WriteFile(fake, []byte(script), 0o755)
			root := moduleRoot(t)
			sessions := filepath.Join(root, "datasets", "sample", "inputs", "sessions")
			labels := filepath.Join(root, "datasets", "sample", "labels", "sessions.csv")
			args := []string{"--in", sessions, "--labels", labels, "--out", filepath.Join(dir, name+".parquet"), "--llm", "claude", "--claude-path", fake}
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "analysis_failed") {
				t.Errorf("no analysis_failed problem on stderr:\n%s", stderr)
			}
			if !regexp.MustCompile(`(?m)^outcome\s+loopwatch\s+sessions\s+0\s+0\s`).MatchString(stdout) ||
				!strings.Contains(stdout, "note: outcome: 6 sessions whose analysis failed (analysis_failed problems) are left out of the outcome scores") {
				t.Errorf("failed analyses are scored:\n%s", stdout)
			}
			if code, _, _ := runCLI(t, append(args, "--strict")...); code != 1 {
				t.Errorf("--strict: exit %d, want 1", code)
			}
		})
	}
}

// TestSlowAnalyzer: a claude call still running is reported on stderr every
// --claude-progress, and one that outlasts --claude-timeout is killed and is a failed
// analysis, recorded with the timeout in the metadata.
func TestSlowAnalyzer(t *testing.T) {
	dir := t.TempDir()
	root := moduleRoot(t)
	transcript := filepath.Join(root, "datasets", "sample", "inputs", "sessions", "-home-dev-src-ledger", "6e1d508d-e2cd-4a34-8a28-5106dadb8723.jsonl")
	slow := filepath.Join(dir, "claude-slow")
	os.WriteFile(slow, []byte("#!/bin/sh\ncat >/dev/null\nsleep 1\n"+
		`echo '{"type":"result","result":"{\"outcome\":\"success\",\"confidence\":0.9,\"summary\":\"ok\"}"}'`+"\n"), 0o755)
	hang := filepath.Join(dir, "claude-hang")
	os.WriteFile(hang, []byte("#!/bin/sh\ncat >/dev/null\nsleep 60\n"), 0o755)

	t.Run("progress", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "--in", transcript, "--compare", "none", "--out", filepath.Join(dir, "slow.parquet"),
			"--llm", "claude", "--claude-path", slow, "--claude-progress", "200ms")
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		if !regexp.MustCompile(`(?m)^replay: claude: analysis of session 6e1d508d-e2cd-4a34-8a28-5106dadb8723 running for \d`).MatchString(stderr) ||
			!regexp.MustCompile(`(?m)^replay: claude: analysis of session 6e1d508d-e2cd-4a34-8a28-5106dadb8723 ended after \d+s \(ok\)$`).MatchString(stderr) {
			t.Errorf("no progress of the slow call on stderr:\n%s", stderr)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		out := filepath.Join(dir, "hang.parquet")
		start := time.Now()
		code, stdout, stderr := runCLI(t, "--in", transcript, "--compare", "none", "--out", out,
			"--llm", "claude", "--claude-path", hang, "--claude-timeout", "300ms", "--strict")
		if code != 1 || !strings.Contains(stderr, "analysis_failed") || !strings.Contains(stderr, "timed out after 300ms") {
			t.Fatalf("exit %d, want 1 with a timed-out analysis_failed problem\n%s%s", code, stdout, stderr)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("the replay took %v: the hung call was not killed at its timeout", took)
		}
		meta := metadata(t, out)
		if meta["loopwatch.llm"] != "claude" || meta["loopwatch.llm_timeout"] != "300ms" {
			t.Errorf("metadata llm %q, llm_timeout %q", meta["loopwatch.llm"], meta["loopwatch.llm_timeout"])
		}
	})
	t.Run("bad values", func(t *testing.T) {
		for _, flag := range []string{"--claude-timeout", "--claude-progress"} {
			code, _, stderr := runCLI(t, "--in", transcript, "--out", filepath.Join(dir, "bad.parquet"), flag, "0s")
			if code != 2 || !strings.Contains(stderr, flag+" 0s: must be positive") {
				t.Errorf("%s 0s: exit %d, %q", flag, code, stderr)
			}
		}
	})
}

// metadata reads a Parquet file's key-value metadata.
func metadata(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		out[kv.Key] = kv.Value
	}
	return out
}

// TestProfiles: --cpuprofile, --memprofile and --trace write what go tool pprof and go
// tool trace read; a profile file that cannot be created stops the replay before it
// writes anything.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	writeSample(t, dir)
	t.Chdir(dir)
	code, _, stderr := runCLI(t, "--in", "runs/", "--out", "r.parquet", "--cpuprofile", "cpu.out", "--memprofile", "mem.out", "--trace", "trace.out")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, tt := range []struct{ file, magic string }{{"cpu.out", "\x1f\x8b"}, {"mem.out", "\x1f\x8b"}, {"trace.out", "go 1."}} {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), tt.magic) {
			t.Errorf("%s begins %q, want %q (a gzipped profile, a Go execution trace)", tt.file, b[:min(len(b), 8)], tt.magic)
		}
	}
	for _, flag := range []string{"--cpuprofile", "--memprofile", "--trace"} {
		code, _, stderr := runCLI(t, "--in", "runs/", "--out", "bad.parquet", flag, filepath.Join("missing", "p.out"))
		if code != 2 || !strings.Contains(stderr, flag) {
			t.Errorf("%s in a missing folder: exit %d, %q; want exit 2 naming the flag", flag, code, stderr)
		}
		if _, err := os.Stat("bad.parquet"); err == nil {
			t.Errorf("%s in a missing folder: the replay wrote its output", flag)
		}
	}
}

// TestTimings: --timings prints each step of the replay in order, with its wall and
// CPU time and busy cores, and the total; a folder not split adds the merge. The
// tables are the same as without it.
func TestTimings(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		out   string
		steps []string
	}{
		{filepath.Join(dir, "r.parquet"), []string{"prepare", "walk", "recognise", "context", "replay", "seal", "derive", "commit", "total"}},
		{filepath.Join(dir, "folder") + "/", []string{"prepare", "walk", "recognise", "context", "replay", "commit", "merge", "total"}},
	} {
		code, _, stderr := runCLI(t, "--out", tt.out, "--timings")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		_, table, ok := strings.Cut(stderr, "replay: timings (wall and CPU time of each step; cores: CPU over wall)\n")
		if !ok {
			t.Fatalf("no timings:\n%s", stderr)
		}
		lines := strings.Split(strings.TrimSpace(table), "\n")
		if len(lines) != 3+len(tt.steps) || strings.Fields(lines[0])[0] != "STEP" {
			t.Fatalf("%s: timings\n%s", tt.out, table)
		}
		row := regexp.MustCompile(`^  (\S+) +([0-9.]+) ms +([0-9.]+) ms +([0-9.]+|—)$`)
		var replayWall float64
		for i, step := range tt.steps {
			m := row.FindStringSubmatch(lines[1+i])
			if m == nil || m[1] != step {
				t.Errorf("%s: line %d %q, want step %s with its wall, CPU and cores", tt.out, i+1, lines[1+i], step)
				continue
			}
			if step == "replay" {
				replayWall, _ = strconv.ParseFloat(m[2], 64)
			}
		}
		// Then the delivery's busy time, its share of the replay step, and the most
		// more workers could make of the step.
		delivery := regexp.MustCompile(`^  the replay step's delivery, one file at a time in order, was busy ([0-9.]+) ms, ([0-9]+)% of the step's ([0-9.]+) ms:\n` +
			`  more workers can make the step at most ([0-9.]+)× faster \(its wall time over the delivery's\)$`)
		m := delivery.FindStringSubmatch(strings.Join(lines[1+len(tt.steps):], "\n"))
		if m == nil {
			t.Errorf("%s: no delivery line after the steps:\n%s", tt.out, table)
			continue
		}
		busy, _ := strconv.ParseFloat(m[1], 64)
		step, _ := strconv.ParseFloat(m[3], 64)
		most, _ := strconv.ParseFloat(m[4], 64)
		half := func(v float64) float64 { // how far a printed figure may be from the time (ms rounds)
			if v < 10 {
				return 0.05
			}
			return 0.5
		}
		lo, hi := (step-half(step))/(busy+half(busy)), (step+half(step))/math.Max(busy-half(busy), 1e-9)
		if busy <= 0 || busy > step+half(step) || step != replayWall || most < lo-0.05 || most > hi+0.05 {
			t.Errorf("%s: delivery busy %v ms of the step's %v ms (the table's %v), at most %v× faster: inconsistent", tt.out, busy, step, replayWall, most)
		}
	}
	// The same tables as a replay without --timings.
	plain := filepath.Join(dir, "plain.parquet")
	if code, _, stderr := runCLI(t, "--out", plain); code != 0 {
		t.Fatal(stderr)
	}
	for _, table := range []string{"", ".metrics", ".events"} {
		a, _ := os.ReadFile(filepath.Join(dir, "r"+table+".parquet"))
		b, _ := os.ReadFile(filepath.Join(dir, "plain"+table+".parquet"))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("results%s.parquet differs with --timings", table)
		}
	}
}
