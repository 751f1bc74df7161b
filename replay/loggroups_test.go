package replay_test

import (
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

	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

// TestLogInParts: a vibes log exported in parts — cut at a session going on, the
// parts overlapping, or each the whole log again — replays as the log in one file:
// the same sessions, event for event, the same problems (each at its part's line), no
// session lost as a duplicate; a log that shares no session with them is read alone;
// and the replay is the same at any worker count.
func TestLogInParts(t *testing.T) {
	// The log's events have UUIDv7 ids (one without cannot be told from another when
	// parts overlap).
	lines := slices.DeleteFunc(strings.SplitAfter(strings.ReplaceAll(vibesLog(6), `"v-`, `"w-`), "\n"),
		func(l string) bool { return strings.Contains(l, "not-a-uuid") })
	log := strings.Join(lines, "")
	other := strings.ReplaceAll(vibesLog(2), `"v-`, `"x-`)
	whole := replayShard(t, fstest.MapFS{"log.jsonl": {Data: []byte(log)}, "other.jsonl": {Data: []byte(other)}}, replay.Shard{}, 2)
	if whole.sum.Sessions != 8 || whole.sum.TotalProblems() < 8 {
		t.Fatalf("the test log lacks variety: %+v", whole.sum)
	}
	const noted = "vibes_log: files read as parts of one log, for they share a session"
	for _, tt := range []struct {
		name    string
		parts   map[string]string
		overlap bool // a line that is no event, read twice, is reported in each part
	}{
		{"cut in three", vibesParts(log, 20, 20, 40), false},
		{"overlapping", vibesParts(log, 30, 12, 41), true},
		{"the whole log again", map[string]string{"1.jsonl": strings.Join(lines[:25], ""), "2.jsonl": log}, true},
		{"cut within a line's session", map[string]string{"1.jsonl": strings.Join(lines[:2], ""), "2.jsonl": strings.Join(lines[2:], "")}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"other.jsonl": {Data: []byte(other)}}
			for name, text := range tt.parts {
				fsys["parts/"+name] = &fstest.MapFile{Data: []byte(text)}
			}
			got := replayShard(t, fsys, replay.Shard{}, 1)
			const noSession = "vibes_log: events of no session (client connections, tunnel state), counted and skipped"
			if got.sum.Notes[noSession] != whole.sum.Notes[noSession] || whole.sum.Notes[noSession] != 2 {
				t.Errorf("events of no session noted %d times, want the one file's %d (2: a connection in each log)", got.sum.Notes[noSession], whole.sum.Notes[noSession])
			}
			if !slices.Equal(slices.Sorted(slices.Values(got.keys)), slices.Sorted(slices.Values(whole.keys))) || got.sum.Files != 1+len(tt.parts) || got.sum.Notes[noted] != len(tt.parts) {
				t.Fatalf("sessions %v of %d files, noted %v; want %v of %d, %d files noted", got.keys, got.sum.Files, got.sum.Notes, whole.keys, 1+len(tt.parts), len(tt.parts))
			}
			for k, s := range got.sessions {
				w := *whole.sessions[k]
				c := *s
				c.File, c.Line, w.File, w.Line = "", 0, "", 0
				c.Records, w.Records = maps.Clone(c.Records), maps.Clone(w.Records)
				delete(c.Records, "repeated")
				if !reflect.DeepEqual(&c, &w) {
					t.Errorf("session %s:\n%+v\nin one file:\n%+v", k, &c, &w)
				}
				if s.File == "other.jsonl" != strings.HasPrefix(k, "x-") {
					t.Errorf("session %s read from %s", k, s.File)
				}
			}
			var kinds, wantKinds []string
			for _, p := range got.problems {
				if tt.overlap && p.Kind == input.ProblemMalformed {
					continue
				}
				kinds = append(kinds, fmt.Sprint(p.Kind, " ", p.Detail[:min(len(p.Detail), 30)]))
				if p.Kind == input.ProblemDuplicate {
					t.Errorf("a duplicate: %v", p)
				}
			}
			for _, p := range whole.problems {
				if tt.overlap && p.Kind == input.ProblemMalformed {
					continue
				}
				wantKinds = append(wantKinds, fmt.Sprint(p.Kind, " ", p.Detail[:min(len(p.Detail), 30)]))
			}
			slices.Sort(kinds)
			slices.Sort(wantKinds)
			if !slices.Equal(kinds, wantKinds) {
				t.Errorf("problems\n%s\nwant those of the log in one file\n%s", strings.Join(kinds, "\n"), strings.Join(wantKinds, "\n"))
			}
			for _, w := range []int{2, 5} {
				again := replayShard(t, fsys, replay.Shard{}, w)
				if !slices.Equal(again.keys, got.keys) || !reflect.DeepEqual(again.problems, got.problems) || again.sum.Fingerprint != got.sum.Fingerprint {
					t.Errorf("with %d workers the replay differs", w)
				}
			}
		})
	}
}

// TestLogPartThatCannotBeRead: a part of a log that can no longer be opened, or read
// to its end, when the log is read (it could when it was recognised and grouped) is
// reported once, at its path — the first file too, whose read the others' is not; a
// part that fails to open once is not opened again to find out — and the rest of the
// log is replayed.
func TestLogPartThatCannotBeRead(t *testing.T) {
	log := strings.ReplaceAll(vibesLog(3), `"v-`, `"w-`)
	fsys := fstest.MapFS{}
	for name, text := range vibesParts(log, 10, 10, 20) {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	whole := replayWith(t, fstest.MapFS{"log.jsonl": {Data: []byte(log)}}, replay.Options{Workers: 1})
	for _, tt := range []struct {
		name     string
		fsys     fs.FS
		problem  string // file: kind
		sessions int
	}{
		{"a later part gone", &openFailFS{FS: fsys, name: "2.jsonl", fails: afterGrouping}, "2.jsonl: read_error", 3},
		{"the first part gone", &openFailFS{FS: fsys, name: "1.jsonl", fails: afterGrouping}, "1.jsonl: read_error", 3},
		{"a later part failing", &readLimitFS{FS: fsys, name: "2.jsonl", opens: 2, bytes: 300}, "2.jsonl: read_error", 3},
		{"a later part gone for a moment", &openFailFS{FS: fsys, name: "2.jsonl", fails: func(open int) bool { return open == 3 }}, "2.jsonl: read_error", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := replayWith(t, tt.fsys, replay.Options{Workers: 2})
			var reads []string
			for _, p := range got.problems {
				if p.Kind == input.ProblemRead {
					reads = append(reads, fmt.Sprintf("%s: %s", p.File, p.Kind))
				}
				if p.Kind == input.ProblemDuplicate {
					t.Errorf("a duplicate: %v", p)
				}
			}
			if !slices.Equal(reads, []string{tt.problem}) || got.sum.Sessions != tt.sessions || got.sum.Events >= whole.sum.Events {
				t.Errorf("read problems %v, %d sessions (%d events); want one, %s, %d sessions (fewer events than %d)", reads, got.sum.Sessions, got.sum.Events, tt.problem, tt.sessions, whole.sum.Events)
			}
		})
	}
}

// TestLogPartsInTheirOrder: a log's parts are read in the order of the log, whatever
// their paths say (day-10 before day-9, or names in reverse), and a session is
// delivered with the part it first appears in — after the sessions of the files
// before that part in path order, as the metrics need them — so that the log in parts
// replays as the log in one file (pipeline's TestLogInPartsInPathOrder takes it
// through the tables' order check).
func TestLogPartsInTheirOrder(t *testing.T) {
	log := strings.ReplaceAll(vibesLog(6), `"v-`, `"w-`)
	lines := slices.DeleteFunc(strings.SplitAfter(log, "\n"), func(l string) bool { return strings.Contains(l, "not-a-uuid") })
	log = strings.Join(lines, "")
	whole := replayShard(t, fstest.MapFS{"log.jsonl": {Data: []byte(log)}}, replay.Shard{}, 1)
	cut := func(names ...string) fstest.MapFS {
		fsys := fstest.MapFS{}
		for i, name := range names {
			fsys[name] = &fstest.MapFile{Data: []byte(strings.Join(lines[i*len(lines)/len(names):(i+1)*len(lines)/len(names)], ""))}
		}
		return fsys
	}
	for _, tt := range []struct {
		name string
		fsys fstest.MapFS
	}{
		{"days numbered without padding", cut("day-8.jsonl", "day-9.jsonl", "day-10.jsonl", "day-11.jsonl")},
		{"names in reverse", cut("d.jsonl", "c.jsonl", "b.jsonl", "a.jsonl")},
		{"the first file a later part's", cut("b.jsonl", "a.jsonl")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := replayShard(t, tt.fsys, replay.Shard{}, 2)
			for k, s := range got.sessions {
				w, c := *whole.sessions[k], *s
				c.File, c.Line, w.File, w.Line = "", 0, "", 0
				if !reflect.DeepEqual(&c, &w) {
					t.Errorf("session %s:\n%+v\nin one file:\n%+v", k, &c, &w)
				}
			}
			if len(got.sessions) != len(whole.sessions) || len(got.problems) != len(whole.problems) {
				t.Errorf("%d sessions, problems %v; want %d, %d", len(got.sessions), got.problems, len(whole.sessions), len(whole.problems))
			}
			var files []string // the files the sessions were delivered with, in order
			for _, k := range got.keys {
				files = append(files, got.sessions[k].File)
			}
			if !slices.IsSorted(files) {
				t.Errorf("sessions delivered with %v: not in path order", files)
			}
		})
	}
}

// readLimitFS opens the file name opens times whole, and from then on reads bytes of
// it, then fails.
type readLimitFS struct {
	fs.FS
	name  string
	mu    sync.Mutex
	opens int
	bytes int
}

func (f *readLimitFS) Open(name string) (fs.File, error) {
	file, err := f.FS.Open(name)
	if err != nil || name != f.name {
		return file, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.opens > 0 {
		f.opens--
		return file, nil
	}
	return failingFile{File: file, r: io.MultiReader(io.LimitReader(file, int64(f.bytes)), iotest.ErrReader(errors.New("input/output error")))}, nil
}

// afterGrouping fails a file's opens after it was recognised and grouped (its first
// two).
func afterGrouping(open int) bool { return open > 2 }

// openFailFS fails the opens of the file name that fails says, counting them from 1
// (package replay's own tests have a flakyFS that fails every open after the first).
type openFailFS struct {
	fs.FS
	name  string
	fails func(open int) bool
	mu    sync.Mutex
	opens int
}

func (f *openFailFS) Open(name string) (fs.File, error) {
	if name == f.name {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.opens++; f.fails(f.opens) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
		}
	}
	return f.FS.Open(name)
}

// TestLogPartStartsDespiteAClockFault: a part whose first event comes from a clock an
// hour behind is still read after the part before it in time (a part starts at the
// median of its first event times), and one that tells no time keeps its place after
// the part before it in path order: the log in parts replays as the log in one file,
// the fault reported at the event that has it.
func TestLogPartStartsDespiteAClockFault(t *testing.T) {
	var lines []string
	for i := range 12 {
		ms := i * 60000
		if i == 6 {
			ms -= 60 * 60000 // an hour behind
		}
		lines = append(lines, fmt.Sprintf(`{"event_id":%q,"type":"user_input","session_id":"a","content":"step %d"}`+"\n", vibesEventID(ms, i+1), i))
	}
	untimed := `{"event_id":"not-a-uuid","type":"user_input","session_id":"a","content":"no time"}` + "\n"
	for _, tt := range []struct {
		name  string
		log   []string
		parts map[string]string
	}{
		{"a fault at a part's start", lines, map[string]string{"p1.jsonl": strings.Join(lines[:6], ""), "p2.jsonl": strings.Join(lines[6:], "")}},
		{"a part without a time", append(append(slices.Clone(lines[:6]), untimed), lines[6:]...),
			map[string]string{"p1.jsonl": strings.Join(lines[:6], ""), "p2.jsonl": untimed, "p3.jsonl": strings.Join(lines[6:], "")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			whole := replayShard(t, fstest.MapFS{"log.jsonl": {Data: []byte(strings.Join(tt.log, ""))}}, replay.Shard{}, 1)
			fsys := fstest.MapFS{}
			for name, text := range tt.parts {
				fsys[name] = &fstest.MapFile{Data: []byte(text)}
			}
			got := replayShard(t, fsys, replay.Shard{}, 1)
			w, c := *whole.sessions["a"], *got.sessions["a"]
			c.File, c.Line, w.File, w.Line = "", 0, "", 0
			if !reflect.DeepEqual(&c, &w) {
				t.Errorf("in parts:\n%v %v\nin one file:\n%v %v", c.Records, c.Events, w.Records, w.Events)
			}
			var probs []string
			for _, p := range got.problems {
				probs = append(probs, fmt.Sprintf("%s:%d %s", p.File, p.Line, p.Kind))
			}
			if want := []string{"p" + fmt.Sprint(len(tt.parts)) + ".jsonl:1 invalid_record"}; tt.name == "a fault at a part's start" && !slices.Equal(probs, want) {
				t.Errorf("problems %v, want %v (the faulty event's)", probs, want)
			}
			if len(got.problems) != len(whole.problems) {
				t.Errorf("problems %v, want as many as in one file: %v", got.problems, whole.problems)
			}
		})
	}
}
