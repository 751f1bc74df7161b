package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{0, "file", "0 files"},
		{1, "file", "1 file"},
		{2, "file", "2 files"},
		{-1, "run", "-1 runs"},
		{1, "label key", "1 label key"},
		{12, "vibes log", "12 vibes logs"},
	}
	for _, tt := range tests {
		if got := Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
	if got := Of(3, "child", "children"); got != "3 children" {
		t.Errorf("Of: %q", got)
	}
	if got := Of(1, "child", "children"); got != "1 child" {
		t.Errorf("Of: %q", got)
	}
	if got := Form(1, "matches", "match") + " " + Form(0, "is", "are"); got != "matches are" {
		t.Errorf("Form: %q", got)
	}
}
