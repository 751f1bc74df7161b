package eval

import (
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
)

// OutcomePrediction is one session's labelled and predicted outcome, for scoring an
// outcome classifier by outcome rather than as bad-versus-good.
type OutcomePrediction struct {
	Key string
	// Label is the labelled outcome (success, partial, failure, abandoned, none); ""
	// when the session has no label.
	Label string
	// Predicted is the predicted outcome; "" when there is no prediction.
	Predicted string
	// Confidence is the prediction's confidence in [0, 1]; NaN when it has none.
	Confidence float64
}

// OutcomeScore is one outcome's row of an [OutcomeReport].
type OutcomeScore struct {
	Outcome   string
	Support   int     // scored sessions labelled with it
	Predicted int     // scored sessions predicted as it
	Correct   int     // both
	Precision float64 // Correct/Predicted; NaN when never predicted
	Recall    float64 // Correct/Support; NaN when never labelled
}

// OutcomeReport scores predicted outcomes against labelled ones. A session is scored
// when it is labelled with an outcome other than none and has a prediction.
type OutcomeReport struct {
	Options Options // with defaults applied, without the Context

	Sessions    int // every prediction given
	Scored      int
	Unlabelled  int // no label, or one that is not an outcome
	Excluded    int // labelled none
	Unpredicted int // labelled, but no prediction
	Correct     int

	// Accuracy is Correct/Scored, with a bootstrap interval over sessions and the
	// Jeffreys interval.
	Accuracy Estimate
	// Majority is the accuracy of always predicting the most common labelled outcome:
	// the floor an outcome classifier has to beat on imbalanced labels.
	Majority float64
	// BalancedAccuracy is the mean recall over the outcomes that occur in the labels;
	// MacroF1 the mean F1 over the outcomes labelled or predicted.
	BalancedAccuracy float64
	MacroF1          float64
	// Matrix counts sessions by labelled outcome (row) and predicted outcome
	// (column), both in [OutcomeOrder]: row "none" holds sessions labelled none,
	// column "none" sessions without a prediction. Unlabelled sessions are not in it.
	Matrix [5][5]int
	// PerOutcome scores success, partial, failure and abandoned.
	PerOutcome []OutcomeScore
	// MeanConfidence is the mean confidence of the scored predictions that have one,
	// and Brier the mean squared error of that confidence taken as the probability
	// that the prediction is right (0 perfect; always 0.5 scores 0.25): together
	// they say whether the confidence is calibrated. NaN without confidences.
	MeanConfidence float64
	Brier          float64
	// Err is Options.Context's error when it ended the bootstrap: the report is then
	// incomplete and must not be used.
	Err error
}

// OutcomeOrder returns the outcomes in the order of an [OutcomeReport]'s matrix.
func OutcomeOrder() []string { return SessionOutcomes() }

func outcomeIndex(o string) int {
	return slices.Index(OutcomeOrder(), strings.ToLower(strings.TrimSpace(o)))
}

// EvaluateOutcomes scores preds by outcome. The accuracy's bootstrap resamples
// sessions (opts.Resamples, opts.Seed, opts.Level as for [Evaluate]).
func EvaluateOutcomes(preds []OutcomePrediction, opts Options) *OutcomeReport {
	var t OutcomeTally
	for i := range preds {
		t.Add(&preds[i])
	}
	return t.Report(opts)
}

// OutcomeTally gathers outcome predictions one at a time for [OutcomeTally.Report],
// which is [EvaluateOutcomes] of the predictions in the order added, without keeping
// them: of each scored session it keeps a bit (was the prediction right), which the
// accuracy's bootstrap resamples. The zero value is an empty tally ready to use.
type OutcomeTally struct {
	r                 OutcomeReport // its counts and matrix
	hits              []uint64      // a bit a scored session, in the order added
	confSum, brierSum float64
	confN             int
	labelled          [5]int // scored sessions by labelled outcome (an index in OutcomeOrder)
}

// Add adds a session's prediction; p is not kept.
func (t *OutcomeTally) Add(p *OutcomePrediction) {
	r := &t.r
	r.Sessions++
	none := outcomeIndex(OutcomeNone)
	li := outcomeIndex(p.Label)
	if li < 0 {
		r.Unlabelled++
		return
	}
	pi := outcomeIndex(p.Predicted)
	if pi < 0 || pi == none {
		pi = none
	}
	r.Matrix[li][pi]++
	switch {
	case li == none:
		r.Excluded++
		return
	case pi == none:
		r.Unpredicted++
		return
	}
	k := r.Scored
	r.Scored++
	t.labelled[li]++
	hit := li == pi
	if k%64 == 0 {
		t.hits = append(t.hits, 0)
	}
	if hit {
		r.Correct++
		t.hits[k/64] |= 1 << (k % 64)
	}
	if c := p.Confidence; !math.IsNaN(c) {
		y := 0.0
		if hit {
			y = 1
		}
		t.confSum += c
		t.brierSum += (c - y) * (c - y)
		t.confN++
	}
}

// Report scores the predictions added.
func (t *OutcomeTally) Report(opts Options) *OutcomeReport {
	opts = opts.withDefaults()
	if opts.Unit == "runs" {
		opts.Unit = "sessions"
	}
	r := new(OutcomeReport)
	*r = t.r
	r.Options, r.MeanConfidence, r.Brier = opts, math.NaN(), math.NaN()
	r.Options.Context = nil // the report outlives the call
	if t.confN > 0 {
		r.MeanConfidence, r.Brier = t.confSum/float64(t.confN), t.brierSum/float64(t.confN)
	}
	if r.Accuracy, r.Err = accuracyEstimate(t.hits, r.Scored, opts); r.Err != nil {
		return r
	}
	none := outcomeIndex(OutcomeNone)
	maxSupport := 0
	for _, n := range t.labelled {
		maxSupport = max(maxSupport, n)
	}
	r.Majority = ratio(maxSupport, r.Scored)
	var recalls, f1s []float64
	for i, o := range OutcomeOrder()[:none] {
		s := OutcomeScore{Outcome: o, Support: t.labelled[i], Correct: r.Matrix[i][i]}
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

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// accuracyEstimate is the share of hits among n sessions (a bit each) with its
// bootstrap and Jeffreys intervals, or opts.Context's error once it is done.
func accuracyEstimate(hits []uint64, n int, opts Options) (Estimate, error) {
	if n == 0 {
		return undefined(), nil
	}
	hit := func(i int) bool { return hits[i/64]>>(i%64)&1 != 0 }
	k := 0
	for _, w := range hits {
		k += bits.OnesCount64(w)
	}
	e := Estimate{Value: float64(k) / float64(n), Low: math.NaN(), High: math.NaN()}
	e.JeffreysLow, e.JeffreysHigh = jeffreys(k, n, opts.Level)
	if opts.Resamples > 0 {
		rng := rand.New(rand.NewPCG(opts.Seed, 0x6f7574636f6d65))
		vals := make([]float64, opts.Resamples)
		for b := range vals {
			if err := stopped(opts.Context); err != nil {
				return undefined(), err
			}
			c := 0
			for range n {
				if hit(rng.IntN(n)) {
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
	return e, nil
}

// Fold returns the cross-validation fold (0 … k−1) of a session: a stable hash
// (FNV-1a) of its key, so the folds are the same in every run and on every machine,
// and a session keeps its fold when others are added.
func Fold(key string, k int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(k))
}

// CrossValidateOutcomes selects among candidate outcome classifiers without scoring
// the choice on the sessions it was made on: candidates[c][i] is candidate c's
// prediction for session i (every candidate lists the same sessions in the same
// order, with the same keys and labels). For each of k folds ([Fold] of the key),
// the candidate with the best accuracy on the other folds (the first of equals) is
// chosen, and its predictions for the fold's own sessions are kept. It returns those
// held-out predictions, in session order, and the candidate chosen per fold.
func CrossValidateOutcomes(candidates [][]OutcomePrediction, k int) ([]OutcomePrediction, []int) {
	if len(candidates) == 0 || k < 2 {
		return nil, nil
	}
	n := len(candidates[0])
	folds := make([]int, n)
	for i, p := range candidates[0] {
		folds[i] = Fold(p.Key, k)
	}
	chosen := make([]int, k)
	out := make([]OutcomePrediction, n)
	for f := range k {
		best, bestAcc := 0, -1.0
		for c, preds := range candidates {
			correct, scored := 0, 0
			for i, p := range preds {
				li, pi := outcomeIndex(p.Label), outcomeIndex(p.Predicted)
				if folds[i] == f || li < 0 || li == outcomeIndex(OutcomeNone) || pi < 0 {
					continue
				}
				scored++
				if li == pi {
					correct++
				}
			}
			if acc := ratio(correct, scored); acc > bestAcc {
				best, bestAcc = c, acc
			}
		}
		chosen[f] = best
		for i := range n {
			if folds[i] == f {
				out[i] = candidates[best][i]
			}
		}
	}
	return out, chosen
}
