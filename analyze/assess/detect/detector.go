package detect

import (
	"fmt"
	"slices"

	"github.com/loopwatch/loopwatch/analyze"
)

// Config configures the lightweight detection. Every field is plain data, so a
// replay can load it from JSON.
type Config struct {
	// Patterns are the human-message patterns (default [DefaultPatterns]).
	Patterns Patterns `json:"patterns"`
	// ToolRules is the base tool rule set (default [SeedToolRules], the seed's literal
	// rules).
	ToolRules []ToolRule `json:"tool_rules"`
	// ExtraToolRules extend ToolRules (default [DefaultExtraToolRules]: Go, Rust,
	// Node, Python, Java, .NET, Swift, Elixir, make); set it to [] to run the seed's
	// rules alone.
	ExtraToolRules []ToolRule `json:"extra_tool_rules"`
	// Tools says how tool results are read beyond the text rules: the status, the
	// command and its exit code, quiet tools, the scan bound (default
	// [DefaultToolConfig]; the seed's is [SeedToolConfig]).
	Tools ToolConfig `json:"tools"`
	// EMA says how the frustration and success EMAs move.
	EMA EMAConfig `json:"ema"`
	// SidechainToolSignals makes tool results of subagents (sidechain events) produce
	// tool signals. Default true: a subagent's failing build is the session's failing
	// build. Sidechain user messages and interrupts never produce signals: they are
	// written by the parent agent, not by the human.
	SidechainToolSignals bool `json:"sidechain_tool_signals"`
}

// DefaultConfig returns the defaults documented on each field of [Config].
func DefaultConfig() Config {
	return Config{
		Patterns:             DefaultPatterns(),
		ToolRules:            SeedToolRules(),
		ExtraToolRules:       DefaultExtraToolRules(),
		Tools:                DefaultToolConfig(),
		EMA:                  DefaultEMAConfig(),
		SidechainToolSignals: true,
	}
}

// WithSeedTools returns cfg reading tool results as the seed does: its literal rules
// ([SeedToolRules]) over the output text, no extension rules, and [SeedToolConfig]
// (no status rules, no commands, no bound). The human-message settings are kept.
func WithSeedTools(cfg Config) Config {
	cfg.ToolRules, cfg.ExtraToolRules, cfg.Tools = SeedToolRules(), []ToolRule{}, SeedToolConfig()
	return cfg
}

// WithDefaultTools returns cfg reading tool results as loopwatch does by default:
// the seed's rules, [DefaultExtraToolRules] and [DefaultToolConfig]. The
// human-message settings are kept.
func WithDefaultTools(cfg Config) Config {
	cfg.ToolRules, cfg.ExtraToolRules, cfg.Tools = SeedToolRules(), DefaultExtraToolRules(), DefaultToolConfig()
	return cfg
}

// Rules is a compiled [Config]: immutable, safe for concurrent use, and shared by the
// per-session [LightweightDetector]s.
type Rules struct {
	patterns       *PatternMatcher
	tools          *ToolClassifier
	ema            EMAConfig
	sidechainTools bool
}

// Compile validates and compiles cfg once.
func Compile(cfg Config) (*Rules, error) {
	if err := cfg.EMA.Validate(); err != nil {
		return nil, err
	}
	pm, err := NewPatternMatcher(cfg.Patterns)
	if err != nil {
		return nil, err
	}
	rules := make([]ToolRule, 0, len(cfg.ToolRules)+len(cfg.ExtraToolRules))
	tc, err := NewToolClassifierConfig(append(append(rules, cfg.ToolRules...), cfg.ExtraToolRules...), cfg.Tools)
	if err != nil {
		return nil, err
	}
	return &Rules{patterns: pm, tools: tc, ema: cfg.EMA, sidechainTools: cfg.SidechainToolSignals}, nil
}

// MustCompile is [Compile] for configurations known to be valid, such as
// DefaultConfig(); it panics on error.
func MustCompile(cfg Config) *Rules {
	r, err := Compile(cfg)
	if err != nil {
		panic(fmt.Sprintf("detect.MustCompile: %v", err))
	}
	return r
}

// Patterns returns the compiled pattern matcher.
func (r *Rules) Patterns() *PatternMatcher { return r.patterns }

// Tools returns the compiled tool classifier.
func (r *Rules) Tools() *ToolClassifier { return r.tools }

// EMA returns the EMA configuration.
func (r *Rules) EMA() EMAConfig { return r.ema }

// IsHumanTurn reports whether ev is a turn of the human: a non-sidechain user message
// or interrupt. Only human turns are scanned for frustration, success and corrections,
// and only they move the EMAs.
func IsHumanTurn(ev *analyze.Event) bool {
	return !ev.Sidechain && (ev.Kind == analyze.KindUserMessage || ev.Kind == analyze.KindInterrupt)
}

// Signals returns the signals of one event without touching any state; nil when
// there are none. Which events feed which detector:
//
//   - KindUserMessage (not sidechain): frustration and success patterns, then
//     correction detection, over UserContent;
//   - KindInterrupt (not sidechain): one Interrupt signal; its text is not scanned;
//   - KindToolResult: the tool rules over ToolOutput with the explicit ToolStatus,
//     the command and its exit code (see [ToolClassifier.ClassifyEvent]); sidechain
//     results only when Config.SidechainToolSignals is set;
//   - everything else (assistant text, hooks, system records): nothing. Assistant
//     text is never scanned: the agent's "Perfect!" is not the human's.
func (r *Rules) Signals(ev *analyze.Event) []Signal {
	var buf [8]Signal
	out := r.appendSignals(buf[:0], ev)
	if len(out) == 0 {
		return nil
	}
	return append([]Signal(nil), out...)
}

func (r *Rules) appendSignals(dst []Signal, ev *analyze.Event) []Signal {
	switch ev.Kind {
	case analyze.KindUserMessage:
		if !ev.Sidechain {
			dst = r.patterns.appendHuman(dst, ev.UserContent)
		}
	case analyze.KindInterrupt:
		if !ev.Sidechain {
			dst = append(dst, Signal{Kind: Interrupt, Source: "interrupt"})
		}
	case analyze.KindToolResult:
		if !ev.Sidechain || r.sidechainTools {
			dst = r.tools.ClassifyEvent(dst, ev)
		}
	}
	return dst
}

// LightweightDetector is the seed's per-session detector: the shared [Rules] plus the
// session's frustration and success EMAs. It is not safe for concurrent use; keep one
// per session.
type LightweightDetector struct {
	rules       *Rules
	frustration EmaTracker
	success     EmaTracker
	// failing holds the targets of the session's tool failures not yet followed by a
	// ToolSuccess of the same target, most recent last (at most maxFailing).
	failing []string
}

// maxFailing bounds the open ToolFailure targets a detector remembers.
const maxFailing = 32

// NewLightweightDetector returns a detector with both EMAs at 0.
func NewLightweightDetector(rules *Rules) *LightweightDetector {
	return &LightweightDetector{
		rules:       rules,
		frustration: NewEmaTracker(rules.ema.Alpha),
		success:     NewEmaTracker(rules.ema.Alpha),
	}
}

// Detect returns the signals of ev (see [Rules.Signals]) and, when ev is a human turn
// (see [IsHumanTurn]), folds the turn's frustration and success values into the EMAs.
// A ToolSuccess is kept only when it ends a failure of the same target earlier in the
// session, so that a successful "git add" says nothing unless it failed before.
// It allocates only when ev has signals.
func (d *LightweightDetector) Detect(ev analyze.Event) []Signal {
	sig := d.rules.Signals(&ev)
	if ev.Kind == analyze.KindToolResult && len(sig) > 0 {
		sig = d.trackOther(sig)
	}
	if IsHumanTurn(&ev) {
		d.frustration.Update(d.rules.ema.FrustrationValue(sig))
		d.success.Update(d.rules.ema.SuccessValue(sig))
	}
	return sig
}

// FrustrationEMA returns the current frustration EMA.
func (d *LightweightDetector) FrustrationEMA() float64 { return d.frustration.Value() }

// SuccessEMA returns the current success EMA.
func (d *LightweightDetector) SuccessEMA() float64 { return d.success.Value() }

// trackOther keeps the open failure targets and drops the ToolSuccesses that end
// none.
func (d *LightweightDetector) trackOther(sig []Signal) []Signal {
	kept := sig[:0]
	for _, s := range sig {
		switch {
		case s.Kind.IsToolFailure():
			if !slices.Contains(d.failing, s.Target) {
				if len(d.failing) == maxFailing {
					d.failing = append(d.failing[:0], d.failing[1:]...)
				}
				d.failing = append(d.failing, s.Target)
			}
		case s.Kind == ToolSuccess:
			i := slices.Index(d.failing, s.Target)
			if i < 0 {
				continue
			}
			d.failing = slices.Delete(d.failing, i, i+1)
		}
		kept = append(kept, s)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}
