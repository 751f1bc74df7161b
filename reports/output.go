package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/loopwatch/loopwatch"
	"github.com/loopwatch/loopwatch/internal/tmpname"
	"github.com/loopwatch/loopwatch/replay"
)

// RowGroupRows bounds the rows of one Parquet row group, so readers can stream and
// skip row groups and a writer's memory stays bounded.
const RowGroupRows = 64 << 10

// PageBytes bounds a data page's values before encoding. A table's writer holds one
// such page per column until it fills (parquet-go's default, 256 KiB, held 50 MB for
// the run and cycle tables of a large replay; at 64 KiB they hold 17 MB), so it bounds
// the writer's memory with the row group.
const PageBytes = 64 << 10

// RowGroupBytes bounds the encoded pages of a row group that a table's writer holds
// before it writes them — in the output's page store, a scratch file, not in memory
// (see pageStore): a row group ends at RowGroupRows rows, or once the writer's
// estimate of it — its encoded pages and the values of the page each column is filling,
// which it counts as they are before encoding — passes RowGroupBytes beside a page a
// column (checked after each batch of rows the table hands the writer), whichever comes
// first; the estimate can end a group well before its pages reach RowGroupBytes (the
// fix-loop table of 100k runs: 370 KB). Rows alone bounded it only loosely: 65,536
// rows of the sessions table are 8 MB of pages.
const RowGroupBytes = 1 << 20

// writeBatch is how many rows a table gathers before it hands them to the writer.
const writeBatch = 1024

// ReplayIDKey is the metadata key every table of one committed output carries with the
// same value (see [Output.Commit]); the manifest records it too.
const ReplayIDKey = "loopwatch.replay_id"

// ShardKey is the metadata key, in every table of a shard of a split replay, of the
// shard ("i/n").
const ShardKey = "loopwatch.shard"

// InputListingKey is the metadata key, in every table of a shard, of its input's
// listing (replay.Summary.Listing): the same in every shard of one split of one input.
// A shard's tables carry it instead of loopwatch.input_fingerprint, which the merge's
// tables carry.
const InputListingKey = "loopwatch.input_listing"

// StaleAge is how old a temporary file must be before a new output removes it when
// its writer's liveness cannot be checked: the naming before pids, or a platform
// without process signals.
const StaleAge = 24 * time.Hour

// Output is the set of tables one replay writes, committed together.
type Output struct {
	stem string // file layout: the destination path without ".parquet"
	// folder layout (stem ""): the folder, the partition folder of every table ("" for
	// none) and the manifest's name.
	dir, partition, set string
	metadata            map[string]string
	info                ManifestInfo
	tables              []committer
	// retire: files of a previous output this one does not write (see Retire);
	// retired, those Commit removed; kept, those it left as they changed since.
	retire        []PreviousFile
	retired, kept []string
	// rename is os.Rename, but in tests of a commit that fails part-way.
	rename    func(oldpath, newpath string) error
	done      bool
	cleaned   []string
	codec     *zstdCodec         // shared by the tables, made with the first
	pages     parquet.BufferPool // the row groups' pages (a pageStore), shared by the tables, made with the first
	scratch   []*os.File         // see Scratch
	scratchMu sync.Mutex         // guards scratch: Scratch may run on several goroutines
	sealedID  string             // the replay id the sealed tables carry ("" before a Seal)
	sealMu    sync.Mutex         // guards sealedID and done while tables are sealed at once (SealAll)
	// superseded are files derived from the output in place, which Commit removes when
	// it replaces that output by another (see Supersedes).
	superseded []string
}

type committer interface {
	close(metadata map[string]string) error
	abort()
	tmpName() string
	finalName() string
	tableName() string
	// rowCount returns the rows written; ok is false for a file that is not a table.
	rowCount() (n int64, ok bool)
	digest() (size int64, sha string)
}

// NewOutput prepares the tables of a replay written to path, which must end in
// ".parquet": the run table goes to path itself, table "t" to the sibling
// "<stem>.t.parquet", and the manifest to "<stem>.manifest.json". Every file carries
// metadata as key-value pairs (plus loopwatch.version, loopwatch.table and
// loopwatch.replay_id), written in key order. NewOutput checks that the destination
// folder exists and is writable, so a bad --out fails before any work is done, and
// removes the stale temporary files an earlier replay of the same output left behind
// when it was killed (see [Output.Cleaned]).
func NewOutput(path string, metadata map[string]string) (*Output, error) {
	if !strings.HasSuffix(path, ".parquet") {
		return nil, fmt.Errorf("output %s: the name must end in .parquet (the run table; sibling tables share its stem)", path)
	}
	if filepath.Base(path) == ".parquet" {
		return nil, fmt.Errorf("output %s: the name before .parquet is empty (the stem every table's name starts with)", path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("output %s is a directory: give a file name ending in .parquet", path)
	}
	dir := filepath.Dir(path)
	if err := Folder(dir); errors.Is(err, ErrNoSuchFolder) {
		return nil, fmt.Errorf("output %s: cannot write to %s: %w", path, dir, err)
	}
	probe, err := tmpname.CreateProbe(dir)
	if err != nil {
		return nil, fmt.Errorf("output %s: cannot write to %s: %w", path, dir, UnwrapPathError(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	md := map[string]string{"loopwatch.version": loopwatch.Version}
	for k, v := range metadata {
		md[k] = v
	}
	o := &Output{stem: strings.TrimSuffix(path, ".parquet"), metadata: md, rename: os.Rename}
	o.cleaned = cleanStale(dir, siblingOf(filepath.Base(o.stem)), time.Now())
	return o, nil
}

// IsFolder reports whether an output path names a folder: it ends in a path
// separator or names an existing folder.
func IsFolder(path string) bool {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// RunTableFolder is the run table's folder in the folder layout (the file layout's
// results.parquet).
const RunTableFolder = "results"

// ManifestFolder holds the manifests of a folder output. Spark, Hive and Trino leave
// folders whose name starts with "_" out of a dataset.
const ManifestFolder = "_manifests"

// NewFolderOutput prepares tables written into the folder dir in the hive layout:
// table t goes to dir/<t>/<partition>/part-0.parquet — dir/<t>/part-0.parquet when
// partition is "" — the run table's folder being [RunTableFolder], and the manifest to
// dir/[ManifestFolder]/<set>.manifest.json. A partition is a "key=value" folder
// ("shard=3"), so that DuckDB, Spark and Trino read dir/<t>/ as one table with the
// partition as a column. dir is created if needed; its parent must exist. As
// [NewOutput], it removes the stale temporaries of the same files.
func NewFolderOutput(dir, partition, set string, metadata map[string]string) (*Output, error) {
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("output %s is a file, not a folder", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, ManifestFolder), 0o755); err != nil {
		return nil, fmt.Errorf("output %s: %w", dir, UnwrapPathError(err))
	}
	probe, err := tmpname.CreateProbe(filepath.Join(dir, ManifestFolder))
	if err != nil {
		return nil, fmt.Errorf("output %s: cannot write to it: %w", dir, UnwrapPathError(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	md := map[string]string{"loopwatch.version": loopwatch.Version}
	maps.Copy(md, metadata)
	o := &Output{dir: dir, partition: partition, set: set, metadata: md, rename: os.Rename}
	manifest := filepath.Base(o.ManifestPath())
	o.cleaned = cleanStale(filepath.Join(dir, ManifestFolder), func(dest string) bool { return dest == manifest }, time.Now())
	return o, nil
}

// siblingOf matches the destinations of the file output with this stem: every file of
// it is "<stem>.…" (tables, the manifest, added files).
func siblingOf(stem string) func(dest string) bool {
	return func(dest string) bool { return dest == stem+".parquet" || strings.HasPrefix(dest, stem+".") }
}

// Cleaned returns the stale temporary files NewOutput removed: loopwatch's own
// temporaries of this output (".<stem>….parquet.tmp-<pid>-…", the manifest's, and
// folder probes) whose writing process is gone — or, where that cannot be checked (the
// naming before pids; platforms without process signals), that are older than
// [StaleAge]. A concurrent replay's temporaries are never touched: its process is
// alive.
func (o *Output) Cleaned() []string { return o.cleaned }

// cleanStale removes the stale temporaries in dir of the destinations ours matches.
func cleanStale(dir string, ours func(dest string) bool, now time.Time) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		dest, pid, ok := tmpname.Parse(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if dest != "" && !ours(dest) {
			continue // another output's
		}
		if isStale(e, pid, now) {
			p := filepath.Join(dir, e.Name())
			if os.Remove(p) == nil {
				removed = append(removed, p)
			}
		}
	}
	return removed
}

// isStale reports whether the temporary e, made by the process pid (0: unknown), is
// stale: its process is gone or, where that cannot be checked, it is older than
// [StaleAge]. This process's own temporaries never are.
func isStale(e fs.DirEntry, pid int, now time.Time) bool {
	switch {
	case pid == os.Getpid():
		return false
	case pid > 0 && canCheckProcesses:
		return !processAlive(pid)
	default:
		fi, err := e.Info()
		return err == nil && now.Sub(fi.ModTime()) > StaleAge
	}
}

// CleanStaleFolders removes, with everything in them, the stale temporary folders in
// dir named for name (one of tmpname.Folders: ".datagen.tmp-<pid>-…"), as a new
// output removes its stale temporary files: those whose process is gone (killed
// before it could clean up) or, where that cannot be checked, older than [StaleAge].
// A concurrent process's folder is never touched. It returns the folders removed, and
// the errors of those it could not remove.
func CleanStaleFolders(dir, name string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	now := time.Now()
	for _, e := range entries {
		dest, pid, ok := tmpname.Parse(e.Name())
		if !ok || dest != name || !e.IsDir() || !isStale(e, pid, now) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

// SetMetadata sets a key-value pair written into every table's metadata at Commit.
// After a table was sealed (see [Table.Seal]) the metadata is fixed: a change makes
// Commit fail.
func (o *Output) SetMetadata(key, value string) { o.metadata[key] = value }

// replayID returns the replay id of the output's tables and metadata as they are.
func (o *Output) replayID() string {
	names := make([]string, len(o.tables))
	for i, t := range o.tables {
		names[i] = t.tableName()
	}
	return ReplayID(o.metadata, names)
}

// Path returns the destination of the table named table ("" for the run table).
func (o *Output) Path(table string) string {
	if o.stem == "" {
		return filepath.Join(o.TableFolder(table), o.partition, PartFile)
	}
	if table == "" {
		return o.stem + ".parquet"
	}
	return o.stem + "." + table + ".parquet"
}

// Folder returns the output's folder in the folder layout ("" in the file layout).
func (o *Output) Folder() string { return o.dir }

// TableFolder returns the folder of a table in the folder layout, its partitions
// included ("" in the file layout).
func (o *Output) TableFolder(table string) string {
	if o.stem != "" {
		return ""
	}
	if table == "" {
		table = RunTableFolder
	}
	return filepath.Join(o.dir, table)
}

// PartFile is the name of a table's file in its partition folder. It is always the
// same, so that writing a partition again replaces it rather than adding to it.
const PartFile = "part-0.parquet"

// HiddenName reports whether a file or folder named name is hidden from the readers of
// a hive-partitioned table (Hadoop's rule, which DuckDB's globs, Spark, Hive and Arrow
// keep): its name starts with "." or "_". Readers of a folder output skip such names
// as those readers do — Finder's .DS_Store, a job's _SUCCESS, loopwatch's own
// temporaries.
func HiddenName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// MergedSet names the manifest of the merge of a split replay's shards in its folder
// (_manifests/merged.manifest.json), which holds the input fingerprint.
const MergedSet = "merged"

// FolderManifestPath returns the manifest of the set named set ("shard=0", MergedSet)
// of the folder output dir.
func FolderManifestPath(dir, set string) string {
	return filepath.Join(dir, ManifestFolder, set+manifestSuffix)
}

// ManifestPath returns the destination of the output's manifest.
func (o *Output) ManifestPath() string {
	if o.stem == "" {
		return FolderManifestPath(o.dir, o.set)
	}
	return ManifestPath(o.stem + ".parquet")
}

// Supersedes names files derived from the output this one replaces — another set's
// manifest first, then its tables: a split replay's merged outputs, derived from every
// shard — which Commit removes as it puts the tables in place, unless the output it
// commits is the one in place (its manifest, which holds every table's size and
// SHA-256, the same byte for byte): so that no reader takes them for the output's.
// They are removed, the manifest first, before the first table is replaced, and again
// once the manifest is in place (in case a process deriving them meanwhile put them
// back); a commit that fails after that does not put them back, as a concurrent
// commit of another part of the dataset may have replaced what they were derived from
// meanwhile. A file that is already gone is no error.
func (o *Output) Supersedes(paths ...string) { o.superseded = paths }

// removeSuperseded removes the superseded files, in order, and returns the first
// error but a file's being gone.
func (o *Output) removeSuperseded() error {
	for _, p := range o.superseded {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// SetInfo sets what the manifest records beyond the tables.
func (o *Output) SetInfo(info ManifestInfo) { o.info = info }

// manifestSuffix ends a manifest's name after the output's stem.
const manifestSuffix = ".manifest.json"

// ManifestPath returns the manifest of the output whose run table is runTable.
func ManifestPath(runTable string) string {
	return strings.TrimSuffix(runTable, ".parquet") + manifestSuffix
}

// Files returns every file the committed output consists of: the tables opened so far
// and the manifest — in the folder layout, the whole folder, which other parts of the
// same dataset share. A replay writing inside its own input leaves them out of it.
func (o *Output) Files() []string {
	if o.stem == "" {
		return []string{o.dir}
	}
	files := make([]string, 0, len(o.tables)+1)
	for _, t := range o.tables {
		files = append(files, t.finalName())
	}
	return append(files, o.ManifestPath())
}

// Scratch creates a scratch file of the output, for what a replay writes aside while it
// runs and reads back before Commit (what the metrics need of each row, say): a
// temporary of the manifest, beside it, named
// ".<manifest>.tmp-<pid>-scratch.<name>-<random>", so that a later replay of the same
// output removes it if this one is killed (see [Output.Cleaned]). It is never put in
// place: Commit and Abort close and remove it, whether they succeed or not. Several
// goroutines may call Scratch at once (a table's first row group, on whichever
// goroutine writes it, makes the output's page store), but not with Commit or Abort.
func (o *Output) Scratch(name string) (*os.File, error) {
	if o.isDone() {
		return nil, errors.New("output already committed or aborted")
	}
	f, err := tmpname.CreateLabelled(o.ManifestPath(), "scratch."+name)
	if err != nil {
		return nil, fmt.Errorf("output %s: a scratch file: %w", o.ManifestPath(), UnwrapPathError(err))
	}
	o.scratchMu.Lock()
	o.scratch = append(o.scratch, f)
	o.scratchMu.Unlock()
	return f, nil
}

// removeScratch closes and removes the scratch files.
func (o *Output) removeScratch() {
	o.scratchMu.Lock()
	defer o.scratchMu.Unlock()
	for _, f := range o.scratch {
		f.Close()
		os.Remove(f.Name())
	}
	o.scratch = nil
}

// Table is one Parquet table being written. Its rows are encoded — into column
// pages, compressed, into the file — on a goroutine of its own, a batch at a time in
// the order they were written, while its caller goes on: the caller of Write pays
// for gathering the rows only, so that several tables written by one goroutine (a
// replay's delivery) encode side by side on as many cores as there are. What the
// table holds is bounded by two batches (one gathering, one being encoded); Write
// waits when the encoding is a batch behind. The goroutine starts with the first full
// batch: a table of fewer rows is encoded when it is sealed or committed.
type Table[T any] struct {
	name   string
	path   string
	f      *os.File
	h      hash.Hash // of everything written to f
	size   int64     // bytes written to f: the encoder's until it is done
	w      *parquet.GenericWriter[T]
	buf    []T   // the batch being gathered
	rows   int64 // rows taken by Write
	out    *Output
	sealed bool // written out by Seal: Commit only puts it in place
	// pageRoom bounds what the pages being filled hold before they are encoded, a
	// page per column: the part of the writer's size estimate that is not encoded pages.
	pageRoom int64

	// The encoder: batches to encode, in order; emptied batches back; closed when it
	// is done (nil batches: not running). failure is its first error; ended, that the
	// table takes no more rows to encode (finishEncoding).
	batches chan []T
	spare   chan []T
	done    chan struct{}
	failure atomic.Pointer[error]
	ended   bool
}

// NewTable opens the table named name ("" for the run table) of o, with rows of type T.
func NewTable[T any](o *Output, name string) (*Table[T], error) {
	path := o.Path(name)
	if o.stem == "" {
		dir := filepath.Dir(path)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("output %s: %w", dir, UnwrapPathError(err))
		}
		o.cleaned = append(o.cleaned, cleanStale(dir, func(dest string) bool { return dest == PartFile }, time.Now())...)
	}
	f, err := tmpname.Create(path)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", path, UnwrapPathError(err))
	}
	table := name
	if table == "" {
		table = "runs"
	}
	t := &Table[T]{name: table, path: path, f: f, h: sha256.New(), out: o}
	t.w = parquet.NewGenericWriter[T](io.MultiWriter(f, t.h, countWriter{&t.size}), o.writerOptions()...)
	t.pageRoom = int64(len(t.w.Schema().Columns())) * PageBytes
	o.tables = append(o.tables, t)
	return t, nil
}

// writerOptions are the Parquet writer options of every table of o: zstd through the
// output's shared codec, bounded row groups and pages, the row groups' encoded pages
// kept in a scratch file (see pageStore), loopwatch as the creator.
func (o *Output) writerOptions() []parquet.WriterOption {
	if o.codec == nil {
		o.codec = newZstdCodec()
	}
	if o.pages == nil {
		o.pages = newPageStore(func() (*os.File, error) { return o.Scratch("pages") })
	}
	return []parquet.WriterOption{
		parquet.Compression(o.codec),
		parquet.ColumnPageBuffers(o.pages),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		parquet.PageBufferSize(PageBytes),
		parquet.CreatedBy("loopwatch", loopwatch.Version, ""),
	}
}

type countWriter struct{ n *int64 }

func (c countWriter) Write(p []byte) (int, error) {
	*c.n += int64(len(p))
	return len(p), nil
}

// Write appends rows to the table. Its error is the table's first: a batch that
// could not be written fails this Write or a later one, and Seal and Commit.
func (t *Table[T]) Write(rows ...T) error {
	if t.sealed {
		return fmt.Errorf("writing %s: the table was sealed", t.path)
	}
	if err := t.failed(); err != nil {
		return err
	}
	t.buf = append(t.buf, rows...)
	t.rows += int64(len(rows))
	if len(t.buf) >= writeBatch {
		if t.batches == nil { // the first full batch: start the encoder
			// spare has room for both batches, so the encoder never waits to give one back.
			t.batches, t.spare, t.done = make(chan []T, 1), make(chan []T, 2), make(chan struct{})
			t.spare <- nil // the second batch, made as the first is handed over
			go t.encode()
		}
		t.batches <- t.buf
		t.buf = <-t.spare
	}
	return nil
}

// encode writes the batches it is handed, in order, until the table is done with it.
func (t *Table[T]) encode() {
	defer close(t.done)
	for b := range t.batches {
		if t.failed() == nil {
			if err := t.encodeBatch(b); err != nil {
				t.failure.Store(&err)
			}
		}
		clear(b) // let the rows' strings and slices go
		t.spare <- b[:0]
	}
}

func (t *Table[T]) encodeBatch(rows []T) error {
	_, err := t.w.Write(rows)
	if err == nil && t.w.Size()-t.size >= RowGroupBytes+t.pageRoom {
		// The writer's estimate is the file so far — t.size, behind it by what the
		// writer buffers, at most 32 KiB — and the row group: its encoded pages and
		// the values of the pages being filled.
		err = t.w.Flush()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	return nil
}

// failed returns the encoder's first error.
func (t *Table[T]) failed() error {
	if err := t.failure.Load(); err != nil {
		return *err
	}
	return nil
}

// finishEncoding ends the table's encoding — the rows not handed over yet encoded
// first when keep is set (on the caller's goroutine if the encoder never started) —
// and returns its first error; the writer is the caller's from then on.
func (t *Table[T]) finishEncoding(keep bool) error {
	if t.ended {
		return t.failed()
	}
	t.ended = true
	rest := t.buf
	t.buf = nil
	switch {
	case t.batches != nil:
		if keep && len(rest) > 0 {
			t.batches <- rest
		}
		close(t.batches)
		<-t.done
		t.batches = nil
	case keep && len(rest) > 0:
		if err := t.encodeBatch(rest); err != nil {
			t.failure.Store(&err)
		}
	}
	return t.failed()
}

// Rows returns the number of rows written so far.
func (t *Table[T]) Rows() int64 { return t.rows }

// Seal writes the table out now, as Commit would — its last rows, then its footer with
// the output's metadata and replay id — and lets go of what its writer holds (the
// pages of a row group, a page's worth of values per column), for a table that is
// complete while the output's others are still being written. Commit then only puts
// it in place with the others; Abort removes it. The output's metadata and tables are
// fixed from the first Seal on: Commit fails if either changed after it.
func (t *Table[T]) Seal() error {
	if t.sealed {
		if t.out.isDone() {
			return fmt.Errorf("sealing %s: the output was committed or aborted", t.path)
		}
		return nil
	}
	md, err := t.out.sealing(t.path)
	if err != nil {
		return err
	}
	if err := t.close(md); err != nil {
		return err
	}
	t.sealed, t.w, t.buf = true, nil, nil
	return nil
}

// sealing checks that a table of o may be sealed now and returns the metadata it is
// sealed with; Seal of several tables at once (see SealAll) takes turns here.
func (o *Output) sealing(path string) (map[string]string, error) {
	o.sealMu.Lock()
	defer o.sealMu.Unlock()
	if o.done {
		return nil, fmt.Errorf("sealing %s: the output was committed or aborted", path)
	}
	id := o.replayID()
	if o.sealedID != "" && id != o.sealedID {
		return nil, fmt.Errorf("sealing %s: the output's metadata or tables changed after a table was sealed", path)
	}
	o.sealedID = id
	md := maps.Clone(o.metadata)
	md[ReplayIDKey] = id
	return md, nil
}

func (o *Output) setDone() {
	o.sealMu.Lock()
	o.done = true
	o.sealMu.Unlock()
}

func (o *Output) isDone() bool {
	o.sealMu.Lock()
	defer o.sealMu.Unlock()
	return o.done
}

// A Sealer is a table that can be written out before its output is committed
// ([Table.Seal]).
type Sealer interface{ Seal() error }

// SealAll seals tables of one output side by side — their last rows encoded, their
// footers written, their files synced at once — and returns the first error in the
// order the tables are given; the tables are sealed as Seal would one by one.
func SealAll(tables ...Sealer) error {
	return sideBySide(len(tables), func(i int) error { return tables[i].Seal() })
}

// sideBySide calls do(0) … do(n-1) at once and returns the first error by index.
func sideBySide(n int, do func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = do(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *Table[T]) close(metadata map[string]string) error {
	if t.sealed {
		return nil
	}
	if err := t.finishEncoding(true); err != nil {
		return err
	}
	md := map[string]string{"loopwatch.table": t.name}
	maps.Copy(md, metadata)
	for _, k := range slices.Sorted(maps.Keys(md)) {
		t.w.SetKeyValueMetadata(k, md[k])
	}
	if err := t.w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	if err := t.f.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	if err := t.f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	return t.f.Close()
}

func (t *Table[T]) abort() {
	t.finishEncoding(false)
	if t.w != nil {
		t.w.Close()
	}
	t.f.Close()
	os.Remove(t.f.Name())
}

func (t *Table[T]) tmpName() string         { return t.f.Name() }
func (t *Table[T]) finalName() string       { return t.path }
func (t *Table[T]) tableName() string       { return t.name }
func (t *Table[T]) rowCount() (int64, bool) { return t.Rows(), true }
func (t *Table[T]) digest() (int64, string) {
	return t.size, hex.EncodeToString(t.h.Sum(nil))
}

// Manifest is the record of one committed output, written last as
// "<stem>.manifest.json": the tables that make the set, each with its size and
// SHA-256, and the replay they come from. A reader that finds no manifest, or one
// whose replay id differs from a table's, is looking at an output whose commit did not
// complete or at tables of different replays, and must not combine them.
type Manifest struct {
	Version          string          `json:"loopwatch_version"`
	ReplayID         string          `json:"replay_id"`
	InputFingerprint string          `json:"input_fingerprint,omitempty"` // none in a shard's: see loopwatch.input_listing
	Tables           []ManifestTable `json:"tables"`
	ManifestInfo
	// Metadata is the key-value metadata every table carries but loopwatch.table (a
	// folder output's manifest only: the merge of shards compares them).
	Metadata map[string]string `json:"metadata,omitempty"`
	// Digest is the SHA-256 of the file the manifest was read from (hex; not written):
	// a reader that reads it again can tell whether it was replaced meanwhile.
	Digest string `json:"-"`
}

// ManifestInfo is what a manifest records beyond its tables: for a shard of a split
// replay, which shard it is and what it read (its summary, as the writer encodes it);
// for the merge of the shards, the replay ids of the shards merged and the SHA-256 of
// each one's manifest ([Manifest.Digest]), in shard order. A replay id names a set's
// metadata and tables, not their content: a shard replayed from an input changed
// where its listing holds only sizes keeps it; its manifest, which holds every
// table's SHA-256, changes.
type ManifestInfo struct {
	Shard         string          `json:"shard,omitempty"`
	Merged        []string        `json:"merged_replay_ids,omitempty"`
	MergedDigests []string        `json:"merged_manifest_sha256,omitempty"`
	Summary       json.RawMessage `json:"summary,omitempty"`
}

// ManifestTable is one table of a [Manifest].
type ManifestTable struct {
	Table  string `json:"table"` // "runs", "events", …
	File   string `json:"file"`  // the file's name, in the manifest's folder; in a folder output, its slash-separated path in the folder
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	Rows   *int64 `json:"rows,omitempty"` // nil for a file that is not a table
}

// TableRows is one table of an output and its rows so far.
type TableRows struct {
	Table string // "runs" for the run table, else the table's name
	Rows  int64
}

// Tables returns the output's tables (not its other files), in the order they were
// opened, and their rows.
func (o *Output) Tables() []TableRows {
	var out []TableRows
	for _, t := range o.tables {
		if n, ok := t.rowCount(); ok {
			out = append(out, TableRows{t.tableName(), n})
		}
	}
	return out
}

// ReadManifest reads the manifest of the output whose run table is runTable.
func ReadManifest(runTable string) (*Manifest, error) {
	return ReadManifestFile(ManifestPath(runTable))
}

// ReadManifestFile reads the manifest at path.
func ReadManifestFile(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	m.Digest = hex.EncodeToString(sum[:])
	return &m, nil
}

// Table returns the manifest's entry for table, or nil.
func (m *Manifest) Table(table string) *ManifestTable {
	for i := range m.Tables {
		if m.Tables[i].Table == table {
			return &m.Tables[i]
		}
	}
	return nil
}

// ReplayID identifies a replay's output by everything its tables' metadata records —
// the input fingerprint, every configuration, the labels, the version — and the names
// of its tables: the same input and settings give the same id, so that a replay run
// twice writes byte-identical files. With a nondeterministic analyzer (--llm claude)
// two such replays share an id while their tables differ; the manifest's sizes and
// hashes tell them apart.
func ReplayID(metadata map[string]string, tables []string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(metadata)) {
		if k == ReplayIDKey || k == "loopwatch.table" {
			continue
		}
		fmt.Fprintf(h, "%s\x00%s\x00", k, metadata[k])
	}
	for _, t := range slices.Sorted(slices.Values(tables)) {
		fmt.Fprintf(h, "table\x00%s\x00", t)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// A PreviousFile is a file of an earlier output as its manifest lists it: its path,
// and its size and SHA-256 as that output wrote it.
type PreviousFile struct {
	Path   string
	Bytes  int64
	SHA256 string
}

// Retire names files of the previous output at this destination that this one does
// not write — as its manifest lists them, say — so that they do not stand beside the
// new set as if they were of it: Commit moves them aside with the previous tables and
// removes them once the new manifest is in place, or, when the commit fails, moves
// them back with the rest. A path the output writes, or that is not a regular file at
// Commit (none, a folder), is left alone; so is a file whose size or SHA-256 is no
// longer the one given — changed since the output that wrote it, by a user editing
// it, say: it is no longer only the tool's to delete —, which [Output.Kept] lists.
// [Output.Retired] lists what was removed.
func (o *Output) Retire(files ...PreviousFile) { o.retire = append(o.retire, files...) }

// Kept returns the files of [Output.Retire] that Commit left in place because they
// changed since the output that wrote them.
func (o *Output) Kept() []string { return o.kept }

// Retired returns the files of [Output.Retire] that Commit removed.
func (o *Output) Retired() []string { return o.retired }

// Commit completes every table and puts the set in place as a unit: each table is
// closed with the same [ReplayIDKey], the manifest is written aside, the previous
// output's manifest is moved aside, the tables are renamed into place — each previous
// table moved aside first, under a temporary name beside it —, the files retired
// ([Output.Retire]) are moved aside too, and the manifest is renamed into place last. Until that last rename a reader finds no manifest and must
// refuse the set; once it is there, the set is complete, and what was moved aside is
// removed. A destination that is a folder is refused before anything is moved. When a
// rename fails, what was put in place is removed and what was moved aside is moved
// back: the previous output stands as it was, manifest and all, and the error says
// nothing was replaced. Only when moving back fails too (or the process dies
// part-way) is the output left incomplete — the error says so — and no manifest
// stands for it.
func (o *Output) Commit() (err error) {
	if o.isDone() {
		return errors.New("output already committed or aborted")
	}
	defer o.removeScratch()
	id := o.replayID()
	if o.sealedID != "" && id != o.sealedID {
		o.Abort()
		return errors.New("committing the output: its metadata or tables changed after a table was sealed")
	}
	o.metadata[ReplayIDKey] = id
	// The tables are closed side by side (their last rows encoded, footers written,
	// files synced at once); the first error in table order is the commit's.
	if err := sideBySide(len(o.tables), func(i int) error { return o.tables[i].close(o.metadata) }); err != nil {
		o.Abort()
		return err
	}
	o.setDone()
	m := Manifest{Version: o.metadata["loopwatch.version"], ReplayID: o.metadata[ReplayIDKey],
		InputFingerprint: o.metadata["loopwatch.input_fingerprint"], ManifestInfo: o.info}
	if o.stem == "" {
		m.Metadata = maps.Clone(o.metadata)
	}
	for _, t := range o.tables {
		size, sha := t.digest()
		file := filepath.Base(t.finalName())
		if o.stem == "" {
			file, _ = filepath.Rel(o.dir, t.finalName())
			file = filepath.ToSlash(file)
		}
		mt := ManifestTable{Table: t.tableName(), File: file, Bytes: size, SHA256: sha}
		if n, ok := t.rowCount(); ok {
			mt.Rows = &n
		}
		m.Tables = append(m.Tables, mt)
	}
	removeTemps := func() {
		for _, t := range o.tables {
			os.Remove(t.tmpName())
		}
	}
	mtmp, err := writeManifestTemp(o.ManifestPath(), &m)
	if err != nil {
		removeTemps()
		return err
	}
	discard := func() { // every temporary, the manifest's too
		removeTemps()
		os.Remove(mtmp)
	}
	// The manifest first out of the way, then each table, the manifest last into place.
	tables := make([]placing, len(o.tables))
	for i, t := range o.tables {
		tables[i] = placing{tmp: t.tmpName(), final: t.finalName()}
	}
	man := placing{tmp: mtmp, final: o.ManifestPath()}
	for _, p := range append(slices.Clip(tables), man) {
		if fi, err := os.Lstat(p.final); err == nil && fi.IsDir() {
			discard()
			return fmt.Errorf("output %s: is a folder; nothing was replaced (move it away, or choose another --out)", p.final)
		}
	}
	if len(o.superseded) > 0 && !sameContent(mtmp, man.final) {
		if err := o.removeSuperseded(); err != nil {
			discard()
			return fmt.Errorf("output %s: removing what was derived from the output it replaces: %w; nothing was replaced", o.ManifestPath(), UnwrapPathError(err))
		}
		defer func() {
			// Again once it is replaced (see Supersedes); its error is not the commit's:
			// a reader refuses derived files whose manifest does not name these shards'.
			o.removeSuperseded()
			if err != nil {
				err = fmt.Errorf("%w (but what was derived from it, which Supersedes names, was removed: derive it again)", err)
			}
		}()
	}
	if err := man.aside(o.rename); err != nil { // no manifest while the tables move
		discard()
		return fmt.Errorf("output %s: %w; nothing was replaced", o.ManifestPath(), UnwrapPathError(err))
	}
	// fail takes back what the renames did, the manifest's moving aside included.
	fail := func(final string, moved []placing, err error) error {
		discard()
		replaced := 0
		for _, p := range moved {
			if p.placed {
				replaced++
			}
		}
		if rerr := undo(append(slices.Clip(moved), man), o.rename); rerr != nil {
			return fmt.Errorf("output %s: %w; the output is incomplete (%d of %d tables replaced, no manifest: putting the previous ones back failed too, %v): readers refuse it until a replay completes",
				final, UnwrapPathError(err), replaced, len(o.tables), UnwrapPathError(rerr))
		}
		return fmt.Errorf("output %s: %w; nothing was replaced: the previous output, if any, is as it was", final, UnwrapPathError(err))
	}
	for i := range tables {
		err := tables[i].aside(o.rename)
		if err == nil {
			err = tables[i].put(o.rename)
		}
		if err != nil {
			return fail(tables[i].final, tables[:i+1], err)
		}
	}
	retired := o.retiring(tables)
	for i := range retired {
		if err := retired[i].aside(o.rename); err != nil {
			return fail(retired[i].final, append(slices.Clip(tables), retired[:i+1]...), err)
		}
	}
	if err := man.put(o.rename); err != nil {
		return fail(man.final, append(slices.Clip(tables), retired...), err)
	}
	for _, p := range append(append(tables, man), retired...) {
		if p.backup != "" {
			os.Remove(p.backup) // else a stale temporary, removed by the next replay here
		}
	}
	for _, p := range retired {
		o.retired = append(o.retired, p.final)
	}
	if o.stem == "" {
		return syncDir(filepath.Dir(o.ManifestPath()))
	}
	return syncDir(filepath.Dir(o.stem))
}

// retiring returns the files to retire that stand as regular files and are none of
// the set's (in place by now, compared as files, however their paths are spelled),
// once each, and still hold what the previous output wrote (their size and SHA-256);
// those that do not are added to o.kept.
func (o *Output) retiring(set []placing) []placing {
	var out []placing
	var seen []os.FileInfo
	for _, f := range o.retire {
		fi, err := os.Lstat(f.Path)
		if err != nil || !fi.Mode().IsRegular() || slices.ContainsFunc(seen, func(s os.FileInfo) bool { return os.SameFile(fi, s) }) {
			continue
		}
		seen = append(seen, fi)
		if slices.ContainsFunc(set, func(p placing) bool {
			sf, err := os.Lstat(p.final)
			return err == nil && os.SameFile(fi, sf)
		}) {
			continue
		}
		if sum, err := replay.HashFile(os.DirFS(filepath.Dir(f.Path)), filepath.Base(f.Path)); err != nil || fi.Size() != f.Bytes || sum != f.SHA256 {
			o.kept = append(o.kept, f.Path)
			continue
		}
		out = append(out, placing{final: f.Path})
	}
	return out
}

// sameContent reports whether the files a and b hold the same bytes.
func sameContent(a, b string) bool {
	x, err := os.ReadFile(a)
	if err != nil {
		return false
	}
	y, err := os.ReadFile(b)
	return err == nil && bytes.Equal(x, y)
}

// writeManifestTemp writes m beside its destination and returns the temporary's name.
func writeManifestTemp(dest string, m *Manifest) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return "", err
	}
	f, err := tmpname.Create(dest)
	if err != nil {
		return "", fmt.Errorf("output %s: %w", dest, UnwrapPathError(err))
	}
	_, err = f.Write(b.Bytes())
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("output %s: %w", dest, UnwrapPathError(err))
	}
	return f.Name(), nil
}

// Abort removes every temporary file, scratch files included; no destination file is
// touched. It is safe to
// call after Commit (it does nothing then).
func (o *Output) Abort() {
	defer o.removeScratch() // once the tables' encoders are done: they may make scratch files until then
	if o.isDone() {
		return
	}
	o.setDone()
	for _, t := range o.tables {
		t.abort()
	}
	if o.stem == "" {
		// The folders only this output writes into, if nothing else is in them: its
		// partitions (a table's folder and the manifests' are shared with the other
		// shards, which may be creating them at this moment).
		for _, t := range o.tables {
			os.Remove(filepath.Dir(t.finalName()))
		}
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil // best effort: not every platform can open a directory
	}
	defer d.Close()
	d.Sync()
	return nil
}

// The reasons [Folder] gives that a path is no folder to write into.
var (
	ErrNoSuchFolder = errors.New("no such folder")
	ErrNotAFolder   = errors.New("not a folder")
)

// Folder reports why dir is no folder to write into: ErrNoSuchFolder, ErrNotAFolder,
// or the error reading it (its path dropped: a message names it); nil when it is one.
// Whether the folder takes a new file is the writer's to find out.
func Folder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ErrNoSuchFolder
	case err != nil:
		return UnwrapPathError(err)
	case !fi.IsDir():
		return ErrNotAFolder
	}
	return nil
}

// UnwrapPathError drops a *PathError's operation and path, which a message names
// already, keeping the cause.
func UnwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// placing is one file of a commit: its temporary, its destination, and where the
// destination's previous file was moved aside ("" for none).
type placing struct {
	tmp, final, backup string
	placed             bool // tmp is at final
}

// aside moves the destination's file, if there is one, to a new temporary name beside
// it.
func (p *placing) aside(rename func(string, string) error) error {
	if _, err := os.Lstat(p.final); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	f, err := tmpname.Create(p.final) // a name of ours, which renaming over replaces
	if err != nil {
		return err
	}
	f.Close()
	if err := rename(p.final, f.Name()); err != nil {
		os.Remove(f.Name())
		return err
	}
	p.backup = f.Name()
	return nil
}

// put renames the temporary to the destination (moved aside first).
func (p *placing) put(rename func(string, string) error) error {
	if err := rename(p.tmp, p.final); err != nil {
		return err
	}
	p.placed = true
	return nil
}

// undo takes back the steps, the last first: what was put in place is removed, what
// was moved aside is moved back. It returns the first error, and goes on past it.
func undo(steps []placing, rename func(string, string) error) error {
	var first error
	for i := len(steps) - 1; i >= 0; i-- {
		p := &steps[i]
		if p.placed {
			if err := os.Remove(p.final); err != nil && first == nil {
				first = err
			}
		}
		if p.backup != "" {
			if err := rename(p.backup, p.final); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
