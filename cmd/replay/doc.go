// Command replay replays recorded coding-agent runs and sessions through loopwatch's
// detectors, writes every decision to Parquet and scores the detectors against labels.
//
// Usage:
//
//	replay [--in PATH] [--out FILE.parquet | --out DIR/ [--shard i/n]] [--labels FILE] [flags]
//
// replay reads every file under --in (a folder, walked recursively, or one file),
// recognises each file's format by its content, rebuilds the runs it holds and replays
// each one cycle by cycle through struggle detection, on the recorded event time.
// Without --in it replays the built-in sample dataset and its labels.
//
// Agent sessions are read too: Claude Code transcripts (with their subagents) and
// vibes event logs are replayed event by event, on their recorded times, through the
// assessment processor (detector, circuit breaker, checkpoints, session analysis —
// offline by default, --llm claude for claude --print). Session labels (session_id,
// outcome, friction_uuids) score the breaker and the outcome prediction per session,
// and the interventions against labelled friction moments.
//
// quasar's real history is read too: a beads export (.beads/issues.jsonl) rebuilds the
// runs, and the nebula files (nebula.toml, nebula.state.toml, phase files), quasar's
// configuration and a cycle-commit list (TSV or git log output) found beside it are
// joined to them for limits, estimated cost and lint-fix calls. --derive-labels labels
// quasar runs from their recorded outcomes (each row names its rule); a label in
// --labels overrides the derived one of its run.
//
// Every detector is scored as configured and, on the same runs and sessions, as each
// preset --compare names (default: the seed preset, the seed's literal behaviour).
//
// It writes the run table to --out and sibling tables beside it:
//
//	results.parquet                one row per run or session: outcome, label, predictions, lead time
//	results.cycles.parquet         one row per run × cycle: every struggle signal, score, reason
//	results.metrics.parquet        TP/FP/FN/TN, precision, recall, F1, AP, ROC AUC, intervals
//	results.fixloop.parquet        the inner fix loop on every recorded filter failure: simulated, or as recorded
//	results.fixloop_runs.parquet   the same per run: cycles and dollars saved
//	results.events.parquet         one row per session event: signals, EMAs, breaker state
//	results.checkpoints.parquet    one row per checkpoint and its summary
//	results.interventions.parquet  one row per intervention
//	results.curves.parquet         PR and ROC points of each detector's ranking, per configuration
//	results.problems.parquet       every problem found in the input, with file and line
//
// and prints a short summary. Given a folder (--out DIR/, or an existing folder), it
// writes every table in the hive layout — DIR/results/shard=0/part-0.parquet,
// DIR/cycles/shard=0/…, the metrics, curves and fix-loop simulation of the whole in
// DIR/metrics/part-0.parquet and so on — which DuckDB, Spark and Trino read as one
// dataset. Past one machine, --shard i/n replays only the runs and sessions whose key
// hashes to shard i of n, into such a folder every shard shares; the command metrics
// computes the metrics from the union once all n shards are written, exactly as one
// replay computes them.
//
// Problems in the input (a malformed line, an unknown
// event kind, a truncated file) are reported with file and line and the rest goes on;
// --strict turns any problem into exit status 1. A missing --in, an unreadable
// --labels or an unwritable --out is a usage error: exit status 2 and no output. An
// interrupt (SIGINT, SIGTERM) ends it with exit status 130 and no table written.
//
// Examples:
//
//	replay
//	replay --in runs/ --out results.parquet
//	replay --in runs/ --labels labels.csv --out results.parquet --workers 8
//	replay --in runs/ --struggle-config struggle.json --strict
//	replay --in quasar-history/ --derive-labels --out q.parquet
//	replay --in datasets/sample/inputs --labels datasets/sample/labels/runs.csv --labels datasets/sample/labels/sessions.csv --out all.parquet
//	replay --in datasets/sample/inputs/sessions --labels datasets/sample/labels/sessions.csv --positive-outcomes failure --friction-window 2m --out s.parquet
//	replay --in datasets/sample/inputs --labels datasets/sample/labels/runs.csv --out all/
//	replay --in datasets/sample/inputs --labels datasets/sample/labels/runs.csv --shard 1/2 --out shards/
//
// The struggle configuration file is JSON with any of the fields enabled,
// min_cycles_before_check, filter_repeat_threshold, finding_overlap_threshold,
// budget_burn_threshold and composite_threshold; fields it leaves out keep their
// defaults.
package main
