// Package reports turns replay decisions and evaluation results into tables: the
// Parquet files analysts load (one Go struct per table, written with parquet-go, zstd,
// bounded row groups, key-value metadata) and the short text summary the replay
// command prints.
//
// Files appear atomically: every table of an [Output] is written to a hidden
// temporary file beside its destination and renamed into place only when all of them
// are complete, so an interrupted run leaves no partial file. Nothing written depends
// on the time of the run or the number of workers: the same input gives byte-identical
// files.
package reports
