// Command benchcompare runs the previous and the current replay binary side by side
// (make bench-compare), and the current one at growing sizes (make bench-scale).
//
// Usage:
//
//	benchcompare [--base REF | --old BIN] [--new BIN] [--workloads LIST] [--reps N] [flags]
//	benchcompare scale [--kinds LIST] [--sizes LIST] [flags]
//
// The previous binary is built from a clean export (git archive) of --base — by
// default the merge-base of HEAD and main, where this branch left main, or on main
// itself HEAD^1, main before its last landing — and the current one from the working
// tree; the repository is not touched. The workloads are written into a temporary
// folder: the built-in sample (datagen --sample), --runs synthetic runs and --sessions
// synthetic sessions (datagen, --seed), and the Claude Code corpus of ../shared/corpora
// × --corpus-copies, each copy's ids remapped so that no session repeats (skipped with
// a notice when the corpus is absent).
//
// On each workload the variants — old, new, new with --workers 1, new with --workers 1
// pinned to one core (Linux: the hidden one-core subcommand sets its CPU affinity to
// one CPU — at each run the next of those it may use, the CPUs of a shared machine not
// being equally fast from one minute to the next — and executes the replay in its
// place, whose runtime then starts with GOMAXPROCS 1, as on a one-core machine), new
// over the same files split in N parts (Linux: the files are hard-linked into N
// folders of about equal bytes, a session's files together, and the hidden on-cores
// subcommand runs replay --workers 1 over every part at once, each through one-core on
// a CPU of its own, and waits for them all), and the anchors (a bare json.Valid pass
// over the same files, pinned to one core too and held to new on one core; the same
// pass over the N parts, each through one-core on a CPU of its own, all at once — the
// control; DuckDB's read_json → COPY … TO parquet from interop/node_modules, skipped
// with a notice when not installed) — run after --warmup warm-ups in --reps
// repetitions, old and new always next to each other and alternating, the rest rotating
// (internal/benchcmp.Schedule). Each run is measured from outside: wall time, user and
// system time and peak RSS from the child's rusage (wait4). The report gives per
// workload the median wall time of old and new, the median of the paired ratios
// new/old of wall and CPU time and peak RSS with the sign test's interval, and the
// same for --workers N against --workers 1 and for new against each anchor; each
// variant's median busy cores (CPU over wall time); and for --workers N its floor, the
// wall ratio it would have if its CPU time were spread evenly over its N cores (at
// most the machine's): a wall ratio near its floor kept the cores busy, and what
// stands between it and 1/N is CPU spent beside the workers — what --workers 1 runs on
// another core while its worker works. The cores table holds new against new on one
// core: what the machine's cores buy over one, where the workers table holds what the
// workers buy on the same cores. The split table holds --workers 1 against the N
// processes over the parts: what the cores give work that shares no runtime, heap or
// delivery, each process on a core of its own; and the next, --workers N against them:
// what the workers lose to sharing one process (a wall ratio at or below 1: nothing —
// the workers share out the files as they go, where the split is fixed beforehand and
// its parts need not take equally long). The control table holds the json.Valid pass
// over the parts against the whole pass on one core: what the machine's cores give work
// that shares nothing and is little but reading files and parsing lines — 1/N if they
// were N whole cores to themselves. On a machine whose cores share their caches, their
// memory or their host with other work, it is well above 1/N, and the split and workers
// tables are read against it: a replay cannot be expected to scale past what the
// machine gives a bare pass over the same files.
//
// Every replay's output files are hashed. A run that fails, a replay whose outputs
// differ between repetitions or between --workers 1 and N, or old and new outputs that
// differ (unless --allow-output-change, when the table says "differ: …") end the
// command at once with exit status 1 and no report: a failure never becomes a figure.
//
// scale replays --kinds (runs, sessions) at each of --sizes with the current binary
// and reports each larger size against the smallest: wall time, CPU time and peak RSS,
// and their ratios — linear time is the size ratio, flat memory an RSS ratio near 1.
// --max-rss-growth turns the RSS ratio into a check. The merge kind measures metrics
// instead: at each size the runs are replayed in --shards shards first (not measured),
// then metrics merges them — whether the merge of a split replay holds nothing per
// unit. The shards kind measures metrics over the same --shard-runs runs replayed in
// each of --shard-counts shards, each against the fewest — whether it holds nothing
// per shard either. The shard-replay kind measures one shard of a split replay, shard
// 0/n of the same --sessions synthetic sessions for each n ≥ 2 of --replay-shards,
// against the fewest: what a machine of a cluster pays whatever its share, the part
// of a shard's time that does not shrink with more shards (with none, the ratio of n
// shards against m would be m/n). The shard-replay-runs kind does the same over
// --runs synthetic runs, and shard-replay-vibes over --vibes synthetic vibes event
// logs (two sessions each). The datagen kind measures datagen itself, writing n
// synthetic runs and n synthetic sessions for each n of --sizes (the dataset checked
// the same in every repetition) — whether generation streams what it writes. The
// assess kind measures a page of assess history (--days 0 --limit 20) over n synthetic
// sessions replayed into a run table first (not measured) — whether the screens hold
// what they show, not the replay. The tune kind measures tune with its default grids
// over n synthetic sessions and their labels (its outputs checked the same in every
// repetition): it keeps a trace of every session, so its memory grows with the input,
// by how much is what the kind shows.
//
// It writes --out/bench-compare.md and .json (scale: bench-scale.md and .json),
// prints the tables, and logs every run on stderr. Exit status: 0 done; 1 a build, a
// run or an output check failed; 2 a usage error.
//
// Examples:
//
//	benchcompare --workloads sample --reps 3
//	benchcompare --base HEAD~3 --workloads sample,runs --runs 2000
//	benchcompare --workloads corpus --corpus-copies 2 --no-anchors
//	benchcompare scale --kinds runs --sizes 1000,10000
//	benchcompare scale --kinds merge --sizes 1000,4000 --shards 2
//	benchcompare scale --kinds shards --shard-runs 200 --shard-counts 2,16
//	benchcompare scale --kinds shard-replay --sessions 2000 --replay-shards 2,8
//	benchcompare scale --kinds shard-replay-runs --runs 2000 --replay-shards 2,8
//	benchcompare scale --kinds shard-replay-vibes --vibes 1000 --replay-shards 2,8
//	benchcompare scale --kinds datagen --sizes 1000,10000 --reps 1
//	benchcompare scale --kinds assess --sizes 1000,10000
//	benchcompare scale --kinds tune --sizes 1000,10000
package main
