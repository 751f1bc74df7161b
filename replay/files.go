package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
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
func walk(fsys fs.FS, opts Options, problem func(input.Problem)) (files []string, special map[string]bool, err error) {
	exclude := map[string]bool{}
	for _, e := range opts.Exclude {
		exclude[path.Clean(e)] = true
	}
	special = map[string]bool{}
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name == "." {
				return err
			}
			problem(input.Problem{File: name, Kind: input.ProblemRead, Detail: fmt.Sprintf("cannot read: %v; skipped", err)})
			return nil
		}
		if exclude[name] && name != "." {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if _, _, ours := tmpname.Parse(d.Name()); ours {
			return nil
		}
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			if fi, err := fs.Stat(fsys, name); err == nil {
				mode = fi.Mode().Type()
			}
		}
		if mode&specialMode != 0 {
			if !opts.ReadSpecialFiles {
				problem(input.Problem{File: name, Kind: input.ProblemRead,
					Detail: fmt.Sprintf("is a %s, not a regular file; skipped (to read it, give it on its own as the input)", modeName(mode))})
				return nil
			}
			special[name] = true
		}
		files = append(files, name)
		return nil
	})
	sort.Strings(files) // WalkDir is lexical per directory; make the order global and explicit
	return files, special, err
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
