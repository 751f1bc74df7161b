package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/reports"
)

// TestUnitOrder: units must come in the order of file path, then key; a unit before
// the last one, or the last one again, is an error naming both.
func TestUnitOrder(t *testing.T) {
	for _, tt := range []struct {
		name  string
		units [][2]string // file, key
		bad   int         // index of the first unit refused; -1 none
	}{
		{"in order", [][2]string{{"a.jsonl", "k2"}, {"a.jsonl", "k3"}, {"b/c.jsonl", "k1"}, {"b/d.jsonl", "k0"}}, -1},
		{"a key before the last", [][2]string{{"a.jsonl", "k2"}, {"a.jsonl", "k1"}}, 1},
		{"a file before the last", [][2]string{{"b.jsonl", "k1"}, {"a.jsonl", "k9"}}, 1},
		{"the same unit twice", [][2]string{{"a.jsonl", "k1"}, {"a.jsonl", "k1"}}, 1},
		{"bytewise, not by path element", [][2]string{{"a.txt", "k"}, {"a/b", "k"}, {"a-c", "k"}}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := &job{preds: &predSpill{}}
			bad := -1
			for i, u := range tt.units {
				if err := j.inOrder("session", u[0], u[1]); err != nil {
					bad = i
					if !strings.Contains(err.Error(), u[1]+" of "+u[0]) || !strings.Contains(err.Error(), "not in the order") {
						t.Errorf("error %q", err)
					}
					break
				}
			}
			if bad != tt.bad {
				t.Errorf("refused unit %d, want %d", bad, tt.bad)
			}
			if err := (&job{}).inOrder("run", "b", "a"); err != nil { // a folder's shard reads nothing back: no check
				t.Error(err)
			}
		})
	}
}

// predictionRows makes the predictions rows of n units of every kind under three
// configurations (the last a baseline without outcome): runs and sessions, labelled
// or not, with event-level scores, failed analyses and missing scores.
func predictionRows(n int) []reports.PredictionRow {
	rng := rand.New(rand.NewPCG(3, 4))
	labels := []*string{nil, reports.Ptr("positive"), reports.Ptr("negative"), reports.Ptr("ambiguous"), reports.Ptr("excluded"), reports.Ptr("odd")}
	outcomes := []*string{nil, reports.Ptr("success"), reports.Ptr("failure"), reports.Ptr("Abandoned "), reports.Ptr("none"), reports.Ptr("other")}
	score := func() *float64 {
		if rng.IntN(5) == 0 {
			return nil
		}
		return reports.Ptr(rng.Float64())
	}
	var rows []reports.PredictionRow
	for cfg := range 3 {
		for u := range n {
			r := reports.PredictionRow{RunKey: fmt.Sprintf("u%04d", u), File: fmt.Sprintf("f%02d.jsonl", u/10), ConfigIndex: int32(cfg),
				Label: labels[rng.IntN(len(labels))]}
			if u%3 == 0 {
				r.Kind = "quasar_run"
				r.StrugglePredicted, r.StruggleScore = reports.Ptr(rng.IntN(2) == 0), score()
				rows = append(rows, r)
				continue
			}
			r.Kind = "session"
			r.BreakerPredicted, r.BreakerScore = reports.Ptr(rng.IntN(2) == 0), score()
			r.Interventions = reports.Ptr(int32(rng.IntN(3)))
			failed := rng.IntN(7) == 0
			r.AnalysisFailed = reports.Ptr(failed)
			if cfg < 2 && !failed {
				r.OutcomePredicted, r.OutcomeScore = reports.Ptr(rng.IntN(2) == 0), score()
				r.PredictedOutcome, r.PredictedConfidence = outcomes[rng.IntN(len(outcomes))], score()
			}
			r.LabelOutcome = outcomes[rng.IntN(len(outcomes))]
			if rng.IntN(2) == 0 {
				m := eval.SessionMoments{Moments: rng.IntN(4), Caught: rng.IntN(3), Interventions: rng.IntN(3), TruePositives: rng.IntN(2),
					FalseAlarms: rng.IntN(2), HumanTurns: 1 + rng.IntN(20)}
				for range m.Caught {
					m.DelaySeconds = append(m.DelaySeconds, rng.Float64()*300)
					m.DelayEvents = append(m.DelayEvents, float64(rng.IntN(9)))
				}
				r.SetMoments(m)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// TestSpilledPredictionsScoreAsKept: a configuration's predictions spilled to a
// scratch file and read back, its targets scored each from its own reading, give the
// reports and rows of the same predictions kept in memory and scored together.
func TestSpilledPredictionsScoreAsKept(t *testing.T) {
	rows := predictionRows(300)
	out, err := reports.NewOutput(filepath.Join(t.TempDir(), "r.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Abort()
	spill, err := newPredSpill(out, 3)
	if err != nil {
		t.Fatal(err)
	}
	var kept keptPredictions
	for i := range rows {
		kept.keep(&rows[i])
		if err := spill.write(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := spill.flush(); err != nil {
		t.Fatal(err)
	}
	if err := kept.sort(3); err != nil {
		t.Fatal(err)
	}
	configs := []configSpec{{Struggle: "loopwatch", Assess: "loopwatch", Configured: true}, {Struggle: "seed", Assess: "seed"},
		{Struggle: Shipped, Assess: Shipped, NoOutcome: true}}
	opts := eval.Options{Seed: 1, Resamples: 40}
	for i, spec := range configs {
		want := &Result{}
		wantMetrics, wantCurves := scoringOf(spec, kept.preds[300*i:300*(i+1)], &kept).evaluate(want, opts, time.Minute, "bad", true)
		got := &Result{}
		var gotMetrics []reports.MetricRow
		var gotCurves []reports.CurveRow
		for tg := range numTargets {
			c := &scoring{configSpec: spec}
			c.reserve(tg, spill.counts(i))
			if err := spill.each(i, func(p *keptPrediction, sm *eval.SessionMoments) { c.add(p, sm, tg) }); err != nil {
				t.Fatal(err)
			}
			m, cv, err := c.evaluateTarget(tg, got, opts, time.Minute, "bad", true)
			if err != nil {
				t.Fatal(err)
			}
			gotMetrics, gotCurves = append(gotMetrics, m...), append(gotCurves, cv...)
		}
		if n, want := spill.counts(i), kept.counts(i); n != want || n.runs != 100 || n.sessions != 200 || n.moments == 0 {
			t.Errorf("config %d: counted %+v, kept %+v", i, n, want)
		}
		if len(wantMetrics) == 0 || len(want.Detectors) < 2 || i < 2 && (len(want.Outcomes) != 1 || len(want.Moments) != 1) {
			t.Fatalf("config %d: too little scored to compare: %d metric rows, %d reports", i, len(wantMetrics), len(want.Detectors))
		}
		if !equalNaN(reflect.ValueOf(gotMetrics), reflect.ValueOf(wantMetrics)) || !equalNaN(reflect.ValueOf(gotCurves), reflect.ValueOf(wantCurves)) {
			t.Errorf("config %d: the rows read back differ from the kept ones", i)
		}
		if !equalNaN(reflect.ValueOf(got), reflect.ValueOf(want)) {
			t.Errorf("config %d: the reports read back differ from the kept ones", i)
		}
	}
	// A record cut short is an error, not the end.
	f := spill.files[1]
	fi, _ := f.Stat()
	if err := f.Truncate(fi.Size() - 3); err != nil {
		t.Fatal(err)
	}
	if err := spill.each(1, func(*keptPrediction, *eval.SessionMoments) {}); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("a truncated file read back: %v", err)
	}
}

// TestCaseEncoding: a fix-loop case spilled and read back is the case, every float's
// bits included (-0, NaN, infinities).
func TestCaseEncoding(t *testing.T) {
	cases := []*fixsim.Case{
		{Key: "run-1", TaskID: "t-1", Title: "fix the ✓ build", Outcome: input.OutcomeMaxCycles, Cycles: 4, MaxCycles: 5, MaxBudgetUSD: 2.5,
			TotalCostUSD: 1.25, MeanCoderCostUSD: math.Copysign(0, -1), CoderCostEstimated: true, MeanCycleCostUSD: math.Inf(1),
			Failures: []fixsim.Failure{{Cycle: 1, Check: "build", OutputLen: 1 << 20, Errors: 3, Unparsed: -1, CostAtFail: math.NaN(), Next: fixsim.Cleared},
				{Cycle: 3, Check: "odd check", CostAtFail: 0.5, Next: fixsim.Unknown}}},
		{Key: "", Failures: []fixsim.Failure{}},
		{Key: strings.Repeat("k", 300), Outcome: input.OutcomeApproved, Cycles: -2, Failures: []fixsim.Failure{{Check: "test", Next: fixsim.NoNextCycle}}},
		{Key: "loop-on", Outcome: input.OutcomeApproved, Cycles: 2, LoopOn: true, Failures: []fixsim.Failure{
			{Cycle: 1, Check: "build", Next: fixsim.Cleared, Recorded: fixsim.Recorded{Attempts: 3, Reruns: 2, Passed: 1, Fixed: true, CostUSD: 0.75, BudgetStop: true}},
			{Cycle: 2, Check: "claims", Recorded: fixsim.Recorded{CostUSD: math.Copysign(0, -1)}}}},
	}
	var b []byte
	for _, c := range cases {
		b = appendCase(b, c)
	}
	r := bufio.NewReader(bytes.NewReader(b))
	for _, want := range cases {
		got, err := readCase(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(appendCase(nil, got), appendCase(nil, want)) {
			t.Errorf("read back %+v, want %+v", got, want)
		}
		if g, w := math.Float64bits(got.MeanCoderCostUSD), math.Float64bits(want.MeanCoderCostUSD); g != w {
			t.Errorf("float bits %x, want %x", g, w)
		}
		w := *want
		w.MeanCoderCostUSD, w.MeanCycleCostUSD, w.Failures = 0, 0, nil
		g := *got
		g.MeanCoderCostUSD, g.MeanCycleCostUSD, g.Failures = 0, 0, nil
		if !reflect.DeepEqual(g, w) || fmt.Sprintf("%+v", got.Failures) != fmt.Sprintf("%+v", want.Failures) {
			t.Errorf("read back %+v, want %+v", got, want)
		}
	}
	if _, err := readCase(r); !errors.Is(err, io.ErrUnexpectedEOF) { // the source stops before: a case is never empty
		t.Errorf("after the last case: %v", err)
	}
	cut := bufio.NewReader(bytes.NewReader(b[:len(b)-2]))
	for i := range cases {
		if _, err := readCase(cut); (err != nil) != (i == len(cases)-1) {
			t.Errorf("case %d of a cut file: %v", i, err)
		}
	}
}

// TestScratchFilesOfAReplay: a replay to a file leaves no scratch file (nor any
// temporary) beside its output when it succeeds, nor when it fails.
func TestScratchFilesOfAReplay(t *testing.T) {
	dir := t.TempDir()
	s := DefaultSettings() // the built-in sample: runs and sessions
	s.Resamples, s.Fix.Draws, s.Fix.Trials = 50, 10, 5
	s.Out = filepath.Join(dir, "r.parquet")
	if _, err := Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	temporaries := func(when string) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("%s: %s left beside the output", when, e.Name())
			}
		}
	}
	temporaries("after a replay")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Out = filepath.Join(dir, "cancelled.parquet")
	if _, err := Run(ctx, s); err == nil {
		t.Fatal("a cancelled replay succeeded")
	}
	temporaries("after a failed replay")
}

// equalNaN is reflect.DeepEqual with NaN equal to NaN and errors equal by their text.
func equalNaN(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || math.IsNaN(x) && math.IsNaN(y)
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Kind() == reflect.Interface && a.CanInterface() && a.Type().Implements(reflect.TypeFor[error]()) {
			e, _ := a.Interface().(error)
			return e.Error() == b.Interface().(error).Error()
		}
		return equalNaN(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !equalNaN(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalNaN(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if !equalNaN(a.MapIndex(k), b.MapIndex(k)) {
				return false
			}
		}
		return true
	case reflect.Func:
		return a.IsNil() && b.IsNil()
	}
	if a.CanInterface() {
		return a.Interface() == b.Interface()
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}
