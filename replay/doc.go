// Package replay drives loopwatch's detectors over recorded input: it finds the input
// files under a root, recognises each file's format by its content, rebuilds the runs
// it holds (sub-packages, one per format, do the reading), and replays every run cycle
// by cycle through the real detector code in analyze, on event time.
//
// Results reach a [Sink] in a deterministic order — by file path, then run key —
// whatever the number of workers, so that the same input always gives byte-identical
// output. Problems in the input never stop a replay: they are collected, with file and
// line, in the [Summary].
//
// The package knows nothing of Parquet, labels or metrics: it produces decisions, and
// eval and reports consume them.
package replay
