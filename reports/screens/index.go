package screens

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/loopwatch/loopwatch/internal/smallest"
	"github.com/loopwatch/loopwatch/reports"
)

// keyRow is what a scan reads of a row besides its entry: the columns that tell a
// session from another run and count its events ([keyColumns]).
type keyRow struct {
	Kind   string
	Events int // 0 when null
}

// entry is a row of a run table as the screens place it: its key, its start, and
// where it is (the part and the row's position in the part's run table).
type entry struct {
	key     string
	started time.Time
	dated   bool
	part    int
	row     int64
}

// before reports whether e comes before o in display order: newest first (started_at
// descending), then by key; undated sessions last; rows equal in both in the order
// they are read (part, then row).
func (e *entry) before(o *entry) bool { return compareEntries(e, o) < 0 }

func compareEntries(a, b *entry) int {
	switch {
	case a.dated != b.dated:
		if a.dated {
			return -1
		}
		return 1
	case a.dated:
		if c := b.started.Compare(a.started); c != 0 {
			return c
		}
	}
	return cmp.Or(strings.Compare(a.key, b.key), cmp.Compare(a.part, b.part), cmp.Compare(a.row, b.row))
}

// scanBatch is how many rows a scan reads at a time.
const scanBatch = 1024

// keyColumns are the run table's columns a scan reads, each with the kind of value it
// must hold (a timestamp is Int64 in its logical type's unit) and whether a run table
// may lack it (every value then null).
var keyColumns = [...]struct {
	name     string
	kind     parquet.Kind
	optional bool
}{{"run_key", parquet.ByteArray, false}, {"kind", parquet.ByteArray, false}, {"started_at", parquet.Int64, true}, {"events", parquet.Int32, true}}

// keyLayout is where a run table holds keyColumns: each one's column index (-1 for an
// optional column it lacks), and the unit of started_at.
type keyLayout struct {
	index [len(keyColumns)]int
	unit  time.Duration
}

// time is a started_at value as a time in UTC.
func (l *keyLayout) time(v int64) time.Time {
	switch l.unit {
	case time.Millisecond:
		return time.UnixMilli(v).UTC()
	case time.Microsecond:
		return time.UnixMicro(v).UTC()
	}
	return time.Unix(0, v).UTC()
}

// layout finds keyColumns in p's run table, once, when Open opens it.
func (p *part) layout() (keyLayout, error) {
	var l keyLayout
	for c, col := range keyColumns {
		leaf, ok := p.file.Schema().Lookup(col.name)
		if !ok && col.optional {
			l.index[c] = -1
			continue
		}
		if !ok || leaf.MaxRepetitionLevel > 0 || leaf.Node.Type().Kind() != col.kind {
			return l, &FileError{Path: p.path, Problem: fmt.Sprintf("not a loopwatch run table: no %s column of %s values", col.name, col.kind), Hint: replayHint(p.path)}
		}
		l.index[c] = leaf.ColumnIndex
		if col.name == "started_at" {
			var ts *format.TimestampType
			if lt := leaf.Node.Type().LogicalType(); lt != nil {
				ts, _ = lt.Value.(*format.TimestampType)
			}
			if ts == nil || ts.Unit.Value == nil {
				return l, &FileError{Path: p.path, Problem: "not a loopwatch run table: started_at is not a timestamp", Hint: replayHint(p.path)}
			}
			l.unit = ts.Unit.Value.Duration()
		}
	}
	return l, nil
}

// scan reads the keyColumns of every run table of r — their values only, a batch of
// rows at a time, column by column — in part order and row order, and calls fn with
// each row's entry and the rest of what it read (both valid during the call only).
func (r *Results) scan(fn func(*entry, *keyRow) error) error {
	buf := make([]parquet.Value, scanBatch)
	var batch [scanBatch]struct {
		e   entry
		row keyRow
	}
	for i := range r.parts {
		p := &r.parts[i]
		// take copies a value out of the reader's page, which the reader may reuse
		// once it reads the next one.
		take := func(c, j int, v parquet.Value) {
			b := &batch[j]
			switch c {
			case 0:
				b.e.key = string(v.ByteArray())
			case 1:
				b.row.Kind = string(v.ByteArray())
			case 2:
				b.e.started, b.e.dated = time.Time{}, !v.IsNull()
				if b.e.dated {
					b.e.started = p.keys.time(v.Int64())
				}
			case 3:
				b.row.Events = 0
				if !v.IsNull() {
					b.row.Events = int(v.Int32())
				}
			}
		}
		var at int64 // the row's position in the part
		for _, rg := range p.file.RowGroups() {
			var rds [len(keyColumns)]parquet.ColumnChunkValueReader // nil: a column the table lacks
			for c := range rds {
				if p.keys.index[c] >= 0 {
					rds[c] = parquet.NewColumnChunkValueReader(rg.ColumnChunks()[p.keys.index[c]])
				}
			}
			err := scanGroup(rds[:], buf, rg.NumRows(), take, func(j int) error {
				b := &batch[j]
				b.e.part, b.e.row = i, at
				at++
				return fn(&b.e, &b.row)
			})
			for _, rd := range rds {
				if rd != nil {
					rd.Close()
				}
			}
			var ce callbackError
			switch {
			case errors.As(err, &ce):
				return ce.err
			case err != nil:
				return &FileError{Path: p.path, Problem: "cannot read the run table: " + oneLine(err.Error()), Hint: replayHint(p.path)}
			}
		}
	}
	return nil
}

// callbackError carries an error of scan's callback through scanGroup, apart from the
// reading's own.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

// scanGroup reads n rows of a row group from rds, one reader a column (nil: a column
// of nulls), a batch of len(buf) rows at a time: it gives take every value of column c
// for row j of the batch as soon as it is read, then calls row with each row's position
// in the batch.
func scanGroup(rds []parquet.ColumnChunkValueReader, buf []parquet.Value, n int64, take func(c, j int, v parquet.Value), row func(int) error) error {
	for n > 0 {
		b := int(min(n, int64(len(buf))))
		for c, rd := range rds {
			if rd == nil { // a column the table lacks: nulls
				for j := range b {
					take(c, j, parquet.Value{})
				}
				continue
			}
			for got := 0; got < b; {
				var k int
				clear(buf[:b-got])
				err := reports.Guarded(func() (err error) {
					k, err = rd.ReadValues(buf[:b-got])
					return err
				})
				for j := range buf[:k] {
					take(c, got+j, buf[j])
				}
				got += k
				switch {
				case got == b:
				case err == io.EOF || err == nil && k == 0:
					return fmt.Errorf("a column chunk ends %d values short of its row group", b-got)
				case err != nil:
					return err
				}
			}
		}
		for j := range b {
			if err := row(j); err != nil {
				return callbackError{err}
			}
		}
		n -= int64(b)
	}
	return nil
}

// rows reads the full run-table rows of the entries and calls take with each (valid
// during the call only) and its index in es. It reads only the row groups that hold
// them, seeking past long stretches of rows between two of them.
func (r *Results) rows(es []entry, take func(int, *reports.RunRow)) error {
	order := make([]int, len(es))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(es[a].part, es[b].part), cmp.Compare(es[a].row, es[b].row))
	})
	k := 0 // the next entry to read, in order
	for k < len(order) {
		pi := es[order[k]].part
		p := &r.parts[pi]
		next := func() (int64, bool) { // the row of the next entry of this part
			if k < len(order) && es[order[k]].part == pi {
				return es[order[k]].row, true
			}
			return 0, false
		}
		var start int64 // the row group's first row
		for _, rg := range p.file.RowGroups() {
			end := start + rg.NumRows()
			if want, ok := next(); ok && want < end {
				if err := readRows(rg, start, end, next, func(row *reports.RunRow) { take(order[k], row); k++ }); err != nil {
					return &FileError{Path: p.path, Problem: "cannot read the run table: " + oneLine(err.Error()), Hint: replayHint(p.path)}
				}
			}
			start = end
		}
		if want, ok := next(); ok {
			return &FileError{Path: p.path, Problem: fmt.Sprintf("has no row %d: its row groups hold fewer rows than reading it found", want),
				Hint: replayHint(p.path)}
		}
	}
	return nil
}

// rowsBatch is how many full rows rows reads at a time; it seeks past more.
const rowsBatch = 64

// readRows reads the rows next names, in increasing order, from rg (rows start to end
// of its file), and gives each to take, which advances next.
func readRows(rg parquet.RowGroup, start, end int64, next func() (int64, bool), take func(*reports.RunRow)) error {
	rd := parquet.NewGenericRowGroupReader[reports.RunRow](rg)
	defer rd.Close()
	buf := make([]reports.RunRow, rowsBatch)
	mend := reports.NewTimeMend[reports.RunRow]()
	pos := start // the row the reader reads next
	for {
		want, ok := next()
		if !ok || want >= end {
			return nil
		}
		if want-pos >= rowsBatch {
			if err := reports.Guarded(func() error { return rd.SeekToRow(want - start) }); err != nil {
				return err
			}
			pos = want
		}
		clear(buf)
		n, err := readBatch(rd, buf[:min(rowsBatch, end-pos)], mend)
		for j := range buf[:n] {
			for want, ok := next(); ok && want == pos+int64(j); want, ok = next() {
				take(&buf[j])
			}
		}
		pos += int64(n)
		switch {
		case err != nil && err != io.EOF:
			return err
		case n == 0:
			return fmt.Errorf("the row group ends at row %d, not %d", pos, end)
		}
	}
}

// shortIDs gives each of keys the shortest prefix, at least ShortIDLen characters
// long, that begins no other session's key, reading every session's key once.
func (r *Results) shortIDs(keys ...string) (map[string]string, error) {
	p := newPrefixes(keys)
	err := r.scan(func(e *entry, row *keyRow) error {
		if row.Kind == "session" {
			p.see(e.key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p.short(), nil
}

// prefixes finds the shortest unique prefixes of some keys among a stream of keys,
// keeping only those keys: the longest prefix a key shares with any other key is the
// one it shares with a neighbour in sorted order, and a key of the stream that falls
// between two of the keys shares no more with any farther one than that neighbour does.
type prefixes struct {
	keys []string // sorted, distinct
	seen []int    // how many times each key was seen in the stream
	best []int    // the longest prefix each key shares with another key of the stream
}

func newPrefixes(keys []string) *prefixes {
	sorted := slices.Compact(slices.Sorted(slices.Values(keys)))
	return &prefixes{keys: sorted, seen: make([]int, len(sorted)), best: make([]int, len(sorted))}
}

// see takes one key of the stream (the keys themselves among them).
func (p *prefixes) see(x string) {
	i, found := slices.BinarySearch(p.keys, x)
	if found {
		if p.seen[i]++; p.seen[i] > 1 { // a key twice: no prefix tells them apart
			p.best[i] = len(x)
		}
		// The keys' neighbours among themselves count once they are seen too.
		if i > 0 && p.seen[i-1] > 0 {
			c := commonPrefix(p.keys[i-1], x)
			p.best[i-1], p.best[i] = max(p.best[i-1], c), max(p.best[i], c)
		}
		if i+1 < len(p.keys) && p.seen[i+1] > 0 {
			c := commonPrefix(p.keys[i+1], x)
			p.best[i+1], p.best[i] = max(p.best[i+1], c), max(p.best[i], c)
		}
		return
	}
	if i > 0 {
		p.best[i-1] = max(p.best[i-1], commonPrefix(p.keys[i-1], x))
	}
	if i < len(p.keys) {
		p.best[i] = max(p.best[i], commonPrefix(p.keys[i], x))
	}
}

// short returns each key's shortest unique prefix (the whole key for a key seen twice).
func (p *prefixes) short() map[string]string {
	out := make(map[string]string, len(p.keys))
	for i, k := range p.keys {
		out[k] = truncateID(k, max(ShortIDLen, p.best[i]+1))
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// maxCandidates is how many of the sessions an ambiguous prefix begins a
// [*LookupError] lists (the first in key order).
const maxCandidates = 8

// find is [Results.Find], with the session's entry.
func (r *Results) find(id string) (*entry, *reports.RunRow, error) {
	if id == "" {
		return nil, nil, &LookupError{Path: r.Path, ID: id, Note: "the session id is empty"}
	}
	var exact, prefixed *entry
	le := &LookupError{Path: r.Path, ID: id}
	err := r.scan(func(e *entry, row *keyRow) error {
		switch {
		case row.Kind != "session":
		case e.key == id:
			if exact == nil || e.before(exact) {
				n := *e
				exact = &n
			}
		case strings.HasPrefix(e.key, id):
			le.Matches++
			if prefixed == nil || e.before(prefixed) {
				n := *e
				prefixed = &n
			}
			smallest.Keep(&le.Candidates, e.key, maxCandidates)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	found := exact
	if found == nil && le.Matches == 1 {
		found = prefixed
	}
	if found == nil {
		if le.Matches == 0 && r.Sessions == 0 {
			le.Note = r.noSessionsNote()
		}
		return nil, nil, le
	}
	var row reports.RunRow
	if err := r.rows([]entry{*found}, func(_ int, rr *reports.RunRow) { row = *rr }); err != nil {
		return nil, nil, err
	}
	return found, &row, nil
}

// Find returns the session whose id is id or, failing that, the only session whose id
// begins with id. It returns a [*LookupError] for no match or an ambiguous prefix, and
// a [*FileError] when the run table cannot be read.
func (r *Results) Find(id string) (*reports.RunRow, error) {
	_, row, err := r.find(id)
	return row, err
}

// readBatch is rd.Read(buf), [reports.Guarded], its times mended by mend.
func readBatch[T any](rd *parquet.GenericReader[T], buf []T, mend reports.TimeMend[T]) (n int, err error) {
	err = reports.Guarded(func() error {
		n, err = rd.Read(buf)
		return err
	})
	mend.Mend(buf[:n])
	return n, err
}
