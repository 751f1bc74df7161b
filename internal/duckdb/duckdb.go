// Package duckdb runs SQL with DuckDB — an independent Parquet reader, through node
// and interop/duckdb.mjs — so that tests read loopwatch's output the way an analyst
// would. It is for tests only: without node and interop/node_modules (make
// interop-deps) a test skips, or fails when LOOPWATCH_INTEROP=required.
package duckdb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/internal/corpus"
)

// Result is the rows one statement returned, its columns in the statement's order.
type Result struct {
	Columns []string
	Rows    [][]any // JSON values: DuckDB writes BIGINT as strings
}

// Require skips t — or fails it when LOOPWATCH_INTEROP=required — unless node and
// interop/node_modules are there to run DuckDB. A test calls it before costly set-up.
func Require(t testing.TB) {
	t.Helper()
	tool(t)
}

// tool returns node's path and interop/duckdb.mjs's, or skips or fails t as Require says.
func tool(t testing.TB) (node, script string) {
	t.Helper()
	root, err := corpus.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(root, "interop", "duckdb.mjs")
	node, err = exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "interop", "node_modules", "@duckdb", "node-api"))
	}
	if err != nil {
		msg := "DuckDB needs node and interop/node_modules (run: make interop-deps): " + err.Error()
		if os.Getenv("LOOPWATCH_INTEROP") == "required" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, script
}

// run runs the statements in one DuckDB (starting it is the slow part), working in
// dir, and returns duckdb.mjs's output.
func run(t testing.TB, dir string, sql []string) []byte {
	t.Helper()
	node, script := tool(t)
	cmd := exec.Command(node, append([]string{script}, sql...)...)
	cmd.Dir = dir // relative paths in the statements; node finds DuckDB beside the script
	b, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("duckdb: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("duckdb: %v", err)
	}
	return b
}

// Query runs the statements in one DuckDB, working in dir, and returns each one's
// result.
func Query(t testing.TB, dir string, sql ...string) []Result {
	t.Helper()
	b := run(t, dir, sql)
	res, err := decode(b)
	if err != nil || len(res) != len(sql) {
		t.Fatalf("duckdb output %s: %v", b, err)
	}
	return res
}

// Maps runs the statements as Query does and returns each one's rows as maps from
// column to value (encoding/json's: numbers as float64, BIGINT as strings).
func Maps(t testing.TB, dir string, sql ...string) [][]map[string]any {
	t.Helper()
	b := run(t, dir, sql)
	var res [][]map[string]any
	if err := json.Unmarshal(b, &res); err != nil || len(res) != len(sql) {
		t.Fatalf("duckdb output %s: %v", b, err)
	}
	return res
}

// decode reads duckdb.mjs's output — an array per statement of row objects — keeping
// the columns in order.
func decode(b []byte) ([]Result, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	expect := func(want json.Delim) error {
		tok, err := dec.Token()
		if err == nil && tok != want {
			err = fmt.Errorf("want %v, got %v", want, tok)
		}
		return err
	}
	var out []Result
	if err := expect('['); err != nil {
		return nil, err
	}
	for dec.More() {
		var r Result
		if err := expect('['); err != nil {
			return nil, err
		}
		for dec.More() {
			if err := expect('{'); err != nil {
				return nil, err
			}
			var row []any
			for i := 0; dec.More(); i++ {
				tok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				if len(r.Rows) == 0 {
					r.Columns = append(r.Columns, tok.(string))
				}
				var v any
				if err := dec.Decode(&v); err != nil {
					return nil, err
				}
				row = append(row, v)
			}
			if err := expect('}'); err != nil {
				return nil, err
			}
			r.Rows = append(r.Rows, row)
		}
		if err := expect(']'); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, expect(']')
}

// Format renders a result as an aligned text table: the header, then one line per
// row, columns two spaces apart, null as NULL.
func (r Result) Format() string {
	cells := [][]string{r.Columns}
	for _, row := range r.Rows {
		var line []string
		for _, v := range row {
			if v == nil {
				line = append(line, "NULL")
			} else {
				line = append(line, fmt.Sprint(v))
			}
		}
		cells = append(cells, line)
	}
	width := make([]int, len(r.Columns))
	for _, line := range cells {
		for i, c := range line {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, line := range cells {
		for i, c := range line {
			if i < len(line)-1 {
				c += strings.Repeat(" ", width[i]-len([]rune(c))+2)
			}
			b.WriteString(c)
		}
		b.WriteString("\n")
	}
	return b.String()
}
