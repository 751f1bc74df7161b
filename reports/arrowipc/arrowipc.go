// Package arrowipc writes loopwatch's in-memory tables as Arrow IPC files: the
// uncompressed Arrow file format (".arrow", the format pyarrow's ipc.open_file, polars'
// read_ipc and DuckDB's arrow extension read), which a notebook can memory-map without
// copying. It is the only package that imports Apache Arrow
// (github.com/apache/arrow-go/v18), so that a version move is one import path.
//
// It refuses a record whose values do not fit the columns ([reports.Columns.Check]).
// A NaN float is written as null, as in the Parquet tables.
package arrowipc

import (
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/loopwatch/loopwatch/reports"
)

// BatchRows bounds the rows of one record batch.
const BatchRows = 64 << 10

// Write writes the rows (one value per column, nil for null) as an Arrow IPC file
// with the columns' schema; metadata goes into the schema's key-value metadata.
func Write(w io.Writer, cols reports.Columns, rows [][]any, metadata map[string]string) error {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: arrowType(c.Type), Nullable: true}
	}
	md := arrow.MetadataFrom(metadata)
	schema := arrow.NewSchema(fields, &md)
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	flush := func() error {
		rec := b.NewRecordBatch()
		defer rec.Release()
		return fw.Write(rec)
	}
	for n, rec := range rows {
		if err := cols.Check(rec); err != nil {
			fw.Close()
			return fmt.Errorf("row %d: %w", n, err)
		}
		for i, v := range rec {
			appendValue(b.Field(i), cols[i].Type, v)
		}
		if (n+1)%BatchRows == 0 {
			if err := flush(); err != nil {
				fw.Close()
				return err
			}
		}
	}
	if len(rows)%BatchRows != 0 || len(rows) == 0 {
		if err := flush(); err != nil {
			fw.Close()
			return err
		}
	}
	return fw.Close()
}

func arrowType(t reports.ColumnType) arrow.DataType {
	switch t {
	case reports.Int64:
		return arrow.PrimitiveTypes.Int64
	case reports.Bool:
		return arrow.FixedWidthTypes.Boolean
	case reports.String:
		return arrow.BinaryTypes.String
	}
	return arrow.PrimitiveTypes.Float64
}

func appendValue(b array.Builder, t reports.ColumnType, v any) {
	if f, ok := v.(float64); ok && math.IsNaN(f) {
		v = nil
	}
	if v == nil {
		b.AppendNull()
		return
	}
	switch t {
	case reports.Int64:
		b.(*array.Int64Builder).Append(v.(int64))
	case reports.Bool:
		b.(*array.BooleanBuilder).Append(v.(bool))
	case reports.String:
		b.(*array.StringBuilder).Append(v.(string))
	default:
		b.(*array.Float64Builder).Append(v.(float64))
	}
}

// Read reads an Arrow IPC file of the column types Write writes: its columns, its
// rows (nil for null) and its schema's metadata. It refuses a column of another type.
func Read(r ipc.ReadAtSeeker) (reports.Columns, [][]any, map[string]string, error) {
	fr, err := ipc.NewFileReader(r, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, nil, nil, err
	}
	defer fr.Close()
	schema := fr.Schema()
	var cols reports.Columns
	for _, f := range schema.Fields() {
		var t reports.ColumnType
		switch f.Type.ID() {
		case arrow.INT64:
			t = reports.Int64
		case arrow.BOOL:
			t = reports.Bool
		case arrow.STRING:
			t = reports.String
		case arrow.FLOAT64:
			t = reports.Float64
		default:
			return nil, nil, nil, fmt.Errorf("arrowipc: column %s of type %s", f.Name, f.Type)
		}
		cols = append(cols, reports.Column{Name: f.Name, Type: t})
	}
	md := map[string]string{}
	m := schema.Metadata()
	for i, k := range m.Keys() {
		md[k] = m.Values()[i]
	}
	var rows [][]any
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			return nil, nil, nil, err
		}
		for j := 0; j < int(rec.NumRows()); j++ {
			row := make([]any, len(cols))
			for c, col := range rec.Columns() {
				if col.IsNull(j) {
					continue
				}
				switch a := col.(type) {
				case *array.Int64:
					row[c] = a.Value(j)
				case *array.Boolean:
					row[c] = a.Value(j)
				case *array.String:
					row[c] = a.Value(j)
				case *array.Float64:
					row[c] = a.Value(j)
				}
			}
			rows = append(rows, row)
		}
	}
	return cols, rows, md, nil
}
