package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/internal/doctest"
	"github.com/loopwatch/loopwatch/internal/duckdb"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeShards replays the built-in sample as n shards into dir, as
// `replay --shard i/n --out dir/` does.
func writeShards(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		s := pipeline.DefaultSettings()
		s.Out, s.Shard = dir+"/", replay.Shard{Index: i, Count: n}
		if _, err := pipeline.Run(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocExamples runs every example of the command's documentation on a folder of
// shards; each must be in the --help text too.
func TestDocExamples(t *testing.T) {
	examples := doctest.Examples(t, "metrics", usage, 4)
	dir := t.TempDir()
	writeShards(t, filepath.Join(dir, "out"), 2)
	t.Chdir(dir)
	for _, ex := range examples {
		os.RemoveAll(filepath.Join("out", "metrics"))
		code, stdout, stderr := runCLI(t, strings.Fields(ex)[1:]...)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s", ex, code, stderr)
			continue
		}
		if !strings.Contains(stdout, "DETECTOR") || !strings.Contains(stdout, "wrote out from 2 shards") {
			t.Errorf("%s: no summary:\n%s", ex, stdout)
		}
		if _, err := os.Stat(filepath.Join("out", "metrics", "part-0.parquet")); err != nil {
			t.Errorf("%s: %v", ex, err)
		}
		if strings.Contains(ex, "--report out.html") {
			b, err := os.ReadFile("out.html")
			if err != nil || !strings.Contains(stdout, "wrote the report out.html") || !bytes.Contains(b, []byte("loopwatch replay in shards: out/")) {
				t.Errorf("%s: no report (%v):\n%s", ex, err, stdout)
			}
		}
	}
}

func TestUsageAndRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	writeShards(t, out, 3)
	os.Remove(filepath.Join(out, "_manifests", "shard=2.manifest.json"))
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no folder", nil, 2, "give one folder of shards"},
		{"two folders", []string{out, out}, 2, "give one folder of shards"},
		{"unknown flag", []string{"--frobnicate", out}, 2, "unknown flag: --frobnicate"},
		{"negative workers", []string{"--workers", "-1", out}, 2, "must be ≥ 0"},
		{"report not html", []string{"--report", filepath.Join(dir, "r.txt"), out}, 2, "r.txt"},
		{"report in no folder", []string{"--report", filepath.Join(dir, "nope", "r.html"), out}, 2, "r.html"},
		{"no such folder", []string{filepath.Join(dir, "nope")}, 2, filepath.Join(dir, "nope") + ": no such folder"},
		{"a file", []string{filepath.Join(out, "_manifests", "shard=0.manifest.json")}, 2, "not a folder (give the folder"},
		{"a folder of no replay", []string{dir}, 1, "no shard of a replay here"},
		{"incomplete set", []string{out}, 1, "incomplete set: shard 2 of 3 is missing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.want)
			}
			if stdout != "" {
				t.Errorf("printed %q: a refused set prints no metrics", stdout)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, "metrics")); err == nil {
		t.Error("a refused set got a metrics table")
	}
}

// TestEndToEnd runs the replay as separate processes, one per shard and all at once,
// into one folder, merges them with metrics, and compares with the replay not split:
// the same summary, the same exit status under --strict, the same metrics files.
func TestEndToEnd(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "replay")
	if b, err := exec.Command("go", "build", "-o", bin, filepath.Join(moduleRoot(t), "cmd", "replay")).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	data := filepath.Join(dir, "data")
	for name, b := range synth.DatasetFiles(synth.DatasetConfig{Runs: 30, Sessions: 8, VibesLogs: 2, Seed: 5}) {
		p := filepath.Join(data, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, b, 0o644)
	}
	in := filepath.Join(data, synth.InputsDir)
	os.WriteFile(filepath.Join(in, "notes.dat"), []byte("not an input"), 0o644) // one problem
	flags := []string{"--in", in, "--labels", filepath.Join(data, synth.RunLabelsFile), "--labels", filepath.Join(data, synth.SessionLabelsFile),
		"--resamples", "400", "--fix-draws", "30", "--strict"}
	replayBin := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, append(slices.Clone(flags), args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}

	const n = 4
	split := filepath.Join(dir, "split")
	// shards replays the n shards into split at once, as n processes.
	shards := func(args ...string) {
		t.Helper()
		var wg sync.WaitGroup
		codes := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var stderr string
				codes[i], _, stderr = replayBin(append([]string{"--shard", fmt.Sprintf("%d/%d", i, n), "--out", split + "/", "--workers", "1"}, args...)...)
				if codes[i] != 0 && codes[i] != 1 {
					t.Errorf("shard %d: exit %d\n%s", i, codes[i], stderr)
				}
			}()
		}
		wg.Wait()
		if slices.Index(codes, 1) < 0 || slices.Index(codes, 0) < 0 {
			t.Errorf("exit statuses %v: with --strict, the one shard owning the problem fails and the others do not", codes)
		}
	}
	mergedFiles := []string{filepath.Join(split, "_manifests", "merged.manifest.json")}
	for _, table := range []string{"metrics", "curves", "fixloop", "fixloop_runs"} {
		mergedFiles = append(mergedFiles, filepath.Join(split, table, "part-0.parquet"))
	}
	// Shards written again with other flags, all at once, remove the merged files of
	// the set they replace; written again as they were, they keep them.
	shards("--resamples", "100")
	if code, _, stderr := runCLI(t, split); code != 0 {
		t.Fatalf("metrics: exit %d\n%s", code, stderr)
	}
	for _, again := range []struct {
		args []string
		kept bool
	}{{[]string{"--resamples", "100"}, true}, {nil, false}} {
		shards(again.args...)
		for _, f := range mergedFiles {
			if _, err := os.Stat(f); (err == nil) != again.kept {
				t.Errorf("shards written again (%v): %s kept %v, want %v", again.args, f, err == nil, again.kept)
			}
		}
	}
	wholeCode, whole, _ := replayBin("--out", filepath.Join(dir, "whole.parquet"))
	oneCode, _, stderr := replayBin("--out", filepath.Join(dir, "one")+"/")
	if wholeCode != 1 || oneCode != 1 {
		t.Fatalf("replay --strict over a problem: exit %d and %d, want 1\n%s", wholeCode, oneCode, stderr)
	}

	code, merged, stderr := runCLI(t, "--strict", split)
	if code != 1 || !strings.Contains(stderr, "notes.dat: unknown_file") || !strings.Contains(stderr, "1 problem in the input or its labels and --strict is set") {
		t.Errorf("metrics --strict: exit %d\n%s", code, stderr)
	}
	cut := func(s string) string { s, _, _ = strings.Cut(s, "\nwrote "); return s }
	if cut(merged) != cut(whole) || !strings.Contains(merged, "1 problem") || !strings.Contains(merged, "DETECTOR") {
		t.Errorf("metrics prints\n%s\nthe replay not split\n%s", merged, whole)
	}
	if !regexp.MustCompile(`wrote \S+ from 4 shards: results \(\d+ runs and sessions\)`).MatchString(merged) {
		t.Errorf("no tables line:\n%s", merged)
	}
	for _, table := range []string{"metrics", "curves", "fixloop", "fixloop_runs"} {
		a, err1 := os.ReadFile(filepath.Join(split, table, "part-0.parquet"))
		b, err2 := os.ReadFile(filepath.Join(dir, "one", table, "part-0.parquet"))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s: 4 shards merged and the replay not split differ (%v, %v)", table, err1, err2)
		}
	}
}

// TestInteropDuckDB reads the shards' tables with DuckDB as one dataset — each table's
// folder with hive partitioning, the shard a column — and checks them against what
// the shards and the merge wrote; then runs the README's queries and compares their
// output with the README's.
func TestInteropDuckDB(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	writeShards(t, out, 4)
	res, err := pipeline.Merge(context.Background(), out, 0)
	if err != nil {
		t.Fatal(err)
	}
	var perShard []string
	for i := range 4 {
		m, err := reports.ReadManifestFile(filepath.Join(out, "_manifests", fmt.Sprintf("shard=%d.manifest.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		perShard = append(perShard, fmt.Sprintf("%d:%d", i, *m.Table("runs").Rows))
	}
	q := duckdb.Query(t, dir,
		`SELECT count(*) AS n, count(DISTINCT run_key) AS keys FROM read_parquet('out/results/*/*.parquet', hive_partitioning = true)`,
		`SELECT shard, count(*) AS n FROM read_parquet('out/results/*/*.parquet', hive_partitioning = true) GROUP BY shard ORDER BY shard`,
		`SELECT count(*) AS n FROM read_parquet('out/events/*/*.parquet', hive_partitioning = true)`,
		`SELECT count(*) FILTER (WHERE struggle_confusion = 'tp') AS tp FROM read_parquet('out/results/*/*.parquet', hive_partitioning = true)`,
		`SELECT value FROM read_parquet('out/metrics/*.parquet') WHERE detector = 'struggle' AND config = 'loopwatch' AND metric = 'tp'`,
		`SELECT count(*) AS n FROM read_parquet('out/predictions/*/*.parquet', hive_partitioning = true) p
			JOIN read_parquet('out/results/*/*.parquet', hive_partitioning = true) r USING (run_key, shard)`,
		`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('out/cycles/*/*.parquet', hive_partitioning = true)) WHERE column_name = 'shard'`,
		`SELECT count(*) AS n, count(DISTINCT file) AS files FROM read_parquet('out/inputs/*/*.parquet', hive_partitioning = true)`,
		// The input fingerprint, recomputed from the shards' inputs tables in SQL.
		`SELECT sha256(string_agg(file || chr(0) || sha256 || chr(10), '' ORDER BY file)) AS fp FROM read_parquet('out/inputs/*/*.parquet')`,
	)
	units := int64(res.Summary.Runs + res.Summary.Sessions)
	if got := fmt.Sprint(q[0].Rows); got != fmt.Sprintf("[[%d %d]]", units, units) {
		t.Errorf("DuckDB reads %s rows and keys, the replay %d runs and sessions", got, units)
	}
	var got []string
	for _, r := range q[1].Rows {
		got = append(got, fmt.Sprintf("%v:%v", r[0], r[1]))
	}
	if !slices.Equal(got, perShard) {
		t.Errorf("rows by shard %v, the manifests %v", got, perShard)
	}
	if fmt.Sprint(q[2].Rows) != fmt.Sprintf("[[%d]]", res.Summary.Events) {
		t.Errorf("events %v, the replay %d", q[2].Rows, res.Summary.Events)
	}
	if fmt.Sprint(q[3].Rows) != fmt.Sprint(q[4].Rows) || fmt.Sprint(q[3].Rows) == "[[0]]" {
		t.Errorf("true positives of the union of shards %v, of the merged metrics %v: confusion counts add", q[3].Rows, q[4].Rows)
	}
	if fmt.Sprint(q[5].Rows) != fmt.Sprintf("[[%d]]", 3*units) {
		t.Errorf("predictions joined to their run rows within their shard: %v, want 3 configurations × %d", q[5].Rows, units)
	}
	if len(q[6].Rows) != 1 {
		t.Errorf("no shard column: %v", q[6].Rows)
	}
	if fmt.Sprint(q[7].Rows) != fmt.Sprintf("[[%d %d]]", res.Summary.Files, res.Summary.Files) {
		t.Errorf("the shards' inputs tables list %v files, distinct; the replay read %d", q[7].Rows, res.Summary.Files)
	}
	if fmt.Sprint(q[8].Rows) != fmt.Sprintf("[[%s]]", res.Summary.Fingerprint) || len(res.Summary.Fingerprint) != 64 {
		t.Errorf("the fingerprint DuckDB folds from the inputs tables %v, the merge's %q", q[8].Rows, res.Summary.Fingerprint)
	}

	readme, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	queries, outputs := readmeQueries(t, string(readme))
	results := duckdb.Query(t, dir, queries...)
	for i, r := range results {
		if got := r.Format(); got != outputs[i] {
			t.Errorf("README query %d's output is stale; DuckDB prints:\n%s", i+1, got)
		}
	}
}

// readmeQueries returns the SQL blocks of the README's section on running on many
// machines, each followed by its output block.
func readmeQueries(t *testing.T, readme string) (queries, outputs []string) {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Running on many machines\n")
	if !ok {
		t.Fatal("the README has no section on running on many machines")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	re := regexp.MustCompile("(?s)```sql\n(.*?)```\n\n```\n(.*?)```")
	for _, m := range re.FindAllStringSubmatch(section, -1) {
		queries, outputs = append(queries, m[1]), append(outputs, m[2])
	}
	if len(queries) < 3 {
		t.Fatalf("found %d SQL blocks with their output in the README's section, want at least 3", len(queries))
	}
	return queries, outputs
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := corpus.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestEmptyInputUnderStrict: shards of a folder with no input file merge to a warning,
// and fail --strict.
func TestEmptyInputUnderStrict(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for i := range 2 {
		s := pipeline.DefaultSettings()
		s.In, s.Out, s.Shard = empty, out+"/", replay.Shard{Index: i, Count: 2}
		if _, err := pipeline.Run(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runCLI(t, out); code != 0 {
		t.Fatalf("without --strict: exit %d, %s", code, stderr)
	}
	code, _, stderr := runCLI(t, "--strict", out)
	if code != 1 || !strings.Contains(stderr, "no shard read an input file in a recognised format and --strict is set") {
		t.Errorf("--strict: exit %d, %s", code, stderr)
	}
}

// TestInterrupted: metrics whose context ends (SIGINT, SIGTERM) says so and exits 130.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, dir, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{dir}, &out, &errb); code != 130 || errb.String() != "metrics: interrupted; no table was written\n" {
		t.Errorf("exit %d, want 130\n%s", code, errb.String())
	}
}
