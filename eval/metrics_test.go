package eval

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func obs(label Label, predicted bool, score float64) Observation {
	return Observation{Label: label, Predicted: predicted, Score: score}
}

func keyed(os ...Observation) []Observation {
	for i := range os {
		os[i].Key = fmt.Sprintf("r%02d", i)
	}
	return os
}

func approx(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-9
}

func TestConfusion(t *testing.T) {
	tests := []struct {
		c                 Confusion
		p, r, f1, f2, f05 float64
	}{
		{Confusion{TP: 6, FP: 2, FN: 3, TN: 9}, 6.0 / 8, 6.0 / 9, 2 * 0.75 * (6.0 / 9) / (0.75 + 6.0/9), 5 * 6.0 / (5*6.0 + 4*3 + 2), 1.25 * 6.0 / (1.25*6 + 0.25*3 + 2)},
		{Confusion{TN: 5}, math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		{Confusion{FN: 2, TN: 1}, math.NaN(), 0, 0, 0, 0},
		// No positive: recall, and so F-beta, undefined — false positives alone do not make it 0.
		{Confusion{FP: 2}, 0, math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		{Confusion{FP: 2, TN: 7}, 0, math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		{Confusion{FN: 1, FP: 2}, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		c := tt.c
		if !approx(c.Precision(), tt.p) || !approx(c.Recall(), tt.r) || !approx(c.F1(), tt.f1) ||
			!approx(c.FBeta(2), tt.f2) || !approx(c.FBeta(0.5), tt.f05) {
			t.Errorf("%+v: P %v R %v F1 %v F2 %v F0.5 %v; want %v %v %v %v %v", c, c.Precision(), c.Recall(), c.F1(),
				c.FBeta(2), c.FBeta(0.5), tt.p, tt.r, tt.f1, tt.f2, tt.f05)
		}
	}
}

// TestRankingMetrics checks AP and AUC against scikit-learn's values for the same data
// (average_precision_score and roc_auc_score).
func TestRankingMetrics(t *testing.T) {
	tests := []struct {
		name    string
		obs     []Observation
		ap, auc float64
	}{
		{"sklearn docs example", keyed(obs(Negative, false, 0.1), obs(Negative, false, 0.4), obs(Positive, false, 0.35), obs(Positive, false, 0.8)),
			0.8333333333333333, 0.75},
		{"perfect ranking", keyed(obs(Negative, false, 0), obs(Positive, false, 1), obs(Positive, false, 2)), 1, 1},
		{"inverted ranking", keyed(obs(Positive, false, 0), obs(Negative, false, 1), obs(Negative, false, 2)), 1.0 / 3, 0},
		// ties: all scores equal → one threshold, precision = prevalence, AUC 0.5
		{"all tied", keyed(obs(Positive, false, 1), obs(Negative, false, 1), obs(Negative, false, 1), obs(Positive, false, 1)), 0.5, 0.5},
		// y=[1,0,1,1,0], s=[0.9,0.8,0.8,0.3,0.1]: sklearn AP 0.8055555555555556, AUC 0.75
		{"ties across classes", keyed(obs(Positive, false, 0.9), obs(Negative, false, 0.8), obs(Positive, false, 0.8), obs(Positive, false, 0.3), obs(Negative, false, 0.1)),
			0.8055555555555556, 0.75},
		{"only positives: AUC undefined", keyed(obs(Positive, false, 0.2), obs(Positive, false, 0.9)), 1, math.NaN()},
		{"only negatives: both undefined", keyed(obs(Negative, false, 0.2)), math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Evaluate(tt.obs, Options{Resamples: -1})
			if !approx(rep.AP.Value, tt.ap) || !approx(rep.AUC.Value, tt.auc) {
				t.Errorf("AP %v AUC %v, want %v %v", rep.AP.Value, rep.AUC.Value, tt.ap, tt.auc)
			}
		})
	}
}

func TestEvaluateLeavesOutUnscored(t *testing.T) {
	in := keyed(obs(Positive, true, 0.9), obs(Positive, false, 0.2), obs(Negative, true, 0.7), obs(Negative, false, 0.1),
		obs(Ambiguous, true, 0.9), obs(Excluded, true, 0.9), obs(Unlabelled, true, 0.9), obs(Negative, false, math.NaN()))
	rep := Evaluate(in, Options{Resamples: 500, Seed: 7})
	if rep.Confusion != (Confusion{TP: 1, FN: 1, FP: 1, TN: 2}) {
		t.Errorf("confusion %+v", rep.Confusion)
	}
	if rep.Runs != 8 || rep.Scored != 5 || rep.Ambiguous != 1 || rep.Excluded != 1 || rep.Unlabelled != 1 || rep.LeftOut() != 3 {
		t.Errorf("counts %+v", rep)
	}
	joined := fmt.Sprint(rep.Warnings)
	for _, want := range []string{"3 of 8 runs left out", "1 scored runs have no finite score", "only 5 scored runs"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", joined, want)
		}
	}
	if !approx(rep.Precision.Value, 0.5) || !approx(rep.Recall.Value, 0.5) {
		t.Errorf("P %v R %v", rep.Precision.Value, rep.Recall.Value)
	}
}

func TestIntervals(t *testing.T) {
	var in []Observation
	for i := 0; i < 200; i++ {
		label := Negative
		if i%4 == 0 {
			label = Positive
		}
		// predicted positive for 3 in 4 positives, 1 in 10 negatives
		pred := (label == Positive && i%16 != 0) || (label == Negative && i%10 == 1)
		score := float64(i%7) / 7
		if pred {
			score += 1
		}
		in = append(in, Observation{Key: fmt.Sprint(i), Label: label, Predicted: pred, Score: score})
	}
	a := Evaluate(in, Options{Seed: 1})
	b := Evaluate(in, Options{Seed: 1})
	if fmt.Sprint(a.Precision, a.Recall, a.F1, a.AP, a.AUC) != fmt.Sprint(b.Precision, b.Recall, b.F1, b.AP, b.AUC) {
		t.Fatal("same seed, different intervals")
	}
	c := Evaluate(in, Options{Seed: 2})
	if a.Precision.Low == c.Precision.Low && a.Precision.High == c.Precision.High && a.AUC.Low == c.AUC.Low {
		t.Error("different seeds gave identical intervals: the seed is not used")
	}
	for name, e := range map[string]Estimate{"precision": a.Precision, "recall": a.Recall, "f1": a.F1, "ap": a.AP, "auc": a.AUC} {
		if !(e.Low <= e.Value && e.Value <= e.High) || e.High-e.Low <= 0 || e.High-e.Low > 0.5 {
			t.Errorf("%s: %v not inside a plausible interval [%v, %v]", name, e.Value, e.Low, e.High)
		}
	}
	for name, e := range map[string]Estimate{"precision": a.Precision, "recall": a.Recall} {
		if !(e.JeffreysLow < e.Value && e.Value < e.JeffreysHigh) {
			t.Errorf("%s: Jeffreys [%v, %v] does not hold %v", name, e.JeffreysLow, e.JeffreysHigh, e.Value)
		}
	}
	if !math.IsNaN(a.F1.JeffreysLow) {
		t.Error("F1 has a Jeffreys interval")
	}
}

func TestJeffreys(t *testing.T) {
	// Reference: the 2.5% and 97.5% quantiles of Beta(3.5, 7.5), by numeric integration
	// of its density and bisection: 0.0926946, 0.6058183.
	lo, hi := jeffreys(3, 10, 0.95)
	if math.Abs(lo-0.0926946) > 1e-6 || math.Abs(hi-0.6058183) > 1e-6 {
		t.Errorf("jeffreys(3, 10) = [%v, %v]", lo, hi)
	}
	if lo, hi := jeffreys(0, 5, 0.95); lo != 0 || !(hi > 0 && hi < 1) {
		t.Errorf("jeffreys(0, 5) = [%v, %v]", lo, hi)
	}
	if lo, hi := jeffreys(5, 5, 0.95); hi != 1 || !(lo > 0 && lo < 1) {
		t.Errorf("jeffreys(5, 5) = [%v, %v]", lo, hi)
	}
	if lo, _ := jeffreys(0, 0, 0.95); !math.IsNaN(lo) {
		t.Error("jeffreys(0, 0) defined")
	}
}

// TestBelowChance: a detector is said to be below chance where a detector without
// signal would do at least as well, and only there.
func TestBelowChance(t *testing.T) {
	labels := []Label{Positive, Negative, Negative, Negative, Positive, Negative, Negative, Negative} // prevalence 1/4
	obsOf := func(predict func(i int) bool, score func(i int) float64) []Observation {
		var obs []Observation
		for i, l := range labels {
			obs = append(obs, Observation{Key: fmt.Sprint(i), Label: l, Predicted: predict(i), Score: score(i)})
		}
		return obs
	}
	pos := func(i int) bool { return labels[i] == Positive }
	for _, tt := range []struct {
		name string
		obs  []Observation
		want []string // in the warning; none: no warning
	}{
		{"perfect", obsOf(pos, func(i int) float64 { return map[bool]float64{true: 1}[pos(i)] }), nil},
		{"always positive, one score", obsOf(func(int) bool { return true }, func(int) float64 { return 0.5 }), nil},
		{"inverted", obsOf(func(i int) bool { return !pos(i) }, func(i int) float64 { return map[bool]float64{false: 1}[pos(i)] }),
			[]string{"below chance on these runs", "F1 0.000 under 0.400, predicting every run positive", "ROC AUC 0.000 under 0.5"}},
		{"inverted, distinct scores", obsOf(func(i int) bool { return !pos(i) }, func(i int) float64 { return map[bool]float64{false: 10}[pos(i)] - float64(i) }),
			[]string{"ROC AUC 0.000 under 0.5", "AP 0.196 under the prevalence 0.250"}},
	} {
		rep := Evaluate(tt.obs, Options{Resamples: -1})
		var got string
		for _, w := range rep.Warnings {
			if strings.Contains(w.Error(), "below chance") {
				got = w.Error()
			}
		}
		if tt.want == nil && got != "" {
			t.Errorf("%s: %q", tt.name, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.name, got, w)
			}
		}
	}
}
