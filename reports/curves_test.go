package reports

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/loopwatch/loopwatch/eval"
)

func TestCurveRowRoundTrips(t *testing.T) { roundTrip(t, CurveRow{}) }

func TestCurveRows(t *testing.T) {
	o := func(l eval.Label, s float64) eval.Observation { return eval.Observation{Label: l, Score: s} }
	// Two negatives tied at 0.4 with a positive; one positive without a score.
	c := eval.Curves([]eval.Observation{o(eval.Positive, 0.9), o(eval.Negative, 0.4), o(eval.Positive, 0.4),
		o(eval.Negative, 0.4), o(eval.Positive, math.NaN())})
	rows := CurveRows("struggle", "seed", c)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 3 PR and 3 ROC points: %+v", len(rows), rows)
	}
	for i, r := range rows {
		wantKind := CurvePR
		if i >= 3 {
			wantKind = CurveROC
		}
		p := c.Points[i%3]
		if r.Detector != "struggle" || r.Config != "seed" || r.Curve != wantKind || r.Point != int32(i%3) ||
			r.Threshold != p.Threshold || r.TP != int32(p.TP) || r.FP != int32(p.FP) || r.FN != int32(p.FN) || r.TN != int32(p.TN) ||
			*r.Precision != p.Precision || *r.Recall != p.Recall || *r.FPR != p.FPR {
			t.Errorf("row %d = %+v, point %+v", i, r, p)
		}
	}
	if r := rows[1]; r.TP != 2 || r.FP != 2 || r.FN != 1 || r.TN != 0 {
		t.Errorf("the tie at 0.4 must cross together: %+v", r)
	}

	// −Inf thresholds and null rates survive Parquet.
	only := CurveRows("breaker", "shipped-today", eval.Curves([]eval.Observation{o(eval.Positive, math.NaN())}))
	dir := t.TempDir()
	out, err := NewOutput(filepath.Join(dir, "c.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tb := mustTable[CurveRow](t, out, "")
	if err := tb.Write(append(rows, only...)...); err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	back, err := parquet.ReadFile[CurveRow](filepath.Join(dir, "c.parquet"))
	if err != nil || len(back) != 8 {
		t.Fatalf("read %d rows, %v", len(back), err)
	}
	if r := back[6]; !math.IsInf(r.Threshold, -1) || r.FPR != nil || r.Recall == nil || *r.Recall != 1 {
		t.Errorf("one positive without a score: %+v", r)
	}
	if got := CurveRows("x", "y", eval.Curve{}); len(got) != 0 {
		t.Errorf("an empty curve gave %d rows", len(got))
	}
}
