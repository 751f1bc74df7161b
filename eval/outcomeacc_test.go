package eval

import (
	"fmt"
	"math"
	"testing"
)

func pred(key, label, predicted string, conf float64) OutcomePrediction {
	return OutcomePrediction{Key: key, Label: label, Predicted: predicted, Confidence: conf}
}

func TestEvaluateOutcomes(t *testing.T) {
	preds := []OutcomePrediction{
		pred("a", "success", "success", 0.8),
		pred("b", "success", "success", 0.6),
		pred("c", "success", "abandoned", 0.5),
		pred("d", "abandoned", "abandoned", 0.6),
		pred("e", "abandoned", "success", 0.6),
		pred("f", "partial", "partial", 0.5),
		pred("g", "none", "success", 0.6),    // excluded
		pred("h", "success", "", math.NaN()), // unpredicted
		pred("i", "", "success", 0.6),        // unlabelled
		pred("j", "bogus", "success", 0.6),   // unlabelled
	}
	r := EvaluateOutcomes(preds, Options{Resamples: 200, Seed: 1})
	if r.Sessions != 10 || r.Scored != 6 || r.Excluded != 1 || r.Unpredicted != 1 || r.Unlabelled != 2 || r.Correct != 4 {
		t.Fatalf("counts %+v", r)
	}
	if r.Accuracy.Value != 4.0/6 || !(r.Accuracy.Low <= r.Accuracy.Value && r.Accuracy.Value <= r.Accuracy.High) ||
		!(r.Accuracy.JeffreysLow < r.Accuracy.Value && r.Accuracy.Value < r.Accuracy.JeffreysHigh) {
		t.Errorf("accuracy %+v", r.Accuracy)
	}
	if r.Majority != 3.0/6 {
		t.Errorf("majority %v", r.Majority)
	}
	// Recalls: success 2/3, partial 1/1, abandoned 1/2.
	if want := (2.0/3 + 1 + 0.5) / 3; math.Abs(r.BalancedAccuracy-want) > 1e-12 {
		t.Errorf("balanced accuracy %v, want %v", r.BalancedAccuracy, want)
	}
	// F1: success 2·2/(3+3), partial 1, abandoned 2·1/(2+2).
	if want := (4.0/6 + 1 + 0.5) / 3; math.Abs(r.MacroF1-want) > 1e-12 {
		t.Errorf("macro F1 %v, want %v", r.MacroF1, want)
	}
	if got := fmt.Sprint(r.Matrix); got != "[[2 0 0 1 1] [0 1 0 0 0] [0 0 0 0 0] [1 0 0 1 0] [1 0 0 0 0]]" {
		t.Errorf("matrix %s", got)
	}
	ab := r.PerOutcome[3]
	if ab.Outcome != "abandoned" || ab.Support != 2 || ab.Predicted != 2 || ab.Correct != 1 || ab.Precision != 0.5 || ab.Recall != 0.5 {
		t.Errorf("abandoned %+v", ab)
	}
	if fl := r.PerOutcome[2]; fl.Support != 0 || !math.IsNaN(fl.Precision) || !math.IsNaN(fl.Recall) {
		t.Errorf("failure %+v", fl)
	}
	wantBrier := (0.04 + 0.16 + 0.25 + 0.16 + 0.36 + 0.25) / 6
	if math.Abs(r.MeanConfidence-3.6/6) > 1e-12 || math.Abs(r.Brier-wantBrier) > 1e-12 {
		t.Errorf("calibration %v %v, want %v %v", r.MeanConfidence, r.Brier, 0.6, wantBrier)
	}
	empty := EvaluateOutcomes(nil, Options{})
	if !math.IsNaN(empty.Accuracy.Value) || !math.IsNaN(empty.Majority) || !math.IsNaN(empty.BalancedAccuracy) {
		t.Errorf("empty %+v", empty)
	}
}

func TestFold(t *testing.T) {
	counts := make([]int, 5)
	for i := range 1000 {
		f := Fold(fmt.Sprintf("session-%d", i), 5)
		if f != Fold(fmt.Sprintf("session-%d", i), 5) {
			t.Fatal("unstable fold")
		}
		counts[f]++
	}
	for f, n := range counts {
		if n < 150 || n > 250 {
			t.Errorf("fold %d holds %d of 1000", f, n)
		}
	}
	if Fold("132b2f66-ee5f-46f6-8904-32d9dc4d36c3", 5) != 3 {
		t.Errorf("the fold of a key changed: %d", Fold("132b2f66-ee5f-46f6-8904-32d9dc4d36c3", 5))
	}
}

func TestCrossValidateOutcomes(t *testing.T) {
	var always, oracle, wrong []OutcomePrediction
	for i := range 40 {
		key := fmt.Sprint("s", i)
		label := "success"
		if i%4 == 0 {
			label = "abandoned"
		}
		always = append(always, pred(key, label, "success", 0.6))
		oracle = append(oracle, pred(key, label, label, 0.9))
		wrong = append(wrong, pred(key, label, "failure", 0.9))
	}
	held, chosen := CrossValidateOutcomes([][]OutcomePrediction{wrong, always, oracle}, 5)
	if fmt.Sprint(chosen) != "[2 2 2 2 2]" {
		t.Errorf("chosen %v", chosen)
	}
	if r := EvaluateOutcomes(held, Options{Resamples: -1}); r.Accuracy.Value != 1 {
		t.Errorf("held-out accuracy %v", r.Accuracy.Value)
	}
	// A candidate good only on one fold's sessions is never chosen for that fold.
	lucky := append([]OutcomePrediction(nil), always...)
	for i := range lucky {
		if Fold(lucky[i].Key, 5) == 0 {
			lucky[i].Predicted = lucky[i].Label
		}
	}
	_, chosen = CrossValidateOutcomes([][]OutcomePrediction{always, lucky}, 5)
	if chosen[0] != 0 {
		t.Errorf("fold 0 chose the candidate fitted to it: %v", chosen)
	}
	if h, c := CrossValidateOutcomes(nil, 5); h != nil || c != nil {
		t.Error("no candidates")
	}
}
