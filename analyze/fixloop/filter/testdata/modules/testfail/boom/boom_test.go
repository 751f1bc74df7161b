package boom

import "testing"

func TestLookup(t *testing.T) {
	t.Run("missing", func(t *testing.T) {
		v := Lookup(nil, "x")
		if *v != 1 {
			t.Fatal("unreachable")
		}
	})
}
