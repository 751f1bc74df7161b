package replay_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"testing/iotest"
	"time"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want replay.Shard
		err  string
	}{
		{"0/1", replay.Shard{Index: 0, Count: 1}, ""},
		{"3/4", replay.Shard{Index: 3, Count: 4}, ""},
		{" 1/2 ", replay.Shard{Index: 1, Count: 2}, ""},
		{"4/4", replay.Shard{}, "numbered 0 to 3"},
		{"-1/4", replay.Shard{}, "numbered 0 to 3"},
		{"0/0", replay.Shard{}, "at least 1"},
		{"1", replay.Shard{}, "want i/n"},
		{"a/b", replay.Shard{}, "want i/n"},
		{"", replay.Shard{}, "want i/n"},
	} {
		got, err := replay.ParseShard(tt.in)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
	if s := (replay.Shard{Index: 2, Count: 5}); s.String() != "2/5" || !s.Split() {
		t.Errorf("%v", s)
	}
	if s := (replay.Shard{}); s.String() != "" || s.Split() || !s.Owns("anything") {
		t.Errorf("the zero shard must own everything: %v", s)
	}
}

// TestShardOfIsStable pins the hash: shards written by one version must be merged by
// another, and a key must land in the same shard on every machine.
func TestShardOfIsStable(t *testing.T) {
	for key, want := range map[string]int{"": 1, "run-1": 0, "q-1#1": 2, "2f7c0e1e-6d1b-4a5e-9f51-3f6f5e0b1b2a": 0} {
		if got := replay.ShardOf(key, 4); got != want {
			t.Errorf("ShardOf(%q, 4) = %d, want %d", key, got, want)
		}
	}
	if replay.ShardOf("x", 1) != 0 || replay.ShardOf("x", 0) != 0 {
		t.Error("one shard owns everything")
	}
	counts := make([]int, 4)
	for i := range 4000 {
		counts[replay.ShardOf(fmt.Sprintf("run-%d", i), 4)]++
	}
	for i, n := range counts {
		if n < 900 || n > 1100 {
			t.Errorf("shard %d of 4 owns %d of 4000 keys: not an even spread %v", i, n, counts)
		}
	}
}

// shardFS is the built-in sample (runs, Claude Code sessions with a subagent, a vibes
// log with two sessions), the small quasar history with its join context, and bad
// input: a duplicated run, an orphan subagent, an unknown file and a broken line.
func shardFS(t *testing.T) fstest.MapFS {
	t.Helper()
	out := historyFS()
	err := fs.WalkDir(datasets.Sample(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(datasets.Sample(), p)
		out["sample/"+p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dup := `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"q-t","data":{"cycle":1,"total_cost_usd":1}}` + "\nnot json\n"
	out["u/dup.jsonl"] = &fstest.MapFile{Data: []byte(dup)}
	// A trace of several runs, some with bad events: a shard that does not report on the
	// file reads only its own runs; the one that does reports every run's problems.
	var multi strings.Builder
	for i := range 12 {
		task := fmt.Sprintf("m-%d", i)
		fmt.Fprintf(&multi, `{"ts":"2026-03-02T10:00:0%dZ","kind":"cycle_done","task":%q,"data":{"cycle":1,"total_cost_usd":1}}`+"\n", i%10, task)
		if i%3 == 0 {
			fmt.Fprintf(&multi, `{"ts":"2026-03-02T10:01:00Z","kind":"cycle_done","task":%q,"data":{"cycle":"two"}}`+"\n", task)
		}
		if i%4 == 1 {
			fmt.Fprintf(&multi, `{"ts":"2026-03-02T10:02:00Z","kind":"agent_done","task":"m-x%d","data":{"cycle":1,"role":"coder"}}`+"\n", i)
		}
	}
	out["u/multi.jsonl"] = &fstest.MapFile{Data: []byte(multi.String())}
	// A trace of no run, only broken events: reported on by the shard of its path.
	out["u/none.jsonl"] = &fstest.MapFile{Data: []byte(`{"ts":"noon","kind":"cycle_done","task":"n-1","data":{"cycle":1}}` + "\n" +
		`{"ts":"2026-03-02T10:00:00Z","kind":"no_such_kind","task":"n-2","data":{}}` + "\n")}
	out["w/s/agent-x/subagents/agent-1.jsonl"] = &fstest.MapFile{Data: []byte(`{"type":"user","isSidechain":true,"sessionId":"orphan","uuid":"u1","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"hi"}}` + "\n")}
	out["y/unknown.dat"] = &fstest.MapFile{Data: []byte("what is this")}
	// Claude Code transcripts with bad lines: one whose head proves its key (read by its
	// session's shard only, with its subagent), and a renamed copy, whose key only
	// reading it tells (read by every shard).
	cc := func(id, uuid, text string, side bool) string {
		return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":%q,"isSidechain":%v,"timestamp":"2026-03-01T10:00:0%sZ","message":{"role":"user","content":%q}}`+"\n",
			uuid, id, side, uuid[len(uuid)-1:], text)
	}
	out["cc/p/s-prov.jsonl"] = &fstest.MapFile{Data: []byte(cc("s-prov", "u1", "fix the build", false) + "{broken\n" + cc("s-prov", "u2", "thanks", false))}
	out["cc/p/s-prov/subagents/agent-a1.jsonl"] = &fstest.MapFile{Data: []byte(cc("s-prov", "u3", "subtask", true) + "not json\n")}
	out["cc/p/renamed.jsonl"] = &fstest.MapFile{Data: []byte(cc("orig", "u4", "hello", false) + "{also broken\n")}
	out["v/log.jsonl"] = &fstest.MapFile{Data: []byte(vibesLog(8))}
	// A second log exported in three parts, the second overlapping the first: read
	// together, by the shard of the first part's path.
	for name, text := range vibesParts(strings.ReplaceAll(vibesLog(6), `"v-`, `"w-`), 20, 15, 40) {
		out["v2/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	return out
}

// vibesEventID returns a UUIDv7 for ms milliseconds after 2026-03-03 14:00 UTC (less
// for a negative ms); k makes it unique.
func vibesEventID(ms, k int) string {
	u := time.Date(2026, 3, 3, 14, 0, 0, 0, time.UTC).UnixMilli() + int64(ms)
	return fmt.Sprintf("%08x-%04x-7%03x-8%03x-%012x", u>>16, u&0xffff, k&0xfff, k&0xfff, k)
}

// vibesLog is a vibes event log of n interleaved sessions (v-0 …) with bad lines: of
// its sessions (an unknown type, a field of the wrong type, an event id that is no
// UUIDv7, a clock fault, a hook that names its session only inside) and of none (not
// JSON, no session); and a client's connection, an event of no session. A shard that does not report on it builds only its own sessions.
func vibesLog(n int) string {
	var b strings.Builder
	k := 0
	ev := func(ms int, typ, session, extra string) {
		k++
		fmt.Fprintf(&b, `{"event_id":%q,"type":%q`, vibesEventID(ms, k), typ)
		if session != "" {
			fmt.Fprintf(&b, `,"session_id":%q`, session)
		}
		if extra != "" {
			b.WriteString("," + extra)
		}
		b.WriteString("}\n")
	}
	ev(0, "client_connected", "", "") // of no session: counted in a note
	for turn := range 3 {
		for i := range n {
			sid, ms := fmt.Sprintf("v-%d", i), 1000*(turn*n+i)
			ev(ms, "user_input", sid, fmt.Sprintf(`"content":"turn %d: fix the failing test"`, turn))
			ev(ms+100, "claude", sid, `"event":{"type":"tool_use_start","id":"t1","name":"Bash"}`)
			ev(ms+200, "hook", sid, `"event":{"type":"post_tool_use","session_id":"cc","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"FAIL","stderr":"","interrupted":false}}`)
			ev(ms+300, "claude", sid, `"event":{"type":"tool_result","id":"t1","output":"FAIL","is_error":true}`)
			switch (turn*n + i) % 7 {
			case 0:
				ev(ms+400, "hologram", sid, "")
			case 1:
				ev(ms+400, "claude", sid, `"event":{"type":"text_delta","text":5}`)
			case 2:
				b.WriteString(`{"event_id":"not-a-uuid","type":"user_input","session_id":"` + sid + `","content":"again"}` + "\n")
			case 3:
				ev(ms-30*60*1000, "user_input", sid, `"content":"from a clock half an hour behind"`)
			case 4:
				ev(ms+400, "hook", "", `"event":{"type":"stop","session_id":"`+sid+`","hook_event_name":"Stop"}`)
			case 5:
				b.WriteString("{not json\n")
			case 6:
				ev(ms+400, "user_input", "", `"content":"of no session"`)
			}
		}
	}
	return b.String()
}

// vibesParts cuts a log in three parts, 1.jsonl to 3.jsonl: the first holds its lines
// before a, the second its lines from b (b ≤ a: an export that repeats some events of
// the one before), the third its lines from c.
func vibesParts(log string, a, b, c int) map[string]string {
	lines := strings.SplitAfter(log, "\n")
	return map[string]string{"1.jsonl": strings.Join(lines[:a], ""), "2.jsonl": strings.Join(lines[b:c], ""), "3.jsonl": strings.Join(lines[c:], "")}
}

// shardRun is what one (part of a) replay delivered.
type shardRun struct {
	keys     []string
	sessions map[string]*input.Session // as read
	problems []input.Problem
	sum      *replay.Summary
	digests  [][2]string // file, SHA-256: what Options.Digest was handed
}

func replayShard(t *testing.T, fsys fs.FS, shard replay.Shard, workers int) shardRun {
	t.Helper()
	return replayWith(t, fsys, replay.Options{Workers: workers, Struggle: struggle.DefaultStruggleConfig(), Shard: shard})
}

// replayWith replays fsys with opts, what Options.Digest is handed collected.
func replayWith(t *testing.T, fsys fs.FS, opts replay.Options) shardRun {
	t.Helper()
	out := shardRun{sessions: map[string]*input.Session{}}
	opts.Digest = func(file, sha string) error { out.digests = append(out.digests, [2]string{file, sha}); return nil }
	sum, err := replay.Replay(context.Background(), fsys, opts,
		replay.Sinks{
			Runs: func(r *replay.RunResult) error { out.keys = append(out.keys, r.Run.Key); return nil },
			Sessions: func(s *replay.SessionResult) error {
				out.keys = append(out.keys, s.Session.Key)
				out.sessions[s.Session.Key] = s.Session
				return nil
			},
			Problems: func(p input.Problem) error { out.problems = append(out.problems, p); return nil },
		})
	if err != nil {
		t.Fatal(err)
	}
	out.sum = sum
	return out
}

// fold folds digests, in path order, into a fingerprint.
func fold(digests [][2]string) string {
	fp := replay.NewFingerprint()
	for _, d := range digests {
		fp.Add(d[0], d[1])
	}
	return fp.Sum()
}

// TestShardsAddUpToTheWhole: every run and session is replayed by exactly one shard,
// the one its key hashes to; the shards' problems are the whole replay's, none twice;
// every file's digest is handed over by exactly one shard, and their fold is the
// whole replay's fingerprint; and their merged summary is the whole replay's summary.
func TestShardsAddUpToTheWhole(t *testing.T) {
	fsys := shardFS(t)
	whole := replayShard(t, fsys, replay.Shard{}, 2)
	if whole.sum.Runs < 10 || whole.sum.Sessions < 10 || whole.sum.TotalProblems() < 8 || whole.sum.Notes["nebula: phases that joined no run"] != 1 ||
		!slices.Contains(whole.keys, "s-prov") || !slices.Contains(whole.keys, "orig") || !slices.Contains(whole.keys, "v-7") ||
		!slices.Contains(whole.keys, "w-5") || whole.sum.Notes["vibes_log: files read as parts of one log, for they share a session"] != 3 {
		t.Fatalf("the test input lacks variety: %+v", whole.sum)
	}
	if one := replayShard(t, fsys, replay.Shard{Index: 0, Count: 1}, 3); !slices.Equal(one.keys, whole.keys) || one.sum.Fingerprint != whole.sum.Fingerprint ||
		!slices.Equal(one.digests, whole.digests) {
		t.Error("shard 0/1 is not the whole replay")
	}
	if len(whole.digests) != whole.sum.Files || fold(whole.digests) != whole.sum.Fingerprint || len(whole.sum.Listing) != 64 {
		t.Fatalf("the whole replay handed over %d digests of %d files, folding to %s (its fingerprint %s), listing %q",
			len(whole.digests), whole.sum.Files, fold(whole.digests), whole.sum.Fingerprint, whole.sum.Listing)
	}
	for _, n := range []int{2, 3, 4, 7} {
		var keys []string
		var problems []input.Problem
		var sums []*replay.Summary
		var digests [][2]string
		var listing string
		for i := range n {
			part := replayShard(t, fsys, replay.Shard{Index: i, Count: n}, 1+i%3)
			for _, k := range part.keys {
				if replay.ShardOf(k, n) != i {
					t.Errorf("%d/%d replayed %s, of shard %d", i, n, k, replay.ShardOf(k, n))
				}
			}
			for k, s := range part.sessions {
				if !reflect.DeepEqual(s, whole.sessions[k]) {
					t.Errorf("%d/%d read session %s otherwise than the whole replay:\n%+v\nwhole:\n%+v", i, n, k, s, whole.sessions[k])
				}
			}
			if i == 0 {
				listing = part.sum.Listing
			}
			if part.sum.Fingerprint != "" || len(part.sum.Listing) != 64 || part.sum.Listing != listing {
				t.Errorf("%d/%d: fingerprint %q (no shard knows it), listing %s (want one, shard 0's: %s)", i, n, part.sum.Fingerprint, part.sum.Listing, listing)
			}
			if !slices.IsSortedFunc(part.digests, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) }) {
				t.Errorf("%d/%d handed over its digests out of path order: %v", i, n, part.digests)
			}
			digests = append(digests, part.digests...)
			keys = append(keys, part.keys...)
			problems = append(problems, part.problems...)
			sums = append(sums, part.sum)
		}
		slices.Sort(keys)
		if want := slices.Sorted(slices.Values(whole.keys)); !slices.Equal(keys, want) {
			t.Errorf("%d shards replayed %v, the whole %v", n, keys, want)
		}
		if got, want := problemSet(problems), problemSet(whole.problems); !slices.Equal(got, want) {
			t.Errorf("%d shards' problems\n%s\nwant\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		slices.SortStableFunc(digests, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
		if !slices.Equal(digests, whole.digests) {
			t.Errorf("%d shards handed over the digests\n%v\nthe whole replay\n%v", n, digests, whole.digests)
		}
		merged, err := replay.MergeSummaries(sums)
		if err != nil {
			t.Fatal(err)
		}
		merged.Fingerprint = fold(digests)
		w := *whole.sum
		w.Problems, merged.Problems = nil, nil
		w.Listing = listing // the shards' listing leaves out what only one of them reads
		if fmt.Sprintf("%+v", *merged) != fmt.Sprintf("%+v", w) {
			t.Errorf("%d shards merged:\n%+v\nwhole:\n%+v", n, *merged, w)
		}
		if !maps.Equal(merged.Notes, whole.sum.Notes) {
			t.Errorf("notes %v, want %v", merged.Notes, whole.sum.Notes)
		}
	}
}

func problemSet(ps []input.Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	slices.Sort(out)
	return out
}

// countingFS counts the times each file is opened.
type countingFS struct {
	fs.FS
	mu    *sync.Mutex
	opens map[string]int
}

func (c countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

// TestShardLeavesOtherSessionsUnread: a transcript whose opening bytes prove its
// session, and its subagent, are opened once by the shards that do not own the
// session (to recognise them) and read by the owner; a transcript whose key only
// reading it tells is read by every shard.
func TestShardLeavesOtherSessionsUnread(t *testing.T) {
	const n = 3
	owner := replay.ShardOf("s-prov", n)
	for i := range n {
		cfs := countingFS{FS: shardFS(t), mu: &sync.Mutex{}, opens: map[string]int{}}
		part := replayShard(t, cfs, replay.Shard{Index: i, Count: n}, 2)
		want := 1
		if i == owner {
			want = 2
		}
		for _, f := range []string{"cc/p/s-prov.jsonl", "cc/p/s-prov/subagents/agent-a1.jsonl"} {
			if got := cfs.opens[f]; got != want {
				t.Errorf("%d/%d opened %s %d times, want %d", i, n, f, got, want)
			}
			if has := slices.ContainsFunc(part.digests, func(d [2]string) bool { return d[0] == f }); has != (i == owner) {
				t.Errorf("%d/%d handed over the digest of %s: %v (the owner is %d)", i, n, f, has, owner)
			}
		}
		if got := cfs.opens["cc/p/renamed.jsonl"]; got != 2 {
			t.Errorf("%d/%d opened cc/p/renamed.jsonl %d times, want 2 (recognised, then read for its key)", i, n, got)
		}
	}
}

// TestShardLeavesOtherRunsUnread: a trace smaller than sniffSize that holds none of a
// shard's runs (then the shard of its first run reports on it) is opened once by that
// shard (to be recognised, and read whole then) and left unread by its replay; one
// that holds a run of the shard's, or that is larger, is opened again and read. What
// each shard replays and reports is still its part of the whole
// (TestShardsAddUpToTheWhole, whose input has traces of several runs and broken lines).
func TestShardLeavesOtherRunsUnread(t *testing.T) {
	ev := func(task string) string {
		return `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"` + task + `","data":{"cycle":1,"total_cost_usd":1}}` + "\n"
	}
	files := map[string][]string{ // path: the runs it holds
		"r/a.jsonl":    {"ka"},
		"r/ab.jsonl":   {"ka", "kb"},
		"r/c.jsonl":    {"kc"},
		"r/big.jsonl":  {"kd"}, // larger than sniffSize
		"r/none.jsonl": nil,    // no run: every event's ts is broken
	}
	fsys := fstest.MapFS{}
	for p, keys := range files {
		var b strings.Builder
		for _, k := range keys {
			b.WriteString(ev(k))
		}
		if keys == nil {
			b.WriteString(strings.Replace(ev("ke"), "2026-03-01T10:00:00Z", "noon", 1))
		}
		if p == "r/big.jsonl" {
			b.WriteString(strings.Repeat(ev("kd"), 70<<10/len(ev("kd"))))
		}
		fsys[p] = &fstest.MapFile{Data: []byte(b.String())}
	}
	const n = 3
	left := 0
	for i := range n {
		cfs := countingFS{FS: fsys, mu: &sync.Mutex{}, opens: map[string]int{}}
		part := replayShard(t, cfs, replay.Shard{Index: i, Count: n}, 2)
		if part.sum.Files != len(files) || part.sum.FilesByFmt["trace"] != len(files) {
			t.Errorf("%d/%d counted %d files %v, want %d traces", i, n, part.sum.Files, part.sum.FilesByFmt, len(files))
		}
		for p, keys := range files {
			// The shard of a file's first run reports on it; a larger file, the shard of its path.
			unread := p != "r/big.jsonl" && !slices.ContainsFunc(keys, func(k string) bool { return replay.ShardOf(k, n) == i })
			if keys == nil { // the shard of its path reports on it
				unread = replay.ShardOf(p, n) != i
			}
			want := 2
			if unread {
				want = 1
				left++
			}
			if got := cfs.opens[p]; got != want {
				t.Errorf("%d/%d opened %s %d times, want %d", i, n, p, got, want)
			}
		}
	}
	if left == 0 {
		t.Fatal("no shard could leave a file unread: the test input lacks variety")
	}
}

// failingFS fails the reads of one file past its first failAfter bytes.
type failingFS struct {
	fs.FS
	name      string
	failAfter int
}

func (f failingFS) Open(name string) (fs.File, error) {
	file, err := f.FS.Open(name)
	if err != nil || name != f.name {
		return file, err
	}
	return failingFile{File: file, r: io.MultiReader(io.LimitReader(file, int64(f.failAfter)), iotest.ErrReader(errors.New("input/output error")))}, nil
}

// failingFile is a file read through r.
type failingFile struct {
	fs.File
	r io.Reader
}

func (f failingFile) Read(p []byte) (int, error) { return f.r.Read(p) }

// TestShardReadsAFailingTraceAsTheWhole: a trace whose reads fail past its first 12
// KiB — past what recognising a file reads when the replay is not split, within what
// a shard reads of a small trace — gives a split replay what it gives the whole: the
// runs before the failure, and the failure reported, by one shard.
func TestShardReadsAFailingTraceAsTheWhole(t *testing.T) {
	ev := `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"k","data":{"cycle":1,"total_cost_usd":1}}` + "\n"
	fsys := failingFS{FS: fstest.MapFS{"t/a.jsonl": {Data: []byte(strings.Repeat(ev, 20<<10/len(ev)))}}, name: "t/a.jsonl", failAfter: 12 << 10}
	whole := replayShard(t, fsys, replay.Shard{}, 1)
	if len(whole.keys) != 1 || whole.sum.ProblemCount[input.ProblemRead] != 1 {
		t.Fatalf("the whole replay: runs %v, problems %v", whole.keys, whole.problems)
	}
	for _, n := range []int{2, 3} {
		var keys, problems []string
		for i := range n {
			p := replayShard(t, fsys, replay.Shard{Index: i, Count: n}, 1)
			if p.sum.Files != 1 {
				t.Errorf("%d/%d counted %d files", i, n, p.sum.Files)
			}
			keys = append(keys, p.keys...)
			problems = append(problems, problemSet(p.problems)...)
		}
		if slices.Sort(problems); !slices.Equal(keys, whole.keys) || !slices.Equal(problems, problemSet(whole.problems)) {
			t.Errorf("%d shards: runs %v, problems\n%s\nthe whole: %v\n%s", n, keys, strings.Join(problems, "\n"), whole.keys, strings.Join(problemSet(whole.problems), "\n"))
		}
	}
}

// changingFS serves one file's later content from its second open on: a file that
// changed after it was recognised.
type changingFS struct {
	fstest.MapFS
	name  string
	later []byte
	mu    *sync.Mutex
	opens *int
}

func (c changingFS) Open(name string) (fs.File, error) {
	if name == c.name {
		c.mu.Lock()
		*c.opens++
		later := *c.opens > 1
		c.mu.Unlock()
		if later {
			return fstest.MapFS{name: {Data: c.later}}.Open(name)
		}
	}
	return c.MapFS.Open(name)
}

// TestShardFailsOnAWholeTraceThatChanged: a small trace that changed between its
// recognition and its replay — here a run of another shard appended, which that
// shard, having recognised the file before, leaves unread — fails the replay of the
// shard that reads it again, the file named, instead of a shard's part that does not
// add up with the others'.
func TestShardFailsOnAWholeTraceThatChanged(t *testing.T) {
	ev := func(k string) string {
		return `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"` + k + `","data":{"cycle":1,"total_cost_usd":1}}` + "\n"
	}
	var mine, other string // keys of shard 0 and 1 of 2
	for k := 'a'; mine == "" || other == ""; k++ {
		if replay.ShardOf(string(k), 2) == 0 {
			mine = cmp.Or(mine, string(k))
		} else {
			other = cmp.Or(other, string(k))
		}
	}
	n := 0
	fsys := changingFS{MapFS: fstest.MapFS{"t/a.jsonl": {Data: []byte(ev(mine))}}, name: "t/a.jsonl", later: []byte(ev(mine) + ev(other)), mu: &sync.Mutex{}, opens: &n}
	opts := replay.Options{Workers: 1, Struggle: struggle.DefaultStruggleConfig(), Shard: replay.Shard{Index: 0, Count: 2}}
	_, err := replay.Replay(context.Background(), fsys, opts, replay.Sinks{Runs: func(*replay.RunResult) error { return nil }})
	if err == nil || !strings.Contains(err.Error(), "t/a.jsonl changed since it was recognised") {
		t.Errorf("shard 0/2 of a trace that changed: %v", err)
	}
	n = 0
	fsys.MapFS["t/a.jsonl"].Data = fsys.later // unchanged: the replay goes on
	if _, err := replay.Replay(context.Background(), fsys, opts, replay.Sinks{Runs: func(*replay.RunResult) error { return nil }}); err != nil {
		t.Errorf("shard 0/2 of a trace that stayed as it was: %v", err)
	}
}

func TestMergeSummariesRefusesMixedInput(t *testing.T) {
	fsys := shardFS(t)
	a := replayShard(t, fsys, replay.Shard{Index: 0, Count: 2}, 1).sum
	other := shardFS(t)
	other["default.yaml"] = &fstest.MapFile{Data: []byte("max_review_cycles: 6\n")}
	b := replayShard(t, other, replay.Shard{Index: 1, Count: 2}, 1).sum
	if _, err := replay.MergeSummaries([]*replay.Summary{a, b}); err == nil || !strings.Contains(err.Error(), "different input") {
		t.Errorf("merged summaries of different input: %v", err)
	}
	if _, err := replay.MergeSummaries(nil); err == nil {
		t.Error("merged nothing")
	}
}
