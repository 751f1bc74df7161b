// Command metrics computes the metrics of a replay split in shards from the union of
// its shards, exactly as the whole replay computes them.
//
// Usage:
//
//	metrics [flags] DIR
//
// Past one machine the replay is embarrassingly parallel by run: `replay --shard i/n
// --out DIR/` replays only the runs and sessions whose key hashes to shard i and
// writes its tables into DIR in the hive layout (DIR/<table>/shard=i/part-0.parquet),
// which DuckDB, Spark and Trino read as one dataset. No shard can score the detectors
// alone: the intervals resample all runs, and the fix-loop simulation estimates each
// check's pass probability from all of them. metrics does it once every shard is
// written. It refuses a folder that is not one complete set — a shard missing, two
// copies of one, shards of different splits, input, versions, labels or flags, a
// table overwritten since its shard wrote it (every table's size and replay are
// checked against its shard's manifest; the tables metrics reads — predictions,
// fix-loop cases, inputs, problems, and with --report the run, cycle, event and
// intervention rows — byte for byte, by their SHA-256; a table it does not read is
// not hashed, so an edit inside one that keeps its size is found by whatever reads it
// next, such as assess), a partition no shard of the set wrote or not named exactly as
// a shard names it (shard=01), a file in a partition or a derived table's folder that
// no manifest of the set lists (names starting with "." or "_" aside, which hive
// readers skip as hidden: loopwatch's temporaries, .DS_Store, _SUCCESS) — with a message that
// says which, and never prints metrics from part of the runs. assess --results DIR/
// checks a folder the same way.
//
// From every shard's predictions and recorded filter failures it computes the metrics
// and curves of every detector and configuration, and simulates the inner fix loop, by
// the same code and in the same order as a replay that is not split: n shards give the
// single replay's metrics, byte for byte, and the input fingerprint, which no shard
// knows, is folded from the shards' inputs tables. It writes them into DIR beside the shards'
// tables (DIR/metrics/part-0.parquet, DIR/curves/…, DIR/fixloop/…,
// DIR/fixloop_runs/…, sealed by DIR/_manifests/merged.manifest.json; a shard written
// again removes them, unless it writes its partition byte for byte as it was) and
// prints the summary the replay prints: what was read, the detectors, the interventions at
// friction moments and the fix-loop simulation. Input problems are printed by file
// and line (all are in DIR/problems/). With --report it writes the whole replay's
// HTML report too, its run, intervention, cycle and event rows read from every
// shard's tables (each checked against its manifest): the report `replay --report`
// writes of the replay not split, but for where the output is.
//
// Exit status: 0 success; 1 a refused set (a folder holding no complete set of
// shards), a failure, or input problems with --strict; 2 a usage error (a folder that
// is not there, or a file); 130 interrupted (SIGINT, SIGTERM).
//
// Examples:
//
//	metrics out/
//	metrics --workers 2 --show-problems 5 out/
//	metrics --strict out/
//	metrics --report out.html out/
package main
