package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestAbs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in, out int
	}{
		{"positive", 2, 2},
		{"negative", -2, 2},
		{"min", -7, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Abs(tc.in); got != tc.out {
				t.Errorf("Abs(%d) = %d, want %d", tc.in, got, tc.out)
			}
		})
	}
}

func TestMultiline(t *testing.T) {
	t.Errorf("mismatch:\ngot:  %q\nwant: %q", "a b", "a  b")
}

func TestPasses(t *testing.T) {}
