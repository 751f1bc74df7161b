// Package pipeline is loopwatch's replay as a library: the one orchestration that
// the replay, tune and regress commands share, so a command is flags and printing
// over it.
//
// [Run] takes [Settings] — the input, the labels, the detector configurations, the
// evaluation and fix-loop simulation settings — and does a whole replay: it opens the
// input (a folder, a file with its companions such as a transcript's subagents, or
// the built-in sample), reads and merges the label files, loads and validates the
// configurations, replays every run and session through the detectors (package
// replay), writes every table beside Settings.Out and commits them as a set (package
// reports), scores the detectors against the labels (package eval) and simulates the
// inner fix loop (package replay/fixsim). The [Result] carries what a command prints:
// the input summary, the evaluations, the warnings and the tables written.
//
// What it refuses: settings out of range (a confidence level outside (0, 1), a
// negative β, zero fix draws, …), unknown fields or trailing data in a configuration
// file, and a labels file none of whose rows is usable are [UsageError]s, returned
// before anything is written — never replaced by a default while the metadata records
// the requested value. Problems in the input are not errors: they are counted in the
// Result, with label keys that match no run or session among them, and the rest of
// the input goes on.
package pipeline
