package smallest

import (
	"slices"
	"testing"
)

func TestKeep(t *testing.T) {
	tests := []struct {
		name   string
		stream []string
		k      int
		want   []string
	}{
		{"fewer than k", []string{"b", "a"}, 3, []string{"a", "b"}},
		{"the k smallest", []string{"d", "b", "e", "a", "c"}, 2, []string{"a", "b"}},
		{"a larger one after k", []string{"a", "b", "z"}, 2, []string{"a", "b"}},
		{"duplicates kept", []string{"b", "a", "a"}, 3, []string{"a", "a", "b"}},
		{"k of 1", []string{"m", "c", "x"}, 1, []string{"c"}},
		{"k of 0", []string{"a"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var list []string
			for _, s := range tt.stream {
				Keep(&list, s, tt.k)
				if len(list) > max(tt.k, 0) || !slices.IsSorted(list) {
					t.Fatalf("after %q: %q", s, list)
				}
			}
			if !slices.Equal(list, tt.want) {
				t.Errorf("Keep over %q, k=%d: %q, want %q", tt.stream, tt.k, list, tt.want)
			}
		})
	}
}
