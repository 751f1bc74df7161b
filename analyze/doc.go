// Package analyze holds the domain types shared by loopwatch's detectors and by the
// online loops that ship them: quasar's per-cycle state ([CycleState], [ReviewFinding])
// and the agent-session [Event] that the vibes assessment consumes.
//
// The detectors themselves live in sub-packages, one per specification:
//
//   - [github.com/loopwatch/loopwatch/analyze/struggle]: struggle detection in the
//     coder–reviewer loop (seed struggle-detection.md);
//   - [github.com/loopwatch/loopwatch/analyze/fixloop]: the inner filter fix-loop
//     (seed inner-fix-loop.md);
//   - [github.com/loopwatch/loopwatch/analyze/assess]: the frustration/success
//     detector, circuit breaker and session assessment (seed assessment-logic.md).
//
// Everything under analyze is production code that the online loops import unchanged.
// It is pure and deterministic: time is always injected (replays run on event time,
// never the wall clock), there is no package-level mutable state, and nothing here
// knows about files, Parquet, Arrow or command-line flags. Nothing in analyze knows
// that it is being replayed.
package analyze
