package pipeline

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/reports"
)

// TestOutcomeByClassFromPredictionRows: a session's predictions row carries its
// predicted and labelled outcome (null without a final analysis, or without an
// outcome label); what the metrics keep of the row gives them back; and the outcome
// accuracy by outcome is derived from them alone — sessions labelled none, without
// an outcome label or without a final analysis not scored, a baseline without a
// session analysis not evaluated.
func TestOutcomeByClassFromPredictionRows(t *testing.T) {
	analysis := func(o string, c float64) replay.SessionOutcome {
		return replay.SessionOutcome{Analysis: &llm.SessionAnalysis{Outcome: llm.Outcome(o), Confidence: c}}
	}
	type session struct {
		label     eval.LabelRecord
		labelled  bool
		out       replay.SessionOutcome
		predicted string // the row's predicted_outcome ("" null)
		labelOut  string // the row's label_outcome ("" null)
	}
	for _, tt := range []struct {
		name     string
		spec     configSpec
		sessions []session
		// want: correct/scored, unpredicted, excluded, unlabelled, and the non-zero
		// cells of the matrix ("labelled>predicted=n"); "" when not evaluated.
		want string
	}{
		{"scored and left out", configSpec{Assess: "loopwatch"}, []session{
			{eval.LabelRecord{Key: "a", Label: eval.Negative, Outcome: "success"}, true, analysis("success", 0.9), "success", "success"},
			{eval.LabelRecord{Key: "b", Label: eval.Positive, Outcome: "abandoned"}, true, analysis("success", 0.6), "success", "abandoned"},
			{eval.LabelRecord{Key: "c", Label: eval.Positive, Outcome: "Abandoned "}, true, analysis("abandoned", 0.7), "abandoned", "Abandoned "},
			{eval.LabelRecord{Key: "d", Label: eval.Excluded, Outcome: "none"}, true, replay.SessionOutcome{}, "", "none"},
			{eval.LabelRecord{Key: "e", Label: eval.Negative, Outcome: "partial"}, true, replay.SessionOutcome{AnalysisFailed: true}, "", "partial"},
			{eval.LabelRecord{Key: "f", Label: eval.Negative}, true, analysis("success", 0.8), "success", ""},
			{eval.LabelRecord{Key: "g", Label: eval.Negative, Outcome: "success"}, false, analysis("success", 0.8), "success", ""},
		}, "2/3 unpredicted 1 excluded 1 unlabelled 2 success>success=1 partial>none=1 abandoned>success=1 abandoned>abandoned=1 none>none=1"},
		{"nothing labelled", configSpec{Assess: "seed"}, []session{
			{eval.LabelRecord{Key: "a"}, false, analysis("failure", 0.5), "failure", ""},
		}, "0/0 unpredicted 0 excluded 0 unlabelled 1"},
		{"a baseline has no session analysis", configSpec{Assess: Shipped, NoOutcome: true}, []session{
			{eval.LabelRecord{Key: "a", Label: eval.Negative, Outcome: "success"}, true, analysis("success", 0.9), "", "success"},
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var kept keptPredictions
			for _, s := range tt.sessions {
				in := &input.Session{Key: s.label.Key, File: s.label.Key + ".jsonl"}
				row := sessionPrediction(in, s.label, s.labelled, nil, 0, 0, tt.spec, s.out, eval.DefaultOutcomeClass(), time.Minute)
				if got := deref(row.PredictedOutcome); got != s.predicted {
					t.Errorf("%s: predicted_outcome %q, want %q", s.label.Key, got, s.predicted)
				}
				if got := deref(row.LabelOutcome); got != s.labelOut {
					t.Errorf("%s: label_outcome %q, want %q", s.label.Key, got, s.labelOut)
				}
				if a := s.out.Analysis; a != nil && s.predicted != "" && (row.PredictedConfidence == nil || *row.PredictedConfidence != a.Confidence) {
					t.Errorf("%s: predicted_confidence %v, want %v", s.label.Key, row.PredictedConfidence, a.Confidence)
				}
				kept.keep(&row)
				k := &kept.preds[len(kept.preds)-1]
				got, want := k.outcomePrediction(), row.OutcomePrediction()
				if got.Key != want.Key || got.Label != strings.ToLower(strings.TrimSpace(want.Label)) || got.Predicted != want.Predicted ||
					!(got.Confidence == want.Confidence || math.IsNaN(got.Confidence) && math.IsNaN(want.Confidence)) {
					t.Errorf("%s: kept %+v, the row's %+v", s.label.Key, got, want)
				}
			}
			if size := unsafe.Sizeof(keptPrediction{}); size != 64 {
				t.Errorf("a kept prediction is %d bytes, not 64", size)
			}
			res := &Result{}
			metrics, _ := scoringOf(tt.spec, kept.preds, &kept).evaluate(res, eval.Options{Seed: 1, Resamples: 50}, time.Minute, "bad", false)
			var outcomeRows []reports.MetricRow
			for _, r := range metrics {
				if r.Target == "session_outcome" {
					outcomeRows = append(outcomeRows, r)
				}
			}
			if tt.want == "" {
				if len(res.Outcomes) != 0 || len(outcomeRows) != 0 {
					t.Fatalf("evaluated by outcome: %d reports, %d rows", len(res.Outcomes), len(outcomeRows))
				}
				return
			}
			if len(res.Outcomes) != 1 || res.Outcomes[0].Config != tt.spec.Assess {
				t.Fatalf("outcome reports %+v", res.Outcomes)
			}
			r := res.Outcomes[0].Report
			got := fmt.Sprintf("%d/%d unpredicted %d excluded %d unlabelled %d", r.Correct, r.Scored, r.Unpredicted, r.Excluded, r.Unlabelled)
			order := eval.OutcomeOrder()
			for i := range order {
				for j := range order {
					if n := r.Matrix[i][j]; n > 0 {
						got += fmt.Sprintf(" %s>%s=%d", order[i], order[j], n)
					}
				}
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if want := reports.OutcomeMetricRows("outcome", tt.spec.Assess, tt.spec.AssessHash, r); !reflect.DeepEqual(outcomeRows, want) {
				t.Errorf("%d metric rows by outcome are not the report's %d", len(outcomeRows), len(want))
			}
			for _, row := range outcomeRows {
				if row.Config != tt.spec.Assess || row.Detector != "outcome" || row.Runs != int32(len(tt.sessions)) {
					t.Fatalf("row %+v", row)
				}
			}
		})
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
