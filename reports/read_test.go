package reports

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	tab, _ := NewTable[ProblemRow](out, "")
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
