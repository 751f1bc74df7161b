package reports

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestDynTableAndFile(t *testing.T) {
	dir := t.TempDir()
	o, err := NewOutput(filepath.Join(dir, "sweep.parquet"), map[string]string{"loopwatch.input_fingerprint": "fp"})
	if err != nil {
		t.Fatal(err)
	}
	cols := Columns{{"zeta", String}, {"alpha", Float64}, {"n", Int64}, {"ok", Bool}}
	tab, err := NewDynTable(o, "", cols)
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]any{{"a", 0.5, int64(1), true}, {nil, math.NaN(), nil, nil}, {"c", 2.0, int64(3), false}}
	for _, r := range rows {
		if err := tab.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tab.Write([]any{1.0, 1.0, int64(1), true}); err == nil || !strings.Contains(err.Error(), "column zeta") {
		t.Errorf("a float in a string column: %v", err)
	}
	var seen map[string]string
	f, err := o.AddFile("config", "struggle.json", func(w io.Writer, md map[string]string) error {
		seen = md
		_, err := io.WriteString(w, "{}\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(f.Path()); err != nil || string(b) != "{}\n" || f.Path() != filepath.Join(dir, "sweep.struggle.json") {
		t.Errorf("added file %s: %q, %v", f.Path(), b, err)
	}
	if seen[ReplayIDKey] == "" {
		t.Error("the added file's writer did not get the set's replay id")
	}
	m, err := ReadManifest(filepath.Join(dir, "sweep.parquet"))
	if err != nil || len(m.Tables) != 2 || m.Table("config") == nil {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range pf.Schema().Fields() {
		names = append(names, c.Name())
	}
	if strings.Join(names, ",") != "zeta,alpha,n,ok" {
		t.Errorf("columns %v: the order given is not kept", names)
	}
	if v, ok := pf.Lookup(ReplayIDKey); !ok || v != seen[ReplayIDKey] {
		t.Errorf("replay id %q, %v", v, ok)
	}
	r := parquet.NewReader(pf)
	got := make([]parquet.Row, 3)
	n, _ := r.ReadRows(got)
	if n != 3 {
		t.Fatalf("read %d rows", n)
	}
	if got[0][0].String() != "a" || got[0][1].Double() != 0.5 || got[0][2].Int64() != 1 || !got[0][3].Boolean() {
		t.Errorf("row 0: %v", got[0])
	}
	for c := range 4 {
		if !got[1][c].IsNull() {
			t.Errorf("row 1, column %d: %v, want null", c, got[1][c])
		}
	}
}
