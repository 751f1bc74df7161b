package pipeline

import (
	"maps"
	"strings"
	"testing"
)

func TestParsePassProb(t *testing.T) {
	all := func(p float64) map[string]float64 {
		return map[string]float64{"build": p, "vet": p, "lint": p, "test": p, "claims": p}
	}
	for _, tc := range []struct {
		in   string
		want map[string]float64
		err  string // a part of the error; "" for none
	}{
		{in: "", want: nil},
		{in: "history", want: nil},
		{in: " 0.6 ", want: all(0.6)},
		{in: "0", want: all(0)},
		{in: "build=0.8,test=0.5", want: map[string]float64{"build": 0.8, "test": 0.5}},
		{in: " build = 0.8 , claims=1", want: map[string]float64{"build": 0.8, "claims": 1}},
		{in: "1.5", err: `"1.5" is not a probability`},
		{in: "always", err: `"always" is not a probability`},
		{in: "build=1.5", err: `"build=1.5" is not a probability`},
		{in: "build=", err: `"build=" is not a probability`},
		{in: "=0.5", err: `"=0.5" is not a probability`},
		{in: "build=NaN", err: `"build=NaN" is not a probability`},
		{in: "biuld=0.9", err: `"biuld" is not a check of quasar's filter chain (build, vet, lint, test, claims)`},
		{in: "build=0.9,golangci-lint=0.5", err: `"golangci-lint" is not a check`},
		{in: "build=0.5,build=0.6", err: `check "build" is given twice`},
		{in: "build=0.5, build =0.5", err: `check "build" is given twice`},
	} {
		got, err := parsePassProb(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parsePassProb(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
		case err != nil:
			t.Errorf("parsePassProb(%q): %v", tc.in, err)
		case !maps.Equal(got, tc.want):
			t.Errorf("parsePassProb(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
