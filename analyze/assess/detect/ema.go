package detect

import "fmt"

// EmaTracker is an exponential moving average: after Update(x) the value is
// alpha·x + (1−alpha)·previous. It starts at 0 (a calm session). The zero value has
// alpha 0 and never moves; use [NewEmaTracker].
type EmaTracker struct {
	alpha float64
	value float64
	n     int
}

// NewEmaTracker returns a tracker with smoothing factor alpha in (0, 1].
func NewEmaTracker(alpha float64) EmaTracker { return EmaTracker{alpha: alpha} }

// Update folds x into the average and returns the new value.
func (e *EmaTracker) Update(x float64) float64 {
	e.value = e.alpha*x + (1-e.alpha)*e.value
	e.n++
	return e.value
}

// Value returns the current average.
func (e *EmaTracker) Value() float64 { return e.value }

// Updates returns how many values have been folded in.
func (e *EmaTracker) Updates() int { return e.n }

// EMAConfig says how the two EMAs move. Both are updated once per human turn (a
// non-sidechain user message or interrupt) and left alone by every other event: tool
// results, assistant text and hooks carry no information about the human's mood, and
// letting them decay the average would dilute a frustrated human among dozens of tool
// calls.
//
// A turn's frustration value is min(1, FrustrationWeight·frustration hits +
// CorrectionWeight·[correction] + InterruptWeight·[interrupt]); its success value is
// min(1, SuccessWeight·success hits).
type EMAConfig struct {
	// Alpha is the smoothing factor of both EMAs. Default 0.3: from calm, four
	// consecutive fully frustrated turns reach 0.76 (over the seed's 0.70 threshold)
	// while three reach only 0.66, and each calm turn removes 30% of the level.
	Alpha float64 `json:"alpha"`
	// FrustrationWeight per matching frustration pattern. Default 0.5: one cue is
	// half a point, two cues (or a cue and a correction) a full one.
	FrustrationWeight float64 `json:"frustration_weight"`
	// CorrectionWeight for a correction. Default 0.5, like one frustration cue.
	CorrectionWeight float64 `json:"correction_weight"`
	// InterruptWeight for an interrupt. Default 1.0: interrupting the agent is the
	// strongest friction signal a transcript records.
	InterruptWeight float64 `json:"interrupt_weight"`
	// SuccessWeight per matching success pattern. Default 0.5.
	SuccessWeight float64 `json:"success_weight"`
}

// DefaultEMAConfig returns the defaults documented on [EMAConfig].
func DefaultEMAConfig() EMAConfig {
	return EMAConfig{Alpha: 0.3, FrustrationWeight: 0.5, CorrectionWeight: 0.5, InterruptWeight: 1.0, SuccessWeight: 0.5}
}

// Validate checks the ranges: alpha in (0, 1], weights ≥ 0.
func (c EMAConfig) Validate() error {
	if !(c.Alpha > 0 && c.Alpha <= 1) {
		return fmt.Errorf("detect: EMA alpha %v outside (0, 1]", c.Alpha)
	}
	for _, w := range []float64{c.FrustrationWeight, c.CorrectionWeight, c.InterruptWeight, c.SuccessWeight} {
		if !(w >= 0) {
			return fmt.Errorf("detect: EMA weight %v is negative", w)
		}
	}
	return nil
}

// FrustrationValue is a human turn's frustration value given its signals.
func (c EMAConfig) FrustrationValue(signals []Signal) float64 {
	var v float64
	for _, s := range signals {
		switch s.Kind {
		case Frustration:
			v += c.FrustrationWeight
		case UserCorrection:
			v += c.CorrectionWeight
		case Interrupt:
			v += c.InterruptWeight
		}
	}
	return min(v, 1)
}

// SuccessValue is a human turn's success value given its signals.
func (c EMAConfig) SuccessValue(signals []Signal) float64 {
	return min(float64(Count(signals, Success))*c.SuccessWeight, 1)
}
