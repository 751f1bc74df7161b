package replay

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/loopwatch/loopwatch/internal/tmpname"
	"github.com/loopwatch/loopwatch/replay/input"
)

// specialMode are the file types that are not regular files: read, they may block
// (a named pipe nobody writes to) or never end (a device).
const specialMode = fs.ModeNamedPipe | fs.ModeSocket | fs.ModeDevice | fs.ModeCharDevice | fs.ModeIrregular

// walk lists the input files under the root in path order, leaving out the .git
// folders, Options.Exclude, loopwatch's temporary output files and its temporary
// folders (datagen's, tmpname.IsFolder: a dataset being written, or a killed
// datagen's leftover). It reports special
// files and skips them, unless Options.ReadSpecialFiles: then they are returned and
// marked in special.
//
// It visits what fs.WalkDir would, in the same order, but reads a folder walkBatch
// entries at a time and keeps of each entry only its path, made once from the
// folder's and its name and returned as is, and its type: never a whole folder's
// []fs.DirEntry. A cancelled context (ctxFS) ends the walk with the context's error.
// With several workers (Options.Workers > 1) as many goroutines list the folders it
// has found ahead of it (lookahead); what it finds and reports is the same.
func walk(fsys fs.FS, opts Options, problem func(input.Problem)) (files []string, special map[string]bool, err error) {
	w := &walker{fsys: fsys, opts: opts, problem: problem, exclude: map[string]bool{}, special: map[string]bool{}}
	for _, e := range opts.Exclude {
		w.exclude[path.Clean(e)] = true
	}
	if opts.Workers > 1 {
		w.ahead = newLookahead(fsys, opts.Workers, w.descends)
		defer w.ahead.stop()
	}
	info, err := fs.Stat(fsys, ".")
	switch {
	case err != nil:
	case !info.IsDir():
		w.files = append(w.files, ".")
		if !w.keep(".", info.Name(), info.Mode().Type()) {
			w.files[0] = ""
		}
	case info.Name() == ".git": // as fs.WalkDir's callback sees the root: a .git folder it skips
	default:
		err = w.dir(".", 0)
	}
	if files = slices.DeleteFunc(w.files, func(p string) bool { return p == "" }); len(files) == 0 {
		files = nil
	}
	sort.Strings(files) // the walk is lexical per folder; make the order global and explicit
	return files, w.special, err
}

// walkBatch is how many entries of a folder walk reads at a time.
const walkBatch = 1024

// walker is one walk's state.
type walker struct {
	fsys    fs.FS
	opts    Options
	problem func(input.Problem)
	exclude map[string]bool
	special map[string]bool
	// files holds the paths of the entries of the folders listed so far: a folder
	// lists its entries at the end, then keeps its files' there and clears the others
	// ("") as it visits them in order, going down into its folders, which list theirs
	// after it.
	files []string
	types [][]fs.FileMode // by depth: the types of the entries of the folder listed there
	ahead *lookahead      // with several workers: folders listed ahead of the walk
}

// descends reports whether the walk goes down into the folder p, an entry of its
// parent folder whose path is prefix bytes long: not an excluded folder, nor a .git,
// nor one of loopwatch's temporary folders (datagen's dataset before it is renamed into
// place, or what a killed datagen left).
func (w *walker) descends(p string, prefix int) bool {
	if w.exclude[p] || p[prefix:] == ".git" {
		return false
	}
	return !tmpname.IsFolder(p[prefix:])
}

// prefixLen is the length of the part of an entry's path before its name in the
// folder name.
func prefixLen(name string) int {
	if name == "." {
		return 0
	}
	return len(name) + 1
}

// dir walks the folder name, at depth below the root (whose error is the walk's; a
// folder below that cannot be read is a problem, and the walk goes on).
func (w *walker) dir(name string, depth int) error {
	if depth == len(w.types) {
		w.types = append(w.types, nil)
	}
	start := len(w.files)
	if err := w.list(name, depth); err != nil {
		if cerr := w.cancelled(); cerr != nil {
			return cerr
		}
		if name == "." {
			return err
		}
		w.problem(input.Problem{File: name, Kind: input.ProblemRead, Detail: fmt.Sprintf("cannot read: %v; skipped", err)})
	}
	prefix := prefixLen(name) // the path's part before the entry's name
	for i := start; i < start+len(w.types[depth]); i++ {
		p, typ := w.files[i], w.types[depth][i-start]
		w.files[i] = ""
		if w.exclude[p] {
			continue
		}
		if typ.IsDir() {
			if !w.descends(p, prefix) {
				continue
			}
			if err := w.dir(p, depth+1); err != nil {
				return err
			}
			continue
		}
		if w.keep(p, p[prefix:], typ) {
			w.files[i] = p
		}
	}
	return nil
}

// linkToFolder is the problem of a symbolic link to a folder met in the walk. Read as
// a file, it failed as "is a directory" with a hint to check its permissions.
const linkToFolder = "is a symbolic link to a folder, which the walk does not follow; skipped (give the folder itself as the input, or a folder that holds it)"

// keep reports whether the walk returns the file p, whose base name is base and type
// typ: not one of loopwatch's temporary files, nor a special file the options leave
// out.
func (w *walker) keep(p, base string, typ fs.FileMode) bool {
	if _, _, ours := tmpname.Parse(base); ours {
		return false
	}
	if typ&fs.ModeSymlink != 0 {
		if fi, err := fs.Stat(w.fsys, p); err == nil {
			typ = fi.Mode().Type()
		}
		if typ.IsDir() { // not followed: a link can lead back up, round and round
			w.problem(input.Problem{File: p, Kind: input.ProblemRead, Detail: linkToFolder})
			return false
		}
	}
	if typ&specialMode != 0 {
		if !w.opts.ReadSpecialFiles {
			w.problem(input.Problem{File: p, Kind: input.ProblemRead,
				Detail: fmt.Sprintf("is a %s, not a regular file; skipped (to read it, give it on its own as the input)", ModeName(typ))})
			return false
		}
		w.special[p] = true
	}
	return true
}

// list lists the folder name, sorted by name: its entries' paths at the end of
// w.files, their types in w.types[depth]. It reads the folder in batches when the
// open folder reads so. When it does not, or a batch fails, fs.ReadDir lists the
// folder instead, so that what the walk finds, and the error of a folder that cannot
// be read, are exactly fs.WalkDir's (which lists with fs.ReadDir).
func (w *walker) list(name string, depth int) error {
	start := len(w.files)
	w.types[depth] = w.types[depth][:0]
	if err := w.cancelled(); err != nil {
		return err
	}
	if w.ahead != nil {
		if l := w.ahead.take(name); l != nil { // listed ahead
			w.files = append(w.files, l.paths...)
			w.types[depth] = append(w.types[depth], l.types...)
			return l.err
		}
		defer func() { w.ahead.found(name, w.files[start:], w.types[depth]) }()
	}
	return w.listHere(name, depth, start)
}

// listHere is list, on the walk's goroutine.
func (w *walker) listHere(name string, depth, start int) error {
	if w.listBatches(name, depth) {
		sort.Sort(listing{w.files[start:], w.types[depth]})
		return nil
	}
	clear(w.files[start:])
	w.files, w.types[depth] = w.files[:start], w.types[depth][:0]
	if err := w.cancelled(); err != nil {
		return err
	}
	list, err := fs.ReadDir(w.fsys, name) // sorted
	for _, e := range list {
		w.add(name, e, depth)
	}
	return err
}

// listBatches lists the folder name batch by batch, and reports whether it could.
func (w *walker) listBatches(name string, depth int) bool {
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
			w.add(name, e, depth)
		}
		switch {
		case err == io.EOF:
			return true
		case err != nil || len(batch) == 0:
			return false
		}
	}
}

// add adds the entry e of the folder name to the listing.
func (w *walker) add(name string, e fs.DirEntry, depth int) {
	p := e.Name()
	if name != "." {
		p = name + "/" + p
	}
	w.files = append(w.files, p)
	w.types[depth] = append(w.types[depth], e.Type())
}

// listing sorts a folder's entries by path, which is by name.
type listing struct {
	paths []string
	types []fs.FileMode
}

func (l listing) Len() int           { return len(l.paths) }
func (l listing) Less(i, j int) bool { return l.paths[i] < l.paths[j] }
func (l listing) Swap(i, j int) {
	l.paths[i], l.paths[j] = l.paths[j], l.paths[i]
	l.types[i], l.types[j] = l.types[j], l.types[i]
}

// cancelled returns the error of the walk's context, if it is done.
func (w *walker) cancelled() error {
	if c, ok := w.fsys.(ctxFS); ok {
		return c.ctx.Err()
	}
	return nil
}

// ModeName names the kind of a file that is neither regular nor a folder, as problems
// and messages say it: "named pipe", "socket", "character device", "device", or
// "special file".
func ModeName(m fs.FileMode) string {
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

// lookahead lists folders ahead of a walk, on goroutines of their own: each takes up
// the folder found and not yet visited that the walk will reach first, lists it
// exactly as the walk would (walker.listHere) and hands it to the walk when it gets
// there. A folder the walk reaches before any goroutine took it up it lists itself.
// At most aheadHeld listings are taken up and not yet handed over at once, so that
// what the lookahead holds beyond the folders found and not yet visited (which the
// walk holds too) does not grow with the tree. Listing ahead changes nothing the walk
// finds or reports, nor its order.
type lookahead struct {
	fsys     fs.FS
	descends func(p string, prefix int) bool // whether the walk goes down into a folder
	mu       sync.Mutex
	cond     *sync.Cond
	queue    walkQueue          // folders found and not yet visited, in the walk's order (some visited since: see pending)
	pending  map[string]bool    // the folders in queue no one has taken up
	claimed  map[string]*listed // taken up and not yet handed to the walk: listing, or listed
	done     bool
	wg       sync.WaitGroup
}

// aheadHeld is how many folders' listings a lookahead takes up ahead of the walk at
// most.
const aheadHeld = 64

// listed is one folder's listing, done when ready is closed.
type listed struct {
	paths []string
	types []fs.FileMode
	err   error
	ready chan struct{}
}

// newLookahead starts n goroutines listing folders of fsys ahead of a walk.
func newLookahead(fsys fs.FS, n int, descends func(p string, prefix int) bool) *lookahead {
	a := &lookahead{fsys: fsys, descends: descends, pending: map[string]bool{}, claimed: map[string]*listed{}}
	a.cond = sync.NewCond(&a.mu)
	for range n {
		a.wg.Go(a.run)
	}
	return a
}

// run lists folders as the walk finds them, until stop.
func (a *lookahead) run() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		for !a.done && (a.queue.Len() == 0 || len(a.claimed) >= aheadHeld) {
			a.cond.Wait()
		}
		if a.done {
			return
		}
		name := heap.Pop(&a.queue).(string)
		if !a.pending[name] { // the walk got there first
			continue
		}
		delete(a.pending, name)
		l := &listed{ready: make(chan struct{})}
		a.claimed[name] = l
		a.mu.Unlock()
		tw := &walker{fsys: a.fsys, types: make([][]fs.FileMode, 1)}
		l.err = tw.listHere(name, 0, 0)
		l.paths, l.types = tw.files, tw.types[0]
		a.mu.Lock()
		a.push(name, l.paths, l.types)
		close(l.ready)
	}
}

// take returns the listing of the folder name when a goroutine of the lookahead took
// it up, waiting for it if need be; else nil, and no goroutine will: the walk lists it.
func (a *lookahead) take(name string) *listed {
	a.mu.Lock()
	l, ok := a.claimed[name]
	if !ok {
		delete(a.pending, name)
		a.mu.Unlock()
		return nil
	}
	a.mu.Unlock()
	<-l.ready
	a.mu.Lock()
	delete(a.claimed, name)
	a.cond.Broadcast()
	a.mu.Unlock()
	return l
}

// found tells the lookahead of the folder name the walk listed itself: its entries'
// paths and types, among them the folders the walk will go down into.
func (a *lookahead) found(name string, paths []string, types []fs.FileMode) {
	a.mu.Lock()
	a.push(name, paths, types)
	a.mu.Unlock()
}

// push adds the subfolders the walk goes down into of the folder name, listed as
// paths and types, to the folders to list.
func (a *lookahead) push(name string, paths []string, types []fs.FileMode) {
	prefix := prefixLen(name)
	for i, p := range paths {
		if types[i].IsDir() && a.descends(p, prefix) {
			heap.Push(&a.queue, p)
			a.pending[p] = true
		}
	}
	a.cond.Broadcast()
}

// stop ends the lookahead's goroutines, once each has finished the folder it lists.
func (a *lookahead) stop() {
	a.mu.Lock()
	a.done = true
	a.cond.Broadcast()
	a.mu.Unlock()
	a.wg.Wait()
}

// walkQueue is a heap of folder paths, the one a walk reaches first on top: the walk
// goes down into each folder's entries in name order, so it reaches folders in the
// order of their paths compared component by component (walkBefore).
type walkQueue []string

func (q walkQueue) Len() int           { return len(q) }
func (q walkQueue) Less(i, j int) bool { return walkBefore(q[i], q[j]) }
func (q walkQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *walkQueue) Push(x any)        { *q = append(*q, x.(string)) }
func (q *walkQueue) Pop() any {
	old := *q
	p := old[len(old)-1]
	*q = old[:len(old)-1]
	return p
}

// walkBefore reports whether a walk reaches the path a before the path b: their
// components compared in turn, bytewise, a path before the paths below it (a / sorts
// before every other byte).
func walkBefore(a, b string) bool {
	for i := range min(len(a), len(b)) {
		ca, cb := a[i], b[i]
		switch {
		case ca == cb:
		case ca == '/':
			return true
		case cb == '/':
			return false
		default:
			return ca < cb
		}
	}
	return len(a) < len(b)
}
