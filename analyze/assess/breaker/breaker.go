package breaker

import (
	"errors"
	"fmt"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/duration"
)

// Config holds the circuit breaker's thresholds. The seed fixes the correction storm
// (3 corrections inside 5 minutes) and shows a frustration threshold of 0.70 in its
// status screen; the rest it leaves open.
type Config struct {
	// CorrectionStorm is how many corrections inside CorrectionWindow make a storm
	// (ClarificationPause). Seed: 3. Default 2: with CorrectionKinds a correction is
	// any of the human's push-backs, and a second one within the window asks for
	// clarification rather than another check-in.
	CorrectionStorm int `json:"correction_storm"`
	// CorrectionWindow is the storm's window. Seed: 5m. A correction leaves the window
	// once it is strictly older than this, measured on event time.
	CorrectionWindow duration.Duration `json:"correction_window"`
	// FailureThreshold is the number of consecutive failing events that calls for
	// ApproachPivot. Default 5: the seed resets the count only on a build or test
	// success, which its rules recognise for cargo (and loopwatch's extension for go
	// test) alone; in any other toolchain the count is cumulative over the session, so
	// the classic "three strikes" would fire on most sessions that ever fail.
	FailureThreshold int `json:"failure_threshold"`
	// FrustrationThreshold is the frustration EMA at which ExplicitCheckIn fires.
	// Seed status screen: 0.70. Default 0.20: with detect's default EMA (alpha 1,
	// friction weights 0.5) one friction turn is enough.
	FrustrationThreshold float64 `json:"frustration_threshold"`
	// Cooldown is the minimum event time between two interventions in a session.
	// Default 5m, equal to the correction window, so one storm cannot fire twice.
	Cooldown duration.Duration `json:"cooldown"`
	// InterruptIsCorrection makes a human interrupt count like a correction (it enters
	// the storm window). Default false: an interrupt is not yet a redirect — the
	// message after it tells (detect.InterruptRedirect, one of CorrectionKinds).
	InterruptIsCorrection bool `json:"interrupt_is_correction"`
	// ToolErrorIsFailure makes an explicitly flagged tool error that no rule
	// classified (detect.ToolFailure) count as a failure. Default true.
	ToolErrorIsFailure bool `json:"tool_error_is_failure"`

	// CorrectionKinds are the signal kinds that make an event a correction: it enters
	// the storm window (and, with CorrectionIsFailure, counts as a failure). Seed:
	// user_correction. Default: user_correction and loopwatch's signals of the human
	// pushing back on what the agent did — correction_phrase, negation_reply,
	// repeat_request and interrupt_redirect. An Interrupt counts through
	// InterruptIsCorrection instead.
	CorrectionKinds []detect.Kind `json:"correction_kinds"`
	// CorrectionIsFailure makes a correction also count as one consecutive failure,
	// as the seed's update does (a correction increments consecutive_failures).
	// Default false: a human correcting the agent is answered by the storm and the
	// frustration EMA, and the failure streak behind ApproachPivot stays about tools.
	CorrectionIsFailure bool `json:"correction_is_failure"`
	// EdgeTriggered lets ClarificationPause and ExplicitCheckIn fire only at an event
	// that itself is a correction or raised the frustration EMA: an intervention
	// answers what the human just did, not a level left over from before the
	// cooldown. Default true; the seed fires at any event while the condition holds.
	EdgeTriggered bool `json:"edge_triggered"`
}

// DefaultConfig returns the defaults documented on [Config].
func DefaultConfig() Config {
	return Config{
		CorrectionStorm:       2,
		CorrectionWindow:      duration.Duration(5 * time.Minute),
		FailureThreshold:      5,
		FrustrationThreshold:  0.20,
		Cooldown:              duration.Duration(5 * time.Minute),
		InterruptIsCorrection: false,
		ToolErrorIsFailure:    true,
		CorrectionKinds: []detect.Kind{detect.UserCorrection, detect.CorrectionPhrase, detect.NegationReply,
			detect.RepeatRequest, detect.InterruptRedirect},
		EdgeTriggered: true,
	}
}

// SeedConfig returns the seed's breaker: its storm of 3 corrections and its 0.70
// frustration threshold, with every loopwatch extension off — interrupts and
// unclassified tool errors count for nothing, only a user_correction is a correction,
// a correction counts as a failure, and the interventions fire whenever their
// condition holds.
func SeedConfig() Config {
	c := DefaultConfig()
	c.CorrectionStorm = 3
	c.FrustrationThreshold = 0.70
	c.InterruptIsCorrection = false
	c.ToolErrorIsFailure = false
	c.CorrectionKinds = []detect.Kind{detect.UserCorrection}
	c.CorrectionIsFailure = true
	c.EdgeTriggered = false
	return c
}

// Validate checks that thresholds are positive.
func (c Config) Validate() error {
	switch {
	case c.CorrectionStorm < 1:
		return errors.New("breaker: correction_storm must be ≥ 1")
	case c.CorrectionWindow <= 0:
		return errors.New("breaker: correction_window must be > 0")
	case c.FailureThreshold < 1:
		return errors.New("breaker: failure_threshold must be ≥ 1")
	case !(c.FrustrationThreshold > 0):
		return fmt.Errorf("breaker: frustration_threshold %v must be > 0", c.FrustrationThreshold)
	}
	for _, k := range c.CorrectionKinds {
		if _, err := k.MarshalText(); err != nil {
			return fmt.Errorf("breaker: correction_kinds: %w", err)
		}
	}
	return nil
}

// State is a snapshot of the breaker (the seed's CircuitBreakerState) at one event.
type State struct {
	FrustrationEMA      float64   `json:"frustration_ema"`
	ConsecutiveFailures int       `json:"consecutive_failures"`
	CorrectionsInWindow int       `json:"corrections_in_window"`
	CooldownActive      bool      `json:"cooldown_active"`
	InterventionCount   int       `json:"intervention_count"`
	LastIntervention    time.Time `json:"last_intervention,omitzero"`
}

// CircuitBreaker decides when a session needs an intervention. It keeps one
// session's state: the processor holds one breaker per session, so one session's
// corrections never trigger an intervention in another. All time is event time,
// passed in by the caller; it never reads the clock. Not safe for concurrent use.
type CircuitBreaker struct {
	cfg                 Config
	correctionKind      [detect.NumKinds]bool // Config.CorrectionKinds
	frustrationEMA      float64
	rose                bool // the last event was a correction or raised the EMA
	consecutiveFailures int
	corrections         []time.Time // times of corrections still in the window, oldest first
	lastIntervention    time.Time
	hasIntervened       bool
	interventionCount   int
}

// New returns a breaker in its initial state. cfg should have passed
// [Config.Validate].
func New(cfg Config) *CircuitBreaker {
	b := &CircuitBreaker{cfg: cfg}
	for _, k := range cfg.CorrectionKinds {
		if int(k) < detect.NumKinds {
			b.correctionKind[k] = true
		}
	}
	return b
}

// Update folds one event's signals into the state (the seed's update), at event time
// at, with the detector's frustration EMA after that event. Counting is per event,
// not per signal: an event that is a correction (a signal of CorrectionKinds or, with
// InterruptIsCorrection, an interrupt) enters the storm window once and, with
// CorrectionIsFailure, counts as one failure, as the seed counts a correction; an
// event with a build or test failure (or, with
// ToolErrorIsFailure, an unclassified tool error) adds one failure, however many
// failure signals the same output raised; an event with a build or test success
// resets the failures to 0. Lint errors alone count nothing, as in the seed.
// Corrections strictly older than the window at time at are then pruned.
func (b *CircuitBreaker) Update(at time.Time, signals []detect.Signal, frustrationEMA float64) {
	rose := frustrationEMA > b.frustrationEMA
	b.frustrationEMA = frustrationEMA
	var correction, failure, success bool
	for _, s := range signals {
		if int(s.Kind) < detect.NumKinds && b.correctionKind[s.Kind] {
			correction = true
		}
		switch s.Kind {
		case detect.Interrupt:
			correction = correction || b.cfg.InterruptIsCorrection
		case detect.BuildFailure, detect.TestFailure:
			failure = true
		case detect.ToolFailure:
			failure = failure || b.cfg.ToolErrorIsFailure
		case detect.BuildSuccess, detect.TestSuccess:
			success = true
		}
	}
	b.rose = rose || correction
	if correction {
		b.corrections = append(b.corrections, at)
		if b.cfg.CorrectionIsFailure {
			b.consecutiveFailures++
		}
	}
	if failure {
		b.consecutiveFailures++
	} else if success {
		b.consecutiveFailures = 0
	}
	b.prune(at)
}

func (b *CircuitBreaker) prune(at time.Time) {
	window := b.cfg.CorrectionWindow.Std()
	i := 0
	for i < len(b.corrections) && at.Sub(b.corrections[i]) > window {
		i++
	}
	if i > 0 {
		b.corrections = append(b.corrections[:0], b.corrections[i:]...)
	}
}

// ShouldIntervene returns the intervention due at event time at, if any. Inside the
// cooldown it returns nothing; otherwise, in the seed's priority order: a correction
// storm → ClarificationPause; consecutive failures ≥ FailureThreshold → ApproachPivot;
// frustration EMA ≥ FrustrationThreshold → ExplicitCheckIn. With EdgeTriggered, the
// storm and the check-in are due only at an event that was a correction or raised the
// EMA (see [CircuitBreaker.Update]).
//
// As in the seed, an intervention does not reset the condition that caused it: if the
// failures persist past the cooldown, ApproachPivot fires again.
func (b *CircuitBreaker) ShouldIntervene(at time.Time) (Intervention, bool) {
	if b.cooldownActive(at) {
		return 0, false
	}
	human := b.rose || !b.cfg.EdgeTriggered
	switch {
	case human && len(b.corrections) >= b.cfg.CorrectionStorm:
		return ClarificationPause, true
	case b.consecutiveFailures >= b.cfg.FailureThreshold:
		return ApproachPivot, true
	case human && b.frustrationEMA >= b.cfg.FrustrationThreshold:
		return ExplicitCheckIn, true
	}
	return 0, false
}

// RecordIntervention notes that an intervention was delivered at event time at: it
// starts the cooldown and counts the intervention.
func (b *CircuitBreaker) RecordIntervention(at time.Time) {
	b.lastIntervention = at
	b.hasIntervened = true
	b.interventionCount++
}

func (b *CircuitBreaker) cooldownActive(at time.Time) bool {
	return b.hasIntervened && at.Sub(b.lastIntervention) < b.cfg.Cooldown.Std()
}

// State returns the state as seen at event time at (which decides whether the
// cooldown is active).
func (b *CircuitBreaker) State(at time.Time) State {
	return State{
		FrustrationEMA:      b.frustrationEMA,
		ConsecutiveFailures: b.consecutiveFailures,
		CorrectionsInWindow: len(b.corrections),
		CooldownActive:      b.cooldownActive(at),
		InterventionCount:   b.interventionCount,
		LastIntervention:    b.lastIntervention,
	}
}
