package reports

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestOutputCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	out, err := NewOutput(filepath.Join(dir, "res.parquet"), map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	runs := mustTable[ProblemRow](t, out, "")
	extra := mustTable[ProblemRow](t, out, "extra")
	for i := 0; i < 3000; i++ {
		if err := runs.Write(ProblemRow{File: "f", Line: int32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := extra.Write(ProblemRow{File: "g"}); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 2 || !strings.HasPrefix(got[0], ".res") {
		t.Fatalf("before commit only hidden temporaries may exist: %v", got)
	}
	out.SetMetadata("late", "known at the end")
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); strings.Join(got, " ") != "res.extra.parquet res.manifest.json res.parquet" {
		t.Fatalf("after commit: %v", got)
	}
	rows, err := parquet.ReadFile[ProblemRow](filepath.Join(dir, "res.parquet"))
	if err != nil || len(rows) != 3000 || rows[2999].Line != 2999 {
		t.Fatalf("read back %d rows, %v", len(rows), err)
	}
	f, _ := os.Open(filepath.Join(dir, "res.extra.parquet"))
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"k": "v", "late": "known at the end", "loopwatch.table": "extra", "loopwatch.version": "0.1.0"} {
		if got, _ := pf.Lookup(k); got != want {
			t.Errorf("metadata %s = %q, want %q", k, got, want)
		}
	}
	if cc := pf.Metadata().RowGroups[0].Columns[0].MetaData.Codec; cc.String() != "ZSTD" {
		t.Errorf("codec %v, want ZSTD", cc)
	}

	dir2 := t.TempDir()
	out2, err := NewOutput(filepath.Join(dir2, "res.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tb := mustTable[ProblemRow](t, out2, "")
	if err := tb.Write(ProblemRow{File: "f"}); err != nil {
		t.Fatal(err)
	}
	out2.Abort()
	if got := entries(t, dir2); len(got) != 0 {
		t.Errorf("abort left %v", got)
	}
	if err := out2.Commit(); err == nil {
		t.Error("commit after abort succeeded")
	}
}

// TestRowGroupsAreBounded: a row group ends at RowGroupRows rows, or once its
// encoded pages pass RowGroupBytes beside a page a column, whichever comes first; every
// row is written, in order.
func TestRowGroupsAreBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(n int) string { // incompressible text
		b := make([]byte, n)
		for i := range b {
			b[i] = "0123456789abcdef"[rng.IntN(16)]
		}
		return string(b)
	}
	const columns = 4 // of ProblemRow
	for _, tt := range []struct {
		name   string
		rows   int
		detail func(i int) string
		groups func(n int) bool
	}{
		{"small rows: by rows", RowGroupRows + 10, func(int) string { return "" }, func(n int) bool { return n == 2 }},
		{"large rows: by bytes", 20000, func(int) string { return noise(400) }, func(n int) bool { return n >= 20000*200/(RowGroupBytes+columns*PageBytes) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := NewOutput(filepath.Join(dir, "r.parquet"), nil)
			if err != nil {
				t.Fatal(err)
			}
			tb := mustTable[ProblemRow](t, out, "")
			for i := range tt.rows {
				if err := tb.Write(ProblemRow{Line: int32(i), Detail: tt.detail(i)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := out.Commit(); err != nil {
				t.Fatal(err)
			}
			f, _ := os.Open(filepath.Join(dir, "r.parquet"))
			defer f.Close()
			fi, _ := f.Stat()
			pf, err := parquet.OpenFile(f, fi.Size())
			if err != nil {
				t.Fatal(err)
			}
			groups := pf.Metadata().RowGroups
			if !tt.groups(len(groups)) {
				t.Errorf("%d row groups", len(groups))
			}
			for i, g := range groups {
				if g.NumRows > RowGroupRows || g.TotalCompressedSize > RowGroupBytes+columns*PageBytes+writeBatch*400 {
					t.Errorf("row group %d: %d rows, %d bytes", i, g.NumRows, g.TotalCompressedSize)
				}
			}
			rows, err := parquet.ReadFile[ProblemRow](filepath.Join(dir, "r.parquet"))
			if err != nil || len(rows) != tt.rows || rows[len(rows)-1].Line != int32(tt.rows-1) {
				t.Fatalf("read back %d rows, %v", len(rows), err)
			}
		})
	}
}

// mustTable is NewTable failing the test on an error.
func mustTable[T any](t testing.TB, o *Output, name string) *Table[T] {
	t.Helper()
	tb, err := NewTable[T](o, name)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestRunRows(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("EST", -5*3600))
	run := &input.Run{Key: "q@e", Source: "trace", MaxCycles: 3, MaxBudgetUSD: 6, Outcome: input.OutcomeMaxCycles,
		Start: t0, End: t0.Add(time.Hour), CostSource: input.CostMeasured, FilterKnown: false,
		Cycles: []input.Cycle{{Cycle: 1, Time: t0.Add(10 * time.Minute), TotalCostUSD: 1, FilterCheckName: "test"},
			{Cycle: 2, Time: t0.Add(20 * time.Minute), TotalCostUSD: 2.5}}}
	res := replay.ReplayRun(run, struggle.DefaultStruggleConfig())
	row, cycles := RunRows(res, eval.LabelRecord{}, false)
	if row.Label != nil || row.Actual != nil || row.Confusion != nil {
		t.Errorf("unlabelled run has label columns: %+v", row)
	}
	if row.StartedAt.Location() != time.UTC || !row.StartedAt.Equal(t0) {
		t.Errorf("started_at %v not the same instant in UTC", row.StartedAt)
	}
	if len(cycles) != 2 || cycles[0].FilterCheckName != nil {
		t.Errorf("unknown filter history must be null: %+v", cycles)
	}
	row, _ = RunRows(res, eval.LabelRecord{Label: eval.Positive, Source: eval.SourceDerived, Rule: "max_cycles"}, true)
	if *row.Label != "positive" || *row.Actual != true || *row.LabelRule != "max_cycles" || row.Confusion == nil {
		t.Errorf("labelled run: %+v", row)
	}
	row, _ = RunRows(res, eval.LabelRecord{Label: eval.Ambiguous}, true)
	if row.Actual != nil || row.Confusion != nil {
		t.Errorf("ambiguous run scored: %+v", row)
	}
}

func TestMetricRowsNullForUndefined(t *testing.T) {
	rep := eval.Evaluate([]eval.Observation{{Key: "a", Label: eval.Negative, Score: 0}}, eval.Options{Resamples: -1})
	rows := MetricRows("struggle", "loopwatch", "run", "struggled", "h", rep)
	byName := map[string]MetricRow{}
	for _, r := range rows {
		byName[r.Metric] = r
	}
	if byName["tn"].Value == nil || *byName["tn"].Value != 1 {
		t.Errorf("tn: %+v", byName["tn"])
	}
	for _, m := range []string{"precision", "recall", "f1", "average_precision", "roc_auc"} {
		if byName[m].Value != nil {
			t.Errorf("%s should be null, is %v", m, *byName[m].Value)
		}
	}
	if _, ok := byName["f_beta"]; ok {
		t.Error("f_beta row with beta 1")
	}
	if v := finite(math.Inf(1)); v != nil {
		t.Error("inf not null")
	}
}

// TestSampleSummaryGolden pins the summary printed for the built-in sample.
func TestSampleSummaryGolden(t *testing.T) {
	labels, _, err := eval.ReadLabels(bytes.NewReader(datasets.SampleLabels()))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := fs.Sub(datasets.Sample(), "runs") // the sample's run traces
	if err != nil {
		t.Fatal(err)
	}
	var obs []eval.Observation
	sum, err := replay.Replay(context.Background(), runs, replay.Options{Struggle: struggle.DefaultStruggleConfig()},
		replay.SinkFunc(func(r *replay.RunResult) error {
			rec, _ := labels.Get(r.Run.Key)
			obs = append(obs, eval.Observation{Key: r.Run.Key, Label: rec.Label, Predicted: r.Struggle.Triggered, Score: r.Struggle.MaxScore})
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteSummary(&buf, sum, "sample labels", []DetectorReport{{"struggle", "loopwatch", eval.Evaluate(obs, eval.Options{Seed: 1})}})
	checkGolden(t, "sample_summary.golden", buf.String())
}

// checkGolden compares got with the golden file testdata/name; -update rewrites it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("summary differs from %s (go test ./reports -update):\n%s", golden, got)
	}
}

// TestEveryColumnRoundTrips guards against columns parquet-go would drop or alter:
// every field of every table, filled with a non-zero value, survives a write and a
// read.
func TestEveryColumnRoundTrips(t *testing.T) {
	roundTrip(t, RunRow{})
	roundTrip(t, CycleRow{})
	roundTrip(t, MetricRow{})
	roundTrip(t, ProblemRow{})
	roundTrip(t, FixFailureRow{})
	roundTrip(t, FixRunRow{})
	roundTrip(t, EventRow{})
	roundTrip(t, CheckpointRow{})
	roundTrip(t, InterventionRow{})
	roundTrip(t, PredictionRow{})
	roundTrip(t, FixCaseRow{})
}

func roundTrip[T any](t *testing.T, row T) {
	t.Helper()
	fill(reflect.ValueOf(&row).Elem())
	dir := t.TempDir()
	out, err := NewOutput(filepath.Join(dir, "r.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tb := mustTable[T](t, out, "")
	if err := tb.Write(row); err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[T](filepath.Join(dir, "r.parquet"))
	if err != nil || len(rows) != 1 {
		t.Fatalf("%T: %v rows, %v", row, len(rows), err)
	}
	if !reflect.DeepEqual(rows[0], row) {
		t.Errorf("%T does not round-trip:\n got %+v\nwant %+v", row, rows[0], row)
	}
}

// fill sets every field of a struct to a distinct non-zero value.
func fill(v reflect.Value) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 123e6, time.UTC)
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch x := f.Addr().Interface().(type) {
		case *string:
			*x = fmt.Sprint("s", i)
		case **string:
			*x = ptr(fmt.Sprint("p", i))
		case *int32:
			*x = int32(i + 1)
		case **int32:
			*x = ptr(int32(i + 1))
		case *int64:
			*x = int64(i + 1)
		case *float64:
			*x = float64(i) + 0.5
		case **float64:
			*x = ptr(float64(i) + 0.25)
		case *bool:
			*x = true
		case **bool:
			*x = ptr(true)
		case **time.Time:
			*x = ptr(at.Add(time.Duration(i) * time.Second))
		case *[]string:
			*x = []string{"a", fmt.Sprint(i)}
		case *[]float64:
			*x = []float64{float64(i) + 0.125, 1.0 / 3}
		default:
			panic(fmt.Sprintf("fill: field %s of type %s", v.Type().Field(i).Name, f.Type()))
		}
	}
}
