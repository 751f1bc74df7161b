// Package frictioncv holds the cross-validated measurement of the assessment's
// friction interventions on the shared Claude Code corpus (its tests). It has no API:
// until loopwatch has a tuning command, it is where the human-text side's switches,
// weights and thresholds are chosen on training sessions and scored on held-out ones
// — 5-fold by session, and leave one source folder out — so the figures the README
// quotes can be reproduced; it also scores the presets per source folder and on a
// synthetic dataset (datasets/synth), and tabulates each friction signal's precision
// per source (TestSignalsBySource).
package frictioncv
