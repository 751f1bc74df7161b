// Package screens reads a replay's Parquet output back and renders the assessment
// screens of the seed specification's CLI ("vibes groove assess status", "assess
// history", "assess history <session-id>") as text and as JSON. The assess command
// is a thin flag layer over it.
//
// [Open] reads the run table (the file replay --out wrote) and checks that it is one:
// its loopwatch.table metadata must be "runs", and its output's manifest must be there
// and name the same replay (an output whose commit was interrupted has none). Given
// the folder replay --out DIR/ wrote, it reads every shard's run table in it, each
// checked against its own manifest, and refuses a folder that does not hold every
// shard of one split of one input (the shards' loopwatch.shard and
// loopwatch.input_listing), holds a shard in another's partition, or holds a session
// in a shard its key does not hash to (so that no session is in two shards); a
// session's other tables are read from its own shard's partition. Given one shard's
// run table, it shows that shard. Each sibling table read must carry the run table's
// replay id and input fingerprint, so that tables of different replays are never
// shown together. The rows of kind "session" are the sessions, ordered newest first
// (started_at descending, then run_key; sessions without a start time last). A
// session's detail reads only its own rows from the events, checkpoints and
// interventions tables beside the run table (results.events.parquet, …), skipping row
// groups whose run_key statistics rule it out.
//
// The screens hold what they show, not the replay: however many sessions the run
// tables hold, a screen reads their run_key, kind, started_at and events columns a
// batch at a time — to count, order and window the sessions, and to shorten the ids it
// shows — and then the full rows of the sessions it lists and no others. Status and a
// session's detail keep one session; the history keeps the page --limit asks for (all
// of the window without one).
//
// What the screens show, and where the seed's screens could not be followed:
//
//   - Status. "Enabled" is whether the replay assessed any session. The circuit
//     breaker line and the "Active Session" block describe the newest session of the
//     file — a replay has no live session — with its final frustration and success
//     EMAs; the breaker is "OK" when it never intervened in that session and
//     "TRIPPED" when it did. The thresholds come from the file's
//     loopwatch.assess_config. The seed's "Active Learnings" block is left out: no
//     table holds learnings. Its "Consumer Status" (an event-log offset) is replaced
//     by a "Replay" block: sessions, events, input fingerprint, analyzer, labels and
//     version, from the file's metadata.
//   - History. OUTCOME is the session analysis's predicted outcome; LABEL (shown when
//     any listed session is labelled) is the labelled outcome; MSGS counts the human's
//     messages; FRUST is the session's peak frustration EMA (the final EMA decays
//     over the tool events that end most sessions, so it says little of how a session
//     went); INTERV counts interventions; DATE is the start time in UTC. The window
//     ("last 7 days") is measured back from the newest session in the file, never from
//     the wall clock, so the same file always shows the same list; days 0 lists every
//     session. Session ids are shortened to their shortest unique prefix of at least
//     [ShortIDLen] characters, and [Results.Find] takes any unique prefix.
//   - Session. Message numbers ("msg 149", "msgs 1-12") are event indices: the 1-based
//     position of the event in the session, the events table's index column; the
//     "Messages" line gives the human's messages and the number of events. The
//     frustration trajectory splits the events evenly by position into
//     [TrajectoryWidth] cells (one per event when there are fewer) and draws each
//     cell's highest EMA on the fixed scale 0.0–1.0 with ▁▂▃▄▅▆▇█ (level ⌊8·v⌋).
//     Checkpoints show their summary (clipped in text), the events they cover and
//     their trigger. Signals are counted by kind, in order of first appearance, with
//     the event indices of each signal. When the session is labelled, the labelled
//     friction moments are listed under the signals.
//
// The JSON forms ([Status], [History], [Detail]) encode those structs: keys in a fixed
// order, every key always present, null for what the replay does not know, empty
// lists as [].
package screens
