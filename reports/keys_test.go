package reports

import (
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestOneNamePerKey: every table that names a run or a session names it run_key, and
// every session table that names an event names it event_index, so that the tables
// join USING (run_key) and USING (run_key, event_index); no other spelling of either
// key is a column anywhere.
func TestOneNamePerKey(t *testing.T) {
	rows := []any{RunRow{}, CycleRow{}, MetricRow{}, InputRow{}, ProblemRow{}, PredictionRow{}, CurveRow{},
		FixFailureRow{}, FixRunRow{}, FixCaseRow{}, EventRow{}, CheckpointRow{}, InterventionRow{}}
	keyed := map[string]bool{"RunRow": true, "CycleRow": true, "PredictionRow": true, "FixFailureRow": true, "FixRunRow": true,
		"FixCaseRow": true, "EventRow": true, "CheckpointRow": true, "InterventionRow": true}
	evented := map[string]bool{"EventRow": true, "CheckpointRow": true, "InterventionRow": true}
	for _, r := range rows {
		name := reflect.TypeOf(r).Name()
		cols := map[string]bool{}
		for _, f := range parquet.SchemaOf(r).Fields() {
			cols[f.Name()] = true
		}
		for _, other := range []string{"session_key", "session_id", "key", "index", "unit_key"} {
			if cols[other] {
				t.Errorf("%s has a column %q: a key spelled another way", name, other)
			}
		}
		if keyed[name] != cols["run_key"] {
			t.Errorf("%s: run_key column %v, want %v", name, cols["run_key"], keyed[name])
		}
		if evented[name] && !cols["event_index"] {
			t.Errorf("%s names no event_index", name)
		}
	}
}
