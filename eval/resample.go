package eval

import (
	"math"
	"math/bits"
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

// units is the scored observations of an evaluation reduced to what the metrics need.
// A unit's key is group<<2 | cell, where group is 1 + the rank of its score among the
// distinct finite scores (ascending; equal scores share a group, −0 and +0 too) or 0
// when its score is NaN or infinite. Units with the same key are interchangeable, so
// a sample is counted by key: keys holds the distinct keys present, ascending (so by
// score), and ids each unit's index into keys, in input order.
type units struct {
	ids    []uint32
	keys   []uint32
	groups int // distinct finite scores
	ranked int // index in keys of the first key with a finite score (group ≥ 1)
}

// scoredUnits reduces the observations labelled positive or negative to units. Beside
// the units it allocates one float a scored unit with a finite score, to rank them.
func scoredUnits(obs *Observations) units {
	n, ranked := 0, 0
	for i := range obs.Len() {
		if obs.scored(i) {
			n++
			if finite(obs.scores[i]) {
				ranked++
			}
		}
	}
	scores := make([]float64, 0, ranked)
	for i := range obs.Len() {
		if obs.scored(i) && finite(obs.scores[i]) {
			scores = append(scores, obs.scores[i])
		}
	}
	slices.Sort(scores)
	scores = slices.Compact(scores)
	u := units{ids: make([]uint32, 0, n), groups: len(scores)}
	present := make([]uint64, (4*(len(scores)+1)+63)/64) // the keys present, a bit each
	for i, s := range obs.scores {
		if !obs.scored(i) {
			continue
		}
		group := 0
		if finite(s) {
			k, _ := slices.BinarySearch(scores, s)
			group = k + 1
		}
		key := group<<2 | int(obs.codes[i]&1) // the cell: class<<1 | predicted
		if obs.label(i) == obsPositive {
			key |= 2
		}
		present[key/64] |= 1 << (key % 64)
		u.ids = append(u.ids, uint32(key)) // the key, for now
	}
	for w, word := range present {
		for ; word != 0; word &= word - 1 {
			u.keys = append(u.keys, uint32(w*64+bits.TrailingZeros64(word)))
		}
	}
	for i, key := range u.ids {
		id, _ := slices.BinarySearch(u.keys, key)
		u.ids[i] = uint32(id)
	}
	u.ranked, _ = slices.BinarySearch(u.keys, 1<<2)
	return u
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// tally is a sample of units counted by key, with the scratch its metrics need; made
// once per evaluation and reused for every resample.
type tally struct {
	u        units
	counts   []int32 // aligned with u.keys
	tpr, fpr []float64
}

func newTally(u units) *tally {
	return &tally{
		u:      u,
		counts: make([]int32, len(u.keys)),
		tpr:    make([]float64, u.groups+1),
		fpr:    make([]float64, u.groups+1),
	}
}

// all counts every unit once: the sample itself.
func (t *tally) all() {
	clear(t.counts)
	for _, id := range t.u.ids {
		t.counts[id]++
	}
}

// resample counts len(u.ids) draws with replacement: the i-th draw takes unit
// rand.New(src).IntN(n), as resampling the observations did.
func (t *tally) resample(src *rand.PCG) {
	clear(t.counts)
	ids := t.u.ids
	n := uint64(len(ids))
	for range n {
		t.counts[ids[intN(src, n)]]++
	}
}

// intN is rand.New(src).IntN(n) for n > 0 without the call through the Source
// interface: math/rand/v2's algorithm (a multiply, with rejection of the few low
// products that would bias it; a mask for powers of two) repeated, so it gives the
// same numbers in the same order (TestIntNMatchesRand).
func intN(src *rand.PCG, n uint64) uint64 {
	if n&(n-1) == 0 {
		return src.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// confusion sums the cells over every score.
func (t *tally) confusion() Confusion {
	var cells [4]int
	for i, c := range t.counts {
		cells[t.u.keys[i]&3] += int(c)
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
// score, a unit counted k times weighing k.
//
// It is gonum's stat.ROC(nil, y, classes, weights) over the units in ascending score
// order followed by the step-wise AP sum and integrate.Trapezoidal, computed from the
// counts: stat.ROC's cutoffs are the distinct scores and +Inf, its k-th bin holds the
// weight of each class below the k-th cutoff (here the count over scores < the k-th,
// an integer, exactly the float sum stat.ROC accumulates), and each rate is
// 1 − float64(count·(1/total)) as there, reversed so thresholds descend.
func (t *tally) ranking() (ap, auc float64) {
	g := t.u.groups
	if g == 0 {
		return math.NaN(), math.NaN()
	}
	keys, counts := t.u.keys[t.u.ranked:], t.counts[t.u.ranked:]
	var total [2]int // by class: negative, positive (indexed, not branched: classes alternate unpredictably)
	for i, key := range keys {
		total[key>>1&1] += int(counts[i])
	}
	neg, pos := total[0], total[1]
	if pos == 0 {
		return math.NaN(), math.NaN()
	}
	invPos, invNeg := 1/float64(pos), 1/float64(neg)
	var below [2]int // by class, the count below the k-th cutoff
	i := 0
	for k := 0; ; k++ {
		t.tpr[g-k] = 1 - float64(float64(below[1])*invPos)
		t.fpr[g-k] = 1 - float64(float64(below[0])*invNeg)
		if k == g {
			break
		}
		for ; i < len(keys) && int(keys[i]>>2) == k+1; i++ {
			below[keys[i]>>1&1] += int(counts[i])
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
