// Package detect is the lightweight, per-event signal detection of the vibes
// assessment (seed assessment-logic.md, "Lightweight Detector"): a [PatternMatcher]
// for the human's frustration, success and corrections, loopwatch's friction signals
// ([FrictionConfig]: repeated requests, redirects after interrupts, negation-led
// replies, "still not working", doubt, correction phrases, exasperation and giving
// up, read through a multilingual [Lexicon]), a [ToolClassifier] for build/test/lint outcomes
// in tool output, the [EmaTracker], and the per-session [LightweightDetector] that
// ties them together.
//
// Compile a [Config] once into [Rules] (immutable, shared by all sessions and
// goroutines) and give each session its own [LightweightDetector]:
//
//	rules, err := detect.Compile(detect.DefaultConfig())
//	d := detect.NewLightweightDetector(rules)
//	signals := d.Detect(ev) // also moves d.FrustrationEMA() and d.SuccessEMA()
//
// Two configurations: [SeedConfig] is the seed's detector with every loopwatch
// extension off (its patterns and tool rules verbatim, ’ read as itself, every message
// read whole, EMAs moving on every event, no friction signal); [DefaultConfig] is
// loopwatch's — the seed's lists ([SeedFrustrationPatterns], [SeedSuccessPatterns],
// [SeedToolRules]) plus clearly separate extensions ([ExtraFrustrationPatterns],
// [DefaultCorrectionPatterns], [DefaultExtraToolRules], [DefaultFrictionConfig]) and
// the reading of tool results by their command and exit code ([ToolConfig]), each of
// which a configuration can switch off. The two sides compose: [WithSeedHumanText] and
// [WithSeedTools] (and their WithDefault twins) set one side and keep the other.
//
// Cost is bounded whatever the message: human text is read through a [TextWindow]
// (its first and last few KB); each pattern runs only where one of its start literals
// occurs (with a prefilter of literals every match needs), and the friction signals
// look each token up once in a hash table. A typical message takes a few
// microseconds and, without signals, allocates nothing. A tool output is read within
// ToolConfig.ScanBytes. The rules' literals (their AnyOf and AllOf, and literals
// derived from their patterns that every match holds) are found in an output of 8 KiB
// or more in one pass over it, whatever their number; a pattern runs only when its
// literals are there, as a deterministic automaton over rune classes (a table look-up
// a byte, jumping between partial matches to the next place one can start) — the same
// answer as Go's regexp running every rule over the whole text, at a fraction of the
// cost, and bounded even on an output made of one pattern's near misses. A pattern
// whose automaton would exceed its bounds (some thousands of states, hundreds of rune
// classes) is run by regexp, and one that can only match at a line start opening with
// a known literal (pytest's `(?m)^=+ …`) only from those line starts, anchored.
//
// What it refuses to do: it never scans assistant text or subagent (sidechain) prompts
// for the human's mood, never reads the clock, keeps no package-level mutable state,
// and knows nothing about files or event sources. It does not decide interventions;
// that is package breaker.
package detect
