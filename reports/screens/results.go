package screens

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
)

// Results is a replay's run table, opened for the screens: what they show of it as a
// whole (its sessions counted, their events summed, the newest one) and the metadata
// every table of the replay carries. It holds no session's row: each screen reads the
// run tables again for the rows it shows, so that what it keeps in memory is what it
// prints — one session for the status and detail screens, a page of the history —
// however many sessions the replay wrote.
type Results struct {
	// Path is the run table as it was given.
	Path string
	// Sessions counts the rows of kind "session"; OtherRuns the rows of other kinds
	// (quasar runs); Events the sessions' events.
	Sessions, OtherRuns, Events int
	// Meta is the file's loopwatch key-value metadata (of a folder output, its first
	// shard's, with the input fingerprint of the merge's manifest when metrics wrote one).
	Meta Metadata

	parts  []part // the run tables read, in shard order
	newest *entry // the first session in display order; nil without sessions
}

// part is one run table of an output and where its tables are: the file layout's run
// table, its siblings beside it (<stem>.events.parquet, …); or a shard's in the folder
// layout, its tables in the same partition of each table's folder
// (DIR/events/shard=i/part-0.parquet, …).
type part struct {
	path           string // the run table
	dir, partition string // the folder layout's folder and partition ("shard=0"); "" in the file layout
	meta           Metadata
	shard          replay.Shard  // its loopwatch.shard; the zero Shard for a replay not split
	file           *parquet.File // the run table, open from Open to Close: every screen reads the version Open checked
	closer         io.Closer
	keys           keyLayout // where file holds the columns a scan reads
}

func (p *part) sibling(table string) string {
	if p.dir == "" {
		return strings.TrimSuffix(p.path, ".parquet") + "." + table + ".parquet"
	}
	return filepath.Join(p.dir, table, p.partition, reports.PartFile)
}

func (p *part) manifestPath() string {
	if p.dir == "" {
		return reports.ManifestPath(p.path)
	}
	return reports.FolderManifestPath(p.dir, p.partition) // a shard's set is its partition
}

// Shards returns the number of run tables read: 1 in the file layout, every shard's
// of a folder output.
func (r *Results) Shards() int { return len(r.parts) }

// Metadata is what the screens use of a replay's key-value metadata.
type Metadata struct {
	Table            string // loopwatch.table
	Version          string // loopwatch.version
	InputFingerprint string // loopwatch.input_fingerprint
	Shard            string // loopwatch.shard: "i/n" in a shard of a split replay
	InputListing     string // loopwatch.input_listing: what every shard of one split read
	LLM              string // loopwatch.llm: the session analyzer
	Labels           string // loopwatch.labels
	// AssessConfig is loopwatch.assess_config as written (JSON of assess.Config).
	AssessConfig string
	// ReplayID is loopwatch.replay_id: every table of one committed output carries
	// the same (empty in outputs written before it existed).
	ReplayID string
}

// FileError is a results file (or a sibling table) that is missing, unreadable or not
// a loopwatch results file. Its message is one line that names the file and says what
// to do.
type FileError struct {
	Path    string
	Problem string
	Hint    string
}

func (e *FileError) Error() string {
	msg := e.Path + ": " + e.Problem
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// LookupError is a session id that names no session, or more than one.
type LookupError struct {
	Path string
	ID   string
	// Matches counts the sessions an ambiguous prefix begins; Candidates are the
	// first of them in key order, at most eight.
	Matches    int
	Candidates []string
	Note       string // why it is unknown, when more can be said
}

func (e *LookupError) Error() string {
	if e.Matches > 1 {
		list := strings.Join(e.Candidates, ", ")
		if n := e.Matches - len(e.Candidates); n > 0 {
			list += fmt.Sprintf(" and %d more", n)
		}
		return fmt.Sprintf("session %q is ambiguous in %s: it begins %d sessions: %s (give more of the id)", e.ID, e.Path, e.Matches, list)
	}
	msg := fmt.Sprintf("no session %q in %s", e.ID, e.Path)
	if e.Note != "" {
		return msg + ": " + e.Note
	}
	return msg + " (assess history --days 0 lists them all)"
}

// ShortIDLen is the least number of characters of a session id the screens show.
const ShortIDLen = 8

// runTable is the loopwatch.table value of a replay's run table.
const runTable = "runs"

func replayHint(path string) string {
	return "run `replay --out " + path + "` first, or give --results FILE"
}

// Open reads the run table of a replay: the file replay --out FILE.parquet wrote; the
// folder replay --out DIR/ wrote, every shard's run table in it
// (DIR/results/shard=i/part-0.parquet); or one shard's run table in such a folder. It
// returns a [*FileError] when a file is missing or unreadable, is not Parquet, is not a
// loopwatch run table, or is not part of a complete output: its manifest
// (<stem>.manifest.json, or DIR/_manifests/shard=i.manifest.json, written last by the
// replay's commit) is missing or names another replay; and for a folder, when it holds
// no run table, not every shard of its split, shards of different splits or inputs, a
// shard in another shard's partition, or a session in a shard its key does not hash to.
//
// Open reads the run tables' run_key, kind, started_at and events columns once, a
// batch of rows at a time; it keeps what the screens show of the whole, not the rows.
// The run tables stay open until [Results.Close], so that every screen reads the
// version Open checked, even if a replay replaces them meanwhile.
func Open(path string) (*Results, error) {
	parts, folder, err := findParts(path)
	if err != nil {
		return nil, err
	}
	r := &Results{Path: path, parts: parts}
	if err := r.open(folder); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close closes the run tables Open opened; r's screens cannot be read after it.
func (r *Results) Close() error {
	var errs []error
	for i := range r.parts {
		if p := &r.parts[i]; p.closer != nil {
			errs = append(errs, p.closer.Close())
			p.file, p.closer = nil, nil
		}
	}
	return errors.Join(errs...)
}

// open opens and checks the run tables of r's parts, and reads what r keeps of them.
func (r *Results) open(folder bool) error {
	for i := range r.parts {
		if err := r.readMeta(i); err != nil {
			return err
		}
	}
	r.Meta = r.parts[0].meta
	if err := r.checkParts(folder); err != nil {
		return err
	}
	return r.scan(func(e *entry, row *keyRow) error {
		if row.Kind != "session" {
			r.OtherRuns++
			return nil
		}
		p := &r.parts[e.part]
		if !p.shard.Owns(e.key) { // so no session is in two shards
			return &FileError{Path: p.path, Problem: fmt.Sprintf("session %s is not shard %s's: its key hashes to shard %d, so the folder mixes outputs",
				e.key, p.shard, replay.ShardOf(e.key, p.shard.Count)), Hint: "replay every shard again into an empty folder"}
		}
		r.Sessions++
		r.Events += row.Events
		if r.newest == nil || e.before(r.newest) {
			n := *e
			r.newest = &n
		}
		return nil
	})
}

// readMeta opens the run table of the i-th part, checks its metadata and manifest, and
// finds the columns a scan reads.
func (r *Results) readMeta(i int) error {
	p := &r.parts[i]
	pf, closer, meta, err := openTable(p.path, runTable)
	if err != nil {
		return err
	}
	p.file, p.closer, p.meta = pf, closer, meta
	if sh, err := replay.ParseShard(meta.Shard); err == nil {
		p.shard = sh
	}
	if err := checkManifest(p, meta); err != nil {
		return err
	}
	p.keys, err = p.layout()
	return err
}

// findParts returns the run tables path names — a folder's shards (folder set), one
// shard's, or a file's.
func findParts(path string) (parts []part, folder bool, err error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		dir := filepath.Clean(path)
		found, _ := filepath.Glob(filepath.Join(dir, reports.RunTableFolder, "*", reports.PartFile))
		// A partition named with a leading "." or "_" is hidden from hive readers
		// (Hadoop's rule: DuckDB, Spark, Arrow skip it), and from the folder's check.
		found = slices.DeleteFunc(found, func(f string) bool { return reports.HiddenName(filepath.Base(filepath.Dir(f))) })
		if len(found) == 0 {
			return nil, false, &FileError{Path: path, Problem: "is a folder without a run table (" + filepath.Join(reports.RunTableFolder, "shard=i", reports.PartFile) + ")",
				Hint: "run `replay --out " + path + string(filepath.Separator) + "` first, or give --results FILE"}
		}
		parts = make([]part, len(found))
		for i, f := range found {
			parts[i] = part{path: f, dir: dir, partition: filepath.Base(filepath.Dir(f))}
		}
		slices.SortFunc(parts, func(a, b part) int {
			return cmp.Or(cmp.Compare(shardIndex(a.partition), shardIndex(b.partition)), strings.Compare(a.partition, b.partition))
		})
		return parts, true, nil
	}
	partition := filepath.Base(filepath.Dir(path))
	if filepath.Base(path) == reports.PartFile && strings.Contains(partition, "=") && filepath.Base(filepath.Dir(filepath.Dir(path))) == reports.RunTableFolder {
		return []part{{path: path, dir: filepath.Dir(filepath.Dir(filepath.Dir(path))), partition: partition}}, false, nil
	}
	return []part{{path: path}}, false, nil
}

// shardIndex is the number of a "shard=i" partition (-1 for another name).
func shardIndex(partition string) int {
	i, err := strconv.Atoi(strings.TrimPrefix(partition, "shard="))
	if err != nil || !strings.HasPrefix(partition, "shard=") {
		return -1
	}
	return i
}

// checkParts checks that the run tables of a folder output (folder: the folder was
// given) are every shard of one split of one input, and takes the merge's input
// fingerprint when metrics wrote it.
func (r *Results) checkParts(folder bool) error {
	first := &r.parts[0]
	if first.dir == "" {
		return nil
	}
	shards := func(p *part) int { return max(p.shard.Count, 1) } // n of "i/n"; 1 for a replay not split
	n := shards(first)
	for i := range r.parts {
		p := &r.parts[i]
		if shards(p) != n || p.meta.InputListing != first.meta.InputListing {
			return &FileError{Path: p.path, Problem: fmt.Sprintf("is shard %s of another split or input than %s (shard %s)", orDash(p.meta.Shard), first.path, orDash(first.meta.Shard)),
				Hint: "replay every shard again into an empty folder"}
		}
		if p.shard.Split() && shardIndex(p.partition) != p.shard.Index {
			return &FileError{Path: p.path, Problem: fmt.Sprintf("is shard %s in the partition %s: the folder mixes outputs", p.meta.Shard, p.partition),
				Hint: "replay every shard again into an empty folder"}
		}
	}
	if !folder {
		return nil // one shard's run table, given as such: that shard alone
	}
	if len(r.parts) != n {
		var have []string
		for _, p := range r.parts {
			have = append(have, p.partition)
		}
		return &FileError{Path: r.Path, Problem: fmt.Sprintf("holds %d of the %d shards of its split (%s)", len(r.parts), n, strings.Join(have, ", ")),
			Hint: "wait for every shard, or give one shard's run table, " + first.path}
	}
	if m, err := reports.ReadManifestFile(reports.FolderManifestPath(first.dir, reports.MergedSet)); err == nil && m.InputFingerprint != "" {
		r.Meta.InputFingerprint = m.InputFingerprint
	}
	return nil
}

// truncateID cuts k to n bytes without splitting a UTF-8 sequence.
func truncateID(k string, n int) string {
	if n >= len(k) {
		return k
	}
	for n < len(k) && !isRuneStart(k[n]) {
		n++
	}
	return k[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func (r *Results) noSessionsNote() string {
	if r.OtherRuns > 0 {
		return fmt.Sprintf("it holds no sessions, only %d quasar runs (sessions come from Claude Code transcripts and vibes event logs)", r.OtherRuns)
	}
	return "it holds no sessions"
}

// Sibling returns the path of the replay's table named table ("events",
// "checkpoints", "interventions") beside the (first) run table read: its stem plus
// ".<table>.parquet", or in a folder output the table's file in the same partition.
func (r *Results) Sibling(table string) string { return r.parts[0].sibling(table) }

// checkManifest checks that the run table of p belongs to the output its manifest
// records. Outputs written before manifests existed (no replay id) are not checked.
func checkManifest(p *part, meta Metadata) error {
	if meta.ReplayID == "" {
		return nil
	}
	mp := p.manifestPath()
	m, err := reports.ReadManifestFile(mp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &FileError{Path: p.path, Problem: "the output is incomplete: its manifest " + mp +
			" is missing (the replay that wrote it was interrupted while putting its tables in place)", Hint: "run the replay again"}
	case err != nil:
		return &FileError{Path: p.path, Problem: "cannot read the output's manifest: " + oneLine(err.Error()), Hint: "run the replay again"}
	case m.ReplayID != meta.ReplayID:
		return &FileError{Path: p.path, Problem: "the run table and the output's manifest " + mp +
			" are from different replays (an interrupted commit, or files copied together)", Hint: "run the replay again"}
	}
	return nil
}

// checkSibling checks that a sibling table comes from the same replay as the run
// table of its part: the same replay id and input fingerprint.
func (p *part) checkSibling(path string, meta Metadata) error {
	if meta.ReplayID == p.meta.ReplayID && meta.InputFingerprint == p.meta.InputFingerprint {
		return nil
	}
	return &FileError{Path: path, Problem: fmt.Sprintf("is from another replay than the run table %s (input fingerprint %s, not %s): the output's tables are mixed, e.g. by an interrupted commit",
		p.path, short(meta.InputFingerprint), short(p.meta.InputFingerprint)), Hint: "run the replay again"}
}

func short(fp string) string {
	if fp == "" {
		return "none"
	}
	return fp[:min(12, len(fp))]
}

// openTable opens a loopwatch Parquet table and checks its loopwatch.table metadata.
func openTable(path, table string) (*parquet.File, io.Closer, Metadata, error) {
	var meta Metadata
	hint := replayHint(path)
	if table != runTable {
		hint = "it is written beside the run table by replay --out; run the replay again"
	}
	if !strings.HasSuffix(path, ".parquet") {
		return nil, nil, meta, &FileError{Path: path, Problem: "not a loopwatch results file: the name must end in .parquet", Hint: replayHint("results.parquet")}
	}
	// Not opened unless a regular file (or a folder, refused below): opening a named
	// pipe blocks until something writes to it.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, nil, meta, &FileError{Path: path, Problem: "not a regular file but a " + replay.ModeName(fi.Mode()), Hint: hint}
	}
	f, err := os.Open(path)
	if err != nil {
		problem := "cannot open: " + UnwrapPathError(err).Error()
		if errors.Is(err, fs.ErrNotExist) {
			problem = "no such file"
		}
		return nil, nil, meta, &FileError{Path: path, Problem: problem, Hint: hint}
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		err = errors.New("is a directory")
	}
	if err != nil {
		f.Close()
		return nil, nil, meta, &FileError{Path: path, Problem: "cannot read: " + UnwrapPathError(err).Error(), Hint: hint}
	}
	pf, err := reports.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		f.Close()
		return nil, nil, meta, &FileError{Path: path, Problem: "not a Parquet file (" + oneLine(err.Error()) + ")", Hint: hint}
	}
	meta.Table, _ = pf.Lookup("loopwatch.table")
	meta.Version, _ = pf.Lookup("loopwatch.version")
	meta.InputFingerprint, _ = pf.Lookup("loopwatch.input_fingerprint")
	meta.Shard, _ = pf.Lookup(reports.ShardKey)
	meta.InputListing, _ = pf.Lookup(reports.InputListingKey)
	meta.LLM, _ = pf.Lookup("loopwatch.llm")
	meta.Labels, _ = pf.Lookup("loopwatch.labels")
	meta.AssessConfig, _ = pf.Lookup("loopwatch.assess_config")
	meta.ReplayID, _ = pf.Lookup(reports.ReplayIDKey)
	switch {
	case meta.Table == "":
		f.Close()
		return nil, nil, meta, &FileError{Path: path, Problem: "not a loopwatch results file (no loopwatch.table metadata)", Hint: hint}
	case meta.Table != table && table == runTable:
		f.Close()
		stem := strings.TrimSuffix(strings.TrimSuffix(path, ".parquet"), "."+meta.Table)
		return nil, nil, meta, &FileError{Path: path, Problem: fmt.Sprintf("is the %s table of a replay, not its run table", meta.Table),
			Hint: "give --results " + stem + ".parquet"}
	case meta.Table != table:
		f.Close()
		return nil, nil, meta, &FileError{Path: path, Problem: fmt.Sprintf("is loopwatch's %s table, expected the %s table", meta.Table, table), Hint: hint}
	}
	return pf, f, meta, nil
}

// readSession reads the rows of one session from the sibling table named table,
// skipping the row groups whose run_key statistics rule the session out (a replay
// writes each session's rows together).
func readSession[T any](p *part, table, key string, keyOf func(*T) string) ([]T, error) {
	path := p.sibling(table)
	pf, closer, meta, err := openTable(path, table)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	if err := p.checkSibling(path, meta); err != nil {
		return nil, err
	}
	leaf, ok := pf.Schema().Lookup("run_key")
	if !ok {
		return nil, &FileError{Path: path, Problem: "has no run_key column (written by an earlier loopwatch, which named it session_key?)", Hint: "run the replay again"}
	}
	col := leaf.ColumnIndex
	var out []T
	buf := make([]T, 512)
	mend := reports.NewTimeMend[T]()
	for i, rg := range pf.RowGroups() {
		if !mayHold(pf.Metadata().RowGroups[i].Columns[col].MetaData.Statistics, key) {
			continue
		}
		rd := parquet.NewGenericRowGroupReader[T](rg)
		for {
			n, err := readBatch(rd, buf, mend)
			for j := range buf[:n] {
				if keyOf(&buf[j]) == key {
					out = append(out, buf[j])
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rd.Close()
				return nil, &FileError{Path: path, Problem: "cannot read: " + oneLine(err.Error()), Hint: "run the replay again"}
			}
		}
		rd.Close()
	}
	return out, nil
}

// mayHold reports whether a byte-array column chunk with these statistics can hold
// key; without min and max it may.
func mayHold(st format.Statistics, key string) bool {
	lo, hi := st.MinValue, st.MaxValue
	if lo == nil || hi == nil {
		return true
	}
	return string(lo) <= key && key <= string(hi)
}

// UnwrapPathError drops the path an *fs.PathError repeats.
func UnwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// jsonString writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// utc returns t in UTC, or nil.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
