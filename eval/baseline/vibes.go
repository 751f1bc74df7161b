package baseline

import (
	"fmt"
	"math"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// What vibes' detector and breaker count per signal (constants in vibes' code).
const (
	vibesSignalValue       = 0.3 // EMA value of one signal: min(0.3 × signals, 1)
	vibesPatternConfidence = 0.8 // breaker score of a pattern hit
	vibesErrorConfidence   = 1.0 // breaker score of an error event
	vibesToolFailureScore  = 0.5 // breaker score of a tool failure
)

// VibesConfig holds the settings vibes exposes; [DefaultVibesConfig] holds the values
// it ships with. The per-signal values (0.3 for the EMAs, 0.8, 1.0 and 0.5 for the
// breaker) are constants in vibes and here.
type VibesConfig struct {
	// Alpha is the EMAs' smoothing factor (0.2), clamped to [0, 1] as vibes does.
	Alpha float64
	// BreakerEnabled switches the circuit breaker on (true); off, it never opens.
	BreakerEnabled bool
	// Threshold is the cumulative score at which a closed breaker opens (1.0).
	Threshold float64
	// Cooldown is how long the breaker stays open (120 s), on event time.
	Cooldown time.Duration
	// MaxInterventions caps the openings of a session (3).
	MaxInterventions int
	// CheckpointsEnabled switches the checkpoint manager on (true).
	CheckpointsEnabled bool
	// CheckpointMinEvents is the number of buffered events a checkpoint needs (5).
	CheckpointMinEvents int
	// CheckpointInterval is the time between interval checkpoints (300 s).
	CheckpointInterval time.Duration
	// CheckpointFrustration is the frustration EMA at which a checkpoint fires (0.7).
	CheckpointFrustration float64
	// BufferEvents is the session buffer's capacity (100): the oldest event is dropped
	// when it is full.
	BufferEvents int
	// SidechainToolResults lets subagents' tool results reach vibes (true): Claude
	// Code runs its PostToolUse hooks, vibes' route for tool results of a terminal
	// session, for a subagent's tool calls too. Subagents' other events never reach it.
	SidechainToolResults bool
}

// DefaultVibesConfig returns the settings vibes ships with.
func DefaultVibesConfig() VibesConfig {
	return VibesConfig{
		Alpha:                 0.2,
		BreakerEnabled:        true,
		Threshold:             1.0,
		Cooldown:              120 * time.Second,
		MaxInterventions:      3,
		CheckpointsEnabled:    true,
		CheckpointMinEvents:   5,
		CheckpointInterval:    300 * time.Second,
		CheckpointFrustration: 0.7,
		BufferEvents:          100,
		SidechainToolResults:  true,
	}
}

// VibesSignals is what vibes' lightweight detector finds in one event.
type VibesSignals struct {
	// Buffered reports whether the event reaches vibes at all: it is held in the
	// session buffer that checkpoints count.
	Buffered bool
	// Relevant reports whether the detector assesses the event (it emits a
	// LightweightEvent): only relevant events move the EMAs, the breaker and the
	// checkpoints.
	Relevant bool
	// Negative and Positive count the shipped patterns that match the event's text,
	// each at most once.
	Negative, Positive int
	// ErrorEvent marks an error of the agent's stream: one more frustration signal,
	// +1.0 to the breaker.
	ErrorEvent bool
	// ToolFailure marks a failed tool call: one more frustration signal, +0.5 to the
	// breaker.
	ToolFailure bool
}

// frustration is the number of frustration signals: pattern hits, error events and
// tool failures.
func (s VibesSignals) frustration() int {
	return s.Negative + b2i(s.ErrorEvent) + b2i(s.ToolFailure)
}

// breakerDelta is what the event adds to the breaker's cumulative score.
func (s VibesSignals) breakerDelta() float64 {
	return vibesPatternConfidence*float64(s.Negative) + vibesErrorConfidence*float64(b2i(s.ErrorEvent)) +
		vibesToolFailureScore*float64(b2i(s.ToolFailure))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// VibesSignalsOf maps one normalised event onto what vibes' detector sees:
//
//   - a user message (vibes' user_input, or a UserPromptSubmit hook's prompt) and an
//     assistant message (its text_delta) are scanned with the shipped patterns;
//   - a tool result (a claude tool_result, or a post_tool_use hook) is a tool failure
//     when its ToolStatus is error, and otherwise a relevant event without signal;
//   - a system event of Subtype "error" (vibes' claude error event) or "api_error"
//     (Claude Code's record of an API error) is an error event; its message is not in
//     the normalised event, so it is not scanned;
//   - a UserPromptSubmit hook without a prompt is relevant with empty text;
//   - every other event (interrupts, other hooks, system records) reaches vibes
//     (buffered) but is not assessed;
//   - sidechain events do not reach vibes, except tool results when
//     sidechainToolResults is set.
func VibesSignalsOf(ev *analyze.Event, sidechainToolResults bool) VibesSignals {
	if ev.Sidechain && !(ev.Kind == analyze.KindToolResult && sidechainToolResults) {
		return VibesSignals{}
	}
	s := VibesSignals{Buffered: true}
	switch ev.Kind {
	case analyze.KindUserMessage:
		s.Relevant = true
		s.Negative, s.Positive = VibesHits(ev.UserContent)
	case analyze.KindAssistantMessage:
		s.Relevant = true
		s.Negative, s.Positive = VibesHits(ev.AssistantText)
	case analyze.KindToolResult:
		s.Relevant = true
		s.ToolFailure = ev.ToolStatus == analyze.ToolStatusError
	case analyze.KindSystem:
		if ev.Subtype == "error" || ev.Subtype == "api_error" {
			s.Relevant, s.ErrorEvent = true, true
		}
	case analyze.KindHook:
		s.Relevant = ev.HookName == "UserPromptSubmit"
	}
	return s
}

// BreakerState is the state of vibes' circuit breaker.
type BreakerState uint8

// The breaker's states.
const (
	BreakerClosed   BreakerState = iota // watching: signals add to the score
	BreakerOpen                         // intervened: signals are ignored until the cooldown ends
	BreakerHalfOpen                     // testing: a success closes it, a failure opens it again
)

// String returns "closed", "open" or "half_open".
func (s BreakerState) String() string {
	switch s {
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half_open"
	}
	return "closed"
}

// Transition is what the breaker did on one event.
type Transition uint8

// The breaker's transitions.
const (
	TransitionNone Transition = iota
	// TransitionOpened: the closed breaker reached the threshold and opened — an
	// intervention.
	TransitionOpened
	// TransitionReopened: a failure in half-open opened it again; no new intervention.
	TransitionReopened
	// TransitionHalfOpened: the first relevant event at or after the cooldown's end
	// moved the open breaker to half-open; its signals were discarded.
	TransitionHalfOpened
	// TransitionClosed: a success in half-open closed it and cleared the score.
	TransitionClosed
	// TransitionHalved: the closed breaker reached the threshold past the cap of
	// interventions; the score was halved instead.
	TransitionHalved
)

// String returns the transition's name ("" for none).
func (t Transition) String() string {
	switch t {
	case TransitionOpened:
		return "opened"
	case TransitionReopened:
		return "reopened"
	case TransitionHalfOpened:
		return "half_opened"
	case TransitionClosed:
		return "closed"
	case TransitionHalved:
		return "halved"
	}
	return ""
}

// CheckpointTrigger says why vibes' checkpoint manager fired.
type CheckpointTrigger uint8

// The checkpoint triggers. Vibes has a third, two tool failures in one event, which a
// single event cannot reach (it carries at most one).
const (
	CheckpointNone        CheckpointTrigger = iota
	CheckpointInterval                      // the first checkpoint, or CheckpointInterval since the last
	CheckpointFrustration                   // the frustration EMA is at least CheckpointFrustration
)

// String returns "time_interval", "frustration_ema" or "".
func (c CheckpointTrigger) String() string {
	switch c {
	case CheckpointInterval:
		return "time_interval"
	case CheckpointFrustration:
		return "frustration_ema"
	}
	return ""
}

// VibesStep is the shipped assessment's state after one event.
type VibesStep struct {
	VibesSignals
	FrustrationEMA float64 // after the event (unchanged by an event that is not relevant)
	SuccessEMA     float64
	Score          float64      // the breaker's cumulative score after the event
	State          BreakerState // after the event
	Transition     Transition
	Checkpoint     CheckpointTrigger
}

// VibesResult is the shipped assessment's replay of one session.
type VibesResult struct {
	Steps []VibesStep // aligned with the events

	// Interventions are the indices of the events at which the breaker opened from
	// closed, in order (at most MaxInterventions).
	Interventions []int
	// Reopens are the indices of the events at which a failure re-opened it from
	// half-open: no intervention in vibes' count.
	Reopens []int
	// Checkpoints are the indices of the events at which a checkpoint fired.
	Checkpoints []int

	// PeakFrustration is the highest frustration EMA of the session: a ranking score.
	PeakFrustration float64
	// PeakScore is the highest cumulative score the closed breaker reached, taken when
	// it is compared with the threshold (before an opening resets it or the cap halves
	// it): a ranking score. The session intervened exactly when PeakScore ≥ Threshold
	// (with MaxInterventions ≥ 1).
	PeakScore float64
	// Relevant counts the events the detector assessed.
	Relevant int
}

// VibesSession replays a session's events, in order, through what vibes ships today:
// the lightweight detector's patterns and EMAs, the circuit breaker and the checkpoint
// manager of one session, all on the events' recorded time. Event time must not go
// backwards (input.Session.Events does not).
func VibesSession(events []analyze.Event, cfg VibesConfig) (*VibesResult, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	alpha := min(max(cfg.Alpha, 0), 1)
	res := &VibesResult{Steps: make([]VibesStep, len(events))}
	br := vibesBreaker{cfg: &cfg}
	var (
		frustration, success float64
		buffered             int
		checkpointed         bool
		lastCheckpoint       time.Time
	)
	for i := range events {
		ev := &events[i]
		sig := VibesSignalsOf(ev, cfg.SidechainToolResults)
		step := &res.Steps[i]
		step.VibesSignals = sig
		if sig.Buffered {
			buffered = min(buffered+1, cfg.BufferEvents)
		}
		if sig.Relevant {
			res.Relevant++
			frustration = alpha*math.Min(vibesSignalValue*float64(sig.frustration()), 1) + (1-alpha)*frustration
			success = alpha*math.Min(vibesSignalValue*float64(sig.Positive), 1) + (1-alpha)*success
			res.PeakFrustration = max(res.PeakFrustration, frustration)
			if cfg.BreakerEnabled {
				step.Transition = br.record(ev.Time, sig)
				switch step.Transition {
				case TransitionOpened:
					res.Interventions = append(res.Interventions, i)
				case TransitionReopened:
					res.Reopens = append(res.Reopens, i)
				}
			}
			if cfg.CheckpointsEnabled && buffered >= cfg.CheckpointMinEvents {
				switch {
				case !checkpointed || ev.Time.Sub(lastCheckpoint) >= cfg.CheckpointInterval:
					step.Checkpoint = CheckpointInterval
				case frustration >= cfg.CheckpointFrustration:
					step.Checkpoint = CheckpointFrustration
				}
				if step.Checkpoint != CheckpointNone {
					checkpointed, lastCheckpoint, buffered = true, ev.Time, 0
					res.Checkpoints = append(res.Checkpoints, i)
				}
			}
		}
		step.FrustrationEMA, step.SuccessEMA = frustration, success
		step.Score, step.State = br.score, br.state
	}
	res.PeakScore = br.peak
	return res, nil
}

// vibesBreaker is vibes' CircuitBreaker for one session, on event time.
type vibesBreaker struct {
	cfg           *VibesConfig
	state         BreakerState
	score         float64 // cumulative failure score
	peak          float64 // highest score compared with the threshold
	interventions int
	lastOpened    time.Time
}

// record is vibes' record_event for one relevant event at time t.
func (b *vibesBreaker) record(t time.Time, sig VibesSignals) Transition {
	if b.state == BreakerOpen && t.Sub(b.lastOpened) >= b.cfg.Cooldown {
		b.state = BreakerHalfOpen
		return TransitionHalfOpened // this event's signals are discarded
	}
	delta := sig.breakerDelta()
	switch b.state {
	case BreakerClosed:
		b.score += delta
		b.peak = max(b.peak, b.score)
		if b.score < b.cfg.Threshold {
			return TransitionNone
		}
		if b.interventions >= b.cfg.MaxInterventions {
			b.score *= 0.5
			return TransitionHalved
		}
		b.state, b.score, b.lastOpened = BreakerOpen, 0, t
		b.interventions++
		return TransitionOpened
	case BreakerHalfOpen:
		if sig.Positive > 0 {
			b.state, b.score = BreakerClosed, 0
			return TransitionClosed
		}
		if delta > 0 {
			b.state, b.lastOpened = BreakerOpen, t
			return TransitionReopened
		}
	}
	return TransitionNone
}

func (c VibesConfig) validate() error {
	switch {
	case math.IsNaN(c.Alpha):
		return fmt.Errorf("vibes baseline: alpha is NaN")
	case math.IsNaN(c.Threshold) || math.IsNaN(c.CheckpointFrustration):
		return fmt.Errorf("vibes baseline: a threshold is NaN")
	case c.Cooldown < 0 || c.CheckpointInterval < 0:
		return fmt.Errorf("vibes baseline: negative cooldown or checkpoint interval")
	case c.MaxInterventions < 0 || c.CheckpointMinEvents < 0:
		return fmt.Errorf("vibes baseline: negative intervention cap or checkpoint minimum")
	case c.BufferEvents < 1:
		return fmt.Errorf("vibes baseline: the session buffer must hold at least one event")
	}
	return nil
}
