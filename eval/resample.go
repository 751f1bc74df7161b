package eval

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/integrate"
)

// The bootstrap of [Evaluate] resamples counts, not observations: a resample is a
// multiset of the scored runs, and every metric of a binary evaluation depends on that
// multiset only through how many of the drawn runs fall in each confusion cell at each
// score. So each scored run is reduced once to a code — its score's rank among the
// distinct finite scores and its confusion cell — and a resample is a histogram of
// codes: one increment per draw, no observation copied, nothing allocated per
// resample. AP and ROC AUC then come from the histogram in one pass over the distinct
// scores, with gonum's stat.ROC's arithmetic repeated operation for operation, so the
// same seed gives the same random stream, the same multisets and bit for bit the same
// intervals as resampling observations through stat.ROC did (TestEvaluateMatchesReference
// holds the earlier implementation).

// The confusion cells, numbered class<<1 | predicted (class 1: labelled positive).
const (
	cellTN = iota
	cellFP
	cellFN
	cellTP
)

// units is the scored observations of an evaluation, in input order, each reduced to
// code = group<<2 | cell, where group is 1 + the rank of its score among the distinct
// finite scores (ascending; equal scores share a group, −0 and +0 too) or 0 when its
// score is NaN or infinite.
type units struct {
	codes  []uint32
	groups int // distinct finite scores
}

// scoredUnits reduces the observations labelled positive or negative to units.
func scoredUnits(obs []Observation) units {
	var scores []float64
	n := 0
	for _, o := range obs {
		if o.Label.Scored() {
			n++
			if finite(o.Score) {
				scores = append(scores, o.Score)
			}
		}
	}
	slices.Sort(scores)
	scores = slices.Compact(scores)
	u := units{codes: make([]uint32, 0, n), groups: len(scores)}
	for _, o := range obs {
		if !o.Label.Scored() {
			continue
		}
		group := 0
		if finite(o.Score) {
			i, _ := slices.BinarySearch(scores, o.Score)
			group = i + 1
		}
		cell := 0
		if o.Label == Positive {
			cell |= 2
		}
		if o.Predicted {
			cell |= 1
		}
		u.codes = append(u.codes, uint32(group<<2|cell))
	}
	return u
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// tally is a sample of units counted by code, with the scratch its metrics need; made
// once per evaluation and reused for every resample.
type tally struct {
	counts   []int32 // by code
	tpr, fpr []float64
}

func newTally(u units) *tally {
	return &tally{
		counts: make([]int32, (u.groups+1)<<2),
		tpr:    make([]float64, u.groups+1),
		fpr:    make([]float64, u.groups+1),
	}
}

// all counts every unit once: the sample itself.
func (t *tally) all(u units) {
	clear(t.counts)
	for _, c := range u.codes {
		t.counts[c]++
	}
}

// resample counts len(u.codes) draws with replacement: the i-th draw takes unit
// rng.IntN(n), as resampling the observations did.
func (t *tally) resample(u units, rng *rand.Rand) {
	clear(t.counts)
	n := len(u.codes)
	for range n {
		t.counts[u.codes[rng.IntN(n)]]++
	}
}

// confusion sums the cells over every group.
func (t *tally) confusion() Confusion {
	var cells [4]int
	for i, c := range t.counts {
		cells[i&3] += int(c)
	}
	return Confusion{TP: cells[cellTP], FP: cells[cellFP], FN: cells[cellFN], TN: cells[cellTN]}
}

// metrics returns precision, recall, F1, F-beta, AP and ROC AUC of the counted sample.
func (t *tally) metrics(beta float64) [6]float64 {
	c := t.confusion()
	ap, auc := t.ranking()
	return [6]float64{c.Precision(), c.Recall(), c.F1(), c.FBeta(beta), ap, auc}
}

// ranking returns the average precision and ROC AUC of the counted units with a finite
// score (group ≥ 1), a unit counted k times weighing k.
//
// It is gonum's stat.ROC(nil, y, classes, weights) over the units in ascending score
// order followed by the step-wise AP sum and integrate.Trapezoidal, computed from the
// counts: stat.ROC's cutoffs are the distinct scores and +Inf, its k-th bin holds the
// weight of each class below the k-th cutoff (here Σ over groups < k, an integer,
// exactly the float sum stat.ROC accumulates), and each rate is 1 − float64(count·(1/total))
// as there, reversed so thresholds descend.
func (t *tally) ranking() (ap, auc float64) {
	g := len(t.tpr) - 1
	if g == 0 {
		return math.NaN(), math.NaN()
	}
	var pos, neg int
	for k := 1; k <= g; k++ {
		pos += int(t.counts[k<<2|cellTP] + t.counts[k<<2|cellFN])
		neg += int(t.counts[k<<2|cellFP] + t.counts[k<<2|cellTN])
	}
	if pos == 0 {
		return math.NaN(), math.NaN()
	}
	invPos, invNeg := 1/float64(pos), 1/float64(neg)
	below, belowNeg := 0, 0
	for k := 0; k <= g; k++ {
		t.tpr[g-k] = 1 - float64(float64(below)*invPos)
		t.fpr[g-k] = 1 - float64(float64(belowNeg)*invNeg)
		if k < g {
			below += int(t.counts[(k+1)<<2|cellTP] + t.counts[(k+1)<<2|cellFN])
			belowNeg += int(t.counts[(k+1)<<2|cellFP] + t.counts[(k+1)<<2|cellTN])
		}
	}
	// Average precision: Σ (Rᵢ − Rᵢ₋₁)·Pᵢ with Pᵢ = TPᵢ/(TPᵢ+FPᵢ), TP = tpr·P, FP = fpr·N.
	fpos, fneg := float64(pos), float64(neg)
	prevRecall := 0.0
	for i, r := range t.tpr {
		if r <= prevRecall {
			continue
		}
		tp, fp := r*fpos, 0.0
		if neg > 0 {
			fp = t.fpr[i] * fneg
		}
		ap += (r - prevRecall) * tp / (tp + fp)
		prevRecall = r
	}
	if neg == 0 {
		return ap, math.NaN()
	}
	return ap, integrate.Trapezoidal(t.fpr, t.tpr)
}
