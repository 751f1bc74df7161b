package assess

import (
	"errors"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/checkpoint"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/duration"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// Config is the whole assessment configuration: plain data with JSON tags, so a replay
// can load it from a file. Start from [DefaultConfig] and override fields; each
// sub-config documents its defaults and why.
type Config struct {
	Detect     detect.Config        `json:"detect"`
	Breaker    breaker.Config       `json:"breaker"`
	Checkpoint checkpoint.Config    `json:"checkpoint"`
	Buffer     session.BufferConfig `json:"buffer"`
	// EndHooks are the hook names that end a session (default
	// session.DefaultEndHooks: "SessionEnd"; the seed's is session.SeedEndHooks:
	// "Stop", which Claude Code fires after every turn).
	EndHooks []string `json:"end_hooks"`
	// EndSystemEvents are the subtypes of system events (analyze.KindSystem) that end
	// a session: a source's own record of a session's end (default
	// session.DefaultEndSystemEvents: vibes's "session_removed").
	EndSystemEvents []string `json:"end_system_events"`
	// InactivityTimeout ends a session after this much event time without an event
	// of it. Default 30m: longer than the pauses of a human reading diffs or testing
	// by hand, short enough that an interleaved log closes its stale sessions.
	InactivityTimeout duration.Duration      `json:"inactivity_timeout"`
	Sampling          session.SamplingConfig `json:"sampling"`
	// Offline tunes the default, offline session analyzer.
	Offline llm.OfflineConfig `json:"offline"`
	// PollMax and PollWait are Run's batch size and wait, the seed's poll(100, 1s).
	PollMax  int               `json:"poll_max"`
	PollWait duration.Duration `json:"poll_wait"`
}

// DefaultConfig returns the seed's values where it gives them and documented choices
// where it is silent.
func DefaultConfig() Config {
	return Config{
		Detect:            detect.DefaultConfig(),
		Breaker:           breaker.DefaultConfig(),
		Checkpoint:        checkpoint.DefaultConfig(),
		Buffer:            session.DefaultBufferConfig(),
		EndHooks:          session.DefaultEndHooks(),
		EndSystemEvents:   session.DefaultEndSystemEvents(),
		InactivityTimeout: duration.Duration(30 * time.Minute),
		Sampling:          session.DefaultSamplingConfig(),
		Offline:           llm.DefaultOfflineConfig(),
		PollMax:           100,
		PollWait:          duration.Duration(time.Second),
	}
}

// Validate checks the parts that are not checked when they are compiled.
func (c Config) Validate() error { return c.validate(true) }

// validate is Validate; offline says whether Offline is checked too (it is not read
// when the processor is given its analyzer).
func (c Config) validate(offline bool) error {
	if err := c.Breaker.Validate(); err != nil {
		return err
	}
	if err := c.Buffer.Validate(); err != nil {
		return err
	}
	if err := c.Sampling.Validate(); err != nil {
		return err
	}
	if offline {
		if err := c.Offline.Validate(); err != nil {
			return err
		}
	}
	if c.InactivityTimeout <= 0 {
		return errors.New("assess: inactivity_timeout must be > 0")
	}
	if c.PollMax < 1 {
		return errors.New("assess: poll_max must be ≥ 1")
	}
	return nil
}
