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
package reports
