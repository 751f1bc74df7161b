package arrowipc

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/loopwatch/loopwatch/reports"
)

func TestWriteReadBack(t *testing.T) {
	cols := reports.Columns{{Name: "name", Type: reports.String}, {Name: "n", Type: reports.Int64}, {Name: "x", Type: reports.Float64}, {Name: "ok", Type: reports.Bool}}
	var rows [][]any
	for i := range BatchRows + 5 { // two batches
		rows = append(rows, []any{"r" + string(rune('a'+i%26)), int64(i), float64(i) / 2, i%2 == 0})
	}
	rows[3] = []any{nil, nil, math.NaN(), nil}
	var buf bytes.Buffer
	if err := Write(&buf, cols, rows, map[string]string{"loopwatch.table": "sweep"}); err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, ok := r.Schema().Metadata().GetValue("loopwatch.table"); !ok || v != "sweep" {
		t.Errorf("metadata: %v", r.Schema().Metadata())
	}
	if got := r.Schema().Field(2).Name; got != "x" {
		t.Errorf("column 2 is %q", got)
	}
	total := 0
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			ns := rec.Column(1).(*array.Int64)
			xs := rec.Column(2).(*array.Float64)
			names := rec.Column(0).(*array.String)
			if ns.Value(7) != 7 || xs.Value(7) != 3.5 || names.Value(7) != "rh" {
				t.Errorf("row 7: %d %v %q", ns.Value(7), xs.Value(7), names.Value(7))
			}
			for c := range 4 {
				if !rec.Column(c).IsNull(3) {
					t.Errorf("row 3, column %d is not null", c)
				}
			}
		}
		total += int(rec.NumRows())
	}
	if total != len(rows) || r.NumRecords() != 2 {
		t.Errorf("%d rows in %d batches, want %d in 2", total, r.NumRecords(), len(rows))
	}
	gotCols, gotRows, md, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	rows[3][2] = nil // NaN is written as null
	if fmt.Sprint(gotCols) != fmt.Sprint(cols) || fmt.Sprint(gotRows) != fmt.Sprint(rows) || md["loopwatch.table"] != "sweep" {
		t.Errorf("Read gives back other columns, rows or metadata than Write wrote")
	}
}

func TestWriteRefusesBadRows(t *testing.T) {
	cols := reports.Columns{{Name: "n", Type: reports.Int64}}
	for _, rows := range [][][]any{{{"x"}}, {{int64(1), int64(2)}}, {{1.5}}} {
		if err := Write(&bytes.Buffer{}, cols, rows, nil); err == nil || !strings.Contains(err.Error(), "row 0") {
			t.Errorf("Write(%v) = %v, want an error naming row 0", rows, err)
		}
	}
}

func TestEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, reports.Columns{{Name: "n", Type: reports.Int64}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Schema().NumFields() != 1 {
		t.Error("empty table lost its schema")
	}
}
