package pipeline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loopwatch/loopwatch/replay"
)

// TestUnmatchedTally: however many label keys match nothing, a tally counts them all
// and keeps the MaxUnmatchedListed smallest, in order, whatever order they come in;
// the tallies of the shards of a split add up to the whole's.
func TestUnmatchedTally(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 3, MaxUnmatchedListed, 5000} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("key-%06d", rng.IntN(1_000_000)) + fmt.Sprint(i) // distinct
		}
		var whole tally
		parts := make([]tally, 4)
		for _, k := range keys {
			whole.unmatched(k)
			parts[replay.ShardOf(k, 4)].unmatched(k)
		}
		want := slices.Sorted(slices.Values(keys))[:min(n, MaxUnmatchedListed)]
		if whole.UnmatchedCount != n || !slices.Equal(whole.Unmatched, want) {
			t.Errorf("%d keys: counted %d, kept %d (%v…), want the %d smallest", n, whole.UnmatchedCount, len(whole.Unmatched), whole.Unmatched[:min(3, len(whole.Unmatched))], len(want))
		}
		var merged tally
		for _, p := range parts {
			merged.add(p)
		}
		if merged.UnmatchedCount != n || !slices.Equal(merged.Unmatched, want) {
			t.Errorf("%d keys in 4 shards: counted %d, kept %d, want the whole's", n, merged.UnmatchedCount, len(merged.Unmatched))
		}
		var res Result
		merged.apply(&res, false)
		if res.UnmatchedCount != n || len(res.UnmatchedLabels) != len(want) {
			t.Errorf("%d keys: the result has %d and %d", n, res.UnmatchedCount, len(res.UnmatchedLabels))
		}
	}
	// A shard of an earlier loopwatch listed every key and counted none.
	var merged tally
	merged.add(tally{Unmatched: []string{"a", "b", "c"}})
	merged.add(tally{UnmatchedCount: 2, Unmatched: []string{"d", "e"}})
	if merged.UnmatchedCount != 5 || len(merged.Unmatched) != 5 {
		t.Errorf("an earlier shard's list: counted %d, kept %v", merged.UnmatchedCount, merged.Unmatched)
	}
	for _, tt := range []struct {
		keys     []string
		total, n int
		want     string
	}{
		{[]string{"a", "b"}, 2, 3, "a, b"},
		{[]string{"a", "b", "c"}, 3, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d"}, 4, 3, "a, b, c and 1 more"},
		{[]string{"a", "b", "c", "d"}, 900, 3, "a, b, c and 897 more"},
		{[]string{"a", "b"}, 5, 3, "a, b and 3 more"},
		{[]string{"new\nline", "\x1b[2J"}, 2, 3, `"new\nline", "\x1b[2J"`}, // shown, not acted on
	} {
		if got := examples(tt.keys, tt.total, tt.n); got != tt.want {
			t.Errorf("examples(%v, %d, %d) = %q, want %q", tt.keys, tt.total, tt.n, got, tt.want)
		}
	}
}
