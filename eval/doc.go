// Package eval scores detector predictions against labelled outcomes: it reads label
// files, counts true and false positives and negatives, and computes precision,
// recall, F1, F-beta, average precision and ROC AUC with confidence intervals.
//
// Its unit is the run (or session): intervals come from resampling runs, never events,
// because events within one run are correlated. Runs labelled ambiguous or excluded,
// and runs without a label, are left out of every metric and counted, so a report
// always says how many runs it did not score.
//
// Analysis results carry their warnings ([Report.Warnings]) instead of failing: a
// metric that is undefined on the data (precision with no predicted positive, AUC
// with one class) is NaN and explained, never silently zero.
//
// Label files label runs (run_key, label) or sessions (session_id, outcome): a
// session's binary label comes from its outcome through an [OutcomeClass] (by default
// failure and abandoned are positive, success and partial negative, none excluded),
// and a session label may carry event-level [Moment]s — the record ids or times of
// the human messages that show friction.
//
// Labels read from a source that can be read again ([LabelOptions.Source]: a regular
// file, bytes in memory) stay in it: about 28 bytes a label whatever its text, and a
// lookup reads the label's record again and checks it. A source that changes or fails
// afterwards never yields a wrong label: the label is not found and [Labels.Err] says
// why, for the caller to fail on. [Labels.MoveIndex] moves their index (the 28 bytes)
// into a scratch file the caller gives, leaving some 0.05 bytes a label in memory: a
// lookup then reads a 4 KiB block of it too. Labels read from a stream, or set, are
// kept in memory.
//
// The package reads label files (CSV, JSONL) but knows nothing of replay, Parquet or
// the detectors' internals; it neither opens nor closes files.
package eval
