package eval

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate"
)

// CurvePoint is one operating point of a detector's ranking: every scored observation
// whose score is at or above Threshold is flagged positive.
type CurvePoint struct {
	Threshold      float64
	TP, FP, FN, TN int
	// Precision is TP/(TP+FP) (always defined: a point flags at least one
	// observation); Recall is TP/(TP+FN), NaN without positives; FPR is FP/(FP+TN),
	// NaN without negatives.
	Precision, Recall, FPR float64
}

// Curve holds the precision–recall and ROC points of a ranking: one point per
// distinct score, thresholds descending. Observations with the same score cross the
// threshold together (ties are grouped), so no point separates observations the
// detector cannot tell apart.
//
// Neither anchor is a point: the ROC curve starts at (FPR 0, TPR 0) where nothing is
// flagged, and the PR curve's first step runs from recall 0 at the first point's
// precision, as [Curve.AP] sums it.
type Curve struct {
	Positives, Negatives int // scored observations of each class
	Points               []CurvePoint
}

// Curves computes the PR and ROC points of the observations' ranking scores. Only
// observations labelled positive or negative enter it. A NaN score ranks lowest: it
// is treated as −Inf (tied with any −Inf score), so an observation the detector gave
// no score is flagged only at the last point, where everything is — unlike
// [Evaluate], whose AP and AUC leave such observations out.
//
// The rules are gonum's stat.ROC's: sort by score, thresholds descending, a score
// counts positive when it is ≥ the threshold. Counts are kept as integers, so a
// point's TP, FP, FN and TN are exact.
func Curves(obs []Observation) Curve { return curves(observationsOf(obs)) }

// curves ranks the scored observations by sorting their indices — 4 bytes each —
// with the comparison the sort of (score, class) pairs used, so that the sort puts
// them in the same order and a tie group's threshold is the same value (−0 or +0).
func curves(obs *Observations) Curve {
	var c Curve
	n := 0
	for i := range obs.Len() {
		if obs.scored(i) {
			n++
		}
	}
	s := make([]uint32, 0, n) // the scored observations, ranked below
	for i := range obs.Len() {
		if !obs.scored(i) {
			continue
		}
		s = append(s, uint32(i))
		if obs.label(i) == obsPositive {
			c.Positives++
		} else {
			c.Negatives++
		}
	}
	score := func(i uint32) float64 {
		if x := obs.scores[i]; !math.IsNaN(x) {
			return x
		}
		return math.Inf(-1)
	}
	slices.SortFunc(s, func(a, b uint32) int { return cmp.Compare(score(b), score(a)) })
	tp, fp := 0, 0
	for i := 0; i < len(s); {
		j := i
		top := score(s[i])
		for ; j < len(s) && score(s[j]) == top; j++ {
			if obs.label(int(s[j])) == obsPositive {
				tp++
			} else {
				fp++
			}
		}
		c.Points = append(c.Points, CurvePoint{
			Threshold: top,
			TP:        tp, FP: fp, FN: c.Positives - tp, TN: c.Negatives - fp,
			Precision: float64(tp) / float64(tp+fp),
			Recall:    ratio(tp, c.Positives),
			FPR:       ratio(fp, c.Negatives),
		})
		i = j
	}
	return c
}

// AP is the average precision: the step-wise sum Σ (Rₙ − Rₙ₋₁)·Pₙ over the points
// (R₀ = 0), scikit-learn's average_precision_score, never the trapezoid. NaN without
// positives.
func (c Curve) AP() float64 {
	if c.Positives == 0 {
		return math.NaN()
	}
	ap, prev := 0.0, 0.0
	for _, p := range c.Points {
		ap += (p.Recall - prev) * p.Precision
		prev = p.Recall
	}
	return ap
}

// AUC is the area under the ROC curve by the trapezoid rule, from (0, 0) through
// every point; NaN unless both classes are present.
func (c Curve) AUC() float64 {
	if c.Positives == 0 || c.Negatives == 0 {
		return math.NaN()
	}
	fpr, tpr := c.ROC()
	return integrate.Trapezoidal(fpr, tpr)
}

// ROC returns the ROC curve's coordinates from the origin (0, 0) through every point:
// false and true positive rates, ready to draw. Both are nil unless both classes are
// present.
func (c Curve) ROC() (fpr, tpr []float64) {
	if c.Positives == 0 || c.Negatives == 0 {
		return nil, nil
	}
	fpr, tpr = make([]float64, 0, len(c.Points)+1), make([]float64, 0, len(c.Points)+1)
	fpr, tpr = append(fpr, 0), append(tpr, 0)
	for _, p := range c.Points {
		fpr, tpr = append(fpr, p.FPR), append(tpr, p.Recall)
	}
	return fpr, tpr
}
