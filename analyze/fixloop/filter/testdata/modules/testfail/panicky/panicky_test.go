package panicky

import "testing"

func TestAt(t *testing.T) {
	if got := At([]int{1, 2, 3}, 5); got != 0 {
		t.Fatalf("At = %d", got)
	}
}
