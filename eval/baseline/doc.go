// Package baseline re-implements what quasar and vibes ship today, so that every
// metrics table can show, beside the configured detector and the seed preset, the
// detectors the two projects actually run. They are baselines to compare against:
// they live beside the evaluation code and never in analyze/, which holds what
// loopwatch ships. Both are pure and deterministic and run on event time, never the
// wall clock.
//
// # Quasar's struggle detection ([QuasarRun], [QuasarEvaluate])
//
// Source: ../shared/formats/quasar.md, "What quasar ships today", checked against
// quasar's internal/loop/struggle.go and the cycle body of internal/loop/loop.go.
//
// Quasar's loop, after a reviewer rejection, appends the cycle's FilterCheckName to
// FilterHistory and the cycle's findings to AllFindings, and only then calls the
// seed's formula, which compares the current findings with the whole of AllFindings.
// Every finding therefore matches itself: the overlap is 1 whenever the reviewer
// raised anything. The filter check name is always empty there (a failing chain sends
// the cycle back to the coder before the review, and quasar does not evaluate then),
// so filter-repeat is always 0. From MinCyclesBeforeCheck on, the score is
//
//	0.40 · [findings raised] + 0.25 · min(burnRate / BudgetBurnThreshold, 1)
//
// (for an overlap threshold of at most 1), which, with the defaults, triggers whenever
// the reviewer raised a finding and burnRate ≥ 0.24. QuasarEvaluate is the formula exactly as quasar has it: Jaccard
// similarity over lower-cased white-space tokens, counted at ≥ 0.8 (two descriptions
// without tokens are identical, one without tokens matches nothing), thresholds of 0
// saturating their signal through quasar's clamp (x/0 = +Inf → 1, 0/0 = NaN → 0), the
// score left uncapped, Reason written only when triggered. QuasarRun accumulates each
// cycle's CycleState with analyze.CycleState.EndCycle, as the replay does for the
// configured detector, and evaluates at quasar's decision points ([ReviewerRejected],
// cycle ≥ MinCyclesBeforeCheck, Enabled): its verdict, ranking score and lead time are
// defined like the replay's for the configured detector.
//
// The thresholds are a [struggle.StruggleConfig]; [struggle.DefaultStruggleConfig]
// holds quasar's default values. Quasar's own DefaultStruggleConfig has the same
// thresholds with Enabled false (the loop runs no detection unless configured to);
// the baseline shows what the shipped detector decides when it is switched on.
// Weights added to the configured detector's config are ignored: quasar has none.
//
// Interpretations: a cycle of a rebuilt history that has a coder comment and no
// reviewer comment (a run cut off mid-cycle) is not a rejection, so not a decision
// point; in a beads history the filter chain never ran (FilterCheckName is "") and
// every unapproved reviewed cycle is a decision point. After the first trigger quasar
// would have stopped the run; the later cycles are still evaluated so that MaxScore
// ranks runs as the replay ranks them for the configured detector.
//
// # Vibes' assessment ([VibesSession], [VibesSignalsOf], [VibesHits])
//
// Source: ../shared/formats/vibes.md, "What vibes ships today", checked against the
// vibes-groove plugin's assessment code (lightweight.rs, circuit_breaker.rs,
// checkpoint.rs, session_buffer.rs, config.rs, sync_processor.rs).
//
//   - Patterns: 10 negative and 8 positive ([VibesPatterns]), all (?i), each counted at
//     most once per message. Vibes compiles them with Rust's regex crate, whose \b is a
//     Unicode word boundary and whose \s is Unicode white space; Go's RE2 syntax has
//     ASCII \b and \s. The baseline keeps the regex crate's meaning: "\bx\b" does not
//     match "áxβ", "not\s+work" matches across a no-break space. For ASCII text the
//     two agree. Go's Unicode tables may be a version behind the regex crate's. A
//     pattern is read where its word occurs in the message (the character before
//     it, the rest of the word, the character after), not by searching the whole
//     message with a regular expression, except in text holding ſ or the Kelvin
//     sign, which (?i) folds onto ASCII letters; FuzzVibesHits holds the two ways to
//     each other.
//   - Relevant events (see [VibesSignalsOf] for the mapping from normalised events):
//     user prompts and assistant text are scanned; a tool result is a tool failure
//     when its status is error; an error event of the agent's stream is one more
//     negative signal.
//   - EMAs, α 0.2, updated on every relevant event with that event's values:
//     frustration min(0.3 × (pattern hits + error events + tool failures), 1), success
//     min(0.3 × positive hits, 1). vibes.md's "negative hits" includes the error event,
//     which vibes records as a negative signal.
//   - Breaker: the closed breaker adds 0.8 per negative pattern hit, 1.0 per error
//     event (vibes' error_event signal, confidence 1.0) and 0.5 per tool failure to a
//     cumulative score that never decays; at ≥ Threshold it opens (an intervention)
//     and the score is reset to 0. While open, relevant events are ignored; the first
//     relevant event at or after Cooldown past the opening moves it to half-open and
//     its own signals are discarded. In half-open, a positive hit closes it (checked
//     first) and clears the score; otherwise any failure score re-opens it and
//     restarts the cooldown, without counting an intervention. Past MaxInterventions,
//     reaching the threshold halves the score instead. An error event's own text
//     would also be scanned by vibes; the normalised event does not carry it.
//   - Checkpoints: on a relevant event, when the session buffer holds at least
//     CheckpointMinEvents events (every event that reaches vibes is buffered, the
//     buffer holds BufferEvents and a checkpoint empties it): the first at once, then
//     one CheckpointInterval after the last; otherwise one whenever the frustration
//     EMA is at least CheckpointFrustration. Vibes' third trigger, two tool failures
//     in one event, cannot fire: an event carries at most one.
//
// Sidechain events: a subagent's prompt is written by the parent agent and its text
// is not the session's conversation, so they do not reach vibes; its tool results
// do by default (Claude Code runs PostToolUse hooks for subagent tool calls), see
// VibesConfig.SidechainToolResults.
//
// What the normalised events cannot reproduce: a Bash post_tool_use whose only sign
// of failure is a non-empty stderr (the source joins stdout and stderr into the
// output; interrupted is kept as ToolStatus error); an error event's message text;
// the streaming granularity of vibes' text_delta events (vibes scans each delta
// apart, so it counts a word once per delta and misses a word split across two; the
// baseline scans each assistant message whole); prompts and tool results that vibes
// receives twice (user_input and its UserPromptSubmit hook, claude tool_result and
// its post_tool_use hook), which vibes assesses twice and the sources merge into one
// event; and the many raw events (deltas, tool inputs) that fill vibes' buffer
// without being assessed, so the buffer fills more slowly here. The wall clock that
// vibes reads (Instant::now) for cooldowns and checkpoint intervals is replaced by
// the events' recorded time.
package baseline
