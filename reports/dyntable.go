package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/loopwatch/loopwatch/internal/tmpname"
)

// ColumnType is the type of a column of a [DynTable].
type ColumnType int

// The column types. Every column is nullable.
const (
	Float64 ColumnType = iota
	Int64
	Bool
	String
)

// Column is one column of a table whose columns are known only when it is written
// (the sweep table: one column per swept parameter).
type Column struct {
	Name string
	Type ColumnType
}

// Columns are a table's columns, in order.
type Columns []Column

// Check reports a record that does not fit the columns: a value of the wrong Go type
// (float64, int64, bool, string, or nil for null), or the wrong number of values.
func (cs Columns) Check(rec []any) error {
	if len(rec) != len(cs) {
		return fmt.Errorf("a record of %d values for %d columns", len(rec), len(cs))
	}
	for i, v := range rec {
		if v == nil {
			continue
		}
		ok := false
		switch cs[i].Type {
		case Float64:
			_, ok = v.(float64)
		case Int64:
			_, ok = v.(int64)
		case Bool:
			_, ok = v.(bool)
		case String:
			_, ok = v.(string)
		}
		if !ok {
			return fmt.Errorf("column %s: a %T value", cs[i].Name, v)
		}
	}
	return nil
}

// DynTable is a Parquet table of an [Output] whose columns are given at run time. It
// is written like every table of the output (zstd, bounded row groups, the output's
// metadata) and committed with the set. A NaN float is written as null.
type DynTable struct {
	name, path string
	cols       Columns
	f          *os.File
	h          hash.Hash
	size       int64
	w          *parquet.Writer
	rows       int64
}

// NewDynTable opens the table named name of o with the given columns.
func NewDynTable(o *Output, name string, cols Columns) (*DynTable, error) {
	seen := map[string]bool{}
	for _, c := range cols {
		if c.Name == "" || seen[c.Name] {
			return nil, fmt.Errorf("table %s: column %q is empty or repeated", name, c.Name)
		}
		seen[c.Name] = true
	}
	path := o.Path(name)
	f, err := tmpname.Create(path)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", path, UnwrapPathError(err))
	}
	t := &DynTable{name: name, path: path, cols: cols, f: f, h: sha256.New()}
	schema := parquet.NewSchema(name, orderedGroup(cols))
	t.w = parquet.NewWriter(io.MultiWriter(f, t.h, countWriter{&t.size}), append(o.writerOptions(), schema)...)
	o.tables = append(o.tables, t)
	return t, nil
}

// Write appends one record: a value per column, in column order, nil for null.
func (t *DynTable) Write(rec []any) error {
	if err := t.cols.Check(rec); err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	row := make(parquet.Row, len(rec))
	for i, v := range rec {
		if f, ok := v.(float64); ok && math.IsNaN(f) {
			v = nil
		}
		if v == nil {
			row[i] = parquet.NullValue().Level(0, 0, i)
			continue
		}
		row[i] = parquet.ValueOf(v).Level(0, 1, i)
	}
	if _, err := t.w.WriteRows([]parquet.Row{row}); err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	t.rows++
	return nil
}

// Rows returns the number of rows written.
func (t *DynTable) Rows() int64 { return t.rows }

func (t *DynTable) close(metadata map[string]string) error {
	md := map[string]string{"loopwatch.table": t.name}
	maps.Copy(md, metadata)
	for _, k := range slices.Sorted(maps.Keys(md)) {
		t.w.SetKeyValueMetadata(k, md[k])
	}
	if err := t.w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", t.path, err)
	}
	return closeTemp(t.f, t.path)
}

func (t *DynTable) abort() {
	t.w.Close()
	t.f.Close()
	os.Remove(t.f.Name())
}

func (t *DynTable) tmpName() string   { return t.f.Name() }
func (t *DynTable) finalName() string { return t.path }
func (t *DynTable) tableName() string { return t.name }
func (t *DynTable) digest() (int64, string) {
	return t.size, hex.EncodeToString(t.h.Sum(nil))
}

// closeTemp makes a finished temporary file readable, syncs and closes it.
func closeTemp(f *os.File, path string) error {
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// orderedGroup is a Parquet group whose fields keep the given order (parquet.Group
// sorts them by name), of nullable leaves.
type orderedGroup Columns

func (g orderedGroup) leaf(c Column) parquet.Node {
	switch c.Type {
	case Int64:
		return parquet.Optional(parquet.Int(64))
	case Bool:
		return parquet.Optional(parquet.Leaf(parquet.BooleanType))
	case String:
		return parquet.Optional(parquet.String())
	}
	return parquet.Optional(parquet.Leaf(parquet.DoubleType))
}

func (g orderedGroup) ID() int        { return 0 }
func (g orderedGroup) String() string { return "group(" + strings.Join(g.names(), ", ") + ")" }
func (g orderedGroup) Type() parquet.Type {
	return parquet.Group{}.Type()
}
func (g orderedGroup) Optional() bool                  { return false }
func (g orderedGroup) Repeated() bool                  { return false }
func (g orderedGroup) Required() bool                  { return true }
func (g orderedGroup) Leaf() bool                      { return false }
func (g orderedGroup) Encoding() encoding.Encoding     { return nil }
func (g orderedGroup) Compression() compress.Codec     { return nil }
func (g orderedGroup) GoType() reflect.Type            { return reflect.TypeFor[map[string]any]() }
func (g orderedGroup) Fields() []parquet.Field         { return g.fields() }
func (g orderedGroup) names() []string                 { return columnNames(Columns(g)) }
func (f namedField) Name() string                      { return f.name }
func (f namedField) Value(reflect.Value) reflect.Value { return reflect.Value{} }

// namedField is one field of an orderedGroup: rows are written as parquet.Row values,
// never deconstructed from Go values, so Value is not used.
type namedField struct {
	parquet.Node
	name string
}

func (g orderedGroup) fields() []parquet.Field {
	out := make([]parquet.Field, len(g))
	for i, c := range g {
		out[i] = namedField{Node: g.leaf(c), name: c.Name}
	}
	return out
}

func columnNames(cs Columns) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func (t *DynTable) rowCount() (int64, bool) { return t.rows, true }
