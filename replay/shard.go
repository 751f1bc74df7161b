package replay

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/replay/input"
)

// Shard selects the part of a replay one process does when the replay is split over
// several processes or machines: shard Index of Count. A run or session belongs to the
// shard [ShardOf] its key; every shard reads every file (context files and run files
// alike: a file may hold units of several shards, and the quasar joins need all the
// context), and replays only the units it owns. A session's files — its main
// transcript and its subagents — are read together, by the shard that owns the
// session. One exception saves most of the reading of a split replay of Claude Code
// transcripts: a transcript whose opening bytes prove its session's key
// (claudecode.KeyFromHead: a record carries the file's name as its session id, as
// Claude Code names its transcripts) is read, with its subagents, by that session's
// shard only; the others leave it unread past those bytes (and the input fingerprint,
// which needs every file's content, is the fold of the digests each shard hands over
// of the files it reports: [Options.Digest]). Another saves most of the reading of a
// split replay of run traces, which are small: a trace smaller than sniffSize (64 KiB)
// is read whole when it is recognised, its content folded into the listing then; its
// problems are reported by the shard of its first run (of its path when it holds
// none), and a shard that neither reports on it nor owns any of its runs leaves it
// unread from there. Of a run trace whose problems another shard reports, a shard
// builds only its own runs: of the others' events it reads the key (trace.ReadOnly);
// of a vibes event log, only its own sessions: of the others' events it decodes the
// envelope, and validates the event inside without decoding it (vibeslog.ReadLogOnly).
//
// What a shard reports is chosen so that the shards' reports add up to the whole
// replay's, never counting anything twice: a problem or note found while reading a
// file is reported by the shard that owns the file's path — or, for the files of a
// session read by its shard only, by the session's shard, and for a trace read whole
// when recognised, by the shard of its first run; one about a unit (a
// duplicate key, a failed analysis, a filter check outside quasar's chain) by the
// unit's owner. Counts that every shard sees whole (files read, by format; the input
// listing) are the same in every shard.
//
// The zero Shard (Count 0) is the whole replay.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n": shard i (0-based) of n ≥ 1.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("%q: want i/n, shard i (counting from 0) of n, e.g. 0/4", s)
	case n < 1:
		return Shard{}, fmt.Errorf("%q: the number of shards must be at least 1", s)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("%q: shards of %d are numbered 0 to %d", s, n, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// String returns "i/n", or "" for the whole replay.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Split reports whether s is a part of a replay split in several (Count > 1).
func (s Shard) Split() bool { return s.Count > 1 }

// ShardOf returns the shard of n that owns key: the FNV-1a 64-bit hash of the key's
// bytes, modulo n. It is stable across machines, versions and runs.
func ShardOf(key string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(n))
}

// Owns reports whether the run or session with this key is replayed by s.
func (s Shard) Owns(key string) bool { return !s.Split() || ShardOf(key, s.Count) == s.Index }

// sharding is a Shard as one replay applies it: besides the shard, which files'
// problems and notes belong to the shard of the session they hold rather than to the
// shard of their path — a Claude Code transcript whose opening bytes prove its
// session's key, and its subagents — or to the shard of their first run — a trace read
// whole when recognised — so that the other shards need not read them. sniffAll
// decides it once per file (sniffedFile.keyed, keyOwned, whole, foreign, owned, in the
// file's record); sharding holds no string per file.
type sharding struct {
	Shard
	files *fileTable // to look a file up by its path (ownsPath)
}

// ownsPath reports whether s reports what reading the file at this path (slash
// separated, relative to the input root) finds: its problems and notes. A file of the
// input is looked up (when some file goes by a key: its session's, its first run's);
// another path goes by itself.
func (s *sharding) ownsPath(path string) bool {
	if !s.Split() {
		return true
	}
	if s.files != nil && s.files.byKey > 0 {
		if sn, ok := s.files.find(path); ok {
			return sn.owned
		}
	}
	return s.Owns(path)
}

// parentReads reports whether an attached subagent transcript is read, and so
// fingerprinted, by its parent's read: not when its parent is another shard's session,
// which this shard leaves unread.
func (s *sharding) parentReads(sn *sniffedFile) bool { return !sn.keyed || sn.keyOwned }

// skips reports whether s leaves a file unread: a session file whose session is known,
// and another shard's (a transcript, or a subagent transcript attached to it), or a
// trace read whole when recognised that holds none of s's runs and that another shard
// reports on (sniffedFile.foreign). It is still counted; its digest is the owner's to
// hand over.
func (s *sharding) skips(sn *sniffedFile) bool {
	return s.Split() && (sn.keyed && !sn.keyOwned || sn.foreign)
}

// keep returns what s builds of the runs or sessions of a file it reads: when another
// shard reports on the file, only its own (Shard.Owns); else every one (nil), for the
// problems of the file's other units are its to report.
func (s *sharding) keep(sn *sniffedFile) func(key string) bool {
	if s.Split() && !sn.owned {
		return s.Owns
	}
	return nil
}

// fileProblems returns those of problems, found while reading the file at path name,
// that s reports: owned says whether s reports the file's own (sniffedFile.owned);
// those about other files go by ownsPath.
func (s *sharding) fileProblems(name string, owned bool, problems []input.Problem) []input.Problem {
	if !s.Split() {
		return problems
	}
	var out []input.Problem
	for _, p := range problems {
		if p.File == name && owned || p.File != name && s.ownsPath(p.File) {
			out = append(out, p)
		}
	}
	return out
}

// JoinCounts is what the notes on the quasar joins are computed from: how much of the
// join context there was, and how much of it the delivered runs used. The counts of
// the context are the same in every shard; what the runs joined adds up over shards
// as a union ([MergeSummaries]).
type JoinCounts struct {
	// Phases is the number of nebula phases with a bead, Commits the number of cycle
	// commits, in the join context.
	Phases  int `json:"phases"`
	Commits int `json:"commits"`
	// JoinedPhases lists the (nebula, phase) pairs of the delivered runs, sorted;
	// JoinedCommits counts the commits they joined (a commit joins one run at most).
	JoinedPhases  [][2]string `json:"joined_phases,omitempty"`
	JoinedCommits int         `json:"joined_commits"`
}

// Notes returns the notes the counts give.
func (j JoinCounts) Notes() []input.Note {
	var notes []input.Note
	if j.Phases > 0 {
		notes = append(notes, input.Note{What: "nebula: phases with a bead", Count: j.Phases},
			input.Note{What: "nebula: phases that joined no run", Count: j.Phases - len(j.JoinedPhases)})
	}
	if j.Commits > 0 {
		notes = append(notes, input.Note{What: "cycle-commits: cycle commits that joined no run", Count: j.Commits - j.JoinedCommits})
	}
	return notes
}

// MergeSummaries returns the summary of a replay split in shards from the summaries of
// its shards, exactly as the whole replay would have summarised it: counts that every
// shard sees whole (files, by format, ignored files, the listing) must agree and are
// taken once; the runs, sessions, events, problems and notes each shard reports are
// added; the notes on the quasar joins are recomputed from the union of what the
// shards' runs joined. Problem details are not merged: the caller reads them from the
// shards' problem tables. Nor is the fingerprint, which no shard knows: the caller
// folds the digests the shards handed over ([Options.Digest], [Fingerprint]). An
// error says which count disagrees.
func MergeSummaries(parts []*Summary) (*Summary, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no shard summary to merge")
	}
	first := parts[0]
	sum := &Summary{Files: first.Files, FilesByFmt: maps.Clone(first.FilesByFmt), Ignored: first.Ignored,
		Listing: first.Listing, ProblemCount: map[input.ProblemKind]int{}, Notes: map[string]int{}}
	if sum.FilesByFmt == nil {
		sum.FilesByFmt = map[string]int{}
	}
	joins := JoinCounts{Phases: first.Joins.Phases, Commits: first.Joins.Commits}
	phases := map[[2]string]bool{}
	for i, p := range parts {
		switch {
		case p.Listing != first.Listing:
			return nil, fmt.Errorf("shard summaries %d and 0 read different input (listings %.12s… and %.12s…: the files' paths, sizes or content differ)", i, p.Listing, first.Listing)
		case p.Files != first.Files || p.Ignored != first.Ignored || !maps.Equal(p.FilesByFmt, first.FilesByFmt):
			return nil, fmt.Errorf("shard summaries %d and 0 count different files", i)
		case p.Joins.Phases != joins.Phases || p.Joins.Commits != joins.Commits:
			return nil, fmt.Errorf("shard summaries %d and 0 read different join context", i)
		}
		sum.Runs += p.Runs
		sum.Sessions += p.Sessions
		sum.Events += p.Events
		for k, n := range p.ProblemCount {
			sum.ProblemCount[k] += n
		}
		for k, n := range p.Notes {
			sum.Notes[k] += n
		}
		for _, n := range p.Joins.Notes() { // the shard's own view of the joins: replaced below
			if sum.Notes[n.What] -= n.Count; sum.Notes[n.What] == 0 {
				delete(sum.Notes, n.What)
			}
		}
		for _, ph := range p.Joins.JoinedPhases {
			phases[ph] = true
		}
		joins.JoinedCommits += p.Joins.JoinedCommits
	}
	joins.JoinedPhases = sortedPhases(phases)
	sum.Joins = joins
	sum.note(joins.Notes())
	return sum, nil
}

func sortedPhases(set map[[2]string]bool) [][2]string {
	out := slices.Collect(maps.Keys(set))
	slices.SortFunc(out, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return out
}
