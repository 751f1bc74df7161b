package tune

import (
	"strings"
	"testing"
)

// FuzzAdd: any grid specification is added or refused with an error — never a panic,
// never a parameter with no value, never a value the family's configuration refuses.
func FuzzAdd(f *testing.F) {
	for _, s := range []string{"composite_threshold=0.3:0.8:0.1", "cooldown=0s:10m:1m", "case_fold=true,false",
		"detect.friction=seed,loopwatch", "filter_repeat_threshold=1:4:1", "alpha=0.5,1", "x=1", "=", "a=b=c",
		"composite_threshold=1e308:1e308:1e-308", "cooldown=-5m:5m:1ns", "enabled=seed"} {
		f.Add(s)
	}
	base := newSpaceF(f)
	f.Fuzz(func(t *testing.T, spec string) {
		sp := *base
		sp.Params = nil
		if err := sp.Add(spec); err != nil {
			if err.Error() == "" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Add(%q): an empty or multi-line error %q", spec, err)
			}
			return
		}
		p := sp.Params[0]
		if len(p.Values) == 0 || len(p.Values) > MaxValues {
			t.Fatalf("Add(%q): %d values", spec, len(p.Values))
		}
		for _, v := range p.Values {
			if _, err := sp.decode(p.Family, patchOf(p.path, v.JSON), p.path); err != nil {
				t.Fatalf("Add(%q) accepted %s, which the configuration refuses: %v", spec, v.Text, err)
			}
		}
	})
}

func newSpaceF(f *testing.F) *Space {
	f.Helper()
	sp, err := NewSpace(struggleDefault(), assessDefault())
	if err != nil {
		f.Fatal(err)
	}
	return sp
}
