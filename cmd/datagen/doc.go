// Command datagen writes synthetic agent activity with ground-truth labels: quasar
// run traces, Claude Code session transcripts and vibes event logs.
//
// Usage:
//
//	datagen --out DIR [--runs N] [--sessions N] [--vibes N] [--seed S] [--rerun-every K] [--fix-loop-every K]
//	datagen --sample --out DIR
//
// It writes a dataset laid out like loopwatch's built-in sample:
//
//	DIR/inputs/runs/<task>.jsonl                             run traces (lossless trace format)
//	DIR/inputs/sessions/<project-dir>/<session-id>.jsonl     Claude Code transcripts,
//	DIR/inputs/sessions/<project-dir>/<session-id>/subagents/agent-<id>.jsonl   with their subagents
//	DIR/inputs/vibes/vibes-events[-NNNN].jsonl               vibes event logs, two sessions each
//	DIR/labels/runs.csv                                      run_key, label, outcome, label_source, rule
//	DIR/labels/sessions.csv                                  session_id, file, outcome, confidence,
//	                                                         human_msgs, friction_uuids, notes
//
// Replay DIR/inputs; the session labels' file column is relative to it. Parts with
// nothing to write (--runs 0, no sessions or logs) are left out. The same flags
// always write the same bytes. DIR may exist, but not its inputs/ or labels/: datagen
// refuses to write beside an earlier dataset, whose files it would leave among the new
// ones (ten runs of an earlier call beside the labels of two). --sample writes
// loopwatch's built-in sample dataset, the one committed under datasets/sample and
// replayed by `make demo`; it replaces an earlier sample's inputs/ and labels/ with
// its fixed set of files, which is how that folder is regenerated — only when they
// hold nothing but files the sample writes: a file of anyone else's there (a session
// of one's own, labels) is refused with exit status 2, naming it, and nothing is
// removed. datagen never removes a file it did not write.
//
// The dataset appears whole or not at all: it is written (streamed, file by file)
// into a hidden temporary folder in DIR, .datagen.tmp-<pid>-<random>, and its
// inputs/ and labels/ are renamed into place once every file is complete — an
// earlier sample's moved aside first and removed last, and what was moved put back if
// a rename fails. A failure (a full disk: exit status 1) or an interrupt (SIGINT or
// SIGTERM: exit status 130, "datagen: interrupted; nothing was written to DIR")
// removes the temporary folder, and DIR and the folders above it if datagen made
// them. Only a datagen killed outright (SIGKILL) leaves its temporary folder behind:
// the next datagen into DIR removes it ("datagen: removed DIR/.datagen.tmp-…, the
// temporary folder of a datagen that was killed"), once its process is gone. replay
// never reads a datagen's temporary folder, whole or half written.
// A usage error (a bad flag, an --out that cannot hold a dataset) exits 2.
//
// Examples:
//
//	datagen --sample --out sample
//	datagen --runs 1000 --seed 7 --out synth
//	datagen --runs 0 --sessions 50 --vibes 5 --out sessions
//	datagen --runs 200 --rerun-every 5 --seed 3 --out reruns
//	datagen --runs 200 --fix-loop-every 2 --out fixloop
package main
