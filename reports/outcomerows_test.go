package reports

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/loopwatch/loopwatch/eval"
)

func TestOutcomeMetricRows(t *testing.T) {
	rep := eval.EvaluateOutcomes([]eval.OutcomePrediction{
		{Key: "a", Label: "success", Predicted: "success", Confidence: 0.8},
		{Key: "b", Label: "abandoned", Predicted: "success", Confidence: 0.6},
		{Key: "c", Label: "none", Predicted: "success", Confidence: 0.6},
		{Key: "d", Label: "partial", Confidence: math.NaN()},
	}, eval.Options{Resamples: 50, Seed: 3})
	rows := OutcomeMetricRows("outcome", "loopwatch", "h", rep)
	got := map[string]*float64{}
	for _, r := range rows {
		if r.Target != "session_outcome" || r.Detector != "outcome" || r.Config != "loopwatch" || r.ConfigHash != "h" || r.Runs != 4 || r.Scored != 2 || r.Excluded != 1 {
			t.Fatalf("row %+v", r)
		}
		got[r.Metric] = r.Value
	}
	for metric, want := range map[string]float64{
		"accuracy": 0.5, "correct": 1, "unpredicted": 1, "majority_accuracy": 0.5, "recall.success": 1, "recall.abandoned": 0,
		"confusion.abandoned.success": 1, "confusion.partial.none": 1, "confusion.none.success": 1, "confusion.success.success": 1,
		"support.failure": 0, "brier": (0.04 + 0.36) / 2,
	} {
		if v := got[metric]; v == nil || math.Abs(*v-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", metric, v, want)
		}
	}
	if v, ok := got["precision.failure"]; !ok || v != nil {
		t.Errorf("an undefined precision is a null row: %v, %v", v, ok)
	}
	if len(rows) != 8+3*4+25 {
		t.Errorf("%d rows", len(rows))
	}
}

// TestWriteOutcomeSummary: the summary's lines on the outcome by class — one line per
// configuration, the first's confusion by outcome — against a golden file (go test
// ./reports -update rewrites it); nothing when no session is labelled with an outcome.
func TestWriteOutcomeSummary(t *testing.T) {
	preds := func(predicted ...string) []eval.OutcomePrediction {
		labels := []string{"success", "success", "success", "partial", "failure", "abandoned", "abandoned", "none", ""}
		var out []eval.OutcomePrediction
		for i, l := range labels {
			out = append(out, eval.OutcomePrediction{Key: fmt.Sprint(i), Label: l, Predicted: predicted[i], Confidence: 0.7})
		}
		return out
	}
	opts := eval.Options{Resamples: 200, Seed: 1}
	results := []OutcomeResult{
		{"loopwatch", eval.EvaluateOutcomes(preds("success", "success", "partial", "partial", "abandoned", "abandoned", "", "success", "success"), opts)},
		{"seed", eval.EvaluateOutcomes(preds("success", "", "", "success", "success", "success", "success", "", "failure"), opts)},
	}
	var buf bytes.Buffer
	if err := WriteOutcomeSummary(&buf, results); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "outcome_summary.golden", buf.String())
	for _, results := range [][]OutcomeResult{nil, {{"loopwatch", eval.EvaluateOutcomes([]eval.OutcomePrediction{{Key: "a", Predicted: "success"}}, opts)}}} {
		buf.Reset()
		if err := WriteOutcomeSummary(&buf, results); err != nil || buf.Len() > 0 {
			t.Errorf("no session labelled with an outcome: printed %q, %v", buf.String(), err)
		}
	}
}
