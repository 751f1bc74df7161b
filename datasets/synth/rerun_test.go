package synth

import (
	"slices"
	"testing"
)

// TestRerunEpochs: every run's key is distinct whatever RerunEvery is, and a re-run
// is the next epoch of the previous run's task, in the previous run's file.
func TestRerunEpochs(t *testing.T) {
	for _, tt := range []struct {
		every int
		want  []string
	}{
		{0, []string{"synth-0001@e1", "synth-0002@e1", "synth-0003@e1", "synth-0004@e1"}},
		{1, []string{"synth-0001@e1", "synth-0001@e2", "synth-0001@e3", "synth-0001@e4"}},
		{2, []string{"synth-0001@e1", "synth-0001@e2", "synth-0003@e1", "synth-0003@e2"}},
		{3, []string{"synth-0001@e1", "synth-0002@e1", "synth-0002@e2", "synth-0004@e1"}},
	} {
		var keys []string
		for _, r := range Generate(Config{Seed: 1, Runs: 4, RerunEvery: tt.every}) {
			keys = append(keys, r.Key)
			if want := r.Task + ".jsonl"; r.File != want {
				t.Errorf("every %d: %s in %s, want %s", tt.every, r.Key, r.File, want)
			}
		}
		if !slices.Equal(keys, tt.want) {
			t.Errorf("every %d: keys %v, want %v", tt.every, keys, tt.want)
		}
	}
}
