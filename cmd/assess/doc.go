// Command assess shows what a replay's session assessment decided — the screens of
// the seed specification's "vibes groove assess" commands — from the Parquet files
// replay --out wrote.
//
// Usage:
//
//	assess [--results FILE] [--json] status
//	assess [--results FILE] [--json] history [--days N] [--limit N]
//	assess [--results FILE] [--json] history SESSION
//
// status shows whether the assessment ran, the circuit breaker's state and thresholds
// in the newest session of the file, that session (messages, frustration and success
// EMAs, checkpoints, interventions) and the replay (sessions, events, input
// fingerprint, analyzer).
//
// history lists the sessions newest first (start time descending, then id): session,
// predicted outcome, labelled outcome when there are labels, human messages, peak
// frustration EMA, interventions and start date (UTC). --days N keeps the sessions
// that started at most N days before the newest session in the file (never the wall
// clock, so a file always shows the same list); --days 0 lists them all, undated ones
// included. --limit N lists at most N.
//
// history SESSION shows one session, named by its id or any unique prefix of it: date,
// duration, messages, predicted outcome and confidence, the frustration trajectory as a
// sparkline on the scale 0.0–1.0, its checkpoints, the signals detected with the
// events they came from, the interventions and the session analysis. Message numbers
// are event indices, the events table's index column.
//
// --json prints the same screen as JSON with a fixed shape (package
// [github.com/loopwatch/loopwatch/reports/screens] documents every field). --results
// names the run table (default results.parquet); the events, checkpoints and
// interventions tables are read beside it (results.events.parquet, …). It may name the
// folder replay --out DIR/ wrote instead: every shard of a split replay is read
// together, each with its manifest, and the folder must hold every shard of one split
// of one input and nothing else (names starting with "." or "_" aside, which hive
// readers skip), as metrics DIR checks it, with its messages (the
// input fingerprint is the merge's, once metrics DIR wrote it); or
// one shard's run table in it (DIR/results/shard=i/part-0.parquet), that shard alone.
//
// Exit status: 0 on success; 1 when SESSION names no session or more than one (the
// message lists the candidates); 2 for a usage error or a results file that is
// missing, unreadable or not a loopwatch run table, with a one-line message that names
// the file and says what to do.
//
// Examples:
//
//	assess status
//	assess history
//	assess history --days 0 --limit 5
//	assess history 5f3c0000
//	assess --results results.parquet --json history 5f3c0000-0000-4000-8000-00000000000a
//	assess --json status
//	assess --results out/ history --days 0
//
// The session ids of the examples are those of the command's test fixture
// (testdata/transcripts).
package main
