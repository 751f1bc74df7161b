package detect

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

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
	// Window bounds how much of a human message the patterns and the lexicon read
	// (default [DefaultTextWindow]; the seed reads every message whole).
	Window TextWindow `json:"window"`
	// TypographicApostrophes reads U+2019 (’) as an ASCII apostrophe in human
	// messages, so "doesn’t" matches the seed's `doesn'?t` and the lexicon's
	// "doesn't". Default true; the seed's patterns see ’ as a different character.
	TypographicApostrophes bool `json:"typographic_apostrophes"`
	// Friction configures loopwatch's human-text friction signals (default
	// [DefaultFrictionConfig]; the seed has none).
	Friction FrictionConfig `json:"friction"`
}

// DefaultConfig returns loopwatch's detector: the defaults documented on each field of
// [Config].
func DefaultConfig() Config {
	return Config{
		Patterns:               DefaultPatterns(),
		ToolRules:              SeedToolRules(),
		ExtraToolRules:         DefaultExtraToolRules(),
		Tools:                  DefaultToolConfig(),
		EMA:                    DefaultEMAConfig(),
		SidechainToolSignals:   true,
		Window:                 DefaultTextWindow(),
		TypographicApostrophes: true,
		Friction:               DefaultFrictionConfig(),
	}
}

// SeedConfig returns the seed's detector, every loopwatch extension off: its human
// side ([WithSeedHumanText]) and its tool side ([WithSeedTools]).
func SeedConfig() Config { return WithSeedTools(WithSeedHumanText(DefaultConfig())) }

// WithSeedHumanText returns cfg reading human messages as the seed does: the seed's
// frustration and success patterns verbatim, no extra frustration patterns, the
// correction patterns ([SeedCorrectionPatterns]: the seed calls is_correction without
// defining it), ’ read as itself, every message read whole, no friction signal, and
// EMAs that move on every event with the seed's weights ([SeedEMAConfig]). The tool
// settings are kept.
func WithSeedHumanText(cfg Config) Config {
	cfg.Patterns, cfg.EMA, cfg.Window, cfg.TypographicApostrophes, cfg.Friction =
		SeedPatterns(), SeedEMAConfig(), TextWindow{}, false, SeedFrictionConfig()
	return cfg
}

// WithDefaultHumanText returns cfg reading human messages as loopwatch does by
// default: [DefaultPatterns], [DefaultEMAConfig], [DefaultTextWindow], ’ read as an
// apostrophe and [DefaultFrictionConfig]. The tool settings are kept.
func WithDefaultHumanText(cfg Config) Config {
	cfg.Patterns, cfg.EMA, cfg.Window, cfg.TypographicApostrophes, cfg.Friction =
		DefaultPatterns(), DefaultEMAConfig(), DefaultTextWindow(), true, DefaultFrictionConfig()
	return cfg
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
	window         TextWindow
	apostrophes    bool
	friction       FrictionConfig
	lex            *lexicon
}

// Compile validates and compiles cfg once.
func Compile(cfg Config) (*Rules, error) {
	if err := cfg.EMA.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Window.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Friction.Validate(); err != nil {
		return nil, err
	}
	pm, err := newPatternMatcher(cfg.Patterns, cfg.TypographicApostrophes)
	if err != nil {
		return nil, err
	}
	lex, err := compileLexicon(cfg.Friction.Lexicon, cfg.TypographicApostrophes)
	if err != nil {
		return nil, err
	}
	rules := make([]ToolRule, 0, len(cfg.ToolRules)+len(cfg.ExtraToolRules))
	tc, err := NewToolClassifierConfig(append(append(rules, cfg.ToolRules...), cfg.ExtraToolRules...), cfg.Tools)
	if err != nil {
		return nil, err
	}
	return &Rules{patterns: pm, tools: tc, ema: cfg.EMA, sidechainTools: cfg.SidechainToolSignals, window: cfg.Window,
		apostrophes: cfg.TypographicApostrophes, friction: cfg.Friction, lex: lex}, nil
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
// and, unless EMAConfig.EveryEvent is set, only they move the EMAs.
func IsHumanTurn(ev *analyze.Event) bool {
	return !ev.Sidechain && (ev.Kind == analyze.KindUserMessage || ev.Kind == analyze.KindInterrupt)
}

// Signals returns the signals of one event without touching any state; nil when
// there are none. Which events feed which detector:
//
//   - KindUserMessage (not sidechain): frustration and success patterns, then
//     correction detection, then the lexical friction signals, over the window of
//     UserContent (see [TextWindow]). Signals has no session, so it raises no
//     RepeatRequest or InterruptRedirect and reads every message as if it were not
//     the session's first and did not answer a question; a [LightweightDetector]
//     does all of that;
//   - KindInterrupt (not sidechain): one Interrupt signal; its text is not scanned;
//   - KindToolResult: the tool rules over ToolOutput with the explicit ToolStatus,
//     the command and its exit code (see [ToolClassifier.ClassifyEvent]); sidechain
//     results only when Config.SidechainToolSignals is set;
//   - everything else (assistant text, hooks, system records): nothing. Assistant
//     text is never scanned: the agent's "Perfect!" is not the human's.
func (r *Rules) Signals(ev *analyze.Event) []Signal {
	var buf [16]Signal
	var sc scratch
	out := r.appendSignals(buf[:0], ev, &sc, nil)
	if len(out) == 0 {
		return nil
	}
	return append([]Signal(nil), out...)
}

// scratch is the working memory of reading one human message; a detector reuses one.
type scratch struct {
	win  []byte // the message's window
	own  []byte // the window of the human's own words in a message that opens with a tag (see ownText)
	fold []byte // the window ASCII-lower-cased, for the pattern prefilters
	tok  tokens
	cur  sketch
}

// appendSignals appends ev's signals. With a session (s non-nil) it also raises the
// session's signals and updates it.
func (r *Rules) appendSignals(dst []Signal, ev *analyze.Event, sc *scratch, s *session) []Signal {
	switch ev.Kind {
	case analyze.KindUserMessage:
		if !ev.Sidechain {
			dst = r.appendHuman(dst, ev, sc, s)
		}
	case analyze.KindAssistantMessage:
		if s != nil {
			s.agentActed, s.actedAfter = true, s.humanMsgs
			if !ev.Sidechain {
				s.agentAsked = endsWithQuestion(ev.AssistantText)
			}
		}
	case analyze.KindInterrupt:
		if !ev.Sidechain {
			if s != nil && r.friction.IgnoreSelfInterrupts && !s.agentActed {
				break
			}
			dst = append(dst, Signal{Kind: Interrupt, Source: "interrupt"})
			if s != nil {
				s.afterInterrupt, s.interruptAt = true, ev.Time
				s.noteInterrupt()
			}
		}
	case analyze.KindToolResult:
		if s != nil {
			s.agentActed, s.actedAfter = true, s.humanMsgs
		}
		if !ev.Sidechain || r.sidechainTools {
			dst = r.tools.ClassifyEvent(dst, ev)
		}
	}
	return dst
}

// appendHuman appends the signals of a human message: the patterns' (frustration,
// success, correction), then the friction signals.
func (r *Rules) appendHuman(dst []Signal, ev *analyze.Event, sc *scratch, s *session) []Signal {
	sc.win = r.window.appendWindow(sc.win[:0], ev.UserContent, r.apostrophes)
	dst = r.patterns.appendHumanBytes(dst, sc.win, &sc.fold)
	c := &r.friction
	if !c.any() {
		return dst
	}
	midTurn := ev.MidTurn()
	if s != nil && !midTurn {
		s.agentActed = false // a prompt: the agent has not acted on it yet (words read mid-turn leave its turn going)
	}
	text := sc.win
	if c.SkipTagged {
		if own, tagged := ownText(ev.UserContent); tagged {
			if own == "" {
				return dst
			}
			sc.own = r.window.appendWindow(sc.own[:0], own, r.apostrophes)
			text = sc.own
		}
	}
	sc.tok.tokenize(text, r.apostrophes, true)
	r.lex.canonicalize(&sc.tok)
	first, asked := false, false
	if s != nil {
		first, asked = s.humanMsgs == 0 && !s.resumed, s.agentAsked
	}
	dst = r.lexicalSignals(dst, &sc.tok, text, first, asked)
	if s != nil {
		if sc.tok.fenced {
			// A request is compared whole, its code included: what it asks for.
			sc.tok.tokenize(text, r.apostrophes, false)
			r.lex.canonicalize(&sc.tok)
		}
		dst = r.sessionSignals(dst, s, &sc.tok, &sc.cur, ev.Time, midTurn)
		s.humanMsgs++
		s.afterInterrupt, s.agentAsked = false, false
	}
	return dst
}

// endsWithQuestion reports whether text ends by asking: its last character other
// than white space, closing quotes, brackets and markdown emphasis is a question mark,
// or a question mark ends one of its last lines that only the options it offers
// follow ("Should I also update the docs?\n1. Yes\n2. No"), before a short bracketed
// answer key ("Go ahead? (y/n)"). A question prose follows ("## What was wrong?\nThe
// parser skipped empty lines.") is not asked.
func endsWithQuestion(text string) bool {
	tail := text[max(0, len(text)-askedBytes):]
	if strings.IndexByte(tail, '?') < 0 && !strings.Contains(tail, "？") {
		return false
	}
	for k := 0; k < askedLines; k++ {
		i := strings.LastIndexByte(strings.TrimRight(tail, " \t\r\n"), '\n')
		raw := tail[i+1:]
		line := strings.TrimRight(raw, " \t\r\n*_`")
		if j := strings.LastIndexByte(line, '('); j >= 0 && len(line)-j <= 12 && strings.HasSuffix(line, ")") {
			line = strings.TrimRight(line[:j], " ") // "(y/n)", "[Y/n]" after the question
		} else if j := strings.LastIndexByte(line, '['); j >= 0 && len(line)-j <= 12 && strings.HasSuffix(line, "]") {
			line = strings.TrimRight(line[:j], " ")
		}
		line = strings.TrimRight(line, " *_`\"')]»」』")
		if strings.HasSuffix(line, "?") || strings.HasSuffix(line, "？") {
			return true
		}
		if i < 0 || !isOption(raw) {
			break // a question before prose ("What was wrong?\nThe parser …") is the agent's own
		}
		tail = tail[:i]
	}
	for len(text) > 0 {
		r, size := utf8.DecodeLastRuneInString(text)
		switch r {
		case ' ', '\t', '\r', '\n', '*', '_', '`', '"', '\'', ')', ']', '»', '」', '』':
			text = text[:len(text)-size]
		case '?', '？':
			return true
		default:
			return false
		}
	}
	return false
}

// isOption reports whether line offers a choice: a list item ("- keep it", "* drop
// it", "2. add tests", "b) both").
func isOption(line string) bool {
	line = strings.TrimLeft(line, " \t")
	switch {
	case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "+ "), strings.HasPrefix(line, "• "):
		return true
	}
	n := 0 // the item's mark: up to three digits, or one letter
	for n < len(line) && n < 3 && isDigit(line[n]) {
		n++
	}
	if n == 0 && len(line) > 0 && isLetter(line[0]) {
		n = 1
	}
	return n > 0 && n+1 < len(line) && (line[n] == '.' || line[n] == ')') && line[n+1] == ' '
}

// askedLines and askedBytes bound where endsWithQuestion looks for a question: the
// last lines of an agent's message, in its last bytes.
const (
	askedLines = 6
	askedBytes = 600
)

// LightweightDetector is the seed's per-session detector: the shared [Rules] plus the
// session's frustration and success EMAs, and what the friction signals remember of
// the session (see [FrictionConfig]). It is not safe for concurrent use; keep one per
// session.
type LightweightDetector struct {
	rules       *Rules
	frustration EmaTracker
	success     EmaTracker
	sc          scratch
	s           session
	buf         [16]Signal
	// failing holds the targets of the session's tool failures not yet followed by a
	// ToolSuccess of the same target, most recent last (at most maxFailing).
	failing []string
}

// maxFailing bounds the open ToolFailure targets a detector remembers.
const maxFailing = 32

// NewLightweightDetector returns a detector with both EMAs at 0.
func NewLightweightDetector(rules *Rules) *LightweightDetector {
	d := &LightweightDetector{
		rules:       rules,
		frustration: NewEmaTracker(rules.ema.Alpha),
		success:     NewEmaTracker(rules.ema.Alpha),
	}
	if rules.friction.Repeat.Enabled {
		d.s.hist = make([]request, rules.friction.Repeat.History)
	}
	return d
}

// Resume says the detector's session is one the assessment had open before — it
// reopened it after an inactivity timeout or an end hook — so its next human message
// is not the session's first (FrictionConfig.SkipFirstMessage). The detector's other
// state starts afresh, as a new detector's.
func (d *LightweightDetector) Resume() { d.s.resumed = true }

// Detect returns the signals of ev (see [Rules.Signals]; a detector also raises the
// signals that need the session) and folds the event's frustration and success values
// into the EMAs: on human turns only (see [IsHumanTurn]), or on every event with
// EMAConfig.EveryEvent. A ToolSuccess or ToolInconclusive is kept only when it ends a
// failure of the same target earlier in the session, so that a successful "git add"
// or an unreadable run says nothing unless it failed before. It allocates only when ev has signals.
func (d *LightweightDetector) Detect(ev analyze.Event) []Signal {
	out := d.rules.appendSignals(d.buf[:0], &ev, &d.sc, &d.s)
	if ev.Kind == analyze.KindToolResult && len(out) > 0 {
		out = d.trackOther(out)
	}
	var sig []Signal
	if len(out) > 0 {
		sig = append([]Signal(nil), out...)
	}
	if d.rules.ema.EveryEvent || IsHumanTurn(&ev) {
		d.frustration.Update(d.rules.ema.FrustrationValue(sig))
		d.success.Update(d.rules.ema.SuccessValue(sig))
	}
	return sig
}

// forget clears what the detector remembers of its session (not the EMAs), keeping
// its scratch space: benchmarks read one message again and again as if new.
func (d *LightweightDetector) forget() {
	hist := d.s.hist
	d.s = session{hist: hist}
}

// FrustrationEMA returns the current frustration EMA.
func (d *LightweightDetector) FrustrationEMA() float64 { return d.frustration.Value() }

// SuccessEMA returns the current success EMA.
func (d *LightweightDetector) SuccessEMA() float64 { return d.success.Value() }

// trackOther keeps the open failure targets and drops the ToolSuccesses and
// ToolInconclusives that end none.
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
		case s.Kind.IsToolSuccess() || s.Kind == ToolInconclusive:
			i := slices.Index(d.failing, s.Target)
			if i >= 0 {
				d.failing = slices.Delete(d.failing, i, i+1)
			} else if s.Kind == ToolSuccess || s.Kind == ToolInconclusive {
				continue
			}
		}
		kept = append(kept, s)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}
