package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay/claudecode"
	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/join"
)

// Options configure a replay.
type Options struct {
	// Workers is the number of files read and replayed at once; ≤ 0 means GOMAXPROCS.
	// It never changes the results or their order.
	Workers int
	// Struggle configures struggle detection.
	Struggle struggle.StruggleConfig
	// MaxProblemDetails caps how many problems the Summary keeps in full (the counts
	// are always complete); ≤ 0 means 10000.
	MaxProblemDetails int
	// Sessions configures how agent sessions are replayed through the assessment.
	Sessions SessionOptions
	// Variants are other configurations every run and session is replayed under too,
	// for comparison (the seed preset beside the configured detector, say); only their
	// outcomes are kept, in RunResult.Variants and SessionResult.Variants.
	Variants []Variant
	// RunHook and SessionHook, when set, are called in the worker that replayed each
	// run or session, before it is delivered to the sink: per-unit work of the caller
	// (such as scoring baselines) that must not serialise on the sink. They must be
	// safe for concurrent use and may set the result's Extra field.
	RunHook     func(*RunResult)
	SessionHook func(*SessionResult)
	// Exclude lists files and folders, slash-separated paths relative to the root,
	// that are not input: the replay's own output files when they are written inside
	// the input. They are left out of the walk without a problem or a count, so that
	// the results are the same whether an earlier output is there or not. loopwatch's
	// temporary output files (hidden ".<name>.tmp-<pid>-…" files and folder probes,
	// see internal/tmpname) are always left out the same way.
	Exclude []string
	// Shard, when split (Count > 1), replays only the runs and sessions it owns and
	// reports only its share of the problems and notes (see [Shard]); every file is
	// still recognised, and every file read but the transcripts of other shards'
	// sessions and the small traces of none of its runs. The zero Shard replays
	// everything.
	Shard Shard
	// Digest, when set, is handed the content digest (hex SHA-256) of each input file
	// whose problems the replay reports, in path order, from the delivering goroutine:
	// every file with a digest, unsplit; in a split replay, each file's by exactly one
	// shard. Folded in path order with a [Fingerprint], the union of the shards'
	// digests is the whole replay's [Summary.Fingerprint], which no shard knows. An
	// error stops the replay.
	Digest func(file, sha256 string) error
	// ReadSpecialFiles reads files that are not regular files — named pipes, character
	// devices, sockets — instead of reporting them: set it when the input is one such
	// file the user named (`--in /dev/stdin`, a process substitution). Each is read
	// once, as a stream: its format is recognised from the bytes the read begins with.
	// Found while walking a folder, such a file is reported (read_error) and skipped,
	// as opening a named pipe nobody writes to would block the replay.
	ReadSpecialFiles bool
	// Scratch, when set, creates a scratch file the replay may keep aside what it
	// would otherwise hold to its end for every input file and key (the files' paths,
	// a record of each file's format, size and flags, and the run and session keys
	// read), so that its memory does not grow with their number. The caller owns the
	// file (it closes and removes it after Replay returns); a failure to write or read
	// it back fails the replay. Nil keeps
	// everything in memory.
	Scratch func(name string) (*os.File, error)
	// Phase, when set, is called as each step of the replay ends, with its name:
	// "walk" (the input listed), "recognise" (every file's format known), "context"
	// (the files runs are joined with read) and "replay" (every run and session
	// replayed and delivered). It is for timing them; it changes nothing.
	Phase func(name string)
	// Delivered, when set, is called before the "replay" phase ends with the time the
	// delivery was busy: the time, summed over the files, from a file's results
	// being taken in order to the sink's return — the sink's work, which no number of
	// workers shares, so that the replay step is at best its wall time over this
	// faster with more of them (on a machine whose cores are all busy, the time is
	// the delivery's share of one). It is for timing; it changes nothing else.
	Delivered func(busy time.Duration)

	// keyPages, in tests, is how many pages of the run and session keys a replay holds
	// before it moves them to Scratch (0: seenMemPages).
	keyPages int
}

// Variant is a configuration runs and sessions are replayed under beside the
// configured one.
type Variant struct {
	Name     string
	Struggle struggle.StruggleConfig
	Assess   *assess.Config // the session assessment (nil: assess.DefaultConfig())
	// SameRuns and SameSessions mark a side of the variant that is the configured
	// one (a preset compared with itself on that side): its runs, or its sessions, are
	// not replayed again, and RunResult.Variants, or SessionResult.Variants, holds the
	// configured outcome in the variant's place.
	SameRuns, SameSessions bool
}

// A Sink receives the results of a replay, one run or session at a time, in order of
// file path and then key, from a single goroutine. An error from the sink stops the
// replay and is returned by [Replay].
type Sink interface {
	Run(*RunResult) error
	Session(*SessionResult) error
}

// A ProblemSink receives every input problem as the replay finds it, in a
// deterministic order (the walk's, then context files in path order, then each run
// file's in path order). A [Sink] that is also a ProblemSink gets them all, however
// many there are, while [Summary.Problems] keeps only the first MaxProblemDetails: a
// problems table written from here is complete at a bounded memory cost. An error
// stops the replay.
type ProblemSink interface {
	Problem(input.Problem) error
}

// SinkFunc adapts a function to a Sink that receives runs and ignores sessions.
type SinkFunc func(*RunResult) error

// Run calls f.
func (f SinkFunc) Run(r *RunResult) error { return f(r) }

// Session ignores the session.
func (f SinkFunc) Session(*SessionResult) error { return nil }

// Sinks is a Sink (and a [ProblemSink]) made of functions; a nil function ignores
// what it would receive.
type Sinks struct {
	Runs     func(*RunResult) error
	Sessions func(*SessionResult) error
	Problems func(input.Problem) error
}

// Problem calls s.Problems.
func (s Sinks) Problem(p input.Problem) error {
	if s.Problems == nil {
		return nil
	}
	return s.Problems(p)
}

// Run calls s.Runs.
func (s Sinks) Run(r *RunResult) error {
	if s.Runs == nil {
		return nil
	}
	return s.Runs(r)
}

// Session calls s.Sessions.
func (s Sinks) Session(r *SessionResult) error {
	if s.Sessions == nil {
		return nil
	}
	return s.Sessions(r)
}

// Summary describes what a replay read.
type Summary struct {
	Files      int            // files read as input (context files included)
	FilesByFmt map[string]int // files per recognised format
	Ignored    int            // documentation files skipped without a problem
	Runs       int            // runs replayed
	Sessions   int            // sessions replayed
	Events     int            // events of the replayed sessions
	// Problems holds the first MaxProblemDetails problems, for display; a sink that is
	// a [ProblemSink] receives all of them.
	Problems     []input.Problem
	ProblemCount map[input.ProblemKind]int // complete counts, also beyond the kept details
	// Notes counts facts about the input that are not problems (beads without cycle
	// comments, comments quasar cut, nebula phases that joined no run, …), by what was
	// counted; see [input.Note].
	Notes map[string]int
	// Fingerprint is a SHA-256 over the path and content of every file read, context
	// files included, in path order: equal fingerprints mean identical input. It is
	// empty in a split replay, whose shards do not read the transcripts of other
	// shards' sessions: there it is the fold of the shards' digests (Options.Digest).
	Fingerprint string
	// Listing is a SHA-256 over the path and size of every file the walk found (and the
	// content of each trace a split replay reads whole when it recognises it), and the
	// path and content of every other file that every shard of a split replay reads
	// (all but the transcripts whose opening bytes prove their session, and their
	// subagents), in path order: the same in every shard of one split of one input.
	Listing string
	// Joins is what the notes on the quasar joins were computed from.
	Joins JoinCounts
}

// TotalProblems returns the number of problems found.
func (s *Summary) TotalProblems() int {
	n := 0
	for _, c := range s.ProblemCount {
		n += c
	}
	return n
}

func (s *Summary) note(notes []input.Note) {
	for _, n := range notes {
		s.Notes[n.What] += n.Count
	}
}

// Replay reads every file under fsys, replays each run it finds and hands the results
// to sink in order of file path, then run key. It works in three steps: it recognises
// every file's format; reads the context files (nebula files, cycle-commit lists,
// quasar's configuration) one at a time in path order into the join context the run
// sources join against; then reads and replays the run files in a pool of workers,
// delivering in order. Errors reading the input are problems in the Summary; Replay
// itself fails only when fsys cannot be walked at all, the context is cancelled or the
// sink fails.
//
// Every file is read through the context: cancelling it stops reads under way, a
// stream's blocked read included.
func Replay(ctx context.Context, fsys fs.FS, opts Options, sink Sink) (replayed *Summary, err error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MaxProblemDetails <= 0 {
		opts.MaxProblemDetails = 10000
	}
	fsys = ctxFS{ctx: ctx, fsys: fsys}
	sum := &Summary{FilesByFmt: map[string]int{}, ProblemCount: map[input.ProblemKind]int{}, Notes: map[string]int{}}
	psink, _ := sink.(ProblemSink)
	var sinkErr error // the first error of the problem sink
	problem := func(p input.Problem) {
		sum.ProblemCount[p.Kind]++
		if len(sum.Problems) < opts.MaxProblemDetails {
			sum.Problems = append(sum.Problems, p)
		}
		if psink != nil && sinkErr == nil {
			sinkErr = psink.Problem(p)
		}
	}
	paths, special, err := walk(fsys, opts, func(p input.Problem) {
		if opts.Shard.Owns(p.File) { // found walking: reported by the shard of the path
			problem(p)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reading the input: %w", err)
	}
	if sinkErr != nil {
		return nil, sinkErr
	}
	phase := func(name string) {
		if opts.Phase != nil {
			opts.Phase(name)
		}
	}
	phase("walk")

	// Step 1: recognise every file, into the table kept to the end (where paths is not).
	files, listing, err := sniffAll(ctx, fsys, paths, special, opts.Workers, opts.Shard, opts.Scratch)
	defer files.closeStreams()
	if err != nil {
		return nil, err
	}
	paths, special = nil, nil
	groups, err := findLogGroups(ctx, fsys, files, opts.Workers)
	if err != nil {
		return nil, err
	}
	phase("recognise")
	defer func() { // a file that could not be read back is why anything after it failed
		if ferr := files.failed(); ferr != nil {
			replayed, err = nil, ferr
		}
	}()
	sh := &sharding{Shard: opts.Shard, files: files}
	// The fingerprint folds in every file's digest in path order as soon as the files
	// before it are done, so that no digest is kept for the whole replay: digests holds
	// those not folded yet, by file (the context files' past the last run file
	// delivered). Options.Digest is handed them as they are folded.
	type fileDigest struct {
		sha256 string
		owned  bool // the file's problems are this shard's to report (sniffedFile.owned)
		shared bool // every shard folds it into the listing here (sniffedFile.shared)
	}
	digests := map[int]fileDigest{}
	fp, shared, folded := NewFingerprint(), NewFingerprint(), 0 // shared: the files every shard reads, for the listing
	foldDigests := func(upTo int) error {
		for ; folded < upTo; folded++ {
			d := digests[folded]
			delete(digests, folded)
			if d.sha256 == "" {
				continue
			}
			name := files.name(folded)
			if !opts.Shard.Split() {
				fp.Add(name, d.sha256)
			}
			if d.shared {
				shared.Add(name, d.sha256)
			}
			if opts.Digest != nil && d.owned {
				if err := opts.Digest(name, d.sha256); err != nil {
					return err
				}
			}
		}
		return nil
	}

	// Step 2: the context files, in path order, into one join context.
	jc := join.New()
	var contextFiles []int // the few context files; the others are run files
	for i := range files.len() {
		sn := files.file(i)
		fm := sn.format
		if fm == nil || fm.role != roleContext {
			continue
		}
		contextFiles = append(contextFiles, i)
		name := files.name(i)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		digest, probs, notes := readContextFile(fsys, name, &sn, fm, jc)
		for _, p := range sh.fileProblems(name, sn.owned, probs) {
			problem(p)
		}
		if sinkErr != nil {
			return nil, sinkErr
		}
		if sn.owned {
			sum.note(notes)
		}
		if digest != "" {
			digests[i] = fileDigest{digest, sn.owned, sn.shared()}
			sum.Files++
			sum.FilesByFmt[fm.name]++
		}
	}
	for _, p := range jc.Finish() {
		if sh.ownsPath(p.File) { // found reading a file: reported by the file's shard
			problem(p)
		}
	}
	if sinkErr != nil {
		return nil, sinkErr
	}

	phase("context")
	// Step 3: the other files, replayed by the workers and delivered in path order.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runFile := func(k int) int { // run file k's index: k and the context files before it
		return k + sort.Search(len(contextFiles), func(j int) bool { return contextFiles[j]-j > k })
	}
	runFiles := files.len() - len(contextFiles)
	win := newWindow(ctx, runFiles, windowFiles*opts.Workers, windowBytes, func(k int) int64 {
		sn := files.file(runFile(k)) // in the part of the records read last: the window is small
		return sn.size()
	})
	results := make(chan fileResult, windowFiles*opts.Workers) // never full: it holds at most the window's files
	plans := newSessionPlans(opts)
	for w := 0; w < opts.Workers; w++ {
		go func() {
			for k, ok := win.claim(); ok; k, ok = win.claim() {
				name, sn := files.at(runFile(k))
				res := replayFile(ctx, fsys, name, &sn, jc, opts, sh, plans, groups)
				res.index = k
				select {
				case results <- res:
				case <-ctx.Done():
					return
				}
			}
		}()
	}

	seen := newFirstReads(func(k int32) string { return files.name(runFile(int(k))) }, opts.Scratch, opts.keyPages) // run key → file that had it first
	defer func() {                                                                                                  // a key that could not be kept aside or looked up fails the replay
		if serr := seen.failed(); serr != nil {
			replayed, err = nil, serr
		}
	}()
	joined := &joinedCounts{phases: map[[2]string]bool{}}
	pending := map[int]fileResult{}
	var busy time.Duration                // delivering, for Options.Delivered
	hashed := map[string]string{}         // subagent transcript → digest, from its parent's read
	partsRead := map[string]*partResult{} // a log's later part → what its first file's read found in it
	for next := 0; next < runFiles; {
		res, ok := pending[next]
		if !ok {
			select {
			case r := <-results:
				pending[r.index] = r
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		delete(pending, next)
		if res.err != nil {
			return nil, res.err
		}
		var start time.Time
		if opts.Delivered != nil {
			start = time.Now()
		}
		maps.Copy(hashed, res.subDigests)
		maps.Copy(partsRead, res.parts)
		if res.attached {
			res.settleSubagent(fsys, hashed, sh)
			if p := partsRead[res.name]; p != nil { // a log's later part: what its first file's read found in it
				delete(partsRead, res.name)
				res.problems = append(p.problems, res.problems...)
				res.sessions = p.sessions
			}
		}
		digests[runFile(next)] = fileDigest{res.digest, res.owned, res.shared}
		if err := foldDigests(runFile(next) + 1); err != nil {
			return nil, err
		}
		win.delivered(next)
		next++
		if err := sum.absorb(res, seen, joined, problem, sink); err != nil {
			return nil, err
		}
		if sinkErr != nil {
			return nil, sinkErr
		}
		if opts.Delivered != nil {
			busy += time.Since(start)
		}
	}
	if opts.Delivered != nil {
		opts.Delivered(busy)
	}
	sum.Joins = joined.counts(jc)
	sum.note(sum.Joins.Notes())

	if err := foldDigests(files.len()); err != nil {
		return nil, err
	}
	if !opts.Shard.Split() {
		sum.Fingerprint = fp.Sum()
	}
	l := sha256.Sum256([]byte(listing + "\n" + shared.Sum()))
	sum.Listing = hex.EncodeToString(l[:])
	phase("replay")
	return sum, ctx.Err()
}

// joinedCounts tallies what of the join context the delivered runs used.
type joinedCounts struct {
	phases  map[[2]string]bool // nebula, phase
	commits int
}

func (j *joinedCounts) add(r *input.Run) {
	if r.Nebula != "" { // joined to a nebula's phase (a trace's own phase name joins nothing)
		j.phases[[2]string{r.Nebula, r.Phase}] = true
	}
	for _, c := range r.Cycles {
		j.commits += len(c.Commits)
	}
}

func (j *joinedCounts) counts(jc *join.Context) JoinCounts {
	phases, commits := jc.Counts()
	return JoinCounts{Phases: phases, Commits: commits, JoinedPhases: sortedPhases(j.phases), JoinedCommits: j.commits}
}

// absorb folds one file's results into the summary and hands its runs to the sink.
func (s *Summary) absorb(res fileResult, seen *firstReads, joined *joinedCounts, problem func(input.Problem), sink Sink) error {
	for _, p := range res.problems {
		problem(p)
	}
	s.note(res.notes)
	switch {
	case res.ignored:
		s.Ignored++
		return nil
	case res.format == "":
		return nil
	}
	s.Files++
	s.FilesByFmt[res.format]++
	for _, rr := range res.runs {
		if first, dup := seen.add(rr.Run.Key, int32(res.index)); dup {
			problem(input.Problem{File: res.name, Line: rr.Run.Line, Kind: input.ProblemDuplicate,
				Detail: fmt.Sprintf("run %s was already read from %s; this one is skipped", rr.Run.Key, first)})
			continue
		}
		s.Runs++
		joined.add(rr.Run)
		if err := sink.Run(rr); err != nil {
			return err
		}
	}
	for _, sr := range res.sessions {
		key := sr.Session.Key
		if first, dup := seen.add(key, int32(res.index)); dup {
			problem(input.Problem{File: res.name, Line: sr.Session.Line, Kind: input.ProblemDuplicate,
				Detail: fmt.Sprintf("session %s was already read from %s; this one is skipped", key, first)})
			continue
		}
		for _, p := range analysisProblems(sr) {
			problem(p)
		}
		s.Sessions++
		s.Events += len(sr.Session.Events)
		s.note(sessionNotes(sr))
		if err := sink.Session(sr); err != nil {
			return err
		}
	}
	return nil
}

type fileResult struct {
	index    int
	name     string
	format   string
	ignored  bool
	digest   string
	runs     []*RunResult
	sessions []*SessionResult
	problems []input.Problem
	notes    []input.Note
	err      error // the replay could not go on (cancelled)
	// attached marks a subagent transcript read with its parent transcript, or a later
	// part of a log read with its first file: its digest is the one the parent's read
	// took (subDigests), delivered before it, and a part's sessions and problems are
	// those the first file's read found of it (parts), delivered with it.
	attached   bool
	subDigests map[string]string
	parts      map[string]*partResult
	owned      bool // the shard reports the file's problems (sniffedFile.owned)
	shared     bool // every shard folds its digest into the listing (sniffedFile.shared)
}

// partResult is what the read of a log's first file found of another part: the
// sessions that first appear in it and the problems in it.
type partResult struct {
	sessions []*SessionResult
	problems []input.Problem
}

// partOf returns what the result holds for the part at path name.
func (r *fileResult) partOf(name string) *partResult {
	if r.parts == nil {
		r.parts = map[string]*partResult{}
	}
	p := r.parts[name]
	if p == nil {
		p = &partResult{}
		r.parts[name] = p
	}
	return p
}

// settleSubagent gives an attached subagent transcript (or a log's later part) the
// digest its parent's read took, or, when that read could not take one, reads the
// file to hash it or report why it cannot be read — but for a part that read could
// not open, which it reported (an empty digest): it is left uncounted.
func (r *fileResult) settleSubagent(fsys fs.FS, hashed map[string]string, sh *sharding) {
	d, ok := hashed[r.name]
	delete(hashed, r.name)
	if ok && d == "" { // a log's part its first file's read could not open, and reported
		r.format = ""
		return
	}
	if !ok {
		var err error
		if d, err = HashFile(fsys, r.name); err != nil {
			r.format = ""
			r.problems = append(r.problems, sh.fileProblems(r.name, r.owned, []input.Problem{*readProblem(r.name, err)})...)
			return
		}
	}
	r.digest = d
}

// sniffedFile is what recognising a file found, as the replay keeps it for every file
// to its end (in a fileTable), so what only a few files have is apart (rare).
type sniffedFile struct {
	format  *format
	ignored bool // documentation or repository furniture
	// labels marks an ignored file that looks like a label file among the inputs (a
	// counted note).
	labels bool
	// subagent marks a Claude Code subagent transcript: attached when its parent
	// transcript is in the input (the parent's read includes it), else an orphan.
	subagent, attached bool
	// In a split replay (see sharding), keyed marks a file whose problems and notes go
	// by the key of the session it holds rather than by its path — a transcript whose
	// opening bytes prove its session's key, and its attached subagents — and keyOwned
	// that this shard owns that session. owned says whether this shard reports the
	// file's problems and notes (always, unsplit).
	keyed, keyOwned, owned bool
	// In a split replay, whole marks a run file read whole when it was recognised (one
	// smaller than sniffSize, of a format that tells the runs it holds: format.runKeys):
	// every shard folds its content into the listing then, and none again when it is
	// read; its problems and notes go by the key of its first run (by its path when it
	// holds none). foreign marks one this shard leaves unread: it holds none of this
	// shard's runs, and another shard reports on it.
	whole, foreign bool
	// sum is the first half of a whole file's SHA-256: the shards that read the file
	// again check that they read what every shard's listing holds.
	sum [wholeSum]byte
	// kib is a recognised regular file's size in KiB, rounded up, for the delivery
	// window.
	kib  uint32
	rare *sniffedRare
}

// shared reports whether every shard of a split replay reads the file's content as it
// replays it, and so folds its digest into the listing then: all files but those only
// their session's shard reads (keyed) and those read whole when recognised, whose
// digest the listing holds from there (whole).
func (sn *sniffedFile) shared() bool { return !sn.keyed && !sn.whole }

// size is the file's size as the delivery window weighs it.
func (sn *sniffedFile) size() int64 { return int64(sn.kib) << 10 }

// sniffedRare is what recognising a file found that few files have.
type sniffedRare struct {
	problem *input.Problem // it could not be read, or no format recognises it
	// stream holds a special file (a named pipe, a device) open from its sniffing to
	// its one read: such a file cannot be read twice.
	stream *stream
	// key is the key of the session a Claude Code transcript holds, when its opening
	// bytes prove it (claudecode.KeyFromHead) and the replay is split in shards: only
	// until sniffAll turns it into the file's keyed and keyOwned.
	key string
}

func (sn *sniffedFile) problem() *input.Problem {
	if sn.rare == nil {
		return nil
	}
	return sn.rare.problem
}

func (sn *sniffedFile) stream() *stream {
	if sn.rare == nil {
		return nil
	}
	return sn.rare.stream
}

func (sn *sniffedFile) key() string {
	if sn.rare == nil {
		return ""
	}
	return sn.rare.key
}

// sniffChunk is how many files sniffAll recognises at once (in parallel) before it
// adds them to the table, in order.
const sniffChunk = 4096

// sniffAll recognises every file's format, reading the opening bytes of several files
// at once, and returns what it found in a table indexed like files (kept in scratch
// files when scratch is not nil). special marks the files that are no regular files,
// to be read as streams. It marks the Claude Code subagent transcripts and whether
// their parent transcript is in the input, and, in a split replay, which shard
// reports each file's problems and notes (see sharding) and which run files it leaves
// unread (sniffedFile.foreign). It returns a SHA-256 over every file's path and size
// too, and the content of the files read whole (sniffedFile.whole), in path order (the
// first part of Summary.Listing).
// The table it returns, even with an error, holds the streams it opened
// (fileTable.closeStreams).
func sniffAll(ctx context.Context, fsys fs.FS, files []string, special map[string]bool, workers int, shard Shard,
	scratch func(string) (*os.File, error)) (*fileTable, string, error) {
	t, err := newFileTable(scratch)
	if err != nil {
		return nil, "", err
	}
	listing := sha256.New()
	// The main transcripts, and their keys' ownership: a subagent transcript sorts
	// after its parent (<session>.jsonl before <session>/subagents/…), whose bits are
	// set by then.
	transcripts, keyed, keyOwned := newBits(len(files)), newBits(len(files)), newBits(len(files))
	chunk := make([]sniffedFile, min(sniffChunk, len(files)))
	facts := make([]sniffFacts, len(chunk))
	heads := make([][]byte, workers) // each worker's room for a file's opening bytes
	for w := range heads {
		heads[w] = make([]byte, 0, sniffSize)
	}
	outputs := listedOutputs(fsys, files)
	for start := 0; start < len(files) && ctx.Err() == nil; start += len(chunk) {
		part := chunk[:min(len(chunk), len(files)-start)]
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := int(next.Add(1) - 1); j < len(part) && ctx.Err() == nil; j = int(next.Add(1) - 1) {
					name := files[start+j]
					part[j], facts[j] = sniffFile(ctx, fsys, name, special[name], shard, heads[w])
					if outputs[name] {
						part[j] = sniffedFile{ignored: true} // loopwatch's output, never input
					}
				}
			}()
		}
		wg.Wait()
		for j := range part {
			i, name, sn := start+j, files[start+j], part[j]
			part[j] = sniffedFile{}
			if f := &facts[j]; sn.whole {
				fmt.Fprintf(listing, "%s\x00%d\x00%x\n", name, f.size, f.digest)
			} else {
				fmt.Fprintf(listing, "%s\x00%d\n", name, f.size)
			}
			if fm := sn.format; fm != nil && fm.name == claudecode.SourceName {
				if claudecode.IsSubagentFile(name) {
					sn.subagent = true
					if p, ok := slices.BinarySearch(files, claudecode.ParentOf(name)); ok && transcripts.has(p) {
						sn.attached = true
						sn.keyed, sn.keyOwned = keyed.has(p), keyOwned.has(p)
					}
				} else {
					transcripts.set(i)
					if key := sn.key(); key != "" {
						keyed.set(i)
						sn.keyed = true
						if sn.keyOwned = shard.Owns(key); sn.keyOwned {
							keyOwned.set(i)
						}
					}
				}
			}
			switch {
			case !shard.Split():
				sn.owned = true
			case sn.whole:
				sn.owned = facts[j].reports
				sn.foreign = !sn.owned && !facts[j].mine
			case sn.keyed:
				sn.owned = sn.keyOwned
			default:
				sn.owned = shard.Owns(name)
			}
			if sn.rare != nil && sn.rare.problem == nil && sn.rare.stream == nil { // only a key
				sn.rare = nil
			}
			t.add(name, sn)
		}
	}
	if err := ctx.Err(); err != nil {
		return t, "", err
	}
	return t, hex.EncodeToString(listing.Sum(nil)), t.finish()
}

// bitset is a set of small numbers.
type bitset []uint64

func newBits(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// wholeSum is how much of a whole file's SHA-256 the file table keeps (sniffedFile.sum).
const wholeSum = 16

// sniffFacts is what recognising a file found that goes into the listing, and, for a
// run file read whole, what the shard owns of it.
type sniffFacts struct {
	size   int64             // bytes; -1 when it is no regular file or cannot be opened
	digest [sha256.Size]byte // SHA-256 of a file read whole (sniffedFile.whole)
	// Of a file read whole: reports, that the shard reports on it (it owns its first
	// run, or its path when it holds none); mine, that it holds a run the shard owns.
	reports, mine bool
}

// sniffFile recognises one file from its opening bytes: the first sniffSize, and up to
// maxSniff when those do not decide (a garbage or very long first line), read into
// scratch's room when it is enough. A special file stays open, its opening bytes kept
// for the read. In a split replay, the key of the session a Claude Code transcript
// holds is taken from those bytes when they prove it, and a regular run file smaller
// than sniffSize whose format tells the runs it holds (format.runKeys) is read whole:
// of its content are taken its digest and what the shard owns of it (sniffFacts).
func sniffFile(ctx context.Context, fsys fs.FS, name string, special bool, shard Shard, scratch []byte) (sniffedFile, sniffFacts) {
	keys := shard.Split()
	var f fs.File
	var err error
	if special {
		f, err = openSpecial(ctx, fsys, name)
	} else {
		f, err = fsys.Open(name)
	}
	if err != nil {
		return sniffedFile{rare: &sniffedRare{problem: readProblem(name, err)}}, sniffFacts{size: -1}
	}
	size, fileSize := int64(sniffSize), int64(-1) // -1: no regular file
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		fileSize = fi.Size()
		if fileSize < size {
			size = fileSize + 1 // +1: a file that grew since Stat still reads whole
		}
	}
	head := scratch[:0] // the opening bytes, in scratch's room while it is enough
	var fm *format
	var key string // the session key a Claude Code transcript's head proves, once tried
	if !special && size > quickSniff {
		// A file longer than quickSniff whose first whole lines name a JSON Lines
		// format is recognised from them — what detectFormat finds in more of it — and
		// the rest of its first sniffSize bytes is left unread (the replay reads it).
		if head, err = readHead(f, head, quickSniff); err == nil && len(head) == quickSniff {
			fm = detectRecord(head[:bytes.LastIndexByte(head, '\n')+1])
		}
		// With keys, a transcript's key comes from those bytes when they prove it (the
		// first record naming the file's session comes that early in 65 of the 68
		// transcripts of the shared corpus that have one): a head that proves a key
		// proves the same one read longer (claudecode.KeyFromHead). When they do not,
		// from the first sniffSize bytes.
		if keys && fm != nil && fm.name == claudecode.SourceName && claudecode.MayProveKey(name) {
			if key, _ = claudecode.KeyFromHead(name, head); key == "" {
				head, err = readHead(f, head, int(size))
			}
		}
	}
	if fm == nil && err == nil {
		head, err = readHead(f, head, int(size))
		fm = detectFormat(name, head)
	}
	if err == nil && fm == nil && len(head) == sniffSize {
		head, err = readHead(f, head, maxSniff)
		fm = detectFormat(name, head)
	}
	facts := sniffFacts{size: fileSize}
	var whole bool
	if err == nil && keys && fm != nil && fm.runKeys != nil && !special && fileSize >= 0 && fileSize < sniffSize {
		// A shard reads a small run file whole now: when it holds none of the shard's
		// runs and the shard does not report on it, the replay leaves it unread — which
		// saves more than reading the rest of its first sniffSize bytes costs, run files
		// being small. size is fileSize+1: one that grew since Stat is not read whole.
		// A read that fails here leaves the file to the replay, as a shard not split
		// reads it: its runs before the failure kept, the failure reported.
		rest, rerr := head, error(nil)
		if len(head) < int(size) {
			rest, rerr = readHead(f, head, int(size))
		}
		if rerr == nil && int64(len(rest)) == fileSize {
			whole = true
			facts.digest = sha256.Sum256(rest)
			first := true
			fm.runKeys(name, rest, func(key string) {
				owns := shard.Owns(key)
				if first {
					facts.reports, first = owns, false
				}
				facts.mine = facts.mine || owns
			})
			if first { // no run: its path's shard reports on it
				facts.reports = shard.Owns(name)
			}
		}
	}
	if err != nil {
		f.Close()
		return sniffedFile{rare: &sniffedRare{problem: readProblem(name, err)}}, facts
	}
	if fm != nil {
		sn := sniffedFile{format: fm, whole: whole, kib: uint32(min((max(fileSize, 0)+1023)>>10, math.MaxUint32))}
		if whole {
			copy(sn.sum[:], facts.digest[:])
		}
		if keys && fm.name == claudecode.SourceName {
			if key == "" { // not proved by the first bytes, or not tried on them
				key, _ = claudecode.KeyFromHead(name, head)
			}
			if key != "" {
				sn.rare = &sniffedRare{key: key}
			}
		}
		if special {
			if sn.rare == nil {
				sn.rare = &sniffedRare{}
			}
			sn.rare.stream = &stream{f: f, r: io.MultiReader(bytes.NewReader(bytes.Clone(head)), f)}
			return sn, facts
		}
		f.Close()
		return sn, facts
	}
	f.Close()
	if ignorable(name) {
		return sniffedFile{ignored: true}, facts
	}
	if looksLikeLabels(head) {
		return sniffedFile{ignored: true, labels: true}, facts
	}
	detail := fmt.Sprintf("not a recognised input format (known: %s); skipped", strings.Join(FormatNames(), ", "))
	if len(head) == 0 {
		detail = "empty file; skipped"
	}
	return sniffedFile{rare: &sniffedRare{problem: &input.Problem{File: name, Kind: input.ProblemUnknownFile, Detail: detail}}}, facts
}

// readHead reads from r until buf holds n bytes or r ends.
func readHead(r io.Reader, buf []byte, n int) ([]byte, error) {
	have := len(buf)
	if cap(buf) < n {
		buf = append(make([]byte, 0, n), buf...)
	}
	buf = buf[:n]
	k, err := io.ReadFull(r, buf[have:])
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return buf[:have+k], err
}

func readProblem(name string, err error) *input.Problem {
	return &input.Problem{File: name, Kind: input.ProblemRead,
		Detail: fmt.Sprintf("cannot read: %v; skipped (check the file's permissions)", err)}
}

// readContextFile reads one context file into jc and returns its content digest ("" when
// it could not be opened), problems and notes.
func readContextFile(fsys fs.FS, name string, sn *sniffedFile, fm *format, jc *join.Context) (string, []input.Problem, []input.Note) {
	f, err := sn.open(fsys, name)
	if err != nil {
		return "", []input.Problem{*readProblem(name, err)}, nil
	}
	defer f.Close()
	h := sha256.New()
	probs, notes := fm.readContext(name, io.TeeReader(f, h), jc)
	io.Copy(h, f) // a reader that stopped early still fingerprints the whole file
	return hex.EncodeToString(h.Sum(nil)), probs, notes
}

// replayFile reads and replays one run file, or reports what recognising it found.
func replayFile(ctx context.Context, fsys fs.FS, name string, sn *sniffedFile, jc *join.Context, opts Options, sh *sharding, plans *sessionPlans, groups *logGroups) fileResult {
	res := fileResult{name: name, ignored: sn.ignored, owned: sn.owned, shared: sn.shared()}
	if p := sn.problem(); p != nil {
		res.problems = append(res.problems, sh.fileProblems(name, sn.owned, []input.Problem{*p})...)
	}
	if sn.labels && sn.owned {
		res.notes = append(res.notes, input.Note{What: labelsNote, Count: 1})
	}
	if sn.format == nil {
		return res
	}
	if sn.format.role == roleSessions {
		return replaySessionFile(ctx, fsys, name, sn, opts, sh, plans, groups, res)
	}
	if sh.skips(sn) { // none of this shard's runs, nor its file to report on
		res.format = sn.format.name
		return res
	}
	f, err := sn.open(fsys, name)
	if err != nil {
		res.problems = append(res.problems, sh.fileProblems(name, sn.owned, []input.Problem{*readProblem(name, err)})...)
		return res
	}
	defer f.Close()
	res.format = sn.format.name
	h := sha256.New()
	src := &eofReader{r: f}
	runs, probs, notes := sn.format.read(name, io.TeeReader(src, h), jc, sh.keep(sn))
	if !src.eof {
		io.Copy(h, src) // a reader that stopped early still fingerprints the whole file
	}
	sum := h.Sum(nil)
	res.digest = hex.EncodeToString(sum)
	if sn.whole && src.err == nil && !bytes.Equal(sum[:wholeSum], sn.sum[:]) {
		// Another shard may have left it unread for what it held then: what this shard
		// replays would not add up with the others'.
		res.err = fmt.Errorf("%s changed since it was recognised: its content is not the one every shard's input listing holds; replay the shards again once the input stays as it is", name)
		return res
	}
	res.problems = append(res.problems, sh.fileProblems(name, sn.owned, probs)...)
	if sn.owned {
		res.notes = notes
	}
	for _, r := range runs {
		if !opts.Shard.Owns(r.Key) {
			continue
		}
		rr := ReplayRun(r, opts.Struggle)
		for _, v := range opts.Variants {
			if v.SameRuns {
				rr.Variants = append(rr.Variants, rr.Struggle)
				continue
			}
			rr.Variants = append(rr.Variants, ReplayRun(r, v.Struggle).Struggle)
		}
		if opts.RunHook != nil {
			opts.RunHook(rr)
		}
		var fixProbs []input.Problem
		rr.FixCase, fixProbs = fixsim.Observe(r)
		res.problems = append(res.problems, fixProbs...)
		res.runs = append(res.runs, rr)
	}
	return res
}

// eofReader notes when its reader reports io.EOF: a file read to its end needs no
// draining into its fingerprint (and no copy buffer for it). err is the first other
// error it reported.
type eofReader struct {
	r   io.Reader
	eof bool
	err error
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	switch {
	case err == io.EOF:
		e.eof = true
	case err != nil && e.err == nil:
		e.err = err
	}
	return n, err
}

// replaySessionFile reads a session file and replays its sessions through the
// assessment. A subagent transcript is read with its parent; here it only counts in
// the fingerprint, or is reported when its parent is missing. So does a later part of
// a log, read with the log's first file (logGroups).
func replaySessionFile(ctx context.Context, fsys fs.FS, name string, sn *sniffedFile, opts Options, sh *sharding, plans *sessionPlans, groups *logGroups, res fileResult) fileResult {
	if sn.subagent {
		res.format = subagentFormat
		if sn.attached && sh.parentReads(sn) { // read, and fingerprinted, with its parent (settleSubagent)
			res.attached = true
			return res
		}
		if sh.skips(sn) { // of another shard's session: read by that shard, with its parent
			return res
		}
		var probs []input.Problem
		hfs := newHashingFS(fsys)
		if !sn.attached && sn.owned {
			probs = claudecode.ReadOrphan(hfs, name)
		}
		digest, ok := hfs.digests[name]
		if !ok { // not read here, or it could not be: hash it, or report why it cannot be
			var err error
			if digest, err = HashFile(fsys, name); err != nil {
				res.format = ""
				res.problems = append(res.problems, sh.fileProblems(name, sn.owned, []input.Problem{*readProblem(name, err)})...)
				return res
			}
		}
		res.digest = digest
		res.problems = append(res.problems, probs...)
		return res
	}
	if groups.isPart(name) { // read, and fingerprinted, with the log's first file (settleSubagent)
		res.format, res.attached = sn.format.name, true
		return res
	}
	if sh.skips(sn) { // another shard's session: read, and fingerprinted, by that shard
		res.format = sn.format.name
		return res
	}
	parts := groups.parts(name) // of a log in parts, read here whole
	f, err := sn.open(fsys, name)
	if err != nil {
		res.problems = append(res.problems, sh.fileProblems(name, sn.owned, []input.Problem{*readProblem(name, err)})...)
		if len(parts) == 0 {
			return res
		}
	}
	hfs := newHashingFS(fsys) // the files the source opens itself: a transcript's subagents, a log's other parts
	h, src := sha256.New(), &eofReader{r: f}
	var r io.Reader // nil: the file could not be opened, and the log's other parts are read without it
	if f != nil {
		defer f.Close()
		r = io.TeeReader(src, h)
	}
	sessions, probs, notes := sn.format.readSessions(hfs, name, r, parts, sh.keep(sn))
	if f != nil {
		if !src.eof {
			io.Copy(h, src) // a reader that stopped early still fingerprints the whole file
		}
		res.digest, res.format = hex.EncodeToString(h.Sum(nil)), sn.format.name
	}
	res.subDigests = hfs.digests
	if sn.owned { // the file's notes, as its problems, are its shard's (a group's, its first file's)
		res.notes = append(res.notes, notes...)
	}
	if len(parts) == 0 {
		res.problems = append(res.problems, sh.fileProblems(name, sn.owned, probs)...)
	} else {
		// A log in parts: its problems and notes go by its first file's path, and a
		// part's sessions and problems are delivered with it (res.parts). A part whose
		// read failed is fingerprinted by what was read of it (its failure is among the
		// problems); one that could not be opened is reported here, once, and not opened
		// again (an empty digest: settleSubagent leaves it uncounted, as an unreadable
		// file).
		maps.Copy(res.subDigests, hfs.partial)
		read := 0
		for _, p := range parts {
			err, failed := hfs.failed[p]
			switch {
			case p == name:
				if f != nil {
					read++
				}
			case failed:
				res.subDigests[p] = ""
				if !sh.Split() || sn.owned {
					res.partOf(p).problems = append(res.partOf(p).problems, *readProblem(p, err))
				}
			default:
				read++
			}
		}
		if !sh.Split() || sn.owned {
			res.notes = append(res.notes, input.Note{What: sn.format.name + ": files read as parts of one log, for they share a session", Count: read})
			for _, p := range probs {
				if p.File == name {
					res.problems = append(res.problems, p)
				} else {
					res.partOf(p.File).problems = append(res.partOf(p.File).problems, p)
				}
			}
		}
	}
	for _, s := range sessions {
		if !opts.Shard.Owns(s.Key) {
			continue
		}
		sr, err := plans.main.Replay(ctx, s)
		if err != nil {
			res.err = fmt.Errorf("replaying session %s of %s: %w", s.Key, name, err)
			return res
		}
		for k, v := range opts.Variants {
			if v.SameSessions {
				sr.Variants = append(sr.Variants, sr.Outcome())
				continue
			}
			vr, err := plans.variants[k].Replay(ctx, s)
			if err != nil {
				res.err = fmt.Errorf("replaying session %s of %s under %s: %w", s.Key, name, v.Name, err)
				return res
			}
			sr.Variants = append(sr.Variants, vr.Outcome())
		}
		if opts.SessionHook != nil {
			opts.SessionHook(sr)
		}
		if s.File != name && len(parts) > 0 { // first found in a later part: delivered with it
			res.partOf(s.File).sessions = append(res.partOf(s.File).sessions, sr)
			continue
		}
		res.sessions = append(res.sessions, sr)
	}
	return res
}

// HashFile returns the hex SHA-256 of a file's content.
func HashFile(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RunResult is the replay of one run: the run as read, and every decision the
// detectors made on it.
type RunResult struct {
	Run    *input.Run
	Cycles []CycleResult // one per cycle of the run, in order

	// Struggle summarises struggle detection over the run.
	Struggle StruggleOutcome

	// FixCase holds the run's recorded filter failures for the inner fix-loop
	// simulation (package fixsim); nil when it has none or its filter history is unknown.
	FixCase *fixsim.Case

	// Variants holds struggle detection's outcome under each of Options.Variants.
	Variants []StruggleOutcome
	// Extra is the caller's, set by Options.RunHook; the replay never reads it.
	Extra any
}

// CycleResult is struggle detection's verdict at the end of one cycle.
type CycleResult struct {
	Cycle  int
	Signal struggle.StruggleSignal
	// Decision reports whether the loop would act on the signal at this cycle: the
	// cycle was not approved (an approved run ends, nothing is left to decide) and it is
	// at least MinCyclesBeforeCheck.
	Decision bool
	// PriorFindings is the number of findings of earlier cycles the overlap compared
	// against.
	PriorFindings int
}

// StruggleOutcome is struggle detection's prediction for a whole run.
type StruggleOutcome struct {
	// Triggered reports whether the signal triggered at a decision point.
	Triggered bool
	// FirstCycle is the first cycle where it triggered at a decision point (0: never).
	FirstCycle int
	FirstTime  time.Time // end of that cycle
	// MaxScore is the highest score over the decision points (0 when there are none):
	// the run is predicted struggling exactly when MaxScore ≥ CompositeThreshold, so it
	// ranks runs for threshold sweeps, average precision and ROC AUC.
	MaxScore float64
	// Lead time between the first trigger and the run's end: cycles left, cost spent
	// after it, seconds until the run's last event.
	LeadCycles  int
	LeadCostUSD float64
	LeadSeconds float64
}

// ReplayRun replays one run cycle by cycle through struggle detection, exactly as
// quasar's loop drives it: each cycle's state is accumulated with
// [analyze.CycleState.EndCycle] and then evaluated. The detector sees only the cycles up
// to the one it decides on.
func ReplayRun(run *input.Run, cfg struggle.StruggleConfig) *RunResult {
	res := &RunResult{Run: run, Cycles: make([]CycleResult, 0, len(run.Cycles))}
	state := newCycleState(run)
	tr := struggle.NewTracker(cfg.CaseFold) // EvaluateStruggle's signals at a cost per cycle that does not grow with the run
	var d decider
	for i := range run.Cycles {
		c := &run.Cycles[i]
		prior := len(state.AllFindings)
		state.advance(c)
		sig := tr.Evaluate(&state.CycleState, cfg)
		decision := d.observe(c.Cycle, c.Time, c.TotalCostUSD, c.Approved, sig, cfg)
		res.Cycles = append(res.Cycles, CycleResult{Cycle: c.Cycle, Signal: sig, PriorFindings: prior, Decision: decision})
	}
	res.Struggle = d.finish(newLeadBase(run))
	return res
}

// sessionNotes counts what a session's source read but did not turn into events the
// assessment uses, so that nothing is dropped silently.
func sessionNotes(sr *SessionResult) []input.Note {
	src := sr.Session.Source
	var notes []input.Note
	add := func(what string, n int) {
		if n > 0 {
			notes = append(notes, input.Note{What: src + ": " + what, Count: n})
		}
	}
	if sr.HumanMessages == 0 {
		add("sessions without a human message", 1)
	}
	skipped := 0
	for k, n := range sr.Session.Records {
		if strings.HasPrefix(k, "skipped/") {
			skipped += n
		}
	}
	add("records skipped: no use to the assessment (progress, snapshots, attachments, unknown types; see record_counts)", skipped)
	add("records out of time order, placed by their time", sr.Session.Records["time/out_of_order"])
	add("records without a time, given the previous record's", sr.Session.Records["time/missing"])
	add("records read again (an event_id read before: a log exported in parts that overlap), read once", sr.Session.Records["repeated"])
	if len(sr.Session.ContinuedFrom) > 0 {
		add("sessions resuming an earlier session (its records at the top of the file kept in this one)", 1)
	}
	return notes
}
