package eval

import "slices"

// Observations is a set of observations without their keys, held in columns: of each
// only what [Evaluate] and [Curves] read — its score, its label and whether the
// detector flagged it — in 9 bytes, where an [Observation] takes 48 and the strings it
// points to. A caller that scores many units and has no use for their keys (a replay's
// derivation) adds them here one at a time and evaluates the set with
// [Observations.Evaluate] and [Observations.Curves], which give exactly what Evaluate
// and Curves give for the same observations in the same order. The zero value is an
// empty set ready to use.
type Observations struct {
	scores []float64
	codes  []uint8 // obsCode<<1 | predicted
}

// An observation's label, in a code: the labels the evaluation tells apart.
const (
	obsUnlabelled uint8 = iota // any label that is not one of the four
	obsPositive
	obsNegative
	obsAmbiguous
	obsExcluded
)

func obsCodeOf(l Label) uint8 {
	switch l {
	case Positive:
		return obsPositive
	case Negative:
		return obsNegative
	case Ambiguous:
		return obsAmbiguous
	case Excluded:
		return obsExcluded
	}
	return obsUnlabelled
}

// observationsOf returns obs in columns.
func observationsOf(obs []Observation) *Observations {
	o := &Observations{}
	o.Grow(len(obs))
	for _, ob := range obs {
		o.Add(ob.Label, ob.Predicted, ob.Score)
	}
	return o
}

// Grow makes room for n more observations, so that adding them allocates nothing.
func (o *Observations) Grow(n int) {
	if n > 0 {
		o.scores, o.codes = slices.Grow(o.scores, n), slices.Grow(o.codes, n)
	}
}

// Add adds one observation: its label, whether the detector flagged it and its
// ranking score (NaN if none), as the fields of an [Observation].
func (o *Observations) Add(label Label, predicted bool, score float64) {
	code := obsCodeOf(label) << 1
	if predicted {
		code |= 1
	}
	o.scores = append(o.scores, score)
	o.codes = append(o.codes, code)
}

// Len returns the number of observations added.
func (o *Observations) Len() int { return len(o.codes) }

// label returns the label code of observation i.
func (o *Observations) label(i int) uint8 { return o.codes[i] >> 1 }

// scored reports whether observation i is labelled positive or negative.
func (o *Observations) scored(i int) bool {
	l := o.label(i)
	return l == obsPositive || l == obsNegative
}

// Evaluate is [Evaluate] of the observations, in the order added.
func (o *Observations) Evaluate(opts Options) *Report { return evaluate(o, opts) }

// Curves is [Curves] of the observations.
func (o *Observations) Curves() Curve { return curves(o) }
