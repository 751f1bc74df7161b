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
// command, a streak ended by a success of the same kind, ApproachPivot once per
// streak — and [SeedFailures] restores the seed's single count, per signal.
//
// What it refuses to do: it never reads the clock, never scans text (that is package
// detect), and keeps no package-level mutable state.
package breaker
