package reports

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestRowReader: a table read a row at a time, in batches of any size, gives the rows
// ReadRows gives, each a copy the reader does not overwrite; a file that is not a
// table, or is cut short, is an error, never fewer rows.
func TestRowReader(t *testing.T) {
	dir := t.TempDir()
	out, err := NewOutput(filepath.Join(dir, "res.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tab := mustTable[ProblemRow](t, out, "")
	var want []ProblemRow
	for i := range 2500 {
		r := ProblemRow{File: "f" + strings.Repeat("x", i%7), Line: int32(i), Kind: "parse", Detail: "d"}
		want = append(want, r)
		if err := tab.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "res.parquet")
	all, err := ReadRows[ProblemRow](path, nil)
	if err != nil || !reflect.DeepEqual(all, want) {
		t.Fatalf("ReadRows: %d rows, %v", len(all), err)
	}
	for _, batch := range []int{0, 1, 3, 1000, 4096} {
		rd, err := OpenRows[ProblemRow](path, batch)
		if err != nil {
			t.Fatal(err)
		}
		var got []ProblemRow
		for r := rd.Next(); r != nil; r = rd.Next() {
			got = append(got, *r)
		}
		if rd.Next() != nil || rd.Err() != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("batch %d: %d rows, err %v", batch, len(got), rd.Err())
		}
		if err := rd.Close(); err != nil {
			t.Error(err)
		}
	}

	b, _ := os.ReadFile(path)
	cut := filepath.Join(dir, "cut.parquet")
	os.WriteFile(cut, append(b[:len(b)/2:len(b)/2], b[len(b)-8:]...), 0o644) // the footer's length and magic kept
	if _, err := OpenRows[ProblemRow](cut, 10); err == nil {
		t.Error("a table cut short opened")
	}
	bad := append([]byte(nil), b...)
	for i := 64; i < 4096 && i < len(bad)/2; i++ { // the pages spoiled, the footer intact
		bad[i] ^= 0x5a
	}
	spoiled := filepath.Join(dir, "spoiled.parquet")
	os.WriteFile(spoiled, bad, 0o644)
	if rd, err := OpenRows[ProblemRow](spoiled, 100); err == nil {
		n := 0
		for r := rd.Next(); r != nil; r = rd.Next() {
			n++
		}
		if rd.Err() == nil {
			t.Errorf("spoiled pages read as %d rows and no error", n)
		}
		rd.Close()
	}
	if _, err := OpenRows[ProblemRow](filepath.Join(dir, "none.parquet"), 10); err == nil {
		t.Error("a missing file opened")
	}
}

// TestRowFile: rows read from a table, kept aside in a RowFile over several row groups
// and read back, are the rows read — optional values null or not as they were, lists
// empty or not, special floats bit for bit — in their order.
func TestRowFile(t *testing.T) {
	dir := t.TempDir()
	out, err := NewOutput(filepath.Join(dir, "p.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tab := mustTable[PredictionRow](t, out, "")
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, 0.1}
	n := 3*RowFileGroupRows + 17
	for i := range n {
		r := PredictionRow{RunKey: fmt.Sprintf("k%05d", i), Kind: "session", File: strings.Repeat("d/", i%3) + "f.jsonl", ConfigIndex: int32(i % 3)}
		if i%2 == 0 {
			s, b, f, k := "positive", i%4 == 0, specials[i%len(specials)], int32(i)
			r.Label, r.BreakerPredicted, r.BreakerScore, r.Interventions = &s, &b, &f, &k
		}
		if i%5 == 1 {
			r.DelaySeconds, r.DelayEvents = []float64{specials[i%len(specials)], 2}, []float64{3, 4}
		}
		if err := tab.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	read, err := ReadRows[PredictionRow](filepath.Join(dir, "p.parquet"), nil)
	if err != nil || len(read) != n {
		t.Fatalf("%d rows, %v", len(read), err)
	}
	back, path := throughRowFile(t, read, 100)
	show := func(rows []PredictionRow) string { // every value, floats as bits, pointers as what they point at
		var b strings.Builder
		for _, r := range rows {
			v := reflect.ValueOf(r)
			for i := range v.NumField() {
				fv := v.Field(i)
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() {
						b.WriteString("null,")
						continue
					}
					fv = fv.Elem()
				}
				switch fv.Kind() {
				case reflect.Float64:
					fmt.Fprintf(&b, "%x,", math.Float64bits(fv.Float()))
				case reflect.Slice:
					if fv.Type().Elem().Kind() == reflect.Float64 {
						for j := range fv.Len() {
							fmt.Fprintf(&b, "%x;", math.Float64bits(fv.Index(j).Float()))
						}
						fmt.Fprintf(&b, "nil=%v,", fv.IsNil())
						continue
					}
					fmt.Fprintf(&b, "%v nil=%v,", fv.Interface(), fv.IsNil())
				default:
					fmt.Fprintf(&b, "%v,", fv.Interface())
				}
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	if got, want := show(back), show(read); got != want {
		t.Errorf("read back\n%.2000s\nwant\n%.2000s", got, want)
	}
	pf, err := OpenRows[PredictionRow](path, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if groups := len(pf.rd.File().RowGroups()); groups != 4 {
		t.Errorf("%d row groups of %d rows, want 4", groups, RowFileGroupRows)
	}
}

func TestGuarded(t *testing.T) {
	failed := errors.New("failed")
	tests := []struct {
		name string
		call func() error
		want string // "" for no error
	}{
		{"returns", func() error { return nil }, ""},
		{"fails", func() error { return failed }, "failed"},
		{"panics", func() error { panic("slice bounds out of range [53:3]") }, "corrupt Parquet data: slice bounds out of range [53:3]"},
		{"panics with an error", func() error { var s []int; _ = s[3]; return nil }, "corrupt Parquet data: runtime error: index out of range"},
	}
	for _, tt := range tests {
		err := Guarded(tt.call)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestRowReaderOfACorruptFile reads a table file, written without page checksums,
// corrupted at 500 places: every read ends in rows or an error, never a panic (some
// made the Parquet reader slice out of range).
func TestRowReaderOfACorruptFile(t *testing.T) {
	type row struct {
		Key   string   `parquet:"key"`
		N     *int32   `parquet:"n,optional"`
		Score float64  `parquet:"score"`
		Tags  []string `parquet:"tags,list"`
	}
	var rows []row
	for i := range 400 {
		n := int32(i)
		rows = append(rows, row{Key: fmt.Sprintf("key-%04d", i), N: &n, Score: float64(i) / 7, Tags: []string{"a", fmt.Sprint(i % 5)}})
	}
	var clean bytes.Buffer
	if err := parquet.Write(&clean, rows, parquet.MaxRowsPerRowGroup(50)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.parquet")
	failed := 0
	for i := range 500 {
		b := bytes.Clone(clean.Bytes())
		for j := range 1 + i%3*7 {
			b[(i*len(b)/500+j)%len(b)] ^= byte(0x5a + i)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRows[row](path, nil); err != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no corruption was noticed")
	}
}

// throughRowFile writes rows to a RowFile, batch rows at a time, and reads them back
// with ReadRows; it returns them and the file's path.
func throughRowFile[T any](t *testing.T, rows []T, batch int) ([]T, string) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "rows"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewRowFile[T](f)
	for i := 0; i < len(rows); i += batch {
		if err := w.Write(rows[i:min(i+batch, len(rows))]...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRows[T](f.Name(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return back, f.Name()
}
