// Package frictioncv holds the cross-validated measurement of the assessment's
// friction interventions on the shared Claude Code corpus (its test,
// TestFrictionCrossValidated). It has no API: until loopwatch has a tuning command,
// it is where the human-text side's thresholds are chosen on training folds and
// scored on held-out ones, so the figures the README quotes can be reproduced.
package frictioncv
