package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/htmlreport"
)

// derivedTables are the tables the merge of shards computes; folder holds each in
// <table>/part-0.parquet.
var derivedTables = []string{"metrics", "curves", "fixloop", "fixloop_runs"}

// shardSettings returns settings replaying in (the built-in sample when "") with its
// labels, quick to run: few resamples and fix-loop draws, but every detector and
// comparison on.
func shardSettings(in string, labels ...string) pipeline.Settings {
	s := pipeline.DefaultSettings()
	s.In, s.Labels = in, labels
	s.Resamples, s.Fix.Draws, s.Fix.Trials = 300, 20, 5
	return s
}

// writeSynth writes a synthetic dataset with runs, Claude Code sessions and vibes logs
// into dir and returns its inputs folder and label files.
func writeSynth(t *testing.T, dir string) (string, []string) {
	t.Helper()
	cfg := synth.DatasetConfig{Runs: 60, Sessions: 14, VibesLogs: 3, Seed: 13, RerunEvery: 7, FixLoopEvery: 3}
	if testing.Short() { // under the race detector in make test
		cfg.Runs, cfg.Sessions, cfg.VibesLogs = 20, 4, 1
	}
	for name, b := range synth.DatasetFiles(cfg) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, synth.InputsDir), []string{filepath.Join(dir, synth.RunLabelsFile), filepath.Join(dir, synth.SessionLabelsFile)}
}

func run(t *testing.T, s pipeline.Settings) *pipeline.Result {
	t.Helper()
	res, err := pipeline.Run(context.Background(), s)
	if err != nil {
		t.Fatalf("replay --shard %v --out %s: %v", s.Shard, s.Out, err)
	}
	return res
}

// printed is what a command prints on stdout for res, without the last line (the
// tables written, which name the output).
func printed(t *testing.T, res *pipeline.Result) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := pipeline.WriteResult(&out, &errb, "test", res, 0); err != nil {
		t.Fatal(err)
	}
	s, _, _ := strings.Cut(out.String(), "\nwrote ")
	return s
}

// TestShardsGiveTheSingleReplaysMetrics: a replay split in four shards, merged, gives
// the metrics, curves and fix-loop simulation of the replay not split, byte for byte,
// and prints the same summary — on the built-in sample and on a synthetic dataset of
// runs, Claude Code sessions (with subagents) and vibes logs.
func TestShardsGiveTheSingleReplaysMetrics(t *testing.T) {
	dir := t.TempDir()
	in, labels := writeSynth(t, filepath.Join(dir, "synth"))
	for _, tt := range []struct {
		name   string
		s      pipeline.Settings
		shards int
	}{
		{"sample", shardSettings(""), 4},
		{"synth", shardSettings(in, labels...), 4},
		{"synth-derived-seed-only", func() pipeline.Settings {
			s := shardSettings(in, labels[1])
			s.DeriveLabels, s.Compare, s.Seed = true, []string{"seed"}, 99
			return s
		}(), 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name)
			file := tt.s
			file.Out = filepath.Join(out, "file", "results.parquet")
			os.MkdirAll(filepath.Dir(file.Out), 0o755)
			whole := run(t, file)

			one := tt.s
			one.Out = filepath.Join(out, "one") + "/"
			single := run(t, one)

			var merged *pipeline.Result
			for i := tt.shards - 1; i >= 0; i-- { // any order
				s := tt.s
				s.Out, s.Shard, s.Workers = filepath.Join(out, "split")+"/", replay.Shard{Index: i, Count: tt.shards}, 1+i%3
				res := run(t, s)
				if res.Detectors != nil || res.FixTotals != nil {
					t.Errorf("shard %d/%d has metrics of its own", i, tt.shards)
				}
			}
			merged, err := pipeline.Merge(context.Background(), filepath.Join(out, "split"), 2)
			if err != nil {
				t.Fatal(err)
			}
			if whole.Summary.Runs+whole.Summary.Sessions < 20 || len(whole.Detectors) < 3 {
				t.Fatalf("too little to compare: %+v", whole.Summary)
			}
			for _, table := range derivedTables {
				a := readFile(t, filepath.Join(out, "one", table, "part-0.parquet"))
				b := readFile(t, filepath.Join(out, "split", table, "part-0.parquet"))
				if !bytes.Equal(a, b) {
					t.Errorf("%s: %d shards merged differ from one shard merged", table, tt.shards)
				}
				// The replay to a file computes the same rows with the same metadata; only
				// the replay id differs, as it names the set of tables committed together.
				rowsEqual(t, table, whole.Out.Path(table), filepath.Join(out, "split", table, "part-0.parquet"))
			}
			if tt.name != "sample" { // the session analysis's outcome accuracy by outcome is among the rows compared
				n := 0
				for _, r := range readRows[reports.MetricRow](t, filepath.Join(out, "split", "metrics", "part-0.parquet")) {
					if r.Target == "session_outcome" && strings.HasPrefix(r.Metric, "confusion.") {
						n++
					}
				}
				if want := 25 * len(whole.Outcomes); n != want || len(whole.Outcomes) < 2 || whole.Outcomes[0].Report.Scored == 0 {
					t.Errorf("%d confusion rows by outcome of %d configurations, want %d of at least 2 that score sessions", n, len(whole.Outcomes), want)
				}
				if p := printed(t, whole); !strings.Contains(p, "\noutcome by class") {
					t.Errorf("the summary prints no outcome accuracy by outcome:\n%s", p)
				}
				// Runs recorded with the inner fix loop on and runs simulated are merged alike.
				if f := whole.FixTotals; f == nil || f.RecordedFailures == 0 || f.RecordedFailures == f.Failures {
					t.Errorf("fix-loop totals %+v: want recorded and simulated failures both", f)
				} else if _, _, _, _, ok := f.OuterCheck(); !ok {
					t.Errorf("no outer check of the simulation on the loops that ran")
				}
			}
			want := printed(t, whole)
			if got := printed(t, single); got != want {
				t.Errorf("one shard prints\n%s\nthe replay to a file\n%s", got, want)
			}
			if got := printed(t, merged); got != want {
				t.Errorf("%d shards merged print\n%s\nthe replay to a file\n%s", tt.shards, got, want)
			}
			// The whole replay's HTML report, from the shards: the same but for where the
			// output is.
			wantReport := reportOf(t, whole)
			if got := reportOf(t, merged); got != wantReport {
				t.Errorf("%d shards merged report\n%s\nthe replay to a file\n%s", tt.shards, got, wantReport)
			}
			if merged.Merged[0].Rows != int64(whole.Summary.Runs+whole.Summary.Sessions) {
				t.Errorf("the shards' run tables hold %d rows, the replay %d runs and sessions", merged.Merged[0].Rows, whole.Summary.Runs+whole.Summary.Sessions)
			}
		})
	}
}

// reportOf is res's HTML report's data as JSON, its output fact left out, and checks
// that it draws trajectories and lead times.
func reportOf(t *testing.T, res *pipeline.Result) string {
	t.Helper()
	d, err := pipeline.Report(res, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Runs)+len(d.Sessions) == 0 || len(d.Curves) == 0 {
		t.Errorf("a report with no trajectories or curves: %d runs, %d sessions, %d curves", len(d.Runs), len(d.Sessions), len(d.Curves))
	}
	d.Facts = slices.DeleteFunc(d.Facts, func(f htmlreport.Fact) bool { return f.Name == "output" })
	b, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rowsEqual checks that two Parquet files hold the same rows and the same metadata
// but the replay id.
func rowsEqual(t *testing.T, table, a, b string) {
	t.Helper()
	var ra, rb any
	switch table {
	case "metrics":
		ra, rb = readRows[reports.MetricRow](t, a), readRows[reports.MetricRow](t, b)
	case "curves":
		ra, rb = readRows[reports.CurveRow](t, a), readRows[reports.CurveRow](t, b)
	case "fixloop":
		ra, rb = readRows[reports.FixFailureRow](t, a), readRows[reports.FixFailureRow](t, b)
	case "fixloop_runs":
		ra, rb = readRows[reports.FixRunRow](t, a), readRows[reports.FixRunRow](t, b)
	}
	if !reflect.DeepEqual(ra, rb) {
		t.Errorf("%s: the rows of %s and %s differ", table, a, b)
	}
	ma, mb := metadata(t, a), metadata(t, b)
	if ma[reports.ReplayIDKey] == mb[reports.ReplayIDKey] {
		t.Errorf("%s: the same replay id for a file output and a folder's", table)
	}
	delete(ma, reports.ReplayIDKey)
	delete(mb, reports.ReplayIDKey)
	if !maps.Equal(ma, mb) {
		t.Errorf("%s: metadata\n%v\n%v", table, ma, mb)
	}
}

func readRows[T any](t *testing.T, path string) []T {
	t.Helper()
	rows, err := reports.ReadRows[T](path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func metadata(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	md := map[string]string{}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		md[kv.Key] = kv.Value
	}
	return md
}

// TestShardFilesDoNotDependOnWorkers: a shard's files are byte-identical whatever the
// number of workers.
func TestShardFilesDoNotDependOnWorkers(t *testing.T) {
	dir := t.TempDir()
	var trees []map[string][]byte
	for _, w := range []int{1, 4} {
		s := shardSettings("")
		s.Out, s.Shard, s.Workers = filepath.Join(dir, fmt.Sprint(w))+"/", replay.Shard{Index: 1, Count: 3}, w
		run(t, s)
		trees = append(trees, tree(t, filepath.Join(dir, fmt.Sprint(w))))
	}
	if len(trees[0]) != 10 { // 9 tables and the manifest
		t.Errorf("a shard wrote %d files: %v", len(trees[0]), slicesKeys(trees[0]))
	}
	if !maps.EqualFunc(trees[0], trees[1], bytes.Equal) {
		t.Error("a shard's files differ between 1 and 4 workers")
	}
}

func slicesKeys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// tree returns every file under dir by its slash-separated path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMergeRefusesBadSets: a folder that is not one complete set of shards of one
// replay is refused with a message that says why, and nothing is written.
func TestMergeRefusesBadSets(t *testing.T) {
	base := t.TempDir()
	shard := func(dir string, i, n int, change func(*pipeline.Settings)) {
		s := shardSettings("")
		s.Out, s.Shard = dir+"/", replay.Shard{Index: i, Count: n}
		if change != nil {
			change(&s)
		}
		run(t, s)
	}
	set := filepath.Join(base, "set")
	for i := range 3 {
		shard(set, i, 3, nil)
	}
	for _, tt := range []struct {
		name  string
		spoil func(dir string)
		want  string
	}{
		{"complete", func(string) {}, ""},
		{"missing shard", func(dir string) {
			os.Remove(filepath.Join(dir, "_manifests", "shard=1.manifest.json"))
		}, "incomplete set: shard 1 of 3 is missing"},
		{"shard still running", func(dir string) {
			os.RemoveAll(filepath.Join(dir, "_manifests", "shard=2.manifest.json"))
		}, "shard 2 of 3 is missing"},
		{"duplicated shard", func(dir string) {
			os.WriteFile(filepath.Join(dir, "_manifests", "shard=5.manifest.json"), readFile(t, filepath.Join(dir, "_manifests", "shard=0.manifest.json")), 0o644)
		}, "duplicated shard: shard=5.manifest.json holds the manifest of shard 0/3"},
		{"another split copied in", func(dir string) {
			other := dir + "-2"
			shard(other, 1, 2, nil)
			parts, _ := filepath.Glob(filepath.Join(dir, "*", "shard=1*"))
			for _, p := range parts {
				os.RemoveAll(p)
			}
			if err := os.CopyFS(dir, os.DirFS(other)); err != nil {
				t.Fatal(err)
			}
		}, "mixed sets: shard=0.manifest.json is a shard of 3, shard=1.manifest.json of 2"},
		{"other flags", func(dir string) { shard(dir, 2, 3, func(s *pipeline.Settings) { s.Seed = 7 }) }, "shards 0 and 2 were replayed with a different loopwatch.eval (seed 1 in shard=0, 7 in shard=2)"},
		{"other resamples", func(dir string) { shard(dir, 1, 3, func(s *pipeline.Settings) { s.Resamples = 100 }) },
			"shards 0 and 1 were replayed with a different loopwatch.eval (resamples 300 in shard=0, 100 in shard=1)"},
		{"other comparisons", func(dir string) { shard(dir, 1, 3, func(s *pipeline.Settings) { s.Compare = nil }) }, "different loopwatch.configs"},
		{"other input", func(dir string) {
			in := filepath.Join(base, "other-input")
			os.MkdirAll(in, 0o755)
			os.WriteFile(filepath.Join(in, "run.jsonl"), []byte(`{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"x","data":{"cycle":1}}`+"\n"), 0o644)
			shard(dir, 2, 3, func(s *pipeline.Settings) { s.In = in; s.Labels = nil })
		}, "shards 0 and 2 read different input"},
		{"overwritten table", func(dir string) {
			os.WriteFile(filepath.Join(dir, "events", "shard=1", "part-0.parquet"), []byte("PAR1"), 0o644)
		}, "incomplete shard 1: events/shard=1/part-0.parquet has 4 bytes"},
		{"changed table", func(dir string) {
			p := filepath.Join(dir, "predictions", "shard=2", "part-0.parquet")
			b := readFile(t, p)
			b[len(b)/2] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}, "predictions/shard=2/part-0.parquet changed since shard 2/3 wrote it"},
		{"stray partition", func(dir string) {
			os.MkdirAll(filepath.Join(dir, "results", "shard=3"), 0o755)
		}, "results/shard=3 is not a partition of this set of 3 shards"},
		{"partition named 01", func(dir string) {
			copyFile(t, dir, "results/shard=1/part-0.parquet", "results/shard=01/part-0.parquet")
		},
			"results/shard=01 is not a partition of this set of 3 shards"},
		{"partition named +1", func(dir string) {
			copyFile(t, dir, "results/shard=1/part-0.parquet", "results/shard=+1/part-0.parquet")
		},
			"results/shard=+1 is not a partition of this set of 3 shards"},
		// Names starting with "." or "_" are hidden from hive readers (DuckDB, Spark, Arrow): let be.
		{"hidden file beside the partitions", func(dir string) { copyFile(t, dir, "results/shard=1/part-0.parquet", "results/.part-0.parquet") }, ""},
		{"Finder's .DS_Store", func(dir string) {
			for _, f := range []string{"results/.DS_Store", "results/shard=0/.DS_Store", "metrics/.DS_Store"} {
				copyFile(t, dir, "_manifests/shard=0.manifest.json", f)
			}
		}, ""},
		{"Spark's _SUCCESS and _temporary", func(dir string) {
			copyFile(t, dir, "_manifests/shard=0.manifest.json", "results/_SUCCESS")
			copyFile(t, dir, "_manifests/shard=0.manifest.json", "cycles/shard=1/_SUCCESS")
			copyFile(t, dir, "results/shard=1/part-0.parquet", "results/_temporary/shard=1/part-0.parquet")
			copyFile(t, dir, "results/shard=1/part-0.parquet", "fixloop/_committed")
		}, ""},
		{"a file beside the partitions", func(dir string) { copyFile(t, dir, "_manifests/shard=0.manifest.json", "results/SUCCESS") },
			"results/SUCCESS is not a partition of this set of 3 shards"},
		{"a partition's file named otherwise", func(dir string) {
			copyFile(t, dir, "cycles/shard=2/part-0.parquet", "cycles/shard=2/part-0.parquet.bak")
		},
			"cycles/shard=2/part-0.parquet.bak is no file of this set"},
		{"part file no manifest lists", func(dir string) { copyFile(t, dir, "results/shard=0/part-0.parquet", "results/shard=0/part-1.parquet") },
			"results/shard=0/part-1.parquet is no file of this set"},
		{"hidden file in a partition", func(dir string) { copyFile(t, dir, "cycles/shard=2/part-0.parquet", "cycles/shard=2/.old.parquet") }, ""},
		{"folder in a partition", func(dir string) { copyFile(t, dir, "cycles/shard=2/part-0.parquet", "cycles/shard=2/x/part-0.parquet") },
			"cycles/shard=2/x is no file of this set"},
		{"a derived table's second part", func(dir string) { copyFile(t, dir, "cycles/shard=2/part-0.parquet", "metrics/part-1.parquet") },
			"metrics/part-1.parquet is no file of this set"},
		{"loopwatch's temporaries", func(dir string) {
			copyFile(t, dir, "cycles/shard=2/part-0.parquet", "cycles/shard=2/.part-0.parquet.tmp-2147483646-1")
			copyFile(t, dir, "cycles/shard=2/part-0.parquet", "metrics/.part-0.parquet.tmp-2147483646-2")
		}, ""},
		{"altered manifest", func(dir string) {
			p := filepath.Join(dir, "_manifests", "shard=1.manifest.json")
			b := readFile(t, p)
			if !bytes.Contains(b, []byte(`\"resamples\":300`)) {
				t.Fatalf("no resamples in %s", b)
			}
			os.WriteFile(p, bytes.Replace(b, []byte(`\"resamples\":300`), []byte(`\"resamples\":301`), 1), 0o644)
		}, "the manifest of shard 1 was altered"},
		{"no shards", func(dir string) { os.RemoveAll(dir); os.MkdirAll(dir, 0o755) }, "no shard of a replay here"},
		{"a file output", func(dir string) {
			os.RemoveAll(dir)
			os.MkdirAll(dir, 0o755)
			s := shardSettings("")
			s.Out = filepath.Join(dir, "results.parquet")
			run(t, s)
		}, "no shard of a replay here"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(base, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.CopyFS(dir, os.DirFS(set)); err != nil {
				t.Fatal(err)
			}
			tt.spoil(dir)
			res, err := pipeline.Merge(context.Background(), dir, 0)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if res.Shards != 3 || len(res.Detectors) == 0 {
					t.Errorf("merged %d shards, %d detectors", res.Shards, len(res.Detectors))
				}
				return
			}
			var se *pipeline.SetError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a refusal with %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "metrics", "part-0.parquet")); err == nil {
				t.Error("a refused set got a metrics table")
			}
		})
	}
}

// TestReplacedShardRemovesTheMergedFiles: a shard written again replaces its
// partition and removes the merged files (the merged manifest and the derived tables,
// which describe the set it was part of) in the same commit, so that no reader of
// DIR/metrics/ finds the former set's figures — unless it writes its partition again
// byte for byte, when they are still exact; derived tables left without their
// manifest are refused by readers of the folder.
func TestReplacedShardRemovesTheMergedFiles(t *testing.T) {
	base := t.TempDir()
	set := filepath.Join(base, "set")
	shard := func(dir string, i int, change func(*pipeline.Settings)) {
		s := shardSettings("")
		s.Out, s.Shard = dir+"/", replay.Shard{Index: i, Count: 3}
		if change != nil {
			change(&s)
		}
		run(t, s)
	}
	for i := range 3 {
		shard(set, i, nil)
	}
	if _, err := pipeline.Merge(context.Background(), set, 0); err != nil {
		t.Fatal(err)
	}
	merged := append([]string{filepath.Join("_manifests", "merged.manifest.json")}, derivedTables...)
	for i, f := range merged[1:] {
		merged[i+1] = filepath.Join(f, "part-0.parquet")
	}
	for _, tt := range []struct {
		name         string
		change       func(dir string)
		kept, tables bool   // the merged manifest kept, the derived tables kept
		check        string // CheckFolder's refusal ("": none)
	}{
		{"other flags", func(dir string) { shard(dir, 1, func(s *pipeline.Settings) { s.Resamples = 100 }) }, false, false, "mixed sets"},
		{"the same again", func(dir string) { shard(dir, 1, func(s *pipeline.Settings) { s.Workers = 1 }) }, true, true, ""},
		{"other flags, then the same again", func(dir string) {
			shard(dir, 2, func(s *pipeline.Settings) { s.Seed = 9 })
			shard(dir, 2, nil)
		}, false, false, ""},
		{"the merged manifest removed", func(dir string) { os.Remove(filepath.Join(dir, merged[0])) }, false, true,
			"its derived tables (metrics, curves, fixloop) are there without their manifest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(base, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.CopyFS(dir, os.DirFS(set)); err != nil {
				t.Fatal(err)
			}
			tt.change(dir)
			for i, f := range merged {
				_, err := os.Stat(filepath.Join(dir, f))
				if want := tt.kept && i == 0 || tt.tables && i > 0; (err == nil) != want {
					t.Errorf("%s: kept %v, want %v", f, err == nil, want)
				}
			}
			err := pipeline.CheckFolder(dir)
			if tt.check == "" && err != nil || tt.check != "" && (err == nil || !strings.Contains(err.Error(), tt.check)) {
				t.Errorf("CheckFolder: %v, want %q", err, tt.check)
			}
			if tt.kept {
				for _, f := range merged {
					if !bytes.Equal(readFile(t, filepath.Join(dir, f)), readFile(t, filepath.Join(set, f))) {
						t.Errorf("%s changed", f)
					}
				}
			}
		})
	}
}

// TestCheckFolderComparesTheShardsManifests: the derived tables are current only
// when the merged manifest records the very manifests of the shards in place, byte for
// byte — a shard replayed from an input changed where its listing holds sizes only (a
// transcript another shard skips) keeps its replay id, its manifest does not —; a
// merged manifest recording no digests (written before they were) is refused too.
func TestCheckFolderComparesTheShardsManifests(t *testing.T) {
	base := t.TempDir()
	set := filepath.Join(base, "set")
	for i := range 2 {
		s := shardSettings("")
		s.Out, s.Shard = set+"/", replay.Shard{Index: i, Count: 2}
		run(t, s)
	}
	if _, err := pipeline.Merge(context.Background(), set, 0); err != nil {
		t.Fatal(err)
	}
	// rewrite changes the manifest at path (in dir) and writes it again.
	rewrite := func(t *testing.T, path string, change func(*reports.Manifest)) {
		m, err := reports.ReadManifestFile(path)
		if err != nil {
			t.Fatal(err)
		}
		change(m)
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, dir string)
		want   string // CheckFolder's refusal ("": none)
	}{
		{"as merged", func(*testing.T, string) {}, ""},
		{"a shard's manifest rewritten as it was", func(t *testing.T, dir string) {
			rewrite(t, filepath.Join(dir, "_manifests", "shard=1.manifest.json"), func(*reports.Manifest) {})
		}, ""},
		{"a shard of the same replay id, another table content", func(t *testing.T, dir string) {
			rewrite(t, filepath.Join(dir, "_manifests", "shard=1.manifest.json"), func(m *reports.Manifest) {
				m.Tables[0].SHA256 = strings.Repeat("0", 64)
			})
		}, "were derived from other shards than those it holds"},
		{"a merged manifest of an older loopwatch", func(t *testing.T, dir string) {
			rewrite(t, filepath.Join(dir, "_manifests", "merged.manifest.json"), func(m *reports.Manifest) { m.MergedDigests = nil })
		}, "record no digest of the shards' manifests"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(base, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.CopyFS(dir, os.DirFS(set)); err != nil {
				t.Fatal(err)
			}
			tt.change(t, dir)
			err := pipeline.CheckFolder(dir)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("CheckFolder: %v, want %q", err, tt.want)
			}
		})
	}
}

// copyFile copies the file from to the file to, both slash-separated paths in dir.
func copyFile(t *testing.T, dir, from, to string) {
	t.Helper()
	to = filepath.Join(dir, filepath.FromSlash(to))
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, readFile(t, filepath.Join(dir, filepath.FromSlash(from))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShardNeedsAFolderOfItsSplit: a shard writes into a folder, never beside a file,
// and not into a folder holding shards of another split.
func TestShardNeedsAFolderOfItsSplit(t *testing.T) {
	dir := t.TempDir()
	s := shardSettings("")
	s.Out, s.Shard = filepath.Join(dir, "r.parquet"), replay.Shard{Index: 0, Count: 2}
	if _, err := pipeline.Run(context.Background(), s); !pipeline.IsUsage(err) || !strings.Contains(err.Error(), "give --out a folder") {
		t.Errorf("got %v", err)
	}
	s.Out = filepath.Join(dir, "split") + "/"
	run(t, s)
	for _, other := range []replay.Shard{{Index: 1, Count: 3}, {}} {
		s.Shard = other
		_, err := pipeline.Run(context.Background(), s)
		if !pipeline.IsUsage(err) || !strings.Contains(err.Error(), "holds shard 0/2 of another split in 2") {
			t.Errorf("shard %v into a folder of shards of 2: %v", other, err)
		}
	}
	if got := slicesKeys(tree(t, filepath.Join(dir, "split"))); len(got) != 10 {
		t.Errorf("a refused shard changed the folder: %v", got)
	}
}

// TestLogInPartsInPathOrder: synthetic vibes logs merged into one log in time order
// and cut in four parts named against it (d.jsonl holds its start) replay, with their
// labels, as the log in one file: every detector's figures, the outcomes and the
// moments — the parts' sessions delivered in the order the tables are derived in —
// and so does the replay split in two shards and merged.
func TestLogInPartsInPathOrder(t *testing.T) {
	dir := t.TempDir()
	_, labels := writeSynth(t, dir)
	var lines []string
	logs, _ := filepath.Glob(filepath.Join(dir, synth.InputsDir, "vibes", "*.jsonl"))
	for _, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	if len(logs) == 0 || len(lines) < 40 {
		t.Fatalf("%d vibes logs, %d lines: the test needs more", len(logs), len(lines))
	}
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\n") + "\n"
	}
	slices.SortStableFunc(lines, func(a, b string) int { return strings.Compare(eventID(a), eventID(b)) }) // UUIDv7s: in time order
	write := func(folder string, files map[string]string) string {
		in := filepath.Join(dir, folder)
		for name, text := range files {
			p := filepath.Join(in, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return in
	}
	one := write("one", map[string]string{"log.jsonl": strings.Join(lines, "")})
	parts := map[string]string{}
	for i, name := range []string{"d.jsonl", "c.jsonl", "b.jsonl", "a.jsonl"} {
		parts[name] = strings.Join(lines[i*len(lines)/4:(i+1)*len(lines)/4], "")
	}
	cut := write("parts", parts)
	settings := func(in, out string, shard replay.Shard) pipeline.Settings {
		s := shardSettings(in, labels...)
		s.Out, s.Shard, s.Resamples = out, shard, 50
		return s
	}
	want := run(t, settings(one, filepath.Join(dir, "one.parquet"), replay.Shard{}))
	got := run(t, settings(cut, filepath.Join(dir, "parts.parquet"), replay.Shard{}))
	if got.Summary.Sessions != want.Summary.Sessions || got.Summary.Sessions == 0 || got.Summary.Files != 4 ||
		got.Summary.Notes["vibes_log: files read as parts of one log, for they share a session"] != 4 {
		t.Fatalf("%d sessions of %d files, notes %v; want %d of 4, the parts noted", got.Summary.Sessions, got.Summary.Files, got.Summary.Notes, want.Summary.Sessions)
	}
	// The figures, not their intervals: the bootstrap draws the sessions in the order
	// they are delivered, which is the files'.
	scores := func(res *pipeline.Result) string {
		_, table, _ := strings.Cut(printed(t, res), "\nDETECTOR")
		return table
	}
	if scores(got) != scores(want) || scores(got) == "" {
		t.Errorf("the log in parts scores otherwise than the log in one file:\n%s\nwant\n%s", scores(got), scores(want))
	}
	shards := filepath.Join(dir, "shards") + string(filepath.Separator)
	for i := range 2 {
		run(t, settings(cut, shards, replay.Shard{Index: i, Count: 2}))
	}
	if _, err := pipeline.Merge(context.Background(), shards, 2); err != nil {
		t.Fatal(err)
	}
	for _, table := range derivedTables {
		rowsEqual(t, table, got.Out.Path(table), filepath.Join(shards, table, "part-0.parquet"))
	}
}

// eventID returns a vibes log line's event_id.
func eventID(line string) string {
	_, rest, _ := strings.Cut(line, `"event_id":"`)
	id, _, _ := strings.Cut(rest, `"`)
	return id
}
