// Package breaker is the vibes assessment's circuit breaker and intervention
// mechanism (seed assessment-logic.md, "Circuit Breaker" and "Intervention
// Mechanism"): [CircuitBreaker] folds each event's signals into its state and says
// when a session needs one of the three [Intervention]s, whose seed messages it
// delivers to a [Sink] ([ChannelSink], [RecordingSink]).
//
// Readings of the seed: all time is event time passed in by the caller (the seed's
// Instant::now() becomes the event's timestamp), and a breaker holds one session's
// state (the processor keeps one per session). Its failure side ([FailureConfig])
// departs from the seed by default — failures counted per event and per kind of
// command, a streak ended by a success of the same kind or a passing run of the
// same suite, started anew by progress in its test counts, ApproachPivot once per
// streak — and [SeedFailures] restores the seed's single count, per signal.
//
// [SeedConfig] is the seed's breaker; [DefaultConfig] is loopwatch's, whose
// correction side counts every push-back signal of package detect as a correction
// (Config.CorrectionKinds), keeps corrections out of the failure streak, checks in at
// the friction turn itself (a low threshold over detect's default EMA) and fires the
// storm and the check-in only at an event that raised them (Config.EdgeTriggered).
//
// What it refuses to do: it never reads the clock, never scans text (that is package
// detect), and keeps no package-level mutable state.
package breaker
