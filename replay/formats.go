package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/replay/beads"
	"github.com/loopwatch/loopwatch/replay/claudecode"
	"github.com/loopwatch/loopwatch/replay/commits"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/join"
	"github.com/loopwatch/loopwatch/replay/jsonl"
	"github.com/loopwatch/loopwatch/replay/nebula"
	"github.com/loopwatch/loopwatch/replay/trace"
	"github.com/loopwatch/loopwatch/replay/vibeslog"
)

// subagentFormat names, in FilesByFmt, Claude Code subagent transcripts read as part
// of their parent session.
const subagentFormat = claudecode.SourceName + "_subagent"

// sniffSize is how much of a file's start format detection looks at first, and
// maxSniff how far it reads when that does not decide: a garbage first line or one
// longer than sniffSize (a 100k-deep JSON line, say) must not hide the records after
// it.
//
// quickSniff is how much of a larger regular file is read first: its whole lines
// decide when they name a JSON Lines format, as they do for nearly every transcript,
// trace and event log, whose records are a few KB; a session file of 30 KB was read
// whole to be recognised, then again to be replayed.
const (
	sniffSize  = 64 << 10
	maxSniff   = 1 << 20
	quickSniff = 8 << 10
)

// role says when the engine reads a format's files.
type role int

const (
	// roleRuns files hold runs: they are read in the worker pool, after every context
	// file, and may join what the context files told.
	roleRuns role = iota
	// roleContext files are side tables joined to the runs of other files (nebula
	// limits and costs, cycle commits, configuration): read first, one at a time, in
	// path order, into one join.Context.
	roleContext
	// roleSessions files hold agent sessions (Claude Code transcripts, vibes event
	// logs): read in the worker pool and replayed through the assessment processor.
	roleSessions
)

// A format is one input format the engine can read.
type format struct {
	name string
	role role
	// record reports whether one JSON record, by its top-level keys, is of the format
	// (JSON Lines formats): a file is in the first format one of its first records
	// belongs to.
	record func(obj map[string]string) bool
	// sniff reports whether a file with this slash-separated path and these opening
	// bytes is in the format (the other formats).
	sniff func(name string, head []byte) bool
	// read reads the runs of one file (roleRuns), joining jc, which is finished; it may
	// leave out the runs whose key keep refuses (keep nil: none), and what is wrong
	// with them.
	read func(name string, r io.Reader, jc *join.Context, keep func(key string) bool) ([]*input.Run, []input.Problem, []input.Note)
	// runKeys calls fn with the key of each run a whole run file (roleRuns) holds, once
	// each, in the order of their first events, reading no more of the runs than their
	// keys: a shard of a split replay leaves a small file that holds none of its runs
	// unread (sniffFile). nil: the format cannot tell (a run's key may depend on the join
	// context), and every shard reads its files.
	runKeys func(name string, whole []byte, fn func(key string))
	// readContext reads one context file into jc (roleContext).
	readContext func(name string, r io.Reader, jc *join.Context) ([]input.Problem, []input.Note)
	// readSessions reads the sessions of one file (roleSessions) from r; it may open
	// other files of fsys (a transcript's subagents), and leave out the sessions whose
	// key keep refuses (keep nil: none), and what is wrong with them; its notes count
	// what it read that belongs to no session. parts, when not empty, are the files of
	// the log name is the first of in path order, name among them, in the log's order
	// (see sessionKeys): the others are opened through fsys, and a nil r leaves name out
	// (it could not be opened).
	readSessions func(fsys fs.FS, name string, r io.Reader, parts []string, keep func(key string) bool) ([]*input.Session, []input.Problem, []input.Note)
	// sessionKeys calls fn with the key of each session a file (roleSessions) holds, at
	// least once each (and maybe others), reading little else of it, and returns the
	// time the file's log starts at (zero: unknown); its error is a failed read. Files
	// that share a session are read together, as parts of one log (logGroups). nil:
	// each file of the format is read alone, and a session found in a second file is a
	// duplicate.
	sessionKeys func(r io.Reader, fn func(key []byte)) (time.Time, error)
}

// formats lists the formats in the order detection tries them.
var formats = []format{
	{name: trace.SourceName, role: roleRuns, record: trace.SniffRecord,
		read: func(name string, r io.Reader, _ *join.Context, keep func(string) bool) ([]*input.Run, []input.Problem, []input.Note) {
			runs, probs := trace.ReadOnly(name, r, keep)
			return runs, probs, nil
		},
		runKeys: func(name string, whole []byte, fn func(string)) {
			trace.ReadOnly(name, bytes.NewReader(whole), func(key string) bool { // asked once per key, in order
				fn(key)
				return false // builds no run
			})
		}},
	{name: beads.SourceName, role: roleRuns, record: beads.SniffRecord,
		read: func(name string, r io.Reader, jc *join.Context, _ func(string) bool) ([]*input.Run, []input.Problem, []input.Note) {
			return beads.Read(name, r, jc)
		}},
	{name: claudecode.SourceName, role: roleSessions, record: claudecode.SniffRecord,
		readSessions: func(fsys fs.FS, name string, r io.Reader, _ []string, _ func(string) bool) ([]*input.Session, []input.Problem, []input.Note) {
			// One session: a transcript whose opening bytes prove its key is read by its
			// session's shard only (sharding.skips), another by every shard, and replayed
			// by the session's.
			s, probs := claudecode.ReadFrom(fsys, name, r)
			if s == nil {
				return nil, probs, nil
			}
			return []*input.Session{s}, probs, nil
		}},
	{name: vibeslog.SourceName, role: roleSessions, record: vibeslog.SniffRecord,
		readSessions: func(fsys fs.FS, name string, r io.Reader, parts []string, keep func(string) bool) ([]*input.Session, []input.Problem, []input.Note) {
			if len(parts) == 0 {
				parts = []string{name}
			}
			ps := make([]vibeslog.Part, len(parts))
			for i, p := range parts {
				ps[i] = vibeslog.Part{Name: p, Open: func() (io.ReadCloser, error) { return fsys.Open(p) }}
				if p == name {
					ps[i].Open = func() (io.ReadCloser, error) {
						if r == nil {
							return nil, fs.ErrNotExist // reported by the caller
						}
						return io.NopCloser(r), nil
					}
				}
			}
			lg := vibeslog.ReadPartsOnly(ps, keep)
			var notes []input.Note
			if n := lg.UnattributedCount(); n > 0 {
				notes = append(notes, input.Note{What: vibeslog.SourceName + ": events of no session (client connections, tunnel state), counted and skipped", Count: n})
			}
			return lg.Sessions, lg.Problems, notes
		},
		sessionKeys: vibeslog.SessionKeys},
	{name: nebula.ManifestFormat, role: roleContext, sniff: nebula.SniffManifest, readContext: withoutNotes(nebula.ReadManifest)},
	{name: nebula.StateFormat, role: roleContext, sniff: nebula.SniffState, readContext: withoutNotes(nebula.ReadState)},
	{name: nebula.PhaseFormat, role: roleContext, sniff: nebula.SniffPhase, readContext: withoutNotes(nebula.ReadPhase)},
	{name: nebula.ConfigFormat, role: roleContext, sniff: nebula.SniffConfig, readContext: withoutNotes(nebula.ReadConfig)},
	{name: commits.SourceName, role: roleContext, sniff: func(_ string, head []byte) bool { return commits.Sniff(head) },
		readContext: func(name string, r io.Reader, jc *join.Context) ([]input.Problem, []input.Note) {
			probs, st := commits.Read(name, r, jc)
			return probs, st.Notes()
		}},
}

func withoutNotes(read func(string, io.Reader, *join.Context) []input.Problem) func(string, io.Reader, *join.Context) ([]input.Problem, []input.Note) {
	return func(name string, r io.Reader, jc *join.Context) ([]input.Problem, []input.Note) {
		return read(name, r, jc), nil
	}
}

// FormatNames returns the names of the input formats the engine recognises.
func FormatNames() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return names
}

// detectFormat returns the format of a file, or nil: the JSON Lines format of the
// first of its opening records ([jsonl.HeadObjects]) that one recognises — so that a
// garbage first line, a record kind or type this version does not know or a record too
// deep to read does not hide the lines after it — else the first other format whose
// sniffer recognises the file.
func detectFormat(name string, head []byte) *format {
	if fm := detectRecord(head); fm != nil {
		return fm
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")) // a byte order mark hides no format
	for i := range formats {
		if formats[i].sniff != nil && formats[i].sniff(name, head) {
			return &formats[i]
		}
	}
	return nil
}

// detectRecord returns the JSON Lines format of the first of head's opening records
// that one recognises, or nil. A record is found from its line alone: so the format
// found in whole lines of a file's start is the one found in more of it
// (TestDetectRecordFromWholeLines).
func detectRecord(head []byte) *format {
	for obj := range jsonl.HeadObjects(head, 0) {
		for i := range formats {
			if formats[i].record != nil && formats[i].record(obj) {
				return &formats[i]
			}
		}
	}
	return nil
}

// ignorable reports whether an unrecognised file is documentation or repository
// furniture rather than data, so that it is counted as ignored instead of reported.
func ignorable(name string) bool {
	base := strings.ToUpper(path.Base(name))
	for _, prefix := range []string{"LICENSE", "LICENCE", "COPYING", "NOTICE", "README", "AUTHORS", "CHANGELOG"} {
		if strings.HasPrefix(base, prefix) {
			return true
		}
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".txt", ".rst", ".html", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".gitignore", ".gitattributes",
		".parquet": // loopwatch's own output, never an input
		return true
	}
	// A replay's manifest (reports.ManifestPath) is output, never input.
	return strings.HasPrefix(path.Base(name), ".git") || strings.HasSuffix(name, manifestSuffix)
}

// listedOutputs returns the files of files that a loopwatch manifest among them lists
// as its output: what a replay or tune wrote into the input folder (an Arrow export, a
// chosen configuration's JSON, as well as the Parquet tables that ignorable knows by
// their name), ignored like the manifest itself. A manifest written beside a run
// table, STEM.manifest.json, names its files in its own folder; one written into a
// folder output's _manifests folder names them in the folder above. A manifest that
// cannot be read or parsed lists nothing: it is ignored, and its files are recognised
// as any other.
func listedOutputs(fsys fs.FS, files []string) map[string]bool {
	var out map[string]bool
	for _, name := range files {
		if !strings.HasSuffix(name, manifestSuffix) {
			continue
		}
		b, err := readSmall(fsys, name, maxManifest)
		if err != nil {
			continue
		}
		var m struct {
			Tables []struct {
				File string `json:"file"`
			} `json:"tables"`
		}
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		dir := path.Dir(name)
		if path.Base(dir) == manifestFolder {
			dir = path.Dir(dir)
		}
		for _, t := range m.Tables {
			if t.File == "" || !fs.ValidPath(t.File) {
				continue
			}
			if out == nil {
				out = map[string]bool{}
			}
			out[path.Join(dir, t.File)] = true
		}
	}
	return out
}

// maxManifest bounds the manifest read: loopwatch's list a few tables in a few KB.
const maxManifest = 1 << 20

// readSmall reads the file name whole when it holds at most limit bytes.
func readSmall(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = errors.New("too large")
	}
	return b, err
}

// manifestSuffix and manifestFolder are where loopwatch writes an output's manifest
// (package reports, which replay does not import): STEM.manifest.json beside a run
// table, DIR/_manifests/SET.manifest.json in a folder output.
const (
	manifestSuffix = ".manifest.json"
	manifestFolder = "_manifests"
)

// labelsNote counts the label files found among the inputs.
const labelsNote = "label files among the inputs (not replayed; pass them with --labels)"

// looksLikeLabels reports whether a file is a label file (CSV with a run_key or
// session_id column and a label or outcome column, or JSON Lines with those keys):
// not an input, but not a problem either.
func looksLikeLabels(head []byte) bool {
	if obj := jsonl.FirstObject(head); obj != nil {
		_, run := obj["run_key"]
		_, sess := obj["session_id"]
		_, label := obj["label"]
		_, outcome := obj["outcome"]
		return (run || sess) && (label || outcome) && len(obj) <= 12
	}
	first, _, _ := strings.Cut(string(head), "\n")
	cols := map[string]bool{}
	for _, c := range strings.Split(strings.TrimPrefix(strings.ToLower(first), "\ufeff"), ",") {
		cols[strings.TrimSpace(c)] = true
	}
	return (cols["run_key"] || cols["session_id"]) && (cols["label"] || cols["outcome"])
}

// index returns the format's place in formats.
func (f *format) index() int {
	for i := range formats {
		if &formats[i] == f {
			return i
		}
	}
	panic("replay: a format not in formats")
}
