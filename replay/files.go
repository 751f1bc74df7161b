package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/loopwatch/loopwatch/internal/tmpname"
	"github.com/loopwatch/loopwatch/replay/input"
)

// specialMode are the file types that are not regular files: read, they may block
// (a named pipe nobody writes to) or never end (a device).
const specialMode = fs.ModeNamedPipe | fs.ModeSocket | fs.ModeDevice | fs.ModeCharDevice | fs.ModeIrregular

// walk lists the input files under the root in path order, leaving out the .git
// folders, Options.Exclude and loopwatch's temporary output files. It reports special
// files and skips them, unless Options.ReadSpecialFiles: then they are returned and
// marked in special.
//
// It visits what fs.WalkDir would, in the same order, but reads a folder walkBatch
// entries at a time and keeps of each entry only its name (in one byte sequence per
// folder) and its type, so that a folder of many files costs no more than their
// paths. A cancelled context (ctxFS) ends the walk with the context's error.
func walk(fsys fs.FS, opts Options, problem func(input.Problem)) (files []string, special map[string]bool, err error) {
	w := &walker{fsys: fsys, opts: opts, problem: problem, exclude: map[string]bool{}, special: map[string]bool{}}
	for _, e := range opts.Exclude {
		w.exclude[path.Clean(e)] = true
	}
	info, err := fs.Stat(fsys, ".")
	switch {
	case err != nil:
	case !info.IsDir():
		w.file(".", info.Name(), info.Mode().Type())
	case info.Name() == ".git": // as fs.WalkDir's callback sees the root: a .git folder it skips
	default:
		err = w.dir(".", 0)
	}
	sort.Strings(w.files) // the walk is lexical per folder; make the order global and explicit
	return w.files, w.special, err
}

// walkBatch is how many entries of a folder walk reads at a time.
const walkBatch = 1024

// walker is one walk's state.
type walker struct {
	fsys    fs.FS
	opts    Options
	problem func(input.Problem)
	exclude map[string]bool
	files   []string
	special map[string]bool
	lists   []dirList // by depth: the folder listed there, its room reused by the next
	path    []byte    // room to make an entry's path in
}

// dirList is a folder's entries: their names back to back in names.
type dirList struct {
	names   []byte
	entries []dirEntry
}

type dirEntry struct {
	off, len uint32 // the name, in dirList.names
	typ      fs.FileMode
}

func (l *dirList) name(e dirEntry) []byte { return l.names[e.off : e.off+e.len] }

// add adds an entry, unless its name would take the names past 4 GiB.
func (l *dirList) add(name string, typ fs.FileMode) bool {
	if uint64(len(l.names))+uint64(len(name)) > math.MaxUint32 {
		return false
	}
	l.entries = append(l.entries, dirEntry{off: uint32(len(l.names)), len: uint32(len(name)), typ: typ})
	l.names = append(l.names, name...)
	return true
}

// dir walks the folder name, at depth below the root (whose error is the walk's; a
// folder below that cannot be read is a problem, and the walk goes on).
func (w *walker) dir(name string, depth int) error {
	if depth == len(w.lists) {
		w.lists = append(w.lists, dirList{})
	}
	l := &w.lists[depth]
	if err := w.list(name, l); err != nil {
		if cerr := w.cancelled(); cerr != nil {
			return cerr
		}
		if name == "." {
			return err
		}
		w.problem(input.Problem{File: name, Kind: input.ProblemRead, Detail: fmt.Sprintf("cannot read: %v; skipped", err)})
	}
	for i := range l.entries {
		l := &w.lists[depth] // a deeper folder may have grown w.lists
		e := l.entries[i]
		if name == "." {
			w.path = append(w.path[:0], l.name(e)...)
		} else {
			w.path = append(append(append(w.path[:0], name...), '/'), l.name(e)...)
		}
		if w.exclude[string(w.path)] {
			continue
		}
		p := string(w.path)
		base := p[len(p)-int(e.len):]
		if e.typ.IsDir() {
			if base == ".git" {
				continue
			}
			if err := w.dir(p, depth+1); err != nil {
				return err
			}
			continue
		}
		w.file(p, base, e.typ)
	}
	return nil
}

// file takes the file p whose base name is base and type typ, unless it is one of
// loopwatch's temporary files or a special file the options leave out.
func (w *walker) file(p, base string, typ fs.FileMode) {
	if _, _, ours := tmpname.Parse(base); ours {
		return
	}
	if typ&fs.ModeSymlink != 0 {
		if fi, err := fs.Stat(w.fsys, p); err == nil {
			typ = fi.Mode().Type()
		}
	}
	if typ&specialMode != 0 {
		if !w.opts.ReadSpecialFiles {
			w.problem(input.Problem{File: p, Kind: input.ProblemRead,
				Detail: fmt.Sprintf("is a %s, not a regular file; skipped (to read it, give it on its own as the input)", modeName(typ))})
			return
		}
		w.special[p] = true
	}
	w.files = append(w.files, p)
}

// list lists the folder name into l, sorted by name, in batches when the open folder
// reads so. When it does not, or a batch fails, fs.ReadDir lists the folder instead,
// so that what the walk finds, and the error of a folder that cannot be read, are
// exactly fs.WalkDir's (which lists with fs.ReadDir).
func (w *walker) list(name string, l *dirList) error {
	l.names, l.entries = l.names[:0], l.entries[:0]
	if err := w.cancelled(); err != nil {
		return err
	}
	if w.listBatches(name, l) {
		slices.SortFunc(l.entries, func(a, b dirEntry) int { return bytes.Compare(l.name(a), l.name(b)) })
		return nil
	}
	l.names, l.entries = l.names[:0], l.entries[:0]
	if err := w.cancelled(); err != nil {
		return err
	}
	list, err := fs.ReadDir(w.fsys, name) // sorted
	for _, e := range list {
		if !l.add(e.Name(), e.Type()) {
			return fmt.Errorf("listing %s: more than 4 GiB of names", name)
		}
	}
	return err
}

// listBatches lists the folder name into l batch by batch, and reports whether it
// could.
func (w *walker) listBatches(name string, l *dirList) bool {
	f, err := w.fsys.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	d, ok := f.(fs.ReadDirFile)
	if !ok {
		return false
	}
	for {
		batch, err := d.ReadDir(walkBatch)
		for _, e := range batch {
			if !l.add(e.Name(), e.Type()) {
				return false
			}
		}
		switch {
		case err == io.EOF:
			return true
		case err != nil || len(batch) == 0:
			return false
		}
	}
}

// cancelled returns the error of the walk's context, if it is done.
func (w *walker) cancelled() error {
	if c, ok := w.fsys.(ctxFS); ok {
		return c.ctx.Err()
	}
	return nil
}

func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// ctxFS reads fsys through a context: every Read of a file it opened first checks
// that the context is not done, so a cancelled replay stops reading within one
// buffer.
type ctxFS struct {
	ctx  context.Context
	fsys fs.FS
}

func (c ctxFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if d, ok := f.(fs.ReadDirFile); ok {
		return ctxDir{ctxFile: ctxFile{File: f, ctx: c.ctx}, dir: d}, nil
	}
	return ctxFile{File: f, ctx: c.ctx}, nil
}

func (c ctxFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.fsys, name) }
func (c ctxFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(c.fsys, name) }

type ctxFile struct {
	fs.File
	ctx context.Context
}

func (f ctxFile) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}

// ctxDir is a folder ctxFS opened: every ReadDir first checks the context too.
type ctxDir struct {
	ctxFile
	dir fs.ReadDirFile
}

func (f ctxDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if err := f.ctx.Err(); err != nil {
		return nil, err
	}
	return f.dir.ReadDir(n)
}

// openSpecial opens a special file without letting a blocking open (a named pipe
// with no writer yet) outlive ctx, and arranges that cancelling ctx closes the file,
// which ends a read blocked on it. An open abandoned at cancellation goes on in the
// background and closes the file if it ever completes.
func openSpecial(ctx context.Context, fsys fs.FS, name string) (fs.File, error) {
	type opened struct {
		f   fs.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := fsys.Open(name)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, o.err
		}
		stop := context.AfterFunc(ctx, func() { o.f.Close() })
		return &streamFile{File: o.f, stop: stop}, nil
	case <-ctx.Done():
		go func() {
			if o := <-done; o.err == nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// streamFile is a special file open for its one read.
type streamFile struct {
	fs.File
	stop func() bool // unregisters the close at cancellation
}

func (f *streamFile) Close() error {
	f.stop()
	return f.File.Close()
}

// stream is a special file whose opening bytes sniffing read: r gives them back, then
// the rest of the file.
type stream struct {
	f    fs.File
	r    io.Reader
	used bool
}

// open opens the file for its full read: the stream sniffing began, once, or the
// file again.
func (sn *sniffedFile) open(fsys fs.FS, name string) (io.ReadCloser, error) {
	st := sn.stream()
	if st == nil {
		return fsys.Open(name)
	}
	if st.used {
		return nil, errors.New("a stream can be read only once")
	}
	st.used = true
	return struct {
		io.Reader
		io.Closer
	}{st.r, st.f}, nil
}

// analysisProblems reports a session whose analysis or checkpoint summaries failed:
// the analyzer (claude --print, say) erred, timed out or answered nonsense. A failed
// final analysis leaves the session's outcome unknown — never "good" — and the
// session out of outcome scoring.
func analysisProblems(sr *SessionResult) []input.Problem {
	s := sr.Session
	var probs []input.Problem
	if sr.AnalysisFailed() {
		probs = append(probs, input.Problem{File: s.File, Line: s.Line, Kind: input.ProblemAnalysis,
			Detail: fmt.Sprintf("session %s: the session analysis failed (%s); its outcome is unknown and left out of outcome scoring",
				s.Key, oneLine(sr.Final().Err))})
	}
	failed, total, first := 0, 0, ""
	note := func(err string) {
		total++
		if err != "" {
			failed++
			if first == "" {
				first = err
			}
		}
	}
	for _, st := range sr.Steps {
		if st.Checkpoint != nil {
			note(st.Checkpoint.Err)
		}
	}
	for _, e := range sr.Ends[:max(len(sr.Ends)-1, 0)] {
		if e.Sampling.Assess {
			note(e.Err)
		}
	}
	if failed > 0 {
		probs = append(probs, input.Problem{File: s.File, Line: s.Line, Kind: input.ProblemAnalysis,
			Detail: fmt.Sprintf("session %s: %d of %d checkpoint summaries and earlier session analyses failed (first: %s); they are recorded without a result",
				s.Key, failed, total, oneLine(first))})
	}
	return probs
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// ExcludeWithin returns, slash-separated and relative to root, those of paths that
// lie inside the folder root: what [Options.Exclude] takes to leave a replay's own
// output files (reports.Output.Files) out of an input they are written into. Paths
// outside root are dropped; symbolic links in the folders are resolved, and files need
// not exist yet.
func ExcludeWithin(root string, paths []string) []string {
	base, err := resolve(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range paths {
		dir, err := resolve(filepath.Dir(p))
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(base, filepath.Join(dir, filepath.Base(p)))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// resolve returns the absolute path of an existing folder, symbolic links resolved.
func resolve(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
