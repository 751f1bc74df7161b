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
	"time"

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
	if below := belowChance(rep, opts.Unit); below != "" { // of the reference's figures (TestBelowChance holds it)
		warn("%s", below)
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
		if len(samples[m]) == 0 || len(samples[m]) < opts.Resamples/2 {
			continue
		}
		sort.Float64s(samples[m])
		lows[m] = stat.Quantile(alpha, stat.Empirical, samples[m], nil)
		highs[m] = stat.Quantile(1-alpha, stat.Empirical, samples[m], nil)
	}
	return lows, highs
}

// The evaluations a replay's derivation runs, as they were before they took
// observations in columns and tallies (Observations, MomentTally, OutcomeTally): each
// kept every unit's observation, 48 to 112 bytes and more. They are the references the
// new paths must reproduce bit for bit (TestObservationsMatchReference,
// TestMomentTallyMatchesReference, TestOutcomeTallyMatchesReference).

// refCurves is Curves as it was: it sorts (score, class) pairs.
func refCurves(obs []Observation) Curve {
	type scored struct {
		score    float64
		positive bool
	}
	var s []scored
	var c Curve
	for _, o := range obs {
		if !o.Label.Scored() {
			continue
		}
		score := o.Score
		if math.IsNaN(score) {
			score = math.Inf(-1)
		}
		s = append(s, scored{score, o.Label == Positive})
		if o.Label == Positive {
			c.Positives++
		} else {
			c.Negatives++
		}
	}
	slices.SortFunc(s, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	tp, fp := 0, 0
	for i := 0; i < len(s); {
		j := i
		for ; j < len(s) && s[j].score == s[i].score; j++ {
			if s[j].positive {
				tp++
			} else {
				fp++
			}
		}
		c.Points = append(c.Points, CurvePoint{
			Threshold: s[i].score,
			TP:        tp, FP: fp, FN: c.Positives - tp, TN: c.Negatives - fp,
			Precision: float64(tp) / float64(tp+fp),
			Recall:    ratio(tp, c.Positives),
			FPR:       ratio(fp, c.Negatives),
		})
		i = j
	}
	return c
}

// refEvaluateSessionMoments is EvaluateSessionMoments as it was: it keeps every
// session's counts and resamples them.
func refEvaluateSessionMoments(sessions []SessionMoments, window time.Duration, opts Options) *MomentReport {
	opts = opts.withDefaults()
	rep := &MomentReport{Window: window, Sessions: len(sessions)}
	per := make([]momentCounts, len(sessions))
	var total momentCounts
	var delayEvents []float64
	for i, s := range sessions {
		per[i] = momentCounts{moments: s.Moments, caught: s.Caught, interventions: s.Interventions,
			tp: s.TruePositives, fa: s.FalseAlarms, turns: s.HumanTurns}
		total.add(per[i])
		rep.DelaysSeconds = append(rep.DelaysSeconds, s.DelaySeconds...)
		delayEvents = append(delayEvents, s.DelayEvents...)
	}
	rep.Moments, rep.Caught, rep.Interventions = total.moments, total.caught, total.interventions
	rep.TruePositives, rep.FalseAlarms, rep.HumanTurns = total.tp, total.fa, total.turns
	rep.Precision, rep.Recall, rep.FalseAlarmsPer100 = undefined(), undefined(), undefined()
	rep.Precision.Value, rep.Recall.Value, rep.FalseAlarmsPer100.Value = total.precision(), total.recall(), total.faPer100()
	if opts.Resamples > 0 && len(per) > 0 {
		src := rand.NewPCG(opts.Seed, 0x6d6f6d656e7473) // "moments"
		ps, rs, fs := make([]float64, 0, opts.Resamples), make([]float64, 0, opts.Resamples), make([]float64, 0, opts.Resamples)
		n := uint64(len(per))
		for b := 0; b < opts.Resamples; b++ {
			var c momentCounts
			for range per {
				c.add(per[intN(src, n)]) // rand.New(src).IntN(n), without the interface call
			}
			if v := c.precision(); !math.IsNaN(v) {
				ps = append(ps, v)
			}
			if v := c.recall(); !math.IsNaN(v) {
				rs = append(rs, v)
			}
			if v := c.faPer100(); !math.IsNaN(v) {
				fs = append(fs, v)
			}
		}
		alpha := (1 - opts.Level) / 2
		interval := func(e *Estimate, xs []float64) {
			if math.IsNaN(e.Value) || len(xs) == 0 || len(xs) < opts.Resamples/2 {
				return
			}
			sort.Float64s(xs)
			e.Low, e.High = stat.Quantile(alpha, stat.Empirical, xs, nil), stat.Quantile(1-alpha, stat.Empirical, xs, nil)
		}
		interval(&rep.Precision, ps)
		interval(&rep.Recall, rs)
		interval(&rep.FalseAlarmsPer100, fs)
	}
	rep.MedianDelaySeconds, rep.MeanDelaySeconds, rep.P90DelaySeconds, rep.MedianDelayEvents = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if len(rep.DelaysSeconds) > 0 {
		slices.Sort(rep.DelaysSeconds)
		slices.Sort(delayEvents)
		rep.MedianDelaySeconds = median(rep.DelaysSeconds)
		rep.MeanDelaySeconds = stat.Mean(rep.DelaysSeconds, nil)
		rep.P90DelaySeconds = stat.Quantile(0.9, stat.Empirical, rep.DelaysSeconds, nil)
		rep.MedianDelayEvents = median(delayEvents)
	}
	if rep.Moments == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("no labelled friction moment: recall undefined"))
	}
	if rep.Interventions == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("no intervention in the labelled sessions: precision undefined"))
	}
	if rep.HumanTurns == 0 {
		rep.Warnings = append(rep.Warnings, fmt.Errorf("no human turn in the labelled sessions: false alarms per 100 turns undefined"))
	}
	return rep
}

// refEvaluateOutcomes is EvaluateOutcomes as it was: it keeps a bool a scored session.
func refEvaluateOutcomes(preds []OutcomePrediction, opts Options) *OutcomeReport {
	opts = opts.withDefaults()
	if opts.Unit == "runs" {
		opts.Unit = "sessions"
	}
	r := &OutcomeReport{Options: opts, Sessions: len(preds), MeanConfidence: math.NaN(), Brier: math.NaN()}
	none := outcomeIndex(OutcomeNone)
	var hits []bool
	var confSum, brierSum float64
	confN := 0
	labelled := map[int]int{}
	for _, p := range preds {
		li := outcomeIndex(p.Label)
		if li < 0 {
			r.Unlabelled++
			continue
		}
		pi := outcomeIndex(p.Predicted)
		if pi < 0 || pi == none {
			pi = none
		}
		r.Matrix[li][pi]++
		switch {
		case li == none:
			r.Excluded++
			continue
		case pi == none:
			r.Unpredicted++
			continue
		}
		r.Scored++
		labelled[li]++
		hit := li == pi
		hits = append(hits, hit)
		if hit {
			r.Correct++
		}
		if c := p.Confidence; !math.IsNaN(c) {
			y := 0.0
			if hit {
				y = 1
			}
			confSum += c
			brierSum += (c - y) * (c - y)
			confN++
		}
	}
	if confN > 0 {
		r.MeanConfidence, r.Brier = confSum/float64(confN), brierSum/float64(confN)
	}
	r.Accuracy = refAccuracyEstimate(hits, opts)
	maxSupport := 0
	for _, n := range labelled {
		maxSupport = max(maxSupport, n)
	}
	r.Majority = ratio(maxSupport, r.Scored)
	var recalls, f1s []float64
	for i, o := range OutcomeOrder()[:none] {
		s := OutcomeScore{Outcome: o, Support: labelled[i], Correct: r.Matrix[i][i]}
		for li := 0; li < none; li++ {
			s.Predicted += r.Matrix[li][i]
		}
		s.Precision, s.Recall = ratio(s.Correct, s.Predicted), ratio(s.Correct, s.Support)
		r.PerOutcome = append(r.PerOutcome, s)
		if s.Support > 0 {
			recalls = append(recalls, s.Recall)
		}
		if s.Support > 0 || s.Predicted > 0 {
			f1 := 0.0
			if s.Correct > 0 {
				f1 = 2 * float64(s.Correct) / float64(s.Support+s.Predicted)
			}
			f1s = append(f1s, f1)
		}
	}
	r.BalancedAccuracy, r.MacroF1 = mean(recalls), mean(f1s)
	return r
}

func refAccuracyEstimate(hits []bool, opts Options) Estimate {
	n := len(hits)
	if n == 0 {
		return undefined()
	}
	k := 0
	for _, h := range hits {
		if h {
			k++
		}
	}
	e := Estimate{Value: float64(k) / float64(n), Low: math.NaN(), High: math.NaN()}
	e.JeffreysLow, e.JeffreysHigh = jeffreys(k, n, opts.Level)
	if opts.Resamples > 0 {
		rng := rand.New(rand.NewPCG(opts.Seed, 0x6f7574636f6d65))
		vals := make([]float64, opts.Resamples)
		for b := range vals {
			c := 0
			for range n {
				if hits[rng.IntN(n)] {
					c++
				}
			}
			vals[b] = float64(c) / float64(n)
		}
		slices.Sort(vals)
		alpha := (1 - opts.Level) / 2
		e.Low = vals[int(math.Floor(alpha*float64(len(vals)-1)))]
		e.High = vals[int(math.Ceil((1-alpha)*float64(len(vals)-1)))]
	}
	return e
}
