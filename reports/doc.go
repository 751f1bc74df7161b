// Package reports turns replay decisions and evaluation results into tables: the
// Parquet files analysts load (one Go struct per table, written with parquet-go, zstd,
// bounded row groups, key-value metadata) and the short text summary the replay
// command prints.
//
// Files appear atomically and as a set: every table of an [Output] is written to a
// hidden temporary file beside its destination (".<name>.tmp-<pid>-<random>"), renamed
// into place only when all of them are complete, and the set is sealed by a manifest
// written last ([Manifest]: the tables, their sizes and hashes, the replay id every
// table carries). A reader that finds no manifest, or tables whose replay ids differ,
// refuses the set (package screens does). An interrupted run leaves no partial file;
// a killed one leaves temporaries that the next output to the same place removes once
// their process is gone. Nothing written depends on the time of the run or the number
// of workers: the same input gives byte-identical files.
//
// A [Table] encodes its rows on a goroutine of its own, a batch at a time in the
// order they were written, so that a caller writing several tables (a replay's
// delivery, which writes every table in file order) only gathers rows while the
// tables encode side by side; a table holds two batches at most, and an encoding
// error fails a later Write, Seal and Commit. Commit and [SealAll] finish tables side
// by side too.
package reports
