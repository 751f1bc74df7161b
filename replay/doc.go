// Package replay drives loopwatch's detectors over recorded input: it finds the input
// files under a root, recognises each file's format by its content, rebuilds the runs
// it holds (sub-packages, one per format, do the reading), and replays every run cycle
// by cycle through the real detector code in analyze, on event time.
//
// Some files are context rather than runs: quasar's nebula files, its configuration and
// lists of cycle commits. The engine reads them first, one at a time in path order, into
// one join context (package join), and only then reads the run files, which join
// against it — so a beads run knows its nebula's limits, its estimated cost and its
// lint-fix calls whatever order the files come in.
//
// Results reach a [Sink] in a deterministic order — by file path, then run key —
// whatever the number of workers, so that the same input always gives byte-identical
// output. Problems in the input never stop a replay: they are collected, with file and
// line, in the [Summary].
//
// Files are recognised by their first few records (a garbage or
// unreadable first line does not hide a format), and read through the replay's
// context, so cancelling it stops every read. A file that is not a regular file (a
// named pipe, a device) is read once, as a stream, when [Options.ReadSpecialFiles]
// says the user named it, and reported otherwise. [Options.Exclude] leaves the
// replay's own output out of its input.
//
// The package knows nothing of Parquet, labels or metrics: it produces decisions, and
// eval and reports consume them.
package replay
