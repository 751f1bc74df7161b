package reports

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestRecordCounts: a session's record counts are what json.Marshal writes of them,
// byte for byte, whatever the record types (quotes, escapes, HTML characters, control
// characters, invalid UTF-8, non-ASCII) and counts.
func TestRecordCounts(t *testing.T) {
	for _, counts := range []map[string]int{
		{"user": 3},
		{"assistant": 12, "user": 3, "progress": 40, "file-history-snapshot": 1, "queue-operation": 0},
		{`a"b`: 1, `c\d`: 2, "<tag>&": 3, "tab\there": 4, "nl\n": 5, "\x00\x1f\x7f": 6, "é": 7, "\xff\xfe": 8, "\u2028": 9, "": 10},
		{"neg": -5, "big": 1 << 40},
	} {
		want, err := json.Marshal(counts)
		if err != nil {
			t.Fatal(err)
		}
		if got := recordCounts(counts); got != string(want) {
			t.Errorf("recordCounts %v = %s, want %s", counts, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		counts := map[string]int{}
		for range rng.IntN(6) + 1 {
			b := make([]byte, rng.IntN(6))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			counts[string(b)] = rng.IntN(1000) - 10
		}
		if want, _ := json.Marshal(counts); recordCounts(counts) != string(want) {
			t.Fatalf("recordCounts %v = %s, want %s", counts, recordCounts(counts), want)
		}
	}
}
