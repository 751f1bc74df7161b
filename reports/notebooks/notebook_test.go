package notebooks

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/internal/duckdb"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/tune"
)

// notebookSQL returns the SQL statements of a notebook: every code cell's
// `SQL_<NAME> = """…"""` assignment, by name.
func notebookSQL(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string   `json:"cell_type"`
			Source   []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s is not a notebook: %v", path, err)
	}
	re := regexp.MustCompile(`(?s)(SQL_\w+) = """(.*?)"""`)
	out := map[string]string{}
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		for _, m := range re.FindAllStringSubmatch(strings.Join(c.Source, ""), -1) {
			out[m[1]] = m[2]
		}
	}
	return out
}

// TestNotebookSQL replays the built-in sample as `make demo` does and runs every SQL
// statement of loopwatch.ipynb with DuckDB (through interop/duckdb.mjs), checking each
// returns rows with the columns the notebook's plotting code uses.
func TestNotebookSQL(t *testing.T) {
	duckdb.Require(t)
	dir := t.TempDir()
	s := pipeline.DefaultSettings()
	s.Out = filepath.Join(dir, "results.parquet")
	s.Resamples = 200
	if _, err := pipeline.Run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	ts := pipeline.DefaultSettings()
	ts.Resamples = 200
	sweep, err := tune.Run(context.Background(), tune.Options{Settings: ts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tune.Write(sweep, filepath.Join(dir, "sweep.parquet")); err != nil {
		t.Fatal(err)
	}
	stmts := notebookSQL(t, "loopwatch.ipynb")
	want := map[string][]string{ // the columns the notebook's code reads, by statement
		"SQL_METRICS":    {"detector", "config", "metric", "value"},
		"SQL_PR":         {"detector", "config", "recall", "precision"},
		"SQL_AP":         {"detector", "config", "average_precision"},
		"SQL_TRAJECTORY": {"event_index", "frustration_ema", "intervention", "friction"},
		"SQL_SWEEP":      {"target", "config_id", "role", "chosen", "precision", "recall"},
		"SQL_FOLDS":      {"target", "fold", "config_id", "train_objective", "held_out_objective"},
		"SQL_TUNED_PR":   {"detector", "config", "recall", "precision"},
	}
	for name := range want {
		if _, ok := stmts[name]; !ok {
			t.Errorf("the notebook has no %s", name)
		}
	}
	names := slices.Sorted(maps.Keys(stmts))
	sql := make([]string, len(names))
	for i, name := range names {
		q := strings.ReplaceAll(stmts[name], "{results}", filepath.Join(dir, "results"))
		sql[i] = strings.ReplaceAll(q, "{sweep}", filepath.Join(dir, "sweep"))
	}
	res := duckdb.Maps(t, dir, sql...)
	for i, name := range names {
		rows := res[i]
		if len(rows) == 0 {
			t.Errorf("%s returns no rows:\n%s", name, stmts[name])
			continue
		}
		for _, col := range want[name] {
			if _, ok := rows[0][col]; !ok {
				t.Errorf("%s: no column %s in %v", name, col, rows[0])
			}
		}
	}
}
