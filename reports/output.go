package reports

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/loopwatch/loopwatch"
)

// RowGroupRows bounds the rows of one Parquet row group, so readers can stream and
// skip row groups and a writer's memory stays bounded.
const RowGroupRows = 64 << 10

// Output is the set of tables one replay writes, committed together.
type Output struct {
	stem     string // destination path without ".parquet"
	metadata map[string]string
	tables   []committer
	done     bool
}

type committer interface {
	close(metadata map[string]string) error
	tmpName() string
	finalName() string
}

// NewOutput prepares the tables of a replay written to path, which must end in
// ".parquet": the run table goes to path itself and table "t" to the sibling
// "<stem>.t.parquet". Every file carries metadata as key-value pairs (plus
// loopwatch.version and loopwatch.table), written in key order. NewOutput checks
// that the destination folder exists and is writable, so a bad --out fails before any
// work is done.
func NewOutput(path string, metadata map[string]string) (*Output, error) {
	if !strings.HasSuffix(path, ".parquet") {
		return nil, fmt.Errorf("output %s: the name must end in .parquet (the run table; sibling tables share its stem)", path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("output %s is a directory: give a file name ending in .parquet", path)
	}
	dir := filepath.Dir(path)
	probe, err := os.CreateTemp(dir, ".loopwatch-probe-*")
	if err != nil {
		return nil, fmt.Errorf("output %s: cannot write to %s: %w", path, dir, unwrapPathError(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	md := map[string]string{"loopwatch.version": loopwatch.Version}
	for k, v := range metadata {
		md[k] = v
	}
	return &Output{stem: strings.TrimSuffix(path, ".parquet"), metadata: md}, nil
}

// SetMetadata sets a key-value pair written into every table's metadata at Commit.
func (o *Output) SetMetadata(key, value string) { o.metadata[key] = value }

// Path returns the destination of the table named table ("" for the run table).
func (o *Output) Path(table string) string {
	if table == "" {
		return o.stem + ".parquet"
	}
	return o.stem + "." + table + ".parquet"
}

// Table is one Parquet table being written.
type Table[T any] struct {
	name    string
	path    string
	f       *os.File
	w       *parquet.GenericWriter[T]
	buf     []T
	written int64
}

// NewTable opens the table named name ("" for the run table) of o, with rows of type T.
func NewTable[T any](o *Output, name string) (*Table[T], error) {
	path := o.Path(name)
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", path, unwrapPathError(err))
	}
	table := name
	if table == "" {
		table = "runs"
	}
	opts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		parquet.CreatedBy("loopwatch", loopwatch.Version, ""),
	}
	t := &Table[T]{name: table, path: path, f: f, w: parquet.NewGenericWriter[T](f, opts...)}
	o.tables = append(o.tables, t)
	return t, nil
}

// Write appends rows to the table.
func (t *Table[T]) Write(rows ...T) error {
	t.buf = append(t.buf, rows...)
	if len(t.buf) >= 1024 {
		return t.flush()
	}
	return nil
}

func (t *Table[T]) flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	n, err := t.w.Write(t.buf)
	t.written += int64(n)
	t.buf = t.buf[:0]
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	return nil
}

// Rows returns the number of rows written so far.
func (t *Table[T]) Rows() int64 { return t.written + int64(len(t.buf)) }

func (t *Table[T]) close(metadata map[string]string) error {
	if err := t.flush(); err != nil {
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

func (t *Table[T]) tmpName() string   { return t.f.Name() }
func (t *Table[T]) finalName() string { return t.path }

// Commit completes every table and renames them into place. After an error nothing
// has been renamed, unless the error is from a rename itself.
func (o *Output) Commit() error {
	if o.done {
		return errors.New("output already committed or aborted")
	}
	for _, t := range o.tables {
		if err := t.close(o.metadata); err != nil {
			o.Abort()
			return err
		}
	}
	o.done = true
	for _, t := range o.tables {
		if err := os.Rename(t.tmpName(), t.finalName()); err != nil {
			for _, t := range o.tables {
				os.Remove(t.tmpName())
			}
			return fmt.Errorf("output %s: %w", t.finalName(), err)
		}
	}
	return syncDir(filepath.Dir(o.stem))
}

// Abort removes every temporary file; no destination file is touched. It is safe to
// call after Commit (it does nothing then).
func (o *Output) Abort() {
	if o.done {
		return
	}
	o.done = true
	for _, t := range o.tables {
		t.close(nil)
		os.Remove(t.tmpName())
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

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
