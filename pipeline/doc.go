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
// the input summary, the evaluations, the warnings and the tables written;
// [WriteResult] prints it.
//
// The metrics are derived from rows the replay writes: every configuration's
// prediction for every run and session (the predictions table) and every recorded
// filter failure (the fix-loop cases table), in the order of their file and key, with
// the settings read back from the tables' metadata. So a replay split over processes
// or machines ([Settings].Shard, writing into a folder in the hive layout) gives
// exactly the whole replay's metrics when [Merge] derives them from the union of its
// shards. Merge refuses a folder that is not one complete set of shards ([SetError]);
// a shard written again removes what Merge derived from the set it replaces, unless
// it writes its partition again byte for byte.
// Neither holds anything per unit: a replay spills what the derivation reads to
// scratch files as it writes the rows, and Merge reads each shard's rows a batch at a
// time, merged into that order, into the same files. [Report] builds the HTML report
// of either, reading the tables back a row at a time.
//
// What it refuses: settings out of range (a confidence level outside (0, 1), a
// negative β, zero fix draws, …), unknown fields or trailing data in a configuration
// file, and a labels file none of whose rows is usable are [UsageError]s, returned
// before anything is written — never replaced by a default while the metadata records
// the requested value. Problems in the input are not errors: they are counted in the
// Result, with label keys that match no run or session among them, and the rest of
// the input goes on.
package pipeline
