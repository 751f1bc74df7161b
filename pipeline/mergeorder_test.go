package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
)

// keyOf returns the first key "<prefix>-<i>" that hashes to shard of count.
func keyOf(prefix string, shard, count int) string {
	for i := 0; ; i++ {
		if k := fmt.Sprintf("%s-%d", prefix, i); replay.ShardOf(k, count) == shard {
			return k
		}
	}
}

// testSet writes each shard's predictions (rows[i] for shard i of len(rows)) into dir
// as one-table outputs and returns the set, its manifests holding each file's SHA-256.
func testSet(t *testing.T, dir string, rows [][]reports.PredictionRow) *shardSet {
	t.Helper()
	return testShards(t, dir, len(rows), func(i int, name string, out *reports.Output) ([][2]string, error) {
		tab, err := reports.NewTable[reports.PredictionRow](out, "")
		if err == nil {
			err = tab.Write(rows[i]...)
		}
		if err == nil {
			_, err = reports.NewTable[reports.FixCaseRow](out, "cases")
		}
		return [][2]string{{tablePredictions, name}, {tableFixCases, strings.TrimSuffix(name, ".parquet") + ".cases.parquet"}}, err
	})
}

// testShards writes n shards into dir, each a one-file output shard<i>.parquet whose
// tables write opens and fills, and returns the set: each shard's manifest lists the
// (table, file) pairs write returns, with each file's SHA-256.
func testShards(t *testing.T, dir string, n int, write func(i int, name string, out *reports.Output) ([][2]string, error)) *shardSet {
	t.Helper()
	set := &shardSet{dir: dir}
	for i := range n {
		name := fmt.Sprintf("shard%d.parquet", i)
		out, err := reports.NewOutput(filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		files, err := write(i, name, out)
		if err == nil {
			err = out.Commit()
		}
		if err != nil {
			t.Fatal(err)
		}
		m := &reports.Manifest{ManifestInfo: reports.ManifestInfo{Shard: fmt.Sprintf("%d/%d", i, n)}}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, f[1]))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			m.Tables = append(m.Tables, reports.ManifestTable{Table: f[0], File: f[1], SHA256: hex.EncodeToString(sum[:])})
		}
		set.manifests = append(set.manifests, m)
	}
	return set
}

// tempScratch makes scratch files in a temporary folder of t.
func tempScratch(t *testing.T) func(name string) (*os.File, error) {
	dir := t.TempDir()
	return func(name string) (*os.File, error) {
		f, err := os.CreateTemp(dir, name+"-*")
		if err == nil {
			t.Cleanup(func() { f.Close() })
		}
		return f, err
	}
}

func pred(file, key string, config int32) reports.PredictionRow {
	return reports.PredictionRow{RunKey: key, Kind: "quasar_run", File: file, ConfigIndex: config}
}

// TestEachInReplayOrder: the shards' rows come merged into file, then key order, a
// unit's rows together; a shard whose rows are out of that order, or hold a unit of
// another shard, or whose file changed, is refused with a SetError saying so.
func TestEachInReplayOrder(t *testing.T) {
	k0a, k0b := keyOf("a", 0, 2), keyOf("b", 0, 2)
	k1a, k1b := keyOf("a", 1, 2), keyOf("b", 1, 2)
	unit := func(r *reports.PredictionRow) (string, string, string) { return r.Kind, r.File, r.RunKey }
	merged := func(set *shardSet) ([]string, error) {
		var got []string
		err := eachInReplayOrder(context.Background(), set, tempScratch(t), tablePredictions, unit, func(r *reports.PredictionRow) error {
			got = append(got, fmt.Sprintf("%s/%s/%d", r.File, r.RunKey, r.ConfigIndex))
			return nil
		})
		return got, err
	}
	good := [][]reports.PredictionRow{
		{pred("a.jsonl", k0a, 0), pred("a.jsonl", k0a, 1), pred("a.jsonl", k0b, 0), pred("a.jsonl", k0b, 1), pred("c.jsonl", keyOf("c", 0, 2), 0)},
		{pred("a.jsonl", k1a, 0), pred("a.jsonl", k1a, 1), pred("b.jsonl", k1b, 0), pred("b.jsonl", k1b, 1)},
	}
	got, err := merged(testSet(t, t.TempDir(), good))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, part := range good {
		for _, r := range part {
			want = append(want, fmt.Sprintf("%s/%s/%d", r.File, r.RunKey, r.ConfigIndex))
		}
	}
	slices.SortStableFunc(want, func(a, b string) int { // file, then key; a unit's rows in their order
		fa, ka, _ := strings.Cut(a, "/")
		fb, kb, _ := strings.Cut(b, "/")
		ka, _, _ = strings.Cut(ka, "/")
		kb, _, _ = strings.Cut(kb, "/")
		if c := strings.Compare(fa, fb); c != 0 {
			return c
		}
		return strings.Compare(ka, kb)
	})
	if !slices.Equal(got, want) {
		t.Errorf("merged\n%v\nwant\n%v", got, want)
	}

	for _, tt := range []struct {
		name  string
		spoil func(rows [][]reports.PredictionRow)
		want  string
	}{
		{"out of order", func(rows [][]reports.PredictionRow) { rows[1][0], rows[1][2] = rows[1][2], rows[1][0] }, "not in the order the replay writes"},
		{"another shard's unit", func(rows [][]reports.PredictionRow) { rows[1] = append(rows[1], pred("z.jsonl", k0a, 0)) }, "is not shard 1/2's to replay: its key hashes to shard 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows := [][]reports.PredictionRow{slices.Clone(good[0]), slices.Clone(good[1])}
			tt.spoil(rows)
			_, err := merged(testSet(t, t.TempDir(), rows))
			var se *SetError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a SetError saying %q", err, tt.want)
			}
		})
	}
	t.Run("a unit twice", func(t *testing.T) {
		rows := [][]reports.PredictionRow{append(slices.Clone(good[0][:2]), pred("a.jsonl", k0a, 0)), good[1]}
		set := testSet(t, t.TempDir(), rows)
		out, err := reports.NewOutput(filepath.Join(t.TempDir(), "m.parquet"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Abort()
		if _, _, err := spillShards(context.Background(), set, out, 2); err == nil || !strings.Contains(err.Error(), "quasar_run "+k0a+" appears twice") {
			t.Errorf("got %v", err)
		}
		if _, _, err := spillShards(context.Background(), testSet(t, t.TempDir(), good), out, 2); err != nil {
			t.Errorf("the good set: %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := eachInReplayOrder(ctx, testSet(t, t.TempDir(), good), tempScratch(t), tablePredictions, unit, func(*reports.PredictionRow) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled merge: %v", err)
		}
	})
	t.Run("changed file", func(t *testing.T) {
		dir := t.TempDir()
		set := testSet(t, dir, good)
		os.WriteFile(filepath.Join(dir, "shard1.parquet"), []byte("PAR1 not what the manifest says"), 0o644)
		if _, err := merged(set); err == nil || !strings.Contains(err.Error(), "changed since shard 1/2 wrote it") {
			t.Errorf("got %v", err)
		}
	})
}

// TestEachInReplayOrderInGroups: a set of more shards than the merge reads at once is
// merged in groups, through scratch files, into the same rows in the same order as
// when every shard is read at once; the checks of each shard's rows still hold.
func TestEachInReplayOrderInGroups(t *testing.T) {
	const n = 7
	unit := func(r *reports.PredictionRow) (string, string, string) { return r.Kind, r.File, r.RunKey }
	rows := make([][]reports.PredictionRow, n)
	var want []string
	for _, file := range []string{"a.jsonl", "b/c.jsonl", "d.jsonl"} {
		var units []reports.PredictionRow // every shard's units of file, in key order
		for shard := range n {
			for _, p := range []string{"x", "y"} {
				units = append(units, pred(file, keyOf(file+p, shard, n), 0))
			}
		}
		slices.SortFunc(units, func(a, b reports.PredictionRow) int { return strings.Compare(a.RunKey, b.RunKey) })
		for _, u := range units {
			shard := replay.ShardOf(u.RunKey, n)
			for c := range int32(2) {
				u.ConfigIndex = c
				rows[shard] = append(rows[shard], u)
				want = append(want, fmt.Sprintf("%s/%s/%d", u.File, u.RunKey, c))
			}
		}
	}
	merged := func(set *shardSet, maxOpen int) ([]string, error) {
		set.maxOpen = maxOpen
		var got []string
		err := eachInReplayOrder(context.Background(), set, tempScratch(t), tablePredictions, unit, func(r *reports.PredictionRow) error {
			got = append(got, fmt.Sprintf("%s/%s/%d", r.File, r.RunKey, r.ConfigIndex))
			return nil
		})
		return got, err
	}
	set := testSet(t, t.TempDir(), rows)
	for _, maxOpen := range []int{0, 2, 3, n - 1, n} {
		got, err := merged(set, maxOpen)
		if err != nil {
			t.Fatalf("%d at once: %v", maxOpen, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d at once: merged\n%v\nwant\n%v", maxOpen, got, want)
		}
	}
	for _, tt := range []struct {
		name  string
		spoil func(rows [][]reports.PredictionRow)
		want  string
	}{
		{"out of order", func(rows [][]reports.PredictionRow) { rows[5][0], rows[5][4] = rows[5][4], rows[5][0] }, "not in the order the replay writes"},
		{"another shard's unit", func(rows [][]reports.PredictionRow) { rows[6] = append(rows[6], pred("z.jsonl", keyOf("z", 2, n), 0)) }, "is not shard 6/7's to replay: its key hashes to shard 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spoilt := make([][]reports.PredictionRow, n)
			for i := range rows {
				spoilt[i] = slices.Clone(rows[i])
			}
			tt.spoil(spoilt)
			_, err := merged(testSet(t, t.TempDir(), spoilt), 2)
			var se *SetError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a SetError saying %q", err, tt.want)
			}
		})
	}
}

// TestMergeInGroups: a set of shards merged two at a time, through scratch files,
// gives the derived tables, byte for byte, and the result of the merge that reads
// every shard at once.
func TestMergeInGroups(t *testing.T) {
	const n = 5
	a := filepath.Join(t.TempDir(), "a")
	s := DefaultSettings()
	s.Resamples, s.Fix.Draws, s.Fix.Trials = 300, 20, 5
	for i := range n {
		s.Out, s.Shard, s.Workers = a+"/", replay.Shard{Index: i, Count: n}, 2
		if _, err := Run(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	b := filepath.Join(t.TempDir(), "b")
	if err := os.CopyFS(b, os.DirFS(a)); err != nil {
		t.Fatal(err)
	}
	at, err := merge(context.Background(), a, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	inTwos, err := merge(context.Background(), b, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(at.Detectors) < 3 || at.FixTotals == nil {
		t.Fatalf("too little to compare: %d detectors, fix-loop totals %v", len(at.Detectors), at.FixTotals)
	}
	for _, table := range []string{"metrics", "curves", "fixloop", "fixloop_runs"} {
		x, err1 := os.ReadFile(filepath.Join(a, table, "part-0.parquet"))
		y, err2 := os.ReadFile(filepath.Join(b, table, "part-0.parquet"))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: merged two shards at a time differs from all at once (%v, %v)", table, err1, err2)
		}
	}
	summary := func(res *Result) string { // what metrics prints, but for the last line: the tables, which name the folder
		var out, errb bytes.Buffer
		if err := WriteResult(&out, &errb, "metrics", res, 0); err != nil {
			t.Fatal(err)
		}
		s, _, _ := strings.Cut(out.String(), "\nwrote ")
		return s
	}
	if x, y := summary(at), summary(inTwos); x != y || !strings.Contains(x, "AUC") {
		t.Errorf("the summaries differ:\n%s\n%s", x, y)
	}
	for _, dir := range []string{a, b} {
		if left, _ := filepath.Glob(filepath.Join(dir, "_manifests", ".*")); len(left) > 0 {
			t.Errorf("scratch files left: %v", left)
		}
	}
}

// testInputSet writes each shard's inputs table (rows[i] for shard i of len(rows)) into
// dir and returns the set.
func testInputSet(t *testing.T, dir string, rows [][]reports.InputRow) *shardSet {
	t.Helper()
	return testShards(t, dir, len(rows), func(i int, name string, out *reports.Output) ([][2]string, error) {
		tab, err := reports.NewTable[reports.InputRow](out, "")
		if err == nil {
			err = tab.Write(rows[i]...)
		}
		return [][2]string{{tableInputs, name}}, err
	})
}

// TestInputFingerprint: the shards' inputs tables fold, in path order, into the
// fingerprint of their union — in groups too — and a set that lists a file twice, or
// other than the files its summaries count, or out of order, is refused.
func TestInputFingerprint(t *testing.T) {
	in := func(file string) reports.InputRow {
		sum := sha256.Sum256([]byte(file))
		return reports.InputRow{File: file, SHA256: hex.EncodeToString(sum[:])}
	}
	good := [][]reports.InputRow{{in("a.jsonl"), in("c/x.jsonl"), in("d.jsonl")}, {in("b.jsonl")}, {}, {in("c.jsonl"), in("c/y.jsonl")}}
	want := replay.NewFingerprint()
	for _, f := range []string{"a.jsonl", "b.jsonl", "c.jsonl", "c/x.jsonl", "c/y.jsonl", "d.jsonl"} {
		want.Add(f, in(f).SHA256)
	}
	for _, maxOpen := range []int{0, 2} {
		set := testInputSet(t, t.TempDir(), good)
		set.maxOpen = maxOpen
		got, err := inputFingerprint(context.Background(), set, tempScratch(t), 6)
		if err != nil || got != want.Sum() {
			t.Errorf("fan-in %d: %s, %v; want %s", maxOpen, got, err, want.Sum())
		}
	}
	for _, tt := range []struct {
		name  string
		rows  [][]reports.InputRow
		files int
		want  string
	}{
		{"a file in two shards", [][]reports.InputRow{{in("a"), in("b")}, {in("b")}}, 3, "list b twice"},
		{"a file missing", [][]reports.InputRow{{in("a")}, {in("b")}}, 3, "list 2 files, their summaries count 3 read"},
		{"out of order", [][]reports.InputRow{{in("b"), in("a")}, {}}, 2, "not in the order"},
	} {
		_, err := inputFingerprint(context.Background(), testInputSet(t, t.TempDir(), tt.rows), tempScratch(t), tt.files)
		var se *SetError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want a SetError saying %q", tt.name, err, tt.want)
		}
	}
}
