// Package frictioncv holds the cross-validated measurement behind the assessment's
// defaults on the shared Claude Code corpus (its tests). It has no API. The tune
// command chooses thresholds for a user's own data; this package keeps the figures
// the README quotes for the defaults loopwatch ships: the human-text side's switches,
// weights and thresholds chosen on training sessions and scored on held-out ones — 5
// folds by session, and leave one source folder out, which stands in for users whose
// sessions we do not have — the presets per source folder and on a synthetic dataset
// (datasets/synth), and each friction signal's precision per source
// (TestSignalsBySource).
package frictioncv
