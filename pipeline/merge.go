package pipeline

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/internal/smallest"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/reports"
)

// ShardKey is the metadata key, in every table of a shard, of the shard ("i/n").
const ShardKey = reports.ShardKey

// InputListingKey is the metadata key, in every table of a shard, of its input's
// listing; see [reports.InputListingKey].
const InputListingKey = reports.InputListingKey

// shardPartition is the partition folder, and the manifest's name, of shard i.
func shardPartition(i int) string { return "shard=" + strconv.Itoa(i) }

// tally is what a replay counts of its units beyond the replay's summary: runs
// labelled from their outcomes, labelled friction moments not found in their session,
// label keys that match no run or session. The tallies of the shards of a split replay
// add up to the whole replay's: a label key is matched, or not, by the shard that owns
// it.
type tally struct {
	Derived        int      `json:"derived_labels"`
	MomentsMissing int      `json:"moments_missing"`
	MomentExamples []string `json:"moments_missing_examples,omitempty"` // the first few in sorted order
	UnmatchedCount int      `json:"unmatched_count"`
	Unmatched      []string `json:"unmatched_labels,omitempty"` // the first MaxUnmatchedListed in sorted order
}

// momentExamples is how many missing moments a warning names.
const momentExamples = 5

// MaxUnmatchedListed is how many of the label keys that match nothing a Result lists
// (the first in key order); Result.UnmatchedCount counts them all.
const MaxUnmatchedListed = 100

// momentMissing counts a labelled moment missing from its session; the examples kept
// are the smallest in sorted order, so that they do not depend on the order sessions
// are replayed in, nor on how a replay is split.
func (t *tally) momentMissing(detail string) {
	t.MomentsMissing++
	smallest.Keep(&t.MomentExamples, detail, momentExamples)
}

// unmatched counts a label key that matches nothing; the keys kept are the smallest,
// as the examples of momentMissing: however many keys match nothing, the tally
// holds MaxUnmatchedListed.
func (t *tally) unmatched(key string) {
	t.UnmatchedCount++
	smallest.Keep(&t.Unmatched, key, MaxUnmatchedListed)
}

// add adds another shard's tally. The shards' label keys are disjoint (a key is its
// shard's), so the smallest keys of the whole are among each shard's smallest.
func (t *tally) add(o tally) {
	if o.UnmatchedCount < len(o.Unmatched) { // a shard of an earlier loopwatch listed them all, with no count
		o.UnmatchedCount = len(o.Unmatched)
	}
	t.Derived += o.Derived
	for _, e := range o.MomentExamples {
		t.momentMissing(e)
	}
	t.MomentsMissing += o.MomentsMissing - len(o.MomentExamples)
	for _, k := range o.Unmatched {
		t.unmatched(k)
	}
	t.UnmatchedCount += o.UnmatchedCount - len(o.Unmatched)
}

// apply puts the tally into res: the labels note, the warning on missing moments and
// the unmatched label keys.
func (t *tally) apply(res *Result, derive bool) {
	if derive {
		res.LabelsNote = fmt.Sprintf("%d runs labelled from their outcomes (label_source=derived); explicit labels: %s", t.Derived, res.LabelsNote)
	}
	if t.MomentsMissing > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%s left out: no event of their session (e.g. %s)", plural.Count(t.MomentsMissing, "labelled friction moment"),
			strings.Join(t.MomentExamples, "; ")))
	}
	res.UnmatchedLabels, res.UnmatchedCount, res.MomentsMissing = t.Unmatched, t.UnmatchedCount, t.MomentsMissing
}

// shardSummary is what a shard records in its manifest for the merge: its share of the
// replay's summary, its tally and what it read of the labels.
type shardSummary struct {
	Files       int               `json:"files"`
	FilesByFmt  map[string]int    `json:"files_by_format"`
	Ignored     int               `json:"ignored_files"`
	Runs        int               `json:"runs"`
	Sessions    int               `json:"sessions"`
	Events      int               `json:"events"`
	Problems    map[string]int    `json:"problems"`
	Notes       map[string]int    `json:"notes"`
	Joins       replay.JoinCounts `json:"joins"`
	LabelsNote  string            `json:"labels_note"`
	LabelWarns  []string          `json:"label_warnings,omitempty"`
	LabelProbs  int               `json:"label_problems,omitempty"` // how many of LabelWarns are bad rows
	DeriveLabel bool              `json:"derive_labels"`
	Tally       tally             `json:"tally"`
}

func newShardSummary(sum *replay.Summary, j *job, labels labelSet) shardSummary {
	s := shardSummary{Files: sum.Files, FilesByFmt: sum.FilesByFmt, Ignored: sum.Ignored, Runs: sum.Runs, Sessions: sum.Sessions,
		Events: sum.Events, Problems: map[string]int{}, Notes: sum.Notes, Joins: sum.Joins, LabelsNote: labels.note,
		LabelProbs: labels.problems, DeriveLabel: j.s.DeriveLabels, Tally: j.tally}
	for k, n := range sum.ProblemCount {
		s.Problems[string(k)] = n
	}
	for _, w := range labels.warnings {
		s.LabelWarns = append(s.LabelWarns, w.Error())
	}
	return s
}

// summary returns the shard's share of the replay's summary (no problem details, no
// fingerprint).
func (s shardSummary) summary(listing string) *replay.Summary {
	sum := &replay.Summary{Files: s.Files, FilesByFmt: s.FilesByFmt, Ignored: s.Ignored, Runs: s.Runs, Sessions: s.Sessions,
		Events: s.Events, ProblemCount: map[input.ProblemKind]int{}, Notes: s.Notes, Listing: listing, Joins: s.Joins}
	for k, n := range s.Problems {
		sum.ProblemCount[input.ProblemKind(k)] = n
	}
	if sum.Notes == nil {
		sum.Notes = map[string]int{}
	}
	return sum
}

// tableCounts converts an output's tables into the Result's (the run table named "").
func tableCounts(tables []reports.TableRows) []TableCount {
	out := make([]TableCount, len(tables))
	for i, t := range tables {
		if t.Table == "runs" {
			t.Table = ""
		}
		out[i] = TableCount{t.Table, t.Rows}
	}
	return out
}

// checkFolderSplit refuses to write shard sh into a folder that holds shards of
// another split: their union could never be merged.
func checkFolderSplit(dir string, sh replay.Shard) error {
	names, _ := filepath.Glob(filepath.Join(dir, reports.ManifestFolder, "shard=*.manifest.json"))
	for _, name := range names {
		m, err := reports.ReadManifestFile(name)
		if err != nil {
			continue // the merge reports it
		}
		if other, err := replay.ParseShard(m.Shard); err == nil && other.Count != sh.Count {
			return usage("--out %s holds shard %s of another split in %d (%s): write every shard of one split, and nothing else, into a folder of its own",
				filepath.Clean(dir), other, other.Count, filepath.Base(name))
		}
	}
	return nil
}

// shardTables are the tables every shard writes: the unit tables; the merge reads the
// predictions, the fix-loop cases and the problems.
const (
	tablePredictions = "predictions"
	tableFixCases    = "fixloop_cases"
	tableProblems    = "problems"
	tableInputs      = "inputs"
)

// A DerivedError is a folder replay (--out DIR/, not split) whose own tables were
// written but whose derived tables (metrics, curves, fixloop, fixloop_runs: the
// merge's) were not: the folder has none until `metrics DIR/` derives them again (the
// shard's commit removed an earlier replay's, unless it wrote the very tables they
// were derived from).
type DerivedError struct {
	Dir string
	Err error
}

func (e *DerivedError) Error() string {
	return fmt.Sprintf("deriving the metrics failed: %v; the replay's own tables were written into %s, its derived tables (metrics, curves, fixloop) were not: run metrics %s to derive them", e.Err, e.Dir, e.Dir)
}

func (e *DerivedError) Unwrap() error { return e.Err }

// A SetError says why a folder is not a complete set of shards of one replay: the
// merge refuses it rather than compute metrics from part of the runs.
type SetError struct {
	Dir, Reason string
}

func (e *SetError) Error() string { return fmt.Sprintf("%s: %s", e.Dir, e.Reason) }

// shardSet is a complete, consistent set of shards: their manifests in shard order.
type shardSet struct {
	dir       string
	manifests []*reports.Manifest
	common    map[string]string // the metadata every shard's tables share
	listing   string            // their input's listing (InputListingKey)
	// maxOpen, when > 0, is how many shards' parts the merge reads at once instead of
	// mergeFanIn (tests merge in several steps with it).
	maxOpen int
}

// fanIn is how many shards' parts of a table the merge reads at once.
func (s *shardSet) fanIn() int {
	if s.maxOpen > 1 {
		return s.maxOpen
	}
	return mergeFanIn
}

// shardSpecific are the metadata keys that differ between the shards of one replay.
var shardSpecific = []string{ShardKey, reports.ReplayIDKey, "loopwatch.table"}

// checkedApart are the metadata keys the merge checks with a message of their own.
var checkedApart = []string{InputListingKey}

// readShardSet reads the manifests of the shards in dir and checks that they make one
// complete set: every shard of n there once, all replayed from the same input with
// the same version, configuration, labels and settings, every table file in place as
// its manifest describes it, and no partition or file beside them (checkFolderFiles).
func readShardSet(dir string) (*shardSet, error) {
	refuse := func(format string, args ...any) error {
		return &SetError{Dir: dir, Reason: fmt.Sprintf(format, args...)}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, refuse("not a folder written by replay --out DIR/")
	}
	names, _ := filepath.Glob(filepath.Join(dir, reports.ManifestFolder, "shard=*.manifest.json"))
	if len(names) == 0 {
		return nil, refuse("no shard of a replay here (no %s/shard=*.manifest.json): write the shards with replay --shard i/n --out %s/",
			reports.ManifestFolder, filepath.Clean(dir))
	}
	set := &shardSet{dir: dir}
	byIndex := map[int]string{}
	var count int
	// Each manifest's metadata — the configuration, some 50 KB — is checked as it is
	// read, against the first's (shard 0's, when there is one: it sorts first), and let
	// go, so that reading the set does not hold every shard's; what the checks found is
	// reported below, in shard order, after the set is known complete.
	type checked struct {
		altered bool   // its replay id does not match its metadata
		key     string // the first metadata key whose value differs from the first manifest's, if any
		diff    string // how its values differ (metadataDifference)
		differs bool
		listing string // InputListingKey's value
	}
	checks := map[*reports.Manifest]checked{}
	for _, name := range names {
		m, err := reports.ReadManifestFile(name)
		if err != nil {
			return nil, refuse("unreadable manifest: %v", err)
		}
		if set.common == nil {
			set.common = maps.Clone(m.Metadata)
			for _, k := range shardSpecific {
				delete(set.common, k)
			}
		}
		c := checked{listing: m.Metadata[InputListingKey]}
		c.altered = m.Metadata[ShardKey] != m.Shard || reports.ReplayID(m.Metadata, tableList(m)) != m.ReplayID
		for _, k := range slices.Sorted(maps.Keys(unionKeys(set.common, m.Metadata))) {
			if slices.Contains(shardSpecific, k) || slices.Contains(checkedApart, k) {
				continue
			}
			ref, okRef := set.common[k]
			if v, ok := m.Metadata[k]; !ok || !okRef || v != ref {
				c.key, c.differs = k, true
				c.diff = metadataDifference(ref, v, okRef, ok, shardPartition(0), strings.TrimSuffix(filepath.Base(name), ".manifest.json"))
				break
			}
		}
		m.Metadata = nil
		checks[m] = c
		base := filepath.Base(name)
		sh, err := replay.ParseShard(m.Shard)
		if err != nil {
			return nil, refuse("%s names no shard: %v", base, err)
		}
		if want := shardPartition(sh.Index) + ".manifest.json"; base != want {
			return nil, refuse("duplicated shard: %s holds the manifest of shard %s (a copy or a renamed file?)", base, m.Shard)
		}
		if other, dup := byIndex[sh.Index]; dup {
			return nil, refuse("duplicated shard %d: %s and %s", sh.Index, other, base)
		}
		byIndex[sh.Index] = base
		if count == 0 {
			count = sh.Count
		} else if sh.Count != count {
			return nil, refuse("mixed sets: %s is a shard of %d, %s of %d (shards of different splits in one folder; write each split to its own folder)",
				filepath.Base(names[0]), count, base, sh.Count)
		}
		set.manifests = append(set.manifests, m)
	}
	slices.SortFunc(set.manifests, func(a, b *reports.Manifest) int { return cmp.Compare(shardIndex(a), shardIndex(b)) })
	for i := range count {
		if _, ok := byIndex[i]; !ok {
			return nil, refuse("incomplete set: shard %d of %d is missing (no %s/%s.manifest.json): run replay --shard %d/%d with the same input and flags, or wait for it to finish",
				i, count, reports.ManifestFolder, shardPartition(i), i, count)
		}
	}
	first := set.manifests[0]
	var tableNames []string
	for _, t := range first.Tables {
		tableNames = append(tableNames, t.Table)
	}
	set.listing = checks[first].listing
	for i, m := range set.manifests {
		c := checks[m]
		if c.altered {
			return nil, refuse("the manifest of shard %d was altered (its replay id does not match its metadata)", i)
		}
		if c.listing == "" {
			return nil, refuse("shard %d records no input listing (%s; written by an older loopwatch?): replay it again", i, InputListingKey)
		}
		if c.listing != set.listing {
			return nil, refuse("mixed sets: shards 0 and %d read different input (listings %.12s… and %.12s…: the files' paths, sizes or content differ): every shard must read the same --in",
				i, set.listing, c.listing)
		}
		if c.differs {
			return nil, refuse("mixed sets: shards 0 and %d were replayed with a different %s (%s): every shard must run with the same version, labels and flags",
				i, c.key, c.diff)
		}
		if !slices.Equal(tableList(m), tableNames) {
			return nil, refuse("mixed sets: shards 0 and %d wrote different tables", i)
		}
		for _, t := range m.Tables {
			if err := checkPart(dir, m, t); err != nil {
				return nil, refuse("incomplete shard %d: %v", i, err)
			}
		}
	}
	if err := checkFolderFiles(dir, set.manifests, count); err != nil {
		return nil, refuse("%v", err)
	}
	return set, nil
}

// mergedTables are the tables the merge derives into a folder, each in
// <table>/part-0.parquet, sealed by the merged manifest.
var mergedTables = []string{"metrics", "fixloop", "fixloop_runs", "curves"}

// mergedFiles are the merge's files in the folder dir, its manifest first: what a
// shard that replaces its partition removes (they were derived from the one it
// replaces), and what a merge whose shards were replaced while it ran takes back.
func mergedFiles(dir string) []string {
	files := []string{reports.FolderManifestPath(dir, reports.MergedSet)}
	for _, t := range mergedTables {
		files = append(files, filepath.Join(dir, t, reports.PartFile))
	}
	return files
}

// replaced returns the first shard of the set whose manifest is no longer the one
// the set was read from — one in place with other content, or unreadable for another
// reason than its absence —, or -1.
//
// A manifest absent is not counted: a shard's commit moves its manifest aside while
// its tables move (reports.Output.Commit), so a shard written again byte for byte,
// whose merged files are still exact, has none for a moment — and taking the merge's
// files back then would delete correct output. A shard committing other content
// meanwhile removes them itself: it removed the merged files before it moved its
// manifest aside (the first removal), and removes them again once its manifest is in
// place (the second, deferred in Commit past the manifest's rename), which is after
// this check found it absent, so after the merge's commit. A shard killed with its
// manifest aside leaves the set incomplete, which every reader refuses, and its
// re-run removes the merged files (no manifest in place to match byte for byte).
func (s *shardSet) replaced() int {
	for i, m := range s.manifests {
		now, err := reports.ReadManifestFile(reports.FolderManifestPath(s.dir, shardPartition(i)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || now.Digest != m.Digest {
			return i
		}
	}
	return -1
}

// identities returns the shards' replay ids and their manifests' SHA-256, in shard
// order: what the merged manifest records of the set it was derived from.
func (s *shardSet) identities() (ids, digests []string) {
	for _, m := range s.manifests {
		ids, digests = append(ids, m.ReplayID), append(digests, m.Digest)
	}
	return ids, digests
}

// checkFolderFiles checks that the tables' folders of a set of count shards hold the
// set's files and nothing else, as a reader of the hive layout would take any other
// for part of a table (DuckDB's read_parquet('DIR/results/*/*.parquet') counts every
// file's rows): in each shard table's folder, only the partitions the set's shards
// write, named exactly so ("shard=1", never "shard=01"), each holding only the files
// the shards' manifests list; in each derived table's folder, only its part file.
// A name starting with "." or "_" is let be, file or folder: the readers of the hive
// layout skip such names as hidden (Hadoop's rule, which Spark, Hive, Arrow and DuckDB
// follow), so they are no part of a table — loopwatch's own temporaries of a part file
// (".part-0.parquet.tmp-…": a write in progress, a previous file moved aside, what a
// killed writer left), Finder's .DS_Store, a _SUCCESS marker.
func checkFolderFiles(dir string, manifests []*reports.Manifest, count int) error {
	listed := map[string]bool{}
	for _, m := range manifests {
		for _, t := range m.Tables {
			listed[filepath.Clean(filepath.Join(dir, filepath.FromSlash(t.File)))] = true
		}
	}
	stray := func(path string) error {
		return fmt.Errorf("mixed sets: %s is no file of this set (no shard's manifest lists it: added by hand, or left by another tool?), and readers of the folder would count it in: remove it", path)
	}
	// onlyListed checks the files of a folder: each listed, or hidden.
	onlyListed := func(folder string, listed func(path string) bool) error {
		entries, err := os.ReadDir(folder)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if p := filepath.Join(folder, e.Name()); !listed(p) && !reports.HiddenName(e.Name()) {
				return stray(p)
			}
		}
		return nil
	}
	for _, t := range manifests[0].Tables {
		folder := filepath.Join(dir, filepath.Dir(filepath.Dir(filepath.FromSlash(t.File))))
		entries, err := os.ReadDir(folder)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if reports.HiddenName(e.Name()) {
				continue
			}
			if i, ok := partitionIndex(e.Name()); !ok || i >= count || !e.IsDir() {
				return fmt.Errorf("mixed sets: %s is not a partition of this set of %d shards (left by an earlier replay with more shards, or added by hand?): remove it",
					filepath.Join(folder, e.Name()), count)
			}
			if err := onlyListed(filepath.Join(folder, e.Name()), func(p string) bool { return listed[p] }); err != nil {
				return err
			}
		}
	}
	for _, t := range mergedTables {
		err := onlyListed(filepath.Join(dir, t), func(p string) bool { return filepath.Base(p) == reports.PartFile })
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// partitionIndex returns the shard whose partition is named name: exactly the name
// shardPartition gives it.
func partitionIndex(name string) (int, bool) {
	k, ok := strings.CutPrefix(name, "shard=")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(k)
	return i, err == nil && i >= 0 && shardPartition(i) == name
}

func shardIndex(m *reports.Manifest) int {
	sh, _ := replay.ParseShard(m.Shard)
	return sh.Index
}

func tableList(m *reports.Manifest) []string {
	out := make([]string, len(m.Tables))
	for i, t := range m.Tables {
		out[i] = t.Table
	}
	return out
}

func unionKeys[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// checkPart checks that a shard's table file is the one its manifest describes: its
// size, and the replay id in its footer.
func checkPart(dir string, m *reports.Manifest, t reports.ManifestTable) error {
	path := filepath.Join(dir, filepath.FromSlash(t.File))
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", t.File, unwrap(err))
	case fi.Size() != t.Bytes:
		return fmt.Errorf("%s has %d bytes, its manifest says %d (overwritten by another replay?)", t.File, fi.Size(), t.Bytes)
	}
	id, err := reports.FileMetadata(path, reports.ReplayIDKey)
	if err != nil {
		return err
	}
	if id != m.ReplayID {
		return fmt.Errorf("%s is of replay %.12s…, its manifest of %.12s… (overwritten by another replay?)", t.File, id, m.ReplayID)
	}
	return nil
}

// readPart reads the rows of a shard's table that keep accepts, after checking its
// content against the manifest's SHA-256.
func readPart[T any](set *shardSet, m *reports.Manifest, table string, keep func(*T) bool) ([]T, error) {
	path, err := verifiedPart(set, m, table)
	if err != nil {
		return nil, err
	}
	return reports.ReadRows(path, keep)
}

// verifiedPart returns the file of a shard's table after checking its content against
// the manifest's SHA-256.
func verifiedPart(set *shardSet, m *reports.Manifest, table string) (string, error) {
	t := m.Table(table)
	if t == nil {
		return "", &SetError{Dir: set.dir, Reason: fmt.Sprintf("shard %s wrote no %s table (written by an older loopwatch?)", m.Shard, table)}
	}
	path := filepath.Join(set.dir, filepath.FromSlash(t.File))
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return "", err
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != t.SHA256 {
		return "", &SetError{Dir: set.dir, Reason: fmt.Sprintf("%s changed since shard %s wrote it (SHA-256 %.12s…, its manifest says %.12s…)", t.File, m.Shard, sum, t.SHA256)}
	}
	return path, nil
}

// CheckFolder checks what a reader of a folder output (assess --results DIR/) must
// refuse to show otherwise: that the folder holds one complete set of shards of one
// replay, as the merge requires, and that its derived tables, when there are any,
// were derived from those very shards — their manifest records the shards' manifests
// in place, byte for byte (their SHA-256), not only their replay ids; not left by an
// earlier replay whose merge a later one did not complete — and sealed by their
// manifest.
func CheckFolder(dir string) error {
	set, err := readShardSet(dir)
	if err != nil {
		return err
	}
	m, err := reports.ReadManifestFile(reports.FolderManifestPath(dir, reports.MergedSet))
	stale := func(why string) error {
		return &SetError{Dir: dir, Reason: fmt.Sprintf("its derived tables (metrics, curves, fixloop) %s (an interrupted or failed replay or metrics?): run metrics %s to derive them again", why, dir)}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		for _, f := range mergedFiles(dir)[1:] {
			if _, err := os.Lstat(f); err == nil {
				return stale(fmt.Sprintf("are there without their manifest (%s)", f))
			}
		}
		return nil // a split replay before metrics derives its tables
	case err != nil:
		return &SetError{Dir: dir, Reason: fmt.Sprintf("its derived tables' manifest: %v", unwrap(err))}
	}
	// The shards' manifests, byte for byte: a shard's replay id survives a change of
	// its input that its listing holds by size only, its manifest (every table's
	// SHA-256) does not. A merged manifest that records no digests (written before
	// they were) cannot tell its shards from such a replacement: it is refused as
	// stale too, as metrics derives the same files again.
	ids, digests := set.identities()
	switch {
	case len(m.MergedDigests) == 0:
		return stale("record no digest of the shards' manifests they were derived from (written by an older loopwatch?)")
	case !slices.Equal(m.Merged, ids) || !slices.Equal(m.MergedDigests, digests):
		return stale("were derived from other shards than those it holds")
	}
	for _, t := range m.Tables {
		if err := checkPart(dir, m, t); err != nil {
			return stale(fmt.Sprintf("are not those their manifest describes (%v)", err))
		}
	}
	return nil
}

// Merge computes the metrics of a replay split in shards from the union of the shards
// in the folder dir, exactly as the whole replay computes them: it checks that the
// folder holds one complete set (a [SetError] says why not: a shard missing,
// duplicated, from another input or other flags, a table overwritten, a unit out of
// order or not its shard's), merges the shards' summaries, reads every shard's
// predictions and fix-loop cases — merged into the order the replay not split
// delivers them in, into scratch files as a replay to a file keeps them, so that what
// it holds does not grow with the replay, nor with the number of shards: it reads at
// most 16 shards' parts at once, merging more in groups first — and derives
// the metrics, curves and fix-loop simulation with the settings the shards recorded.
// It writes them into dir (dir/metrics/part-0.parquet, …) as a set with its manifest
// (_manifests/merged.manifest.json) — and removes them again, refusing the set, if a
// shard was replaced while it ran (a shard's commit removes the merged files it
// finds, see [reports.Output.Supersedes]) — and returns what the whole replay would have: the
// same summary, evaluations and warnings. Input problems are listed by file and line.
// workers bounds the simulation's parallelism; it never changes the output.
func Merge(ctx context.Context, dir string, workers int) (*Result, error) {
	return merge(ctx, dir, workers, 0)
}

// merge is Merge reading at most maxOpen shards' parts of a table at once (≤ 1:
// mergeFanIn).
func merge(ctx context.Context, dir string, workers, maxOpen int) (*Result, error) {
	set, err := readShardSet(dir)
	if err != nil {
		return nil, err
	}
	set.maxOpen = maxOpen
	var sums []*replay.Summary
	var tl tally
	var shard0 shardSummary
	for i, m := range set.manifests {
		var ss shardSummary
		if err := json.Unmarshal(m.Summary, &ss); err != nil {
			return nil, &SetError{Dir: dir, Reason: fmt.Sprintf("shard %d: its manifest's summary: %v", i, err)}
		}
		if i == 0 {
			shard0 = ss
		} else if ss.DeriveLabel != shard0.DeriveLabel {
			return nil, &SetError{Dir: dir, Reason: fmt.Sprintf("mixed sets: shards 0 and %d differ in --derive-labels", i)}
		}
		sums = append(sums, ss.summary(set.listing))
		tl.add(ss.Tally)
	}
	sum, err := replay.MergeSummaries(sums)
	if err != nil {
		return nil, &SetError{Dir: dir, Reason: "mixed sets: " + err.Error()}
	}
	if sum.Problems, err = problemDetails(set); err != nil {
		return nil, err
	}

	md := maps.Clone(set.common)
	delete(md, InputListingKey)
	if notes, err := json.Marshal(sum.Notes); err == nil && len(sum.Notes) > 0 {
		md["loopwatch.input_notes"] = string(notes)
	}
	d, err := newDerivation(md, workers)
	if err != nil {
		return nil, &SetError{Dir: dir, Reason: err.Error()}
	}
	out, err := reports.NewFolderOutput(dir, "", reports.MergedSet, md)
	if err != nil {
		return nil, err
	}
	defer out.Abort()
	var t derivedTables
	openTable(out, "metrics", &t.metrics, &err)
	openTable(out, "fixloop", &t.fixFailures, &err)
	openTable(out, "fixloop_runs", &t.fixRuns, &err)
	openTable(out, "curves", &t.curves, &err)
	if err != nil {
		return nil, err
	}
	if sum.Fingerprint, err = inputFingerprint(ctx, set, out.Scratch, sum.Files); err != nil {
		return nil, err
	}
	out.SetMetadata("loopwatch.input_fingerprint", sum.Fingerprint)
	res := &Result{Summary: sum, LabelsNote: shard0.LabelsNote, LabelProblems: shard0.LabelProbs, Out: out, Shards: len(set.manifests), shards: set}
	for _, w := range shard0.LabelWarns {
		res.Warnings = append(res.Warnings, errors.New(w))
	}
	tl.apply(res, shard0.DeriveLabel)
	preds, cases, err := spillShards(ctx, set, out, len(d.configs))
	if err != nil {
		return nil, err
	}
	if err := d.run(ctx, preds, cases, sum, &t, res); err != nil {
		return nil, err
	}
	ids, digests := set.identities()
	out.SetInfo(reports.ManifestInfo{Merged: ids, MergedDigests: digests})
	if err := ctx.Err(); err != nil { // interrupted while deriving: nothing is committed
		return nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, err
	}
	// A shard replaced while the merge ran removed the merged files it found, and
	// these are derived from the shard it replaced: take them back.
	if i := set.replaced(); i >= 0 {
		for _, f := range mergedFiles(dir) {
			os.Remove(f)
		}
		return nil, &SetError{Dir: dir, Reason: fmt.Sprintf("shard %d was replaced while the metrics were derived (its manifest changed): they were not kept; run metrics %s again once every shard is written", i, dir)}
	}
	res.Tables = tableCounts(out.Tables())
	rows := map[string]int64{}
	for _, m := range set.manifests {
		for _, t := range m.Tables {
			if t.Rows != nil {
				rows[t.Table] += *t.Rows
			}
		}
	}
	for _, name := range tableList(set.manifests[0]) {
		if name == "runs" {
			res.Merged = append(res.Merged, TableCount{"", rows[name]})
		} else {
			res.Merged = append(res.Merged, TableCount{name, rows[name]})
		}
	}
	return res, nil
}

// problemDetails returns the first of the shards' problems by file and line, as many
// as a replay's summary keeps.
func problemDetails(set *shardSet) ([]input.Problem, error) {
	const keep = 10000
	var out []input.Problem
	less := func(a, b input.Problem) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), strings.Compare(string(a.Kind), string(b.Kind)),
			strings.Compare(a.Detail, b.Detail))
	}
	for _, m := range set.manifests {
		_, err := readPart(set, m, tableProblems, func(r *reports.ProblemRow) bool {
			out = append(out, input.Problem{File: r.File, Line: int(r.Line), Kind: input.ProblemKind(r.Kind), Detail: r.Detail})
			if len(out) >= 2*keep { // bounded: keep the first of the sorted order only
				slices.SortFunc(out, less)
				out = out[:keep]
			}
			return false
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, less)
	return out[:min(len(out), keep)], nil
}
