// Package loopwatch is a batch analyzer and evaluation harness for AI coding-agent
// loops. It replays historic quasar runs and Claude Code / vibes sessions through the
// real detection code in [github.com/loopwatch/loopwatch/analyze], writes every
// decision to Parquet, and scores the detectors against labelled outcomes.
//
// The packages, in the direction data flows:
//
//	replay/...  sources → normalised runs and sessions → the replay engine
//	analyze/... the shippable detectors (struggle, fixloop, assess)
//	eval        labels, confusion counts, precision/recall, intervals
//	reports/... Parquet tables, summaries, the assessment screens
//	cmd/...     thin binaries: replay, assess, datagen
//
// This package only records the tool's version.
package loopwatch

// Version is the loopwatch version written into every output file's metadata.
const Version = "0.1.0"
