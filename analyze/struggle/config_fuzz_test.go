package struggle

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

// FuzzStruggleConfig feeds struggle configuration files — JSON over the defaults, as
// --struggle-config reads them — to EvaluateStruggle over a struggling run: whatever
// the thresholds, it must not panic, must give the same signal twice, and its score
// must be a number in [0, 1] or NaN.
func FuzzStruggleConfig(f *testing.F) {
	def, _ := json.Marshal(DefaultStruggleConfig())
	f.Add(def)
	f.Add([]byte(`{"composite_threshold":-5,"min_cycles_before_check":0}`))
	f.Add([]byte(`{"filter_repeat_threshold":0,"finding_overlap_threshold":0,"budget_burn_threshold":0}`))
	f.Add([]byte(`{"enabled":false}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := DefaultStruggleConfig()
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if dec.Decode(&cfg) != nil {
			return
		}
		state := analyze.CycleState{TaskBeadID: "q", MaxCycles: 5, MaxBudgetUSD: 4}
		for c := 1; c <= 4; c++ {
			state.Cycle, state.TotalCostUSD = c, float64(c)*1.5
			state.FilterCheckName = "test"
			state.Findings = []analyze.ReviewFinding{finding(c, nilDeref), finding(c, docs)}
			state.EndCycle()
			a, b := EvaluateStruggle(&state, cfg), EvaluateStruggle(&state, cfg)
			if !reflect.DeepEqual(a, b) && !(math.IsNaN(a.Score) && math.IsNaN(b.Score)) {
				t.Fatalf("cycle %d: two evaluations differ: %+v, %+v", c, a, b)
			}
			if !math.IsNaN(a.Score) && (a.Score < 0 || a.Score > 1) {
				t.Fatalf("cycle %d: score %v outside [0, 1]", c, a.Score)
			}
		}
	})
}
