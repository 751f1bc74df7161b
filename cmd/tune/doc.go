// Command tune chooses detector thresholds offline, before they ship.
//
// Usage:
//
//	tune [--in PATH] [--labels FILE] [--grid name=values ...] [flags]
//
// tune replays the input once (the same input, labels and configurations replay
// reads), keeps what each detector read — struggle detection's per-cycle measures, the
// assessment's per-event signals — and rescores every configuration of the grid with
// the real detectors: no configuration reads a file again. For each target — struggle
// (per run), breaker (per session) or friction (interventions against labelled
// friction moments, scored the way alerting systems are) — it chooses a configuration
// by the objective on the units of k−1 folds and scores it on the k-th (k folds
// stratified by label, seeded), or on a --holdout; the default, the seed preset and
// what quasar and vibes ship today are scored on the same held-out units, and tuned
// is compared with the default by a paired bootstrap interval of the difference. A
// choice whose interval includes 0 is "not distinguishable from the default".
//
// Parameters are named by their path in the configuration files (tune --list-params);
// numbers and durations take ranges lo:hi:step, anything takes a list a,b,c, and a
// section (an object such as assess.detect.friction) takes preset names. Without
// --grid each target is swept over a default grid (tune --help lists it). --samples N
// draws N configurations of a large grid at random.
//
// It writes beside --out (default sweep.parquet):
//
//	sweep.parquet          one row per target × configuration × fold: every parameter its own column, every figure
//	sweep.arrow            the same table as an uncompressed Arrow IPC file (memory-mappable)
//	sweep.curves.parquet   PR and ROC points of the default, tuned, seed and shipped-today rankings
//	sweep.<target>.json    the configuration to ship, as --struggle-config / --assess-config accept it
//	sweep.manifest.json    the set, written last
//
// A previous sweep's files at the same --out that this one does not write (as its
// manifest lists them: a chosen configuration of a target not chosen now) are removed
// with the commit, and named; one edited since that sweep wrote it (its size or
// SHA-256 not the manifest's) is left, with a warning naming it.
//
// Examples:
//
//	tune
//	tune --list-params
//	tune --grid composite_threshold=0.3:0.8:0.1 --grid weights.budget_burn=0,0.1,0.25 --out sweep.parquet
//	tune --in sessions/ --labels session-labels.csv --grid frustration_threshold=0.2,0.3,0.45 --grid ema.alpha=0.5,1 --objective recall@false_alarms<=10
//	tune --in quasar-history/ --derive-labels --target struggle --objective fbeta=2 --folds 2
//	tune --in runs/ --labels labels.csv --grid-file grid.txt --samples 500 --seed 7
//	tune --in sessions/ --labels session-labels.csv --holdout heldout.txt --objective recall@precision>=0.5
//	tune --print-config=struggle
//
// Exit status: 0 success (also when no configuration meets the objective, or the units
// a choice is made on hold one class — no positive, no negative, no friction moment —
// so that the objective cannot be measured on them: the output says so and nothing is
// chosen); 1 a failure while replaying or writing, or, with --strict, problems in the
// input, its labels or the --holdout keys (matching nothing, or repeated) or units of
// one class where a choice is made; 2 a usage error (an unknown or ambiguous
// parameter, an empty range, a step that does not divide its range, a value a detector
// refuses, a grid larger than --max-configs without --samples, an objective the target
// cannot measure) — one line on stderr and no output; 130 interrupted (SIGINT, SIGTERM), nothing written.
package main
