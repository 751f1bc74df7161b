// Package detect is the lightweight, per-event signal detection of the vibes
// assessment (seed assessment-logic.md, "Lightweight Detector"): a [PatternMatcher]
// for the human's frustration, success and corrections, a [ToolClassifier] for
// build/test/lint outcomes in tool output, the [EmaTracker], and the per-session
// [LightweightDetector] that ties them together.
//
// Compile a [Config] once into [Rules] (immutable, shared by all sessions and
// goroutines) and give each session its own [LightweightDetector]:
//
//	rules, err := detect.Compile(detect.DefaultConfig())
//	d := detect.NewLightweightDetector(rules)
//	signals := d.Detect(ev) // also moves d.FrustrationEMA() and d.SuccessEMA()
//
// The defaults are the seed's patterns and tool rules verbatim
// ([SeedFrustrationPatterns], [SeedSuccessPatterns], [SeedToolRules]) plus clearly
// separate extension lists ([ExtraFrustrationPatterns], [DefaultCorrectionPatterns],
// [DefaultExtraToolRules]) that a configuration can empty, and the reading of tool
// results by their command and exit code ([ToolConfig]); [WithSeedTools] is the
// seed's literal tool reading.
//
// What it refuses to do: it never scans assistant text or subagent (sidechain) prompts
// for the human's mood, never reads the clock, keeps no package-level mutable state,
// and knows nothing about files or event sources. It does not decide interventions;
// that is package breaker.
package detect
