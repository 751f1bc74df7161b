package eval

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func curveObs(labels []Label, scores []float64) []Observation {
	o := make([]Observation, len(labels))
	for i := range labels {
		o[i] = obs(labels[i], false, scores[i])
	}
	return keyed(o...)
}

// TestCurves checks the points, AP and AUC against scikit-learn 1.2.1's
// precision_recall_curve, roc_curve(drop_intermediate=False), average_precision_score
// and roc_auc_score on the same data (values copied from its output; thresholds and
// counts by hand).
func TestCurves(t *testing.T) {
	P, N := Positive, Negative
	type pt struct {
		thr            float64
		tp, fp, fn, tn int
		prec, rec, fpr float64
	}
	nan := math.NaN()
	tests := []struct {
		name    string
		labels  []Label
		scores  []float64
		points  []pt
		ap, auc float64
	}{
		{
			name:   "scikit-learn docs example",
			labels: []Label{N, N, P, P}, scores: []float64{0.1, 0.4, 0.35, 0.8},
			points: []pt{
				{0.8, 1, 0, 1, 2, 1, 0.5, 0},
				{0.4, 1, 1, 1, 1, 0.5, 0.5, 0.5},
				{0.35, 2, 1, 0, 1, 2.0 / 3, 1, 0.5},
				{0.1, 2, 2, 0, 0, 0.5, 1, 1},
			},
			ap: 0.8333333333333333, auc: 0.75,
		},
		{
			name:   "a tie across classes crosses together",
			labels: []Label{P, N, P, P, N}, scores: []float64{0.9, 0.8, 0.8, 0.3, 0.1},
			points: []pt{
				{0.9, 1, 0, 2, 2, 1, 1.0 / 3, 0},
				{0.8, 2, 1, 1, 1, 2.0 / 3, 2.0 / 3, 0.5},
				{0.3, 3, 1, 0, 1, 0.75, 1, 0.5},
				{0.1, 3, 2, 0, 0, 0.6, 1, 1},
			},
			ap: 0.8055555555555556, auc: 0.75,
		},
		{
			// y=[1,1,0,0,1,0,1,0], s=[.7,.7,.7,.2,.2,.2,.9,.1]
			name:   "several ties of mixed classes",
			labels: []Label{P, P, N, N, P, N, P, N}, scores: []float64{0.7, 0.7, 0.7, 0.2, 0.2, 0.2, 0.9, 0.1},
			points: []pt{
				{0.9, 1, 0, 3, 4, 1, 0.25, 0},
				{0.7, 3, 1, 1, 3, 0.75, 0.75, 0.25},
				{0.2, 4, 3, 0, 1, 4.0 / 7, 1, 0.75},
				{0.1, 4, 4, 0, 0, 0.5, 1, 1},
			},
			ap: 0.7678571428571428, auc: 0.8125,
		},
		{
			name:   "all tied: one point at the prevalence",
			labels: []Label{P, N, N, P}, scores: []float64{1, 1, 1, 1},
			points: []pt{{1, 2, 2, 0, 0, 0.5, 1, 1}},
			ap:     0.5, auc: 0.5,
		},
		{
			name:   "perfect ranking",
			labels: []Label{N, P, P}, scores: []float64{0, 1, 2},
			points: []pt{{2, 1, 0, 1, 1, 1, 0.5, 0}, {1, 2, 0, 0, 1, 1, 1, 0}, {0, 2, 1, 0, 0, 2.0 / 3, 1, 1}},
			ap:     1, auc: 1,
		},
		{
			name:   "only positives: FPR and AUC undefined",
			labels: []Label{P, P}, scores: []float64{0.2, 0.9},
			points: []pt{{0.9, 1, 0, 1, 0, 1, 0.5, nan}, {0.2, 2, 0, 0, 0, 1, 1, nan}},
			ap:     1, auc: nan,
		},
		{
			name:   "only negatives: recall, AP and AUC undefined",
			labels: []Label{N}, scores: []float64{0.2},
			points: []pt{{0.2, 0, 1, 0, 0, 0, nan, 1}},
			ap:     nan, auc: nan,
		},
		{
			// The NaN scores rank lowest, tied with each other and with −Inf, and enter
			// only the last point; unscored labels never enter.
			name:   "NaN ranks lowest, unscored labels left out",
			labels: []Label{P, N, P, N, Ambiguous, Excluded, Unlabelled, P},
			scores: []float64{0.8, 0.5, nan, nan, 0.9, 0.9, 0.9, math.Inf(-1)},
			points: []pt{
				{0.8, 1, 0, 2, 2, 1, 1.0 / 3, 0},
				{0.5, 1, 1, 2, 1, 0.5, 1.0 / 3, 0.5},
				{math.Inf(-1), 3, 2, 0, 0, 0.6, 1, 1},
			},
			// sklearn on s=[.8,.5,-1,-1,-1] (NaN and −Inf as one lowest score).
			ap: 0.7333333333333334, auc: 0.5,
		},
		{name: "empty", ap: nan, auc: nan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Curves(curveObs(tt.labels, tt.scores))
			var got []pt
			for _, p := range c.Points {
				got = append(got, pt{p.Threshold, p.TP, p.FP, p.FN, p.TN, p.Precision, p.Recall, p.FPR})
			}
			same := len(got) == len(tt.points)
			for i := 0; same && i < len(got); i++ {
				g, w := got[i], tt.points[i]
				same = g.thr == w.thr && g.tp == w.tp && g.fp == w.fp && g.fn == w.fn && g.tn == w.tn &&
					approx(g.prec, w.prec) && approx(g.rec, w.rec) && approx(g.fpr, w.fpr)
			}
			if !same {
				t.Errorf("points\n got %v\nwant %v", got, tt.points)
			}
			if !approx(c.AP(), tt.ap) || !approx(c.AUC(), tt.auc) {
				t.Errorf("AP %v AUC %v, want %v %v", c.AP(), c.AUC(), tt.ap, tt.auc)
			}
		})
	}
}

// TestCurvesMatchEvaluate checks, on random data with many ties, that the curve's AP
// and AUC equal Evaluate's (which derives them from gonum's stat.ROC), and that its
// rates and thresholds are stat.ROC's.
func TestCurvesMatchEvaluate(t *testing.T) {
	P, N := Positive, Negative
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		labels, scores := make([]Label, n), make([]float64, n)
		for i := range n {
			labels[i] = N
			if rng.Float64() < 0.4 {
				labels[i] = P
			}
			scores[i] = math.Round(rng.Float64()*10) / 10 // ties on purpose
			if labels[i] == P {
				scores[i] = math.Min(1, scores[i]+0.2)
			}
		}
		o := curveObs(labels, scores)
		c := Curves(o)
		rep := Evaluate(o, Options{Resamples: -1})
		if !approx(c.AP(), rep.AP.Value) || !approx(c.AUC(), rep.AUC.Value) {
			t.Fatalf("trial %d: curve AP %v AUC %v, Evaluate %v %v", trial, c.AP(), c.AUC(), rep.AP.Value, rep.AUC.Value)
		}
		if c.Positives == 0 || c.Negatives == 0 {
			continue
		}
		y := slices.Clone(scores)
		classes := make([]bool, n)
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[a], scores[b]) })
		for k, i := range idx {
			y[k], classes[k] = scores[i], labels[i] == P
		}
		tpr, fpr, thr := stat.ROC(nil, y, classes, nil)
		// gonum starts at +Inf (nothing flagged); the curve's points are the rest.
		if len(thr) != len(c.Points)+1 {
			t.Fatalf("trial %d: %d points, stat.ROC %d thresholds", trial, len(c.Points), len(thr))
		}
		for k, p := range c.Points {
			if p.Threshold != thr[k+1] || !approx(p.Recall, tpr[k+1]) || !approx(p.FPR, fpr[k+1]) {
				t.Fatalf("trial %d point %d: %+v, stat.ROC thr %v tpr %v fpr %v", trial, k, p, thr[k+1], tpr[k+1], fpr[k+1])
			}
		}
	}
}

// TestCurvesNaNAsLowest: a NaN score behaves exactly like a score below every other.
func TestCurvesNaNAsLowest(t *testing.T) {
	P, N := Positive, Negative
	withNaN := curveObs([]Label{P, N, P, N, P}, []float64{0.9, 0.4, math.NaN(), 0.1, math.NaN()})
	lowest := curveObs([]Label{P, N, P, N, P}, []float64{0.9, 0.4, -5, 0.1, -5})
	a, b := Curves(withNaN), Curves(lowest)
	if !approx(a.AP(), b.AP()) || !approx(a.AUC(), b.AUC()) || len(a.Points) != len(b.Points) {
		t.Errorf("NaN as lowest: AP %v AUC %v (%d points); with −5: %v %v (%d points)",
			a.AP(), a.AUC(), len(a.Points), b.AP(), b.AUC(), len(b.Points))
	}
	if rep := Evaluate(lowest, Options{Resamples: -1}); !approx(b.AP(), rep.AP.Value) {
		t.Errorf("AP %v, Evaluate %v", b.AP(), rep.AP.Value)
	}
}

func TestCurveROC(t *testing.T) {
	P, N := Positive, Negative
	c := Curves(curveObs([]Label{N, N, P, P}, []float64{0.1, 0.4, 0.35, 0.8}))
	fpr, tpr := c.ROC()
	if want := []float64{0, 0, 0.5, 0.5, 1}; !slices.Equal(fpr, want) {
		t.Errorf("fpr %v, want %v", fpr, want)
	}
	if want := []float64{0, 0.5, 0.5, 1, 1}; !slices.Equal(tpr, want) {
		t.Errorf("tpr %v, want %v", tpr, want)
	}
	if fpr, tpr := Curves(curveObs([]Label{P}, []float64{1})).ROC(); fpr != nil || tpr != nil {
		t.Errorf("one class: ROC %v %v, want nil", fpr, tpr)
	}
}
