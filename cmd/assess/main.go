package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/reports/screens"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `Usage: assess [--results FILE] [--json] status
       assess [--results FILE] [--json] history [--days N] [--limit N]
       assess [--results FILE] [--json] history SESSION

Shows what a replay's assessment decided, from its Parquet output: the circuit
breaker and the newest session (status), the sessions newest first (history), and one
session's frustration trajectory, checkpoints, signals and interventions (history
SESSION; any unique prefix of its id will do). --json prints the screen as JSON.
--results names the run table replay --out FILE.parquet wrote, or the folder replay
--out DIR/ wrote: every shard of a split replay, read together (or one shard's run
table, DIR/results/shard=i/part-0.parquet, that shard alone).
Exit status 1: SESSION names no session or several; 2: a usage error or a results
file that is missing or not a loopwatch run table.

Examples:
  assess status
  assess history
  assess history --days 0 --limit 5
  assess history 5f3c0000
  assess --results results.parquet --json history 5f3c0000-0000-4000-8000-00000000000a
  assess --json status
  assess --results out/ history --days 0

Flags:
`

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("assess", flag.ContinueOnError)
	fs.SetOutput(stderr)
	results := fs.String("results", "results.parquet", "the run table replay --out wrote (its sibling tables are read beside it), or the folder replay --out DIR/ wrote")
	asJSON := fs.Bool("json", false, "print the screen as JSON")
	days := fs.Int("days", 7, "history: sessions that started at most N days before the newest session in the file; 0 for all")
	limit := fs.Int("limit", 0, "history: list at most N sessions, newest first; 0 for all")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "assess: %v (see assess --help)\n", err)
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "assess: "+format+"\n", a...)
		return 2
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return fail("no command: give status or history (see assess --help)")
	}
	cmd, rest := rest[0], rest[1:]
	windowFlags := fs.Changed("days") || fs.Changed("limit")
	switch {
	case cmd != "status" && cmd != "history":
		return fail("unknown command %q: give status or history", cmd)
	case cmd == "status" && len(rest) > 0:
		return fail("status takes no argument, got %q", rest[0])
	case cmd == "status" && windowFlags:
		return fail("--days and --limit apply to history only")
	case len(rest) > 1:
		return fail("history takes at most one session id, got %d arguments", len(rest))
	case len(rest) == 1 && windowFlags:
		return fail("--days and --limit choose the sessions of the list, not one session: drop them or the session id")
	case *days < 0 || *limit < 0:
		return fail("--days and --limit must be ≥ 0")
	}

	if fi, err := os.Stat(*results); err == nil && fi.IsDir() {
		// A folder's shards must be one replay's — as metrics takes them: the same
		// check, before the screens read a table — its derived tables theirs.
		if err := pipeline.CheckFolder(*results); err != nil {
			return fail("%v", err)
		}
	}
	res, err := screens.Open(*results)
	if err != nil {
		return fail("%v", err)
	}
	defer res.Close()
	type screen interface {
		WriteText(io.Writer) error
		WriteJSON(io.Writer) error
	}
	var s screen
	switch {
	case cmd == "status":
		if s, err = res.Status(); err != nil {
			return fail("%v", err)
		}
	case len(rest) == 0:
		if s, err = res.History(screens.HistoryOptions{Days: *days, Limit: *limit}); err != nil {
			return fail("%v", err)
		}
	default:
		d, err := res.Detail(rest[0])
		var le *screens.LookupError
		switch {
		case errors.As(err, &le):
			fmt.Fprintf(stderr, "assess: %v\n", err)
			return 1
		case err != nil:
			return fail("%v", err)
		}
		s = d
	}
	if *asJSON {
		err = s.WriteJSON(stdout)
	} else {
		err = s.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "assess: %v\n", err)
		return 1
	}
	return 0
}
