// Command replay replays recorded coding-agent runs through loopwatch's detectors,
// writes every decision to Parquet and scores the detectors against labels.
//
// Usage:
//
//	replay [--in PATH] [--out FILE.parquet] [--labels FILE] [flags]
//
// replay reads every file under --in (a folder, walked recursively, or one file),
// recognises each file's format by its content, rebuilds the runs it holds and replays
// each one cycle by cycle through struggle detection, on the recorded event time.
// Without --in it replays the built-in sample dataset and its labels.
//
// quasar's real history is read too: a beads export (.beads/issues.jsonl) rebuilds the
// runs, and the nebula files (nebula.toml, nebula.state.toml, phase files), quasar's
// configuration and a cycle-commit list (TSV or git log output) found beside it are
// joined to them for limits, estimated cost and lint-fix calls. --derive-labels labels
// quasar runs from their recorded outcomes (each row names its rule); a label in
// --labels overrides the derived one of its run.
//
// It writes the run table to --out and sibling tables beside it:
//
//	results.parquet           one row per run: outcome, label, prediction, lead time
//	results.cycles.parquet    one row per run × cycle: every signal, score, reason
//	results.metrics.parquet   TP/FP/FN/TN, precision, recall, F1, AP, ROC AUC, intervals
//	results.problems.parquet  every problem found in the input, with file and line
//
// and prints a short summary. Problems in the input (a malformed line, an unknown
// event kind, a truncated file) are reported with file and line and the rest goes on;
// --strict turns any problem into exit status 1. A missing --in, an unreadable
// --labels or an unwritable --out is a usage error: exit status 2 and no output.
//
// Examples:
//
//	replay
//	replay --in runs/ --out results.parquet
//	replay --in runs/ --labels labels.csv --out results.parquet --workers 8
//	replay --in runs/ --struggle-config struggle.json --strict
//	replay --in quasar-history/ --derive-labels --out q.parquet
//
// The struggle configuration file is JSON with any of the fields enabled,
// min_cycles_before_check, filter_repeat_threshold, finding_overlap_threshold,
// budget_burn_threshold and composite_threshold; fields it leaves out keep their
// defaults.
package main
