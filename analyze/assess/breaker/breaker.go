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
	// FailureConfig is the failure side: what counts as a failure, what ends a
	// streak, how often ApproachPivot may fire (see [FailureConfig]; its fields sit
	// at this level in JSON).
	FailureConfig
	// FrustrationThreshold is the frustration EMA at which ExplicitCheckIn fires.
	// Seed status screen: 0.70. Default 0.20: with detect's default EMA (alpha 1,
	// friction weights 0.5) one friction turn is enough.
	FrustrationThreshold float64 `json:"frustration_threshold"`
	// Cooldown is the minimum event time between two interventions in a session.
	// Default 1m: with EdgeTriggered every intervention answers a friction turn of
	// the human, and a human who pushes back again a minute after a check-in is
	// pushing back again (cross-validation on the labelled corpus chose 1m over 2m
	// and 5m in every fold and for every held-out source; 5m, equal to the correction
	// window, missed the second and third turns of a burst). The seed gives no value;
	// its preset keeps [SeedCooldown].
	Cooldown duration.Duration `json:"cooldown"`
	// InterruptIsCorrection makes a human interrupt count like a correction (it enters
	// the storm window and, with CorrectionIsFailure, counts as a failure). Default
	// false: an interrupt is not yet a redirect — the message after it tells
	// (detect.InterruptRedirect, one of CorrectionKinds).
	InterruptIsCorrection bool `json:"interrupt_is_correction"`
	// CorrectionKinds are the signal kinds that make an event a correction: it enters
	// the storm window (and, with CorrectionIsFailure, counts as a failure). Seed:
	// user_correction. Default: user_correction and loopwatch's signals of the human
	// pushing back on what the agent did — correction_phrase, negation_reply,
	// repeat_request and interrupt_redirect. An Interrupt counts through
	// InterruptIsCorrection instead.
	CorrectionKinds []detect.Kind `json:"correction_kinds"`
	// EdgeTriggered lets ClarificationPause and ExplicitCheckIn fire only at an event
	// that itself is a correction, raised the frustration EMA, or carried a friction
	// signal of the human (detect.Kind.IsHumanFriction: a second friction turn in a
	// row is fresh friction even when it leaves the EMA where the first put it): an
	// intervention answers what the human just did, not a level left over from before
	// the cooldown. Default true; the seed fires at any event while the condition
	// holds.
	EdgeTriggered bool `json:"edge_triggered"`
}

// DefaultConfig returns the defaults documented on [Config].
func DefaultConfig() Config {
	return WithDefaultCorrections(Config{
		CorrectionWindow: duration.Duration(5 * time.Minute),
		FailureConfig:    DefaultFailures(),
		Cooldown:         duration.Duration(time.Minute),
	})
}

// SeedCooldown is the seed preset's cooldown. The seed names a cooldown without a
// value; the preset keeps loopwatch's choice from before the friction signals, 5m,
// equal to the correction window, so that one storm cannot fire twice.
func SeedCooldown() duration.Duration { return duration.Duration(5 * time.Minute) }

// SeedConfig returns the seed's breaker: its correction side ([WithSeedCorrections])
// and its failure side ([WithSeedFailures]).
func SeedConfig() Config { return WithSeedFailures(WithSeedCorrections(DefaultConfig())) }

// WithSeedCorrections returns cfg with the seed's correction and frustration side:
// a storm of 3 corrections, the 0.70 frustration threshold, only a user_correction
// is a correction, interrupts count for nothing, the interventions fire whenever
// their condition holds, and [SeedCooldown] between them. The window and the
// failure side are kept.
func WithSeedCorrections(cfg Config) Config {
	cfg.CorrectionStorm, cfg.FrustrationThreshold, cfg.InterruptIsCorrection = 3, 0.70, false
	cfg.CorrectionKinds, cfg.EdgeTriggered, cfg.Cooldown = []detect.Kind{detect.UserCorrection}, false, SeedCooldown()
	return cfg
}

// WithDefaultCorrections returns cfg with loopwatch's correction and frustration
// side, documented on [Config], and its 1m cooldown. The window and the failure side
// are kept.
func WithDefaultCorrections(cfg Config) Config {
	cfg.CorrectionStorm, cfg.FrustrationThreshold, cfg.InterruptIsCorrection = 2, 0.20, false
	cfg.Cooldown = duration.Duration(time.Minute)
	cfg.CorrectionKinds = []detect.Kind{detect.UserCorrection, detect.CorrectionPhrase, detect.NegationReply,
		detect.RepeatRequest, detect.InterruptRedirect}
	cfg.EdgeTriggered = true
	return cfg
}

// Validate checks that thresholds are positive.
func (c Config) Validate() error {
	switch {
	case c.CorrectionStorm < 1:
		return errors.New("breaker: correction_storm must be ≥ 1")
	case c.CorrectionWindow <= 0:
		return errors.New("breaker: correction_window must be > 0")
	case !(c.FrustrationThreshold > 0 && c.FrustrationThreshold <= 1):
		// The EMA of values in [0, 1] never passes 1: a threshold above it never fires.
		return fmt.Errorf("breaker: frustration_threshold %v must be in (0, 1] (the frustration EMA stays in [0, 1])", c.FrustrationThreshold)
	}
	for _, k := range c.CorrectionKinds {
		if _, err := k.MarshalText(); err != nil {
			return fmt.Errorf("breaker: correction_kinds: %w", err)
		}
	}
	return c.FailureConfig.Validate()
}

// State is a snapshot of the breaker (the seed's CircuitBreakerState) at one event.
type State struct {
	FrustrationEMA float64 `json:"frustration_ema"`
	// ConsecutiveFailures is the session's failure count (StreaksSession) or its
	// longest open failure streak (StreaksTarget), FailureTarget that streak's target.
	ConsecutiveFailures int       `json:"consecutive_failures"`
	FailureTarget       string    `json:"failure_target,omitempty"`
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
	cfg               Config
	correctionKind    [detect.NumKinds]bool // Config.CorrectionKinds
	frustrationEMA    float64
	rose              bool // the last event was a correction, raised the EMA or carried human friction
	failures          failures
	corrections       []time.Time // times of corrections still in the window, oldest first
	lastIntervention  time.Time
	hasIntervened     bool
	interventionCount int
}

// New returns a breaker in its initial state. cfg should have passed
// [Config.Validate].
func New(cfg Config) *CircuitBreaker {
	b := &CircuitBreaker{}
	b.Reset(cfg)
	return b
}

// Reset puts b in the initial state New(cfg) returns, for another session, keeping
// the room its corrections and failure streaks took.
func (b *CircuitBreaker) Reset(cfg Config) {
	clear(b.failures.streaks) // their targets are the last session's
	*b = CircuitBreaker{cfg: cfg, failures: failures{cfg: cfg.FailureConfig, due: -2, streaks: b.failures.streaks[:0]},
		corrections: b.corrections[:0]}
	for _, k := range cfg.CorrectionKinds {
		if int(k) < detect.NumKinds {
			b.correctionKind[k] = true
		}
	}
}

// Update folds one event's signals into the state (the seed's update), at event time
// at, with the detector's frustration EMA after that event. An event that is a
// correction (a signal of CorrectionKinds or, with InterruptIsCorrection, an
// interrupt) enters the storm window once and, with CorrectionIsFailure, counts as a
// failure. Tool failures and successes move the failure streaks as [FailureConfig]
// says: by default per target and per event (a failure lengthens its command's streak
// once however many failure signals its output raised, a success of the same kind of
// command ends it); with [SeedFailures], one session count per signal, reset by a
// build or test success. Corrections strictly older than the window at time at are
// then pruned.
func (b *CircuitBreaker) Update(at time.Time, signals []detect.Signal, frustrationEMA float64) {
	rose := frustrationEMA > b.frustrationEMA
	b.frustrationEMA = frustrationEMA
	var correction, friction bool
	for _, s := range signals {
		if int(s.Kind) < detect.NumKinds && b.correctionKind[s.Kind] {
			correction = true
		}
		if s.Kind == detect.Interrupt {
			correction = correction || b.cfg.InterruptIsCorrection
		}
		friction = friction || s.Kind.IsHumanFriction()
	}
	b.rose = rose || correction || friction
	if correction {
		b.corrections = append(b.corrections, at)
	}
	b.failures.update(signals, correction)
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
// storm → ClarificationPause; a failure streak ≥ FailureThreshold → ApproachPivot;
// frustration EMA ≥ FrustrationThreshold → ExplicitCheckIn. With EdgeTriggered, the
// storm and the check-in are due only at an event that was a correction, raised the
// EMA or carried a friction signal of the human (see [CircuitBreaker.Update]).
//
// As in the seed, an intervention does not reset the condition that caused it: if the
// storm or the frustration persists past the cooldown, its intervention fires again,
// and so does ApproachPivot unless PivotOncePerStreak (the default) allows it once
// per failure streak.
func (b *CircuitBreaker) ShouldIntervene(at time.Time) (Intervention, bool) {
	if b.cooldownActive(at) {
		return 0, false
	}
	human := b.rose || !b.cfg.EdgeTriggered
	switch {
	case human && len(b.corrections) >= b.cfg.CorrectionStorm:
		return ClarificationPause, true
	case b.failures.pivotDue():
		return ApproachPivot, true
	case human && b.frustrationEMA >= b.cfg.FrustrationThreshold:
		return ExplicitCheckIn, true
	}
	return 0, false
}

// RecordIntervention notes that an intervention was delivered at event time at: it
// starts the cooldown and counts the intervention.
func (b *CircuitBreaker) RecordIntervention(at time.Time) {
	b.failures.pivoted()
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
		ConsecutiveFailures: b.failures.longestCount(),
		FailureTarget:       b.failures.longestTarget(),
		CorrectionsInWindow: len(b.corrections),
		CooldownActive:      b.cooldownActive(at),
		InterventionCount:   b.interventionCount,
		LastIntervention:    b.lastIntervention,
	}
}
