// Package tune chooses detector thresholds offline: it replays the input once,
// keeps what each detector read (struggle detection's per-cycle measures, the
// assessment's per-event signals — package replay's [replay.RunTrace] and package
// assess's [assess.Trace]), and rescores every configuration of a sweep with the real
// analyze code, never re-reading a file. Each configuration is scored with the
// replay's own definitions (package eval): per run or session for struggle detection
// and the breaker, and the alerting way for interventions against labelled friction
// moments. A configuration is chosen on some units and scored on others — k folds
// stratified by label, or an explicit holdout — and the choice is compared with the
// default on the same held-out units with a paired bootstrap interval.
//
// What it refuses: unknown or ambiguous parameter names, empty ranges and steps that
// do not divide them, values a detector rejects, overlapping parameters, grids larger
// than the limit without sampling, objectives a target cannot measure (false alarms
// per 100 human turns exist only for interventions) — each a one-line error before
// any replay. An objective no configuration satisfies is not an error: the report
// says so and nothing is chosen. Nor is anything chosen on units that cannot measure
// the objective — of one class (no positive unit, or no negative one; for friction, no
// friction moment), where F-beta and recall are undefined for every configuration and
// a cost would favour flagging least or most: a fold whose training units hold one
// class chooses nothing, and when the units the configuration to ship is chosen on do,
// nothing is shipped, the report says what they lack and a warning is given
// ([Result.Unmeasured], a problem under --strict).
package tune
