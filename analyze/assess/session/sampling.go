package session

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// SamplingConfig configures the [Sampler]. The seed leaves every value open.
type SamplingConfig struct {
	// BurnInSessions: the first this many sessions that end are always assessed.
	// Default 20: enough sessions to see the prompts and the pipeline behave before
	// sampling thins them out.
	BurnInSessions int `json:"burn_in_sessions"`
	// LongSessionThreshold: sessions with more messages than this are always
	// assessed. Default 100: above the seed's examples (47 and 89 messages), so only
	// unusually long sessions qualify.
	LongSessionThreshold int `json:"long_session_threshold"`
	// BaseRate is the probability that any other session is assessed. Default 0.2.
	// A replay that scores every session against labels sets it to 1.
	BaseRate float64 `json:"base_rate"`
	// Seed seeds the base-rate draws. Default 1.
	Seed uint64 `json:"seed"`
}

// DefaultSamplingConfig returns the defaults documented on [SamplingConfig].
func DefaultSamplingConfig() SamplingConfig {
	return SamplingConfig{BurnInSessions: 20, LongSessionThreshold: 100, BaseRate: 0.2, Seed: 1}
}

// Validate checks the ranges.
func (c SamplingConfig) Validate() error {
	if c.BurnInSessions < 0 || c.LongSessionThreshold < 0 {
		return fmt.Errorf("session: sampling thresholds must be ≥ 0")
	}
	if !(c.BaseRate >= 0 && c.BaseRate <= 1) {
		return fmt.Errorf("session: base_rate %v outside [0, 1]", c.BaseRate)
	}
	return nil
}

// SamplingContext is what the sampler knows about an ended session.
type SamplingContext struct {
	SessionID               string
	CircuitBreakerTriggered bool
	HasExplicitFeedback     bool
	MessageCount            int
}

// The reasons a [Decision] gives.
const (
	ReasonBurnIn           = "burn_in"
	ReasonCircuitBreaker   = "circuit_breaker"
	ReasonExplicitFeedback = "explicit_feedback"
	ReasonLongSession      = "long_session"
	ReasonBaseRate         = "base_rate"
	ReasonNotSampled       = "not_sampled"
)

// Decision is the sampler's verdict on one session, with the rule that decided it.
type Decision struct {
	Assess bool   `json:"assess"`
	Reason string `json:"reason"`
}

// Sampler decides which ended sessions get a heavy assessment (the seed's
// SamplingStrategy). Not safe for concurrent use.
type Sampler struct {
	cfg  SamplingConfig
	seen uint64
}

// NewSampler returns a sampler that has seen no session.
func NewSampler(cfg SamplingConfig) (*Sampler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Sampler{cfg: cfg}, nil
}

// ShouldAssess applies the seed's rules in order: burn-in, circuit breaker triggered,
// explicit feedback, long session, base rate. Every call counts one session towards
// the burn-in.
//
// The base-rate draw is [Sampler.Draw]: a seeded random number keyed by the
// session id, not the next number of one shared stream, so a session's fate does not
// depend on which other sessions a worker or shard happened to see before it. Only
// the burn-in depends on order, as in the seed.
func (s *Sampler) ShouldAssess(c SamplingContext) Decision {
	n := s.seen
	s.seen++
	switch {
	case n < uint64(s.cfg.BurnInSessions):
		return Decision{true, ReasonBurnIn}
	case c.CircuitBreakerTriggered:
		return Decision{true, ReasonCircuitBreaker}
	case c.HasExplicitFeedback:
		return Decision{true, ReasonExplicitFeedback}
	case c.MessageCount > s.cfg.LongSessionThreshold:
		return Decision{true, ReasonLongSession}
	case s.Draw(c.SessionID) < s.cfg.BaseRate:
		return Decision{true, ReasonBaseRate}
	}
	return Decision{false, ReasonNotSampled}
}

// Seen returns how many sessions the sampler has decided on.
func (s *Sampler) Seen() uint64 { return s.seen }

// Draw returns the session's base-rate draw in [0, 1): the first number of a PCG
// generator seeded with (Seed, FNV-1a-64 of the session id).
func (s *Sampler) Draw(sessionID string) float64 {
	h := fnv.New64a()
	h.Write([]byte(sessionID))
	return rand.New(rand.NewPCG(s.cfg.Seed, h.Sum64())).Float64()
}
