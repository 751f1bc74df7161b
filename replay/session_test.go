package replay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/replay/input"
)

// sessionFS gathers the session sources' own fixtures into one input tree, plus a
// subagent transcript whose parent is missing.
func sessionFS(t *testing.T) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	add := func(root, prefix string) {
		err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.HasPrefix(path.Base(p), "bad") {
				return err
			}
			b, err := os.ReadFile(path.Join(root, p))
			fsys[path.Join(prefix, p)] = &fstest.MapFile{Data: b}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("claudecode/testdata", "cc")
	add("vibeslog/testdata", "vibes")
	orphan := fsys["cc/v2/7a1c0000-0000-4000-8000-000000000001/subagents/agent-fixture-a1b2c3d.jsonl"]
	fsys["orphans/9999/subagents/agent-ffffff.jsonl"] = orphan
	return fsys
}

func TestReplaySessions(t *testing.T) {
	var runs []string
	for _, workers := range []int{1, 4} {
		var got []string
		sum, err := Replay(context.Background(), sessionFS(t), Options{Workers: workers}, Sinks{
			Sessions: func(r *SessionResult) error {
				s := r.Session
				if len(r.Steps) != len(s.Events) {
					t.Errorf("%s: %d steps for %d events", s.Key, len(r.Steps), len(s.Events))
				}
				last := r.Steps[len(r.Steps)-1]
				got = append(got, fmt.Sprintf("%s %s %s events=%d humans=%d subagents=%d ends=%d final=%.4f",
					s.File, s.Source, s.Key, len(s.Events), r.HumanMessages, s.Subagents, len(r.Ends), last.FrustrationEMA))
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Sessions != 4 || sum.FilesByFmt["claude_code"] != 2 || sum.FilesByFmt["claude_code_subagent"] != 3 || sum.FilesByFmt["vibes_log"] != 1 {
			t.Errorf("workers %d: summary %+v", workers, sum)
		}
		var probs []string
		for _, p := range sum.Problems {
			probs = append(probs, p.File+":"+string(p.Kind))
		}
		if fmt.Sprint(probs) != "[orphans/9999/subagents/agent-ffffff.jsonl:unusable_run]" {
			t.Errorf("problems %v", probs)
		}
		runs = append(runs, strings.Join(got, "\n"))
	}
	if runs[0] != runs[1] {
		t.Errorf("results depend on the worker count:\n%s\n---\n%s", runs[0], runs[1])
	}
	order := strings.Split(runs[0], "\n")
	if len(order) != 4 || !strings.HasPrefix(order[0], "cc/v1/") || !strings.HasPrefix(order[1], "cc/v2/") || !strings.HasPrefix(order[2], "vibes/") {
		t.Errorf("sessions not in path order:\n%s", runs[0])
	}
	if !strings.Contains(order[1], "subagents=2") {
		t.Errorf("the v2 transcript's subagents are not attached: %s", order[1])
	}
}

// TestReplaySessionStorm drives a correction storm through the real processor on event
// time: three corrections inside five minutes call for a clarification pause; the
// same corrections spread over an hour do not.
func TestReplaySessionStorm(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	mk := func(gap time.Duration) *input.Session {
		s := &input.Session{Key: "s", Source: "test"}
		texts := []string{"please add a --verbose flag to the CLI", "no, that's wrong, I meant the other command",
			"no, that's not it either", "no, not the build command: the serve command", "thanks"}
		for i, txt := range texts {
			at := t0.Add(time.Duration(i) * gap)
			s.Events = append(s.Events, analyze.Event{Kind: analyze.KindUserMessage, Time: at, UserContent: txt},
				analyze.Event{Kind: analyze.KindAssistantMessage, Time: at.Add(10 * time.Second), AssistantText: "done"})
		}
		s.Start, s.End = t0, s.Events[len(s.Events)-1].Time
		return s
	}
	// The seed's breaker and detector: a storm of three corrections (loopwatch's
	// default checks in at the first one already).
	seed := assess.DefaultConfig()
	seed.Detect, seed.Breaker = detect.SeedConfig(), breaker.SeedConfig()
	storm, err := ReplaySession(context.Background(), mk(time.Minute), SessionOptions{Assess: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if storm.Interventions == 0 || storm.Steps[storm.FirstIntervention].Intervention.Type != breaker.ClarificationPause {
		t.Fatalf("no clarification pause in a correction storm: %+v", storm.Steps)
	}
	if storm.HumanMessages != 5 || storm.Final().Analysis == nil {
		t.Errorf("humans %d, final %+v", storm.HumanMessages, storm.Final())
	}
	calm, err := ReplaySession(context.Background(), mk(20*time.Minute), SessionOptions{Assess: &seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range calm.Steps {
		if st.Intervention != nil && st.Intervention.Type == breaker.ClarificationPause {
			t.Errorf("corrections 20 minutes apart made a storm at %+v", st)
		}
	}
}

// TestSharedPlansDecideAsFreshOnes checks that the replay's sessions, whose processors
// share one compiled configuration (rules, offline analyzer) per configuration, get
// exactly the steps, ends and variant outcomes a fresh ReplaySession gives each.
func TestSharedPlansDecideAsFreshOnes(t *testing.T) {
	seed := assess.SeedConfig()
	opts := Options{Workers: 2, Variants: []Variant{{Name: "seed", Assess: &seed}}}
	n := 0
	_, err := Replay(context.Background(), sessionFS(t), opts, Sinks{Sessions: func(r *SessionResult) error {
		n++
		fresh, err := ReplaySession(context.Background(), r.Session, opts.Sessions)
		if err != nil {
			return err
		}
		variant, err := ReplaySession(context.Background(), r.Session, SessionOptions{Assess: &seed})
		if err != nil {
			return err
		}
		got, _ := json.Marshal([]any{r.Steps, r.Ends, r.Variants})
		want, _ := json.Marshal([]any{fresh.Steps, fresh.Ends, []SessionOutcome{variant.Outcome()}})
		if string(got) != string(want) {
			t.Errorf("%s: shared plans decide differently:\n%s\nfresh:\n%s", r.Session.Key, got, want)
		}
		return nil
	}})
	if err != nil || n != 4 {
		t.Fatalf("%d sessions, %v", n, err)
	}
}

// TestSessionReplayer checks that one replayer, its configuration prepared once and
// shared by goroutines replaying sessions at once, decides each session exactly as
// Replay does, under the default configuration and the seed's; and that an invalid
// configuration is reported by every Replay.
func TestSessionReplayer(t *testing.T) {
	seed := assess.SeedConfig()
	decisions := func(r *SessionResult) string {
		b, _ := json.Marshal([]any{r.Steps, r.Ends, r.Outcome()})
		return string(b)
	}
	var first *input.Session
	for _, opts := range []SessionOptions{{}, {Assess: &seed}} {
		var sessions []*input.Session
		var want []string
		_, err := Replay(context.Background(), sessionFS(t), Options{Sessions: opts}, Sinks{Sessions: func(r *SessionResult) error {
			sessions, want = append(sessions, r.Session), append(want, decisions(r))
			return nil
		}})
		if err != nil || len(sessions) != 4 {
			t.Fatalf("%d sessions, %v", len(sessions), err)
		}
		first = sessions[0]
		replayer := NewSessionReplayer(opts)
		const rounds = 3 // each session replayed several times, by several goroutines at once
		got := make([]string, len(sessions)*rounds)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				r, err := replayer.Replay(context.Background(), sessions[i%len(sessions)])
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = decisions(r)
			})
		}
		wg.Wait()
		for i, d := range got {
			if j := i % len(sessions); d != want[j] {
				t.Errorf("%s (seed %v): the replayer decides differently:\n%s\nReplay:\n%s", sessions[j].Key, opts.Assess != nil, d, want[j])
			}
		}
	}
	bad := assess.DefaultConfig()
	bad.InactivityTimeout = 0
	replayer := NewSessionReplayer(SessionOptions{Assess: &bad})
	for range 2 {
		if _, err := replayer.Replay(context.Background(), first); err == nil || !strings.Contains(err.Error(), "inactivity_timeout") {
			t.Errorf("a session under an invalid configuration: %v", err)
		}
	}
}

// TestInvalidSessionConfig checks that an invalid assessment configuration fails the
// replay at its first session, and only when there is a session to replay.
func TestInvalidSessionConfig(t *testing.T) {
	bad := assess.DefaultConfig()
	bad.InactivityTimeout = 0
	opts := Options{Sessions: SessionOptions{Assess: &bad}}
	if _, err := Replay(context.Background(), sessionFS(t), opts, Sinks{}); err == nil || !strings.Contains(err.Error(), "inactivity_timeout") {
		t.Errorf("sessions under an invalid configuration: %v", err)
	}
	runsOnly := fstest.MapFS{"notes.md": {Data: []byte("no sessions here")}}
	if _, err := Replay(context.Background(), runsOnly, opts, Sinks{}); err != nil {
		t.Errorf("no session to replay, yet: %v", err)
	}
}

// countingFS counts the times each file or folder is opened and the bytes read from
// each file, safely from several goroutines.
type countingFS struct {
	fs.FS
	mu          sync.Mutex
	opens, read map[string]int // made at the first open
}

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.opens == nil {
		c.opens, c.read = map[string]int{}, map[string]int{}
	}
	c.opens[name]++
	c.mu.Unlock()
	return countingFile{File: f, name: name, c: c}, nil
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }
func (c *countingFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(c.FS, name) }

type countingFile struct {
	fs.File
	name string
	c    *countingFS
}

// ReadDir lists an open folder batch by batch, as the folder does.
func (f countingFile) ReadDir(n int) ([]fs.DirEntry, error) {
	d, ok := f.File.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: errors.New("not a folder")}
	}
	return d.ReadDir(n)
}

func (f countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.c.mu.Lock()
	f.c.read[f.name] += n
	f.c.mu.Unlock()
	return n, err
}

// TestSessionFingerprintReadsOnce checks that the input fingerprint is the SHA-256
// over every file's path and content digest in path order, subagent transcripts
// included (read with their parent, attached or not), and that no session file is
// read again to be fingerprinted: each is read once, plus the opening bytes its
// format was recognised from. In a split replay, the fold of the digests the shards
// hand over is that fingerprint, and each shard reads no more.
func TestSessionFingerprintReadsOnce(t *testing.T) {
	mem := sessionFS(t)
	c := &countingFS{FS: mem}
	want := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(mem)) {
		d := sha256.Sum256(mem[name].Data)
		fmt.Fprintf(want, "%s\x00%s\n", name, hex.EncodeToString(d[:]))
	}
	for _, tt := range []struct{ workers, shards int }{{1, 0}, {3, 0}, {2, 2}, {1, 3}} {
		var digests [][2]string // the shards' (a whole replay's are checked in TestShardsAddUpToTheWhole)
		for i := range max(tt.shards, 1) {
			clear(c.read)
			shard := Shard{Index: i, Count: tt.shards}
			sum, err := Replay(context.Background(), c, Options{Workers: tt.workers, Shard: shard,
				Digest: func(file, sha string) error { digests = append(digests, [2]string{file, sha}); return nil }}, Sinks{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.shards == 0 {
				if got := hex.EncodeToString(want.Sum(nil)); sum.Fingerprint != got {
					t.Errorf("workers %d: fingerprint %s, want %s", tt.workers, sum.Fingerprint, got)
				}
			}
			for name, f := range mem {
				size := len(f.Data)
				if got := c.read[name]; got > size+min(size, sniffSize) {
					t.Errorf("workers %d, shard %s: %s: %d bytes read from a %d-byte file", tt.workers, shard, name, got, size)
				}
			}
		}
		if tt.shards == 0 {
			continue
		}
		slices.SortStableFunc(digests, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
		fp := NewFingerprint()
		for _, d := range digests {
			fp.Add(d[0], d[1])
		}
		if got := hex.EncodeToString(want.Sum(nil)); fp.Sum() != got {
			t.Errorf("%d shards: their digests fold to %s, want %s (%d digests)", tt.shards, fp.Sum(), got, len(digests))
		}
	}
}

// flakyFS fails every open of one file after the first (its sniffing).
type flakyFS struct {
	fs.FS
	name  string
	mu    sync.Mutex
	opens int
}

func (f *flakyFS) Open(name string) (fs.File, error) {
	if name == f.name {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.opens++; f.opens > 1 {
			return nil, fs.ErrPermission
		}
	}
	return f.FS.Open(name)
}

func (f *flakyFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.FS, name) }
func (f *flakyFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(f.FS, name) }

// TestUnreadableSubagent checks that a subagent transcript its parent cannot open is
// reported as the parent's problem and as a file that cannot be read, and is left out
// of the files read and the fingerprint.
func TestUnreadableSubagent(t *testing.T) {
	for _, sub := range []string{"cc/v2/7a1c0000-0000-4000-8000-000000000001/subagents/agent-fixture-a1b2c3d.jsonl",
		"orphans/9999/subagents/agent-ffffff.jsonl"} {
		fsys := &flakyFS{FS: sessionFS(t), name: sub}
		sum, err := Replay(context.Background(), fsys, Options{Workers: 2}, Sinks{})
		if err != nil {
			t.Fatal(err)
		}
		var probs []string
		for _, p := range sum.Problems {
			if p.File == sub {
				probs = append(probs, string(p.Kind)+": "+p.Detail)
			}
		}
		if len(probs) == 0 || !strings.HasPrefix(probs[len(probs)-1], "read_error: cannot read") || sum.FilesByFmt["claude_code_subagent"] != 2 {
			t.Errorf("%s: problems %q, files %v", sub, probs, sum.FilesByFmt)
		}
	}
}
