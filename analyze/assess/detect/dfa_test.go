package detect

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// checkMatcher returns a check that fails t where the automaton of expr and regexp
// disagree on a text.
func checkMatcher(t *testing.T, expr string) func(text string) {
	t.Helper()
	m, re := newMatcher(expr), regexp.MustCompile(expr)
	if m == nil {
		t.Fatalf("%s: no automaton", expr)
	}
	return func(text string) {
		t.Helper()
		if got, want := m.match(text), re.MatchString(text); got != want {
			t.Errorf("%s on %q: automaton %v, regexp %v", expr, text, got, want)
		}
	}
}

func TestMatcher(t *testing.T) {
	exprs := []string{
		"error\\[E\\d{4}\\]|error: could not compile `",
		`(?m)^=+ (?:.*, )?\d+ (?:failed|errors?)\b.* in [\d.]+m?s\b`,
		`(?m)^Tests:\s+(?:\d+ \w+, )*\d+ failed`,
		`\bok\b`, `\Bk`, `^a`, `a$`, `(?m)a$`, `\Aa\z`, `^$`, `(?m)^$`, `x*`, `(?i)straße`, `(?i)k`,
		`✖ \d+ problems? \([1-9]\d* errors?`, `[^\n]+z`, `.z`, `(?s).z`, `é|ü+`, `\p{Greek}+\d`,
	}
	texts := []string{"", "a", "\n", "ok", "okay", "k", "K", "\u212a", "error[E0308]: x", "error[E03", "error: could not compile `x`",
		"=== 1 failed, 2 passed in 0.12s ===", "x\n=== 2 errors in 1.5s\n", "=== 1 failed in ", "Tests:  1 passed, 2 failed",
		"✖ 3 problems (1 error", "STRASSE", "Straße", "\xff\xfez", "\nz", "a\n", "é", "üüü", "ab1", "\xe2\x9c", "αβ1", "Ω2"}
	for _, e := range exprs {
		forPairs(texts, checkMatcher(t, e))
	}
}

func TestMatcherBounds(t *testing.T) {
	if newMatcher(`\pL+\d`) != nil {
		t.Errorf("an automaton of more than %d rune classes", maxDFAClasses)
	}
	if newMatcher(`(`) != nil {
		t.Error("an automaton of a pattern that does not parse")
	}
	// (a|b)*a(a|b){12}: the automaton must remember 13 runes, 8,192 states.
	if newMatcher(`[ab]*a[ab]{12}`) != nil {
		t.Errorf("an automaton beyond %d states", maxDFAStates)
	}
	checkMatcher(t, `[ab]*a[ab]{6}`)(strings.Repeat("ab", 20) + "a" + "bbbbbb")
	// 500 states of 500 partial matches each: more work than building one may take.
	if newMatcher(`(?s).{500}z`) != nil {
		t.Errorf("an automaton built with more than %d steps", maxDFAWork)
	}
}

// TestDefaultRulesHaveAutomata: every default tool rule's pattern has one, built
// when the rules are compiled, before any output is read.
func TestDefaultRulesHaveAutomata(t *testing.T) {
	n := 0
	for _, r := range MustCompile(DefaultConfig()).tools.rules {
		if r.match.re == nil {
			continue
		}
		n++
		if r.match.auto == nil {
			t.Errorf("%s: no automaton for %s", r.name, r.match.re)
		}
	}
	if n < 25 {
		t.Errorf("%d default tool rules have a pattern, want at least 25", n)
	}
}

func FuzzMatcher(f *testing.F) {
	f.Add(`(?m)^=+ (?:.*, )?\d+ (?:failed|errors?)\b.* in [\d.]+m?s\b`, "=== 1 failed in 2s")
	f.Add(`\bok\b`, "ok\n")
	f.Add(`(?i)k$`, "\u212a")
	f.Add(`a|b*`, "")
	f.Fuzz(func(t *testing.T, expr, text string) {
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		m := newMatcher(expr)
		if m == nil {
			return // beyond the bounds: regexp runs it
		}
		if got, want := m.match(text), re.MatchString(text); got != want {
			t.Fatalf("%s on %q: automaton %v, regexp %v", expr, text, got, want)
		}
	})
}

// TestMatchBuildsOnce: goroutines that meet a compiled match first at once share
// the one automaton built, and agree (go test -race).
func TestMatchBuildsOnce(t *testing.T) {
	c, err := TextMatch{Regexp: `error\[E\d{4}\]`}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"error[E0308]: x", "error[E03", strings.Repeat("error[E ", 5000) + "error[E0001]"}
	var wg sync.WaitGroup
	got := make([][]bool, 8)
	for g := range got {
		wg.Go(func() {
			for _, s := range texts {
				got[g] = append(got[g], c.Match(s))
			}
		})
	}
	wg.Wait()
	for g := range got {
		if !slices.Equal(got[g], []bool{true, false, true}) {
			t.Errorf("goroutine %d: %v", g, got[g])
		}
	}
	if c.auto == nil {
		t.Error("no automaton was built")
	}
}
