package replay

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/internal/tmpname"
	"github.com/loopwatch/loopwatch/replay/input"
)

// walkDirRef is walk as it was with fs.WalkDir, which lists a whole folder at once as
// []fs.DirEntry: the reference the batched walk must agree with.
func walkDirRef(fsys fs.FS, opts Options, problem func(input.Problem)) (files []string, special map[string]bool, err error) {
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
			if d.Name() == ".git" || (name != "." && tmpname.IsFolder(d.Name())) {
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
			if mode.IsDir() {
				problem(input.Problem{File: name, Kind: input.ProblemRead, Detail: linkToFolder})
				return nil
			}
		}
		if mode&specialMode != 0 {
			if !opts.ReadSpecialFiles {
				problem(input.Problem{File: name, Kind: input.ProblemRead,
					Detail: fmt.Sprintf("is a %s, not a regular file; skipped (to read it, give it on its own as the input)", ModeName(mode))})
				return nil
			}
			special[name] = true
		}
		files = append(files, name)
		return nil
	})
	sort.Strings(files)
	return files, special, err
}

// walked is what a walk returned and reported.
type walked struct {
	Files    []string
	Special  map[string]bool
	Problems []input.Problem
	Err      string
}

func runWalk(fn func(fs.FS, Options, func(input.Problem)) ([]string, map[string]bool, error), fsys fs.FS, opts Options) walked {
	var w walked
	files, special, err := fn(fsys, opts, func(p input.Problem) { w.Problems = append(w.Problems, p) })
	w.Files, w.Special = files, special
	if err != nil {
		w.Err = err.Error()
	}
	return w
}

// sameWalk checks that walk and walkDirRef agree on fsys, read directly and through a
// ctxFS as a replay reads it, and returns what they found.
func sameWalk(t *testing.T, fsys fs.FS, opts Options) walked {
	t.Helper()
	var got walked
	for _, via := range []struct {
		name string
		fsys fs.FS
	}{{"direct", fsys}, {"ctxFS", ctxFS{ctx: context.Background(), fsys: fsys}}} {
		want := runWalk(walkDirRef, via.fsys, opts)
		got = runWalk(walk, via.fsys, opts)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: walk differs from fs.WalkDir's:\n got %+v\nwant %+v", via.name, got, want)
		}
	}
	return got
}

func file() *fstest.MapFile { return &fstest.MapFile{Data: []byte("x\n")} }

func mapFS(names ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for _, n := range names {
		m[n] = file()
	}
	return m
}

// TestWalkMatchesWalkDir: the batched walk finds the files, special files, problems
// and error fs.WalkDir does, on trees that exercise each of its rules, with folders
// listed ahead too.
func TestWalkMatchesWalkDir(t *testing.T) {
	nested := mapFS("a/x", "a-b/x", "a.b", "a/b/c/d.jsonl", "a/b/c.jsonl", "a/b-c/x", "b", "A/x", "a0", "z/y/x/w")
	withGit := mapFS(".git/config", ".git/objects/ab/cd", "sub/.git/HEAD", "sub/x", ".gitignore", "x/.git", "x/y")
	temps := mapFS(".runs.parquet.tmp-123-abc", ".summary.json.tmp-1-x", ".loopwatch-probe-7-q", ".notes.txt.tmp-1-x",
		"sub/.runs.parquet.tmp-9-z", "sub/kept", ".runs.parquet.tmp-5-d/inside",
		".datagen.tmp-42-x/inputs/runs/a.jsonl", "sub/.datagen.tmp-7-y/labels/runs.csv", ".datagen.tmp-z/inside", ".datagen.txt.tmp-1-x/kept")
	specials := fstest.MapFS{
		"pipe":         {Mode: fs.ModeNamedPipe},
		"sock":         {Mode: fs.ModeSocket},
		"dev":          {Mode: fs.ModeDevice},
		"chr":          {Mode: fs.ModeDevice | fs.ModeCharDevice},
		"odd":          {Mode: fs.ModeIrregular},
		"sub/pipe":     {Mode: fs.ModeNamedPipe},
		"sub/regular":  file(),
		"link-to-file": {Mode: fs.ModeSymlink, Data: []byte("sub/regular")},
		"link-to-pipe": {Mode: fs.ModeSymlink, Data: []byte("pipe")},
		"link-to-dir":  {Mode: fs.ModeSymlink, Data: []byte("sub")},
		"dangling":     {Mode: fs.ModeSymlink, Data: []byte("nowhere")},
	}
	for _, tt := range []struct {
		name string
		fsys fs.FS
		opts Options
	}{
		{"empty", fstest.MapFS{}, Options{}},
		{"nested, sorting per folder unlike globally", nested, Options{}},
		{"excluded files and folders", nested, Options{Exclude: []string{"a-b/x", "a/b", "./A/x", "a/b-c/", "nothing", "."}}},
		{"excluded everything", nested, Options{Exclude: []string{"a", "a-b", "a.b", "b", "A", "a0", "z"}}},
		{".git", withGit, Options{}},
		{".git excluded too", withGit, Options{Exclude: []string{"sub/.git", "x/.git"}}},
		{"temporaries", temps, Options{}},
		{"special files skipped", specials, Options{}},
		{"special files read", specials, Options{ReadSpecialFiles: true}},
		{"special files excluded", specials, Options{Exclude: []string{"pipe", "sub"}}},
		{"root a file", fstest.MapFS{".": file()}, Options{}},
		{"root a named pipe", fstest.MapFS{".": {Mode: fs.ModeNamedPipe}}, Options{}},
		{"root a named pipe, read", fstest.MapFS{".": {Mode: fs.ModeNamedPipe}}, Options{ReadSpecialFiles: true}},
		{"root missing", failFS{FS: fstest.MapFS{}, stat: true}, Options{}},
		{"root unreadable", failFS{FS: nested, open: map[string]bool{".": true}}, Options{}},
		{"folders unreadable", failFS{FS: nested, open: map[string]bool{"a": true, "z/y": true}}, Options{}},
		{"unreadable folder excluded", failFS{FS: nested, open: map[string]bool{"a": true}}, Options{Exclude: []string{"a"}}},
		{"folders unreadable after a batch", failFS{FS: wide("a", 3*walkBatch), late: map[string]bool{"a": true}}, Options{}},
		{"folders that do not read in batches", refuseBatches{wide("a", walkBatch+7)}, Options{}},
		{"folders that do not list", plainFiles{wide("a", 10)}, Options{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, workers := range []int{0, 4} { // 4: folders listed ahead (lookahead)
				opts := tt.opts
				opts.Workers = workers
				sameWalk(t, tt.fsys, opts)
			}
		})
	}
}

// TestWalkSkipsTemporaryFolders: datagen's temporary folder (a dataset being written,
// or what a killed datagen left) is never read, at any depth and with any number of
// workers; a folder merely named like a temporary file is, and so is the root.
func TestWalkSkipsTemporaryFolders(t *testing.T) {
	fsys := mapFS("inputs/runs/a.jsonl", ".datagen.tmp-42-x/inputs/runs/a.jsonl", "inputs/.datagen.tmp-7-y/runs/b.jsonl",
		".datagen.tmp-z/runs/c.jsonl", ".runs.parquet.tmp-5-d/inside", ".datagen.txt.tmp-1-x/kept")
	for _, tt := range []struct {
		root string
		want []string
	}{
		{".", []string{".datagen.txt.tmp-1-x/kept", ".runs.parquet.tmp-5-d/inside", "inputs/runs/a.jsonl"}},
		{".datagen.tmp-42-x", []string{"inputs/runs/a.jsonl"}}, // given as the input itself
	} {
		sub, err := fs.Sub(fsys, tt.root)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{0, 4} {
			got := runWalk(walk, sub, Options{Workers: workers})
			if !slices.Equal(got.Files, tt.want) || got.Problems != nil || got.Err != "" {
				t.Errorf("root %s, %d workers: %+v, want files %v", tt.root, workers, got, tt.want)
			}
		}
	}
}

// TestWalkMatchesWalkDirGenerated compares the walks on random trees: names that sort
// differently per folder than globally, .git folders, temporaries, special files,
// symbolic links and excluded paths.
func TestWalkMatchesWalkDirGenerated(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 60
	}
	for seed := range seeds {
		rnd := rand.New(rand.NewPCG(uint64(seed), 1))
		m, all := randomTree(rnd)
		opts := Options{ReadSpecialFiles: rnd.IntN(2) == 0, Workers: rnd.IntN(4)}
		for range rnd.IntN(4) {
			opts.Exclude = append(opts.Exclude, all[rnd.IntN(len(all))])
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			sameWalk(t, m, opts)
			sameWalk(t, unordered{m}, opts)
		})
	}
}

// randomTree returns a random tree and every path in it, folders included.
func randomTree(rnd *rand.Rand) (fstest.MapFS, []string) {
	parts := []string{"a", "a-b", "a.b", "a0", "b", "B", ".git", "x.jsonl", "-", "ä", ".runs.parquet.tmp-1-z", ".loopwatch-probe-2-y", ".datagen.tmp-3-x"}
	// Symbolic links lead to a file, a folder, a named pipe or nowhere, never to a
	// link (MapFS does not stop at a loop).
	m := fstest.MapFS{"t-file": file(), "t-dir/x": file(), "t-pipe": {Mode: fs.ModeNamedPipe}}
	targets := []string{"t-file", "t-dir", "t-pipe", "nowhere"}
	var all []string
	for range 1 + rnd.IntN(40) {
		depth := 1 + rnd.IntN(4)
		elems := make([]string, depth)
		for i := range elems {
			elems[i] = parts[rnd.IntN(len(parts))]
		}
		name := strings.Join(elems, "/")
		if _, ok := m[name]; ok || isUnder(m, name) {
			continue
		}
		switch rnd.IntN(8) {
		case 0:
			m[name] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
		case 1:
			m[name] = &fstest.MapFile{Mode: fs.ModeSymlink, Data: []byte(strings.Repeat("../", depth-1) + targets[rnd.IntN(len(targets))])}
		default:
			m[name] = file()
		}
	}
	for name := range m {
		for p := name; p != "."; p = path.Dir(p) {
			all = append(all, p)
		}
	}
	sort.Strings(all)
	return m, all
}

// isUnder reports whether a file of m is a folder name would need, or name a folder
// of m's files.
func isUnder(m fstest.MapFS, name string) bool {
	for p := path.Dir(name); p != "."; p = path.Dir(p) {
		if _, ok := m[p]; ok {
			return true
		}
	}
	for n := range m {
		if strings.HasPrefix(n, name+"/") {
			return true
		}
	}
	return false
}

// wide returns a tree with a folder of n files and a few files beside it.
func wide(dir string, n int) fstest.MapFS {
	m := mapFS("before", "z-after", dir+"-b/x")
	for i := range n {
		m[fmt.Sprintf("%s/f%06d.jsonl", dir, (i*7919)%n)] = file()
	}
	m[dir+"/sub/x"] = file()
	m[dir+"/.git/x"] = file()
	return m
}

// failFS fails: the root's Stat (stat), opening and listing the folders in open, and
// the folders in late after their first batch (listed whole: the entries of a first
// batch, with the error).
type failFS struct {
	fs.FS
	stat bool
	open map[string]bool
	late map[string]bool
}

var errFail = errors.New("failFS: failed")

func (f failFS) Stat(name string) (fs.FileInfo, error) {
	if f.stat {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fs.Stat(f.FS, name)
}

func (f failFS) Open(name string) (fs.File, error) {
	if f.open[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	file, err := f.FS.Open(name)
	if d, ok := file.(fs.ReadDirFile); ok && f.late[name] {
		return &lateFail{ReadDirFile: d}, err
	}
	return file, err
}

func (f failFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if f.open[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	list, err := fs.ReadDir(f.FS, name)
	if f.late[name] && err == nil {
		return list[:min(len(list), walkBatch)], &fs.PathError{Op: "readdirent", Path: name, Err: errFail}
	}
	return list, err
}

type lateFail struct {
	fs.ReadDirFile
	calls int
}

func (d *lateFail) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.calls++; d.calls > 1 {
		return nil, errFail
	}
	return d.ReadDirFile.ReadDir(n)
}

// refuseBatches has folders that refuse to be read in part, as pipeline's
// fileAndCompanions does.
type refuseBatches struct{ fs.FS }

func (r refuseBatches) Open(name string) (fs.File, error) {
	f, err := r.FS.Open(name)
	if d, ok := f.(fs.ReadDirFile); ok {
		return refusing{d}, err
	}
	return f, err
}

type refusing struct{ fs.ReadDirFile }

func (d refusing) ReadDir(n int) ([]fs.DirEntry, error) {
	if n > 0 {
		return nil, errors.New("partial directory reads are not supported")
	}
	return d.ReadDirFile.ReadDir(n)
}

// plainFiles has folders that open as files that cannot list (fs.ReadDir lists them).
type plainFiles struct{ fstest.MapFS }

func (p plainFiles) Open(name string) (fs.File, error) {
	f, err := p.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return struct{ fs.File }{f}, nil
}

// unordered lists its folders backwards, as a disk's folder is listed in no
// particular order.
type unordered struct{ m fstest.MapFS }

func (u unordered) Open(name string) (fs.File, error) {
	f, err := u.m.Open(name)
	if d, ok := f.(fs.ReadDirFile); ok {
		list, err := d.ReadDir(-1)
		slices.Reverse(list)
		return &listedDir{ReadDirFile: d, list: list, err: err}, nil
	}
	return f, err
}

// listedDir gives list, then err.
type listedDir struct {
	fs.ReadDirFile
	list []fs.DirEntry
	err  error
}

func (d *listedDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		list := d.list
		d.list = nil
		return list, d.err
	}
	if len(d.list) == 0 {
		if d.err != nil {
			return nil, d.err
		}
		return nil, io.EOF
	}
	k := min(n, len(d.list))
	batch := d.list[:k]
	d.list = d.list[k:]
	return batch, nil
}

// batchCountFS counts the listing of its folders: the batches read (and the largest
// asked for) and the whole listings.
type batchCountFS struct {
	fstest.MapFS
	batches, whole, biggest, smallest int
}

func (c *batchCountFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.whole++
	return c.MapFS.ReadDir(name)
}

func (c *batchCountFS) Open(name string) (fs.File, error) {
	f, err := c.MapFS.Open(name)
	if d, ok := f.(fs.ReadDirFile); ok {
		return &batchCountDir{ReadDirFile: d, fs: c}, err
	}
	return f, err
}

type batchCountDir struct {
	fs.ReadDirFile
	fs *batchCountFS
}

func (d *batchCountDir) ReadDir(n int) ([]fs.DirEntry, error) {
	d.fs.batches++
	d.fs.biggest, d.fs.smallest = max(d.fs.biggest, n), min(d.fs.smallest, n)
	return d.ReadDirFile.ReadDir(n)
}

// TestWalkReadsInBatches: a folder of many entries is read walkBatch entries at a
// time, never whole.
func TestWalkReadsInBatches(t *testing.T) {
	const n = 5*walkBatch + 3
	c := &batchCountFS{MapFS: wide("a", n), smallest: walkBatch}
	got := sameWalk(t, c, Options{})
	if len(got.Files) != n+4 {
		t.Fatalf("%d files, want %d", len(got.Files), n+4)
	}
	c.batches, c.whole, c.biggest, c.smallest = 0, 0, 0, walkBatch
	runWalk(walk, c, Options{})
	// The folders read, each to its io.EOF (one more call): "." (4 entries), "a" (n
	// files, sub and .git, which is not read), "a/sub" and "a-b" (1 entry each).
	if want := 2 + (n+2+walkBatch-1)/walkBatch + 1 + 2 + 2; c.batches != want {
		t.Errorf("%d batches read, want %d", c.batches, want)
	}
	if c.whole != 0 || c.biggest != walkBatch || c.smallest != walkBatch {
		t.Errorf("%d folders listed whole, batches of %d to %d entries; want none whole, batches of %d", c.whole, c.smallest, c.biggest, walkBatch)
	}
}

// TestWalkCancelled: a walk through a ctxFS whose context is done ends with the
// context's error, even part way through a folder's batches.
func TestWalkCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := runWalk(walk, ctxFS{ctx: ctx, fsys: wide("a", 10)}, Options{})
	if got.Err != context.Canceled.Error() || len(got.Problems) != 0 {
		t.Errorf("cancelled before: %+v, want the error %q and no problem", got, context.Canceled)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	c := &cancelling{MapFS: wide("a", 4*walkBatch), cancel: cancel, after: 3}
	var problems []input.Problem
	_, _, err := walk(ctxFS{ctx: ctx, fsys: c}, Options{}, func(p input.Problem) { problems = append(problems, p) })
	if !errors.Is(err, context.Canceled) || len(problems) != 0 || c.whole != 0 {
		t.Errorf("cancelled during: err %v, problems %v, %d whole listings; want context.Canceled and none", err, problems, c.whole)
	}
}

// cancelling cancels the context at its folders' after-th batch read (the root
// takes two: its entries, then io.EOF).
type cancelling struct {
	fstest.MapFS
	cancel func()
	after  int
	whole  int
}

func (c *cancelling) ReadDir(name string) ([]fs.DirEntry, error) {
	c.whole++
	return c.MapFS.ReadDir(name)
}

func (c *cancelling) Open(name string) (fs.File, error) {
	f, err := c.MapFS.Open(name)
	if d, ok := f.(fs.ReadDirFile); ok {
		return cancellingDir{d, c}, err
	}
	return f, err
}

type cancellingDir struct {
	fs.ReadDirFile
	c *cancelling
}

func (d cancellingDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.c.after--; d.c.after == 0 {
		d.c.cancel()
	}
	return d.ReadDirFile.ReadDir(n)
}

var walkEntries = flag.Int("walk.entries", 30000, "BenchmarkWalk: the files in the folder walked")

// BenchmarkWalk walks a folder of -walk.entries files on disk with fs.WalkDir (old)
// and in batches (new), reporting the time and the bytes allocated per entry:
//
//	go test -run '^$' -bench Walk -count 5 ./replay -args -walk.entries 300000
func BenchmarkWalk(b *testing.B) {
	dir := b.TempDir()
	for i := range *walkEntries {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("synth-%06d.jsonl", i)))
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	fsys := ctxFS{ctx: context.Background(), fsys: os.DirFS(dir)}
	for _, bb := range []struct {
		name string
		walk func(fs.FS, Options, func(input.Problem)) ([]string, map[string]bool, error)
	}{{"old", walkDirRef}, {"new", walk}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				files, _, err := bb.walk(fsys, Options{}, func(p input.Problem) { b.Fatal(p) })
				if err != nil || len(files) != *walkEntries {
					b.Fatalf("%d files, %v", len(files), err)
				}
			}
			runtime.ReadMemStats(&after)
			entries := float64(b.N) * float64(*walkEntries)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/entries, "ns/entry")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/entries, "B/entry")
		})
	}
}

// TestWalkAheadListsEachFolderOnce: with folders listed ahead, each folder the walk
// goes down into is listed once — by the lookahead or by the walk, never both — and
// excluded folders and .git never, on deep and wide trees, with more folders than the
// lookahead holds.
func TestWalkAheadListsEachFolderOnce(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 300 {
		m[fmt.Sprintf("p%03d/s%d.jsonl", i, i)] = file()
		m[fmt.Sprintf("p%03d/s%d/subagents/a.jsonl", i, i)] = file()
		m[fmt.Sprintf("p%03d/.git/HEAD", i)] = file()
	}
	m["deep/a/b/c/d/e/f/g.jsonl"] = file()
	m["skip/x.jsonl"] = file()
	for _, workers := range []int{2, 8} {
		c := &countingFS{FS: m} // the walk opens folders only
		opts := Options{Workers: workers, Exclude: []string{"skip"}}
		want := runWalk(walkDirRef, m, opts)
		if got := runWalk(walk, c, opts); !reflect.DeepEqual(got, want) {
			t.Fatalf("workers %d: walk differs from fs.WalkDir's:\n got %+v\nwant %+v", workers, got, want)
		}
		if len(c.opens) < 900 {
			t.Fatalf("workers %d: %d folders listed", workers, len(c.opens))
		}
		for name, n := range c.opens {
			if n != 1 || strings.HasSuffix(name, ".git") || name == "skip" {
				t.Errorf("workers %d: %s listed %d times", workers, name, n)
			}
		}
	}
}

// TestWalkBefore: folders compare in the order the walk reaches them — the order
// fs.WalkDir visits them in, on random trees.
func TestWalkBefore(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"a", "a/b", true}, {"a/b", "a", false}, {"a/b", "a-b", true}, {"a-b", "a/b", false},
		{"a/z", "a.b", true}, {"a", "b", true}, {"a/b/c", "a/c", true}, {"x", "x", false}, {"A", "a", true},
	} {
		if got := walkBefore(tt.a, tt.b); got != tt.want {
			t.Errorf("walkBefore(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	for seed := range 50 {
		m, _ := randomTree(rand.New(rand.NewPCG(uint64(seed), 2)))
		var visited []string
		fs.WalkDir(m, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && p != "." {
				visited = append(visited, p)
			}
			return nil
		})
		if !slices.IsSortedFunc(visited, func(a, b string) int {
			if walkBefore(a, b) {
				return -1
			}
			return 1
		}) {
			t.Errorf("seed %d: fs.WalkDir visits %v, not in walkBefore's order", seed, visited)
		}
	}
}

// TestLookaheadHoldsAtMostAheadHeld: however many goroutines list ahead, no more than
// aheadHeld folders are taken up ahead of a walk that takes none.
func TestLookaheadHoldsAtMostAheadHeld(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 4 * aheadHeld {
		m[fmt.Sprintf("d%03d/x", i)] = file()
	}
	c := &countingFS{FS: m}
	a := newLookahead(c, 4*aheadHeld, func(string, int) bool { return true })
	root := &walker{fsys: m, types: make([][]fs.FileMode, 1)}
	if err := root.listHere(".", 0, 0); err != nil {
		t.Fatal(err)
	}
	a.found(".", root.files, root.types[0])
	opened := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.opens)
	}
	for deadline := time.Now().Add(10 * time.Second); opened() < aheadHeld && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // time for any goroutine to go past the bound
	a.mu.Lock()
	held := len(a.claimed)
	a.mu.Unlock()
	if n := opened(); n != aheadHeld || held != aheadHeld {
		t.Errorf("%d folders listed ahead, %d held; want %d", n, held, aheadHeld)
	}
	if l := a.take("d000"); l == nil || len(l.paths) != 1 {
		t.Fatalf("the first folder was not listed ahead: %+v", l)
	}
	for deadline := time.Now().Add(10 * time.Second); opened() < aheadHeld+1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := opened(); n != aheadHeld+1 {
		t.Errorf("after one listing taken, %d folders listed ahead; want %d", n, aheadHeld+1)
	}
	a.stop()
}
