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

// EMAConfig says how the two EMAs move. By default both are updated once per human
// turn (a non-sidechain user message or interrupt) and left alone by every other
// event: tool results, assistant text and hooks carry no information about the
// human's mood, and letting them decay the average would dilute a frustrated human
// among dozens of tool calls. The seed updates them on every event (EveryEvent).
//
// A turn's frustration value is min(1, FrustrationWeight·frustration hits +
// CorrectionWeight·[correction] + InterruptWeight·[interrupt] + the weight of each
// friction signal it raised); its success value is min(1, SuccessWeight·success
// hits).
type EMAConfig struct {
	// Alpha is the smoothing factor of both EMAs. Default 1.0: the EMA is the
	// current turn's value, so a single friction turn reaches the breaker's threshold
	// at that turn — smoothing would move the check-in past the moment it answers.
	// (The seed preset's 0.3: from calm, four consecutive fully frustrated turns reach
	// 0.76, three only 0.66.)
	Alpha float64 `json:"alpha"`
	// FrustrationWeight per matching frustration pattern. Default 0: the friction
	// signals cover what the seed's patterns catch, with fewer false alarms (seed
	// preset: 0.5, one cue half a point).
	FrustrationWeight float64 `json:"frustration_weight"`
	// CorrectionWeight for a correction. Default 0 (seed preset 0.5); a
	// user_correction still counts towards the breaker's correction storm.
	CorrectionWeight float64 `json:"correction_weight"`
	// InterruptWeight for an interrupt. Default 0: the interrupt's friction is read
	// from the human's next message, which says whether it redirected the agent
	// (InterruptRedirect) or let it go on ("continue"); online, a check-in could not
	// reach the stopped agent before that message anyway. (0.5 checks in at every
	// interrupt the agent had acted on: on the labelled corpus two more moments
	// caught, whose next message came over five minutes later, for a check-in at
	// each interrupt followed by approval.) Seed preset: 0, the seed has no interrupt.
	InterruptWeight float64 `json:"interrupt_weight"`
	// SuccessWeight per matching success pattern. Default 0.5.
	SuccessWeight float64 `json:"success_weight"`

	// The weights of loopwatch's friction signals (see [FrictionConfig]), each for a
	// turn that raised the signal. Default 0.5 each: with the default alpha and the
	// breaker's default frustration threshold (0.2), any one of them is enough to
	// check in, as cross-validation on the labelled corpus chose.

	// RepeatWeight for a RepeatRequest. Default 0.5.
	RepeatWeight float64 `json:"repeat_weight"`
	// RedirectWeight for an InterruptRedirect. Default 0.5.
	RedirectWeight float64 `json:"redirect_weight"`
	// NegationWeight for a NegationReply. Default 0.5.
	NegationWeight float64 `json:"negation_weight"`
	// StillWeight for a StillProblem. Default 0.5.
	StillWeight float64 `json:"still_weight"`
	// DoubtWeight for a Doubt. Default 0.5.
	DoubtWeight float64 `json:"doubt_weight"`
	// CorrectionPhraseWeight for a CorrectionPhrase. Default 0.5.
	CorrectionPhraseWeight float64 `json:"correction_phrase_weight"`
	// ExasperationWeight for an Exasperation. Default 0.5.
	ExasperationWeight float64 `json:"exasperation_weight"`
	// GiveUpWeight for a GiveUp. Default 0.5.
	GiveUpWeight float64 `json:"give_up_weight"`

	// EveryEvent moves both EMAs on every event the detector reads, with value 0 for
	// events without signals (tool results, assistant text, hooks), as the seed's
	// update_emas does. Default false: human turns only.
	EveryEvent bool `json:"every_event"`
}

// DefaultEMAConfig returns the defaults documented on [EMAConfig].
func DefaultEMAConfig() EMAConfig {
	return EMAConfig{Alpha: 1, SuccessWeight: 0.5, RepeatWeight: 0.5, RedirectWeight: 0.5,
		NegationWeight: 0.5, StillWeight: 0.5, DoubtWeight: 0.5, CorrectionPhraseWeight: 0.5, ExasperationWeight: 0.5,
		GiveUpWeight: 0.5}
}

// SeedEMAConfig returns the seed's EMAs: updated on every event, with loopwatch's
// reading of the weights the seed leaves open for its own signals (frustration and
// correction 0.5, success 0.5, alpha 0.3) and 0 for everything the seed does not
// detect (interrupts and the friction signals).
func SeedEMAConfig() EMAConfig {
	return EMAConfig{Alpha: 0.3, FrustrationWeight: 0.5, CorrectionWeight: 0.5, SuccessWeight: 0.5, EveryEvent: true}
}

// Validate checks the ranges: alpha in (0, 1], weights ≥ 0.
func (c EMAConfig) Validate() error {
	if !(c.Alpha > 0 && c.Alpha <= 1) {
		return fmt.Errorf("detect: EMA alpha %v outside (0, 1]", c.Alpha)
	}
	for _, w := range []float64{c.FrustrationWeight, c.CorrectionWeight, c.InterruptWeight, c.SuccessWeight,
		c.RepeatWeight, c.RedirectWeight, c.NegationWeight, c.StillWeight, c.DoubtWeight, c.CorrectionPhraseWeight,
		c.ExasperationWeight, c.GiveUpWeight} {
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
		case RepeatRequest:
			v += c.RepeatWeight
		case InterruptRedirect:
			v += c.RedirectWeight
		case NegationReply:
			v += c.NegationWeight
		case StillProblem:
			v += c.StillWeight
		case Doubt:
			v += c.DoubtWeight
		case CorrectionPhrase:
			v += c.CorrectionPhraseWeight
		case Exasperation:
			v += c.ExasperationWeight
		case GiveUp:
			v += c.GiveUpWeight
		}
	}
	return min(v, 1)
}

// SuccessValue is a human turn's success value given its signals.
func (c EMAConfig) SuccessValue(signals []Signal) float64 {
	return min(float64(Count(signals, Success))*c.SuccessWeight, 1)
}
