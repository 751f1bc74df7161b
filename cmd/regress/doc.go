// Command regress is loopwatch's nightly regression: it replays every dataset of the
// registry (datasets/registry.toml) under each of its detector configurations through
// the same pipeline as replay, compares each detector's metrics with the baselines
// recorded in the registry, and exits 1 when one regressed.
//
// Usage:
//
//	regress [--registry FILE] [--out DIR] [--only NAME]... [--workers N] [--report FILE.html] [--strict] [--update-baseline]
//
// A metric regresses when it moves in its bad direction (down for precision, recall,
// F1, average precision and ROC AUC; up for false alarms per 100 human turns) by more
// than its tolerance AND the baseline lies outside the interval measured now (the
// bootstrap interval; Jeffreys for precision and recall when the bootstrap gives none;
// the tolerance alone when there is none). A metric with a baseline that nothing
// measures now is missing, and fails the run too; with --strict, so does a metric
// with no baseline yet (new), which otherwise passes: a nightly run guards only what
// has a baseline. Datasets whose corpus is not on the machine are skipped with a
// notice; but a corpora folder $LOOPWATCH_CORPORA names that is not there is a setup
// error (exit 2) naming the variable and the path, with or without --strict — a
// misspelt path would otherwise skip the corpus datasets and pass.
//
// It writes into --out (default regress-out):
//
//	regress.md                          the verdict, the rule, failures, and a table per dataset
//	regress.json                        dataset × config × detector × metric: baseline, now, delta, interval, tolerance, verdict
//	<dataset>/<config>/results.parquet  each replay's tables, as replay writes them
//
// and prints a short summary. --report FILE.html also writes the run as one
// self-contained HTML page (package reports/htmlreport: SVG, no script, no network):
// the verdicts, each detector's PR and ROC curves with every configuration overlaid
// and the baseline operating point (a ring) beside the one measured now (a dot), the
// threshold sweeps, lead-time histograms and trajectories of each dataset's first
// configuration, and its input problems. --update-baseline records the figures measured now as the
// registry's baselines, in place (comments, layout and tolerances kept), and prints each
// change, old → new. The registry's format is documented in package datasets/registry
// and in the README.
//
// Exit status: 0 no regression (or the baselines were updated); 1 a metric regressed
// or is missing (or, with --strict, has no baseline), or a replay failed; 2 a usage error — a bad flag, or a registry that
// does not load (each problem with its file and line); 130 interrupted (SIGINT,
// SIGTERM).
//
// Examples:
//
//	regress
//	regress --only sample
//	regress --only sample --report regress-out/regress.html
//	regress --registry my-registry.toml --out nightly
//	regress --update-baseline
//	regress --only sample --update-baseline
//	regress --only sample --strict
package main
