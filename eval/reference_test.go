package eval

// The evaluation as it was before the bootstrap resampled counts (loopwatch up to
// the "intervals that scale" change): it copies the observations into every resample
// and computes AP and ROC AUC with gonum's stat.ROC, three slices per resample. It is
// the reference the counting bootstrap must reproduce bit for bit
// (TestEvaluateMatchesReference) and the baseline of BenchmarkEvaluate.

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/integrate"
	"gonum.org/v1/gonum/stat"
)

// referenceEvaluate is Evaluate as it was before the counting bootstrap, unchanged but
// for its helpers' names.
func referenceEvaluate(obs []Observation, opts Options) *Report {
	opts = opts.withDefaults()
	rep := &Report{Options: opts, Runs: len(obs)}
	var scored []Observation
	for _, o := range obs {
		switch o.Label {
		case Positive, Negative:
			scored = append(scored, o)
			rep.Add(o.Label == Positive, o.Predicted)
		case Ambiguous:
			rep.Ambiguous++
		case Excluded:
			rep.Excluded++
		default:
			rep.Unlabelled++
		}
	}
	rep.Scored = len(scored)
	rep.Positives = rep.TP + rep.FN
	warn := func(format string, args ...any) { rep.Warnings = append(rep.Warnings, fmt.Errorf(format, args...)) }
	if rep.LeftOut() > 0 {
		warn("%d of %d %s left out of the metrics: %d ambiguous, %d excluded, %d unlabelled",
			rep.LeftOut(), rep.Runs, opts.Unit, rep.Ambiguous, rep.Excluded, rep.Unlabelled)
	}
	if rep.Scored == 0 {
		warn("none of the %s is labelled positive or negative: nothing to score", opts.Unit)
	}

	ranked := refRankable(scored)
	point := func(sample []Observation) [6]float64 {
		var c Confusion
		for _, o := range sample {
			c.Add(o.Label == Positive, o.Predicted)
		}
		return [6]float64{c.Precision(), c.Recall(), c.F1(), c.FBeta(opts.Beta), math.NaN(), math.NaN()}
	}
	est := point(scored)
	rk := refNewRanking(scored, ranked)
	est[4], est[5] = rk.metrics(nil)
	var lows, highs [6]float64
	for i := range lows {
		lows[i], highs[i] = math.NaN(), math.NaN()
	}
	if opts.Resamples > 0 && len(scored) > 0 {
		lows, highs = refBootstrap(scored, ranked, rk, opts, point)
	}
	mk := func(i int) Estimate {
		e := undefined()
		e.Value, e.Low, e.High = est[i], lows[i], highs[i]
		if math.IsNaN(e.Value) {
			e.Low, e.High = math.NaN(), math.NaN()
		}
		return e
	}
	rep.Precision, rep.Recall, rep.F1, rep.FBeta, rep.AP, rep.AUC = mk(0), mk(1), mk(2), mk(3), mk(4), mk(5)
	rep.Precision.JeffreysLow, rep.Precision.JeffreysHigh = jeffreys(rep.TP, rep.TP+rep.FP, opts.Level)
	rep.Recall.JeffreysLow, rep.Recall.JeffreysHigh = jeffreys(rep.TP, rep.TP+rep.FN, opts.Level)

	if math.IsNaN(rep.Precision.Value) && rep.Scored > 0 {
		warn("precision undefined: none of the scored %s was predicted positive", opts.Unit)
	}
	if rep.Scored > 0 && rep.Positives == 0 {
		warn("recall, AP and ROC AUC undefined: none of the scored %s is labelled positive", opts.Unit)
	} else if rep.Scored > 0 && rep.Positives == rep.Scored {
		warn("ROC AUC undefined: none of the scored %s is labelled negative", opts.Unit)
	}
	if n := len(scored) - len(ranked); n > 0 {
		warn("%d scored %s have no finite score and are left out of AP and ROC AUC", n, opts.Unit)
	}
	if rep.Scored > 0 && rep.Scored < 30 {
		warn("only %d scored %s: intervals are wide and the bootstrap is coarse; prefer the Jeffreys interval for precision and recall", rep.Scored, opts.Unit)
	}
	return rep
}

// rankable returns the indices of the observations with a finite score, sorted by
// score ascending (ties keep their input order, so the result is deterministic).
func refRankable(obs []Observation) []int {
	var idx []int
	for i, o := range obs {
		if !math.IsNaN(o.Score) && !math.IsInf(o.Score, 0) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(obs[a].Score, obs[b].Score) })
	return idx
}

// refRanking is the observations with a finite score in ascending score order, as gonum's
// ROC wants them: scores y and classes (true: positive).
type refRanking struct {
	y       []float64
	classes []bool
}

func refNewRanking(obs []Observation, ranked []int) refRanking {
	r := refRanking{y: make([]float64, len(ranked)), classes: make([]bool, len(ranked))}
	for k, i := range ranked {
		r.y[k], r.classes[k] = obs[i].Score, obs[i].Label == Positive
	}
	return r
}

// metrics computes average precision and ROC AUC, the k-th observation weighted by
// weights[k] (nil: 1 each). gonum's ROC counts a run positive at threshold t when its
// score ≥ t, thresholds descending.
func (r refRanking) metrics(weights []float64) (ap, auc float64) {
	if len(r.y) == 0 {
		return math.NaN(), math.NaN()
	}
	var pos, neg float64
	for k, c := range r.classes {
		w := 1.0
		if weights != nil {
			w = weights[k]
		}
		if c {
			pos += w
		} else {
			neg += w
		}
	}
	if pos == 0 {
		return math.NaN(), math.NaN()
	}
	tpr, fpr, _ := stat.ROC(nil, r.y, r.classes, weights)
	// Average precision: Σ (Rᵢ − Rᵢ₋₁)·Pᵢ with Pᵢ = TPᵢ/(TPᵢ+FPᵢ), TP = tpr·P, FP = fpr·N.
	prevRecall := 0.0
	for i := range tpr {
		if tpr[i] <= prevRecall {
			continue
		}
		tp, fp := tpr[i]*pos, 0.0
		if neg > 0 {
			fp = fpr[i] * neg
		}
		ap += (tpr[i] - prevRecall) * tp / (tp + fp)
		prevRecall = tpr[i]
	}
	if neg == 0 {
		return ap, math.NaN()
	}
	return ap, integrate.Trapezoidal(fpr, tpr)
}

// bootstrap returns percentile intervals of the six metrics over resamples of runs.
func refBootstrap(scored []Observation, ranked []int, rk refRanking, opts Options, point func([]Observation) [6]float64) (lows, highs [6]float64) {
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6c6f6f7077617463)) // "loopwatc"
	n := len(scored)
	rankOf := make([]int, n) // scored index → position in ranked, -1 if unranked
	for i := range rankOf {
		rankOf[i] = -1
	}
	for k, i := range ranked {
		rankOf[i] = k
	}
	samples := make([][]float64, 6)
	sample := make([]Observation, n)
	weights := make([]float64, len(ranked))
	for b := 0; b < opts.Resamples; b++ {
		clear(weights)
		for i := range sample {
			j := rng.IntN(n)
			sample[i] = scored[j]
			if k := rankOf[j]; k >= 0 {
				weights[k]++
			}
		}
		v := point(sample)
		v[4], v[5] = rk.metrics(weights)
		for m := range v {
			if !math.IsNaN(v[m]) {
				samples[m] = append(samples[m], v[m])
			}
		}
	}
	alpha := (1 - opts.Level) / 2
	for m := range samples {
		lows[m], highs[m] = math.NaN(), math.NaN()
		// An interval needs the metric to be defined on most resamples.
		if len(samples[m]) < opts.Resamples/2 {
			continue
		}
		sort.Float64s(samples[m])
		lows[m] = stat.Quantile(alpha, stat.Empirical, samples[m], nil)
		highs[m] = stat.Quantile(1-alpha, stat.Empirical, samples[m], nil)
	}
	return lows, highs
}
