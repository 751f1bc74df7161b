package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDerivationResamples: a merge derives with the resamples its tables' metadata
// records, which a replay bounds as --resamples; metadata holding another number
// (written by hand, or by another tool) is refused, not run for hours.
func TestDerivationResamples(t *testing.T) {
	for _, tt := range []struct {
		resamples int
		want      string // "" accepted
	}{
		{0, ""},
		{2000, ""},
		{MaxResamples, ""},
		{MaxResamples + 1, "resamples 100001: not between 0 and 100000"},
		{-1, "resamples -1: not between 0 and 100000"},
	} {
		ev, _ := json.Marshal(evalSettings{Level: 0.95, Beta: 1, FrictionWindow: "5m0s", Resamples: tt.resamples})
		fx, _ := json.Marshal(fixSettings{PassProb: "history"})
		md := map[string]string{mdConfigs: "[]", mdEval: string(ev), mdFixsim: string(fx), mdStruggle: "{}", mdAssess: "{}"}
		_, err := newDerivation(md, 1)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("resamples %d: %v, want %q", tt.resamples, err, tt.want)
		}
	}
}
