// Package assess is the vibes assessment of seed assessment-logic.md as importable
// Go: the [Processor] that runs, for every event of an agent session, lightweight
// detection (package detect), the circuit breaker and its interventions (package
// breaker), checkpoints (package checkpoint), the session buffer, end detection and
// sampling (package session), and the segment/session assessment (package llm), as a
// consumer of an event log (package eventlog).
//
// The replay drives the very code the online loop runs: [Processor.Process] takes one
// event synchronously and returns a [Step] with everything decided for it (signals,
// both EMAs, the breaker state, the intervention, the checkpoint and its summary, the
// session end and its analysis); [Processor.EndSession] flushes a session whose
// input ended without an end hook; [Processor.Run] is the seed's poll–process–commit
// loop built on Process.
//
//	p, err := assess.New(assess.DefaultConfig(), assess.Options{Sink: sink})
//	step, err := p.Process(ctx, ev)
//
// A replay that opens one processor per session compiles the detection rules once
// and passes them in Options.Rules.
//
// # Readings of the seed
//
//   - State is per session. The seed's sketch holds one detector, one breaker and one
//     checkpoint manager for the whole log; a log interleaves sessions, and a single
//     breaker would let one session's corrections trigger an intervention in another.
//     Here each session has its own detector (EMAs), breaker and checkpoint manager.
//     The sampler's burn-in counts sessions across the processor, as in the seed.
//   - All time is event time. Every Instant::now() and elapsed() of the seed reads the
//     event's timestamp: the correction window, the cooldown, the checkpoint timer and
//     the inactivity timeout all run on it, so a replay decides exactly as the live
//     loop did.
//   - Which events feed what: user-content detectors scan only human turns
//     (non-sidechain user messages); tool rules scan only tool results, with the
//     source's explicit status authoritative for failure-versus-not; an interrupt the
//     agent had acted on is a friction signal, and the message after it tells whether
//     it redirected the agent; subagent (sidechain) prompts never count as the human.
//     See detect.Rules.Signals.
//   - Failures are counted per event and per kind of command, not per signal in one
//     session count (the seed's loop would count one failing cargo test twice, and
//     only a build or test success would ever reset it): see breaker.FailureConfig;
//     breaker.SeedFailures is the seed's.
//   - A session ends on a "SessionEnd" hook by default, not on "Stop", which Claude
//     Code fires after every turn (configurable: session.SeedEndHooks); on a source's
//     own end record (vibes's session_removed, a system event: Config.EndSystemEvents);
//     on inactivity past the timeout — at the next event's time, or online at the
//     loop's clock while the log is idle ([Options.Clock]); or when the caller flushes
//     it.
//   - An event is processed whole: an error (the sink refusing an intervention, a
//     cancellation mid-analysis) comes back with a Step whose state changes are made,
//     and Run and Drain commit that event, so it is never processed twice; a failed
//     or cancelled analysis is recorded as failed ([SessionEnd.Failed]), never as an
//     outcome.
//   - Summariser and analyzer errors are reported in the Step and do not stop the
//     assessment; a session whose analysis failed has no outcome (its Err says why).
//
// What it refuses to do: it never reads the wall clock or a global random source,
// keeps no package-level mutable state, reads and writes no file (a log kept in a
// file is replay/eventlogfile's, an eventlog.Log like any other), and knows nothing
// of transcripts' on-disk formats (the replay maps them onto analyze.Event). It is not safe for concurrent use: one Processor per
// goroutine.
package assess
