// Package inputtest checks the problems a source reported, for the sources' tests. It
// is imported by tests only.
package inputtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/replay/input"
)

// Problems checks that got holds the problems want describes, one each and in order:
// "LINE:KIND PART", where PART is a part of the problem's detail ("" for any).
func Problems(t testing.TB, got []input.Problem, want []string) {
	t.Helper()
	check(t, got, want, func(p input.Problem) string { return fmt.Sprintf("%d:%s", p.Line, p.Kind) })
}

// ProblemsInFiles is [Problems] with the file first: "FILE:LINE:KIND PART".
func ProblemsInFiles(t testing.TB, got []input.Problem, want []string) {
	t.Helper()
	check(t, got, want, func(p input.Problem) string { return fmt.Sprintf("%s:%d:%s", p.File, p.Line, p.Kind) })
}

func check(t testing.TB, got []input.Problem, want []string, where func(input.Problem) string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("problems %v, want %q", got, want)
	}
	for i, p := range got {
		at, part, _ := strings.Cut(want[i], " ")
		if where(p) != at || !strings.Contains(p.Detail, part) {
			t.Errorf("problem %v, want %q", p, want[i])
		}
	}
}
