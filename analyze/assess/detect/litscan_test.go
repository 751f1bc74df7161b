package detect

import (
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

// checkLitScan fails t where the automaton's answer for text differs from
// strings.Contains literal by literal.
func checkLitScan(t *testing.T, lits []string, text string) {
	t.Helper()
	l := newLitScan(lits)
	if l == nil {
		t.Fatalf("%q: no automaton", lits)
	}
	found := make([]uint64, l.words())
	scanText(l, text, found)
	for id, lit := range lits {
		if got, want := has(found, uint16(id)), strings.Contains(text, lit); got != want {
			t.Errorf("literals %q, text %q: %q found %v, strings.Contains says %v", lits, text, lit, got, want)
		}
	}
}

func TestLitScan(t *testing.T) {
	tests := []struct {
		name string
		lits []string
		text string
	}{
		{"none", []string{"error:", "FAILED"}, "all good"},
		{"one", []string{"error:", "FAILED"}, "x error: y"},
		{"both, at the ends", []string{"error:", "FAILED"}, "FAILED … error:"},
		{"a literal inside another", []string{"he", "she", "hers", "his"}, "ushers"},
		{"suffix found through a failure link", []string{"abcd", "bc"}, "abce"},
		{"prefix of a literal only", []string{"error[E"}, "error[ error"},
		{"repeated first bytes", []string{"aab"}, "aaaaaab"},
		{"the text is the literal", []string{"ok  \t"}, "ok  \t"},
		{"empty text", []string{"x"}, ""},
		{"multi-byte", []string{"✖ ", "✔ Test run"}, "✔ Test run with 3 tests passed ✖"},
		{"bytes no literal holds", []string{"abc"}, "\x00\xff\x80abc\xfe"},
		{"the default tool rules' literals", toolLiterals(t), "test result: FAILED. 1 passed; 2 failed\nerror[E0308]: mismatched types\n--- FAIL: TestX\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkLitScan(t, tt.lits, tt.text) })
	}
}

func TestLitScanBounds(t *testing.T) {
	if newLitScan(nil) != nil {
		t.Error("an automaton of no literal")
	}
	many := make([]string, maxScanLits+1)
	for i := range many {
		many[i] = strings.Repeat("x", i+1)
	}
	if newLitScan(many) != nil {
		t.Errorf("an automaton of %d literals (bound %d)", len(many), maxScanLits)
	}
	var every strings.Builder // a literal of every byte but one: 255 classes and class 0
	for c := range 255 {
		every.WriteByte(byte(c + 1))
	}
	checkLitScan(t, []string{every.String()[:254]}, every.String())
	if newLitScan([]string{every.String()}) != nil {
		t.Error("an automaton of 255 byte classes and class 0")
	}
	long := strings.Repeat("ab", maxScanStates/2) // more states than a uint16 numbers
	if newLitScan([]string{long}) != nil {
		t.Errorf("an automaton of a %d-byte literal (bound %d states)", len(long), maxScanStates)
	}
	var wide []string // 128 literals of 64 bytes over 200 byte classes: up to 8,193 states × 201
	for i := range 128 {
		var b strings.Builder
		for j := range 64 {
			b.WriteByte(byte(1 + (i*64+j)%200))
		}
		wide = append(wide, b.String())
	}
	if newLitScan(wide) != nil {
		t.Errorf("an automaton of more than %d transitions", maxScanTable)
	}
	checkLitScan(t, wide[:16], wide[3]+wide[7]) // 16 of them fit: 1,025 states × 201
}

// toolLiterals returns the distinct literals of the default tool rules.
func toolLiterals(t *testing.T) []string {
	t.Helper()
	return MustCompile(DefaultConfig()).tools.lits
}

func FuzzLitScan(f *testing.F) {
	f.Add("he\x00she\x00hers", "ushers")
	f.Add("error:\x00FAILED\x00error[E", "error[E0308] FAILED")
	f.Add("aab\x00ab\x00b", "aaaab")
	f.Fuzz(func(t *testing.T, joined, text string) {
		var lits []string
		seen := map[string]bool{}
		for _, l := range strings.Split(joined, "\x00") {
			if l != "" && !seen[l] && len(lits) < 64 {
				seen[l] = true
				lits = append(lits, l)
			}
		}
		if len(lits) == 0 {
			return
		}
		l := newLitScan(lits)
		if l == nil {
			return // beyond the bounds (255 byte classes): the rules search one by one
		}
		checkLitScan(t, lits, text)
	})
}

// checkOnePass fails t where the default rules read text differently with their
// literals found in one pass than with strings.Contains, at every status.
func checkOnePass(t *testing.T, c *ToolClassifier, text string) {
	t.Helper()
	oneByOne := *c
	oneByOne.scan = nil
	for _, st := range []analyze.ToolStatus{analyze.ToolStatusUnknown, analyze.ToolStatusOK, analyze.ToolStatusError} {
		got, want := c.textSignals(nil, text, st), oneByOne.textSignals(nil, text, st)
		if !slices.Equal(got, want) {
			t.Errorf("status %v, text %.80q…: one pass %v, one literal at a time %v", st, text, got, want)
		}
	}
}

func TestOnePassReadsAsContains(t *testing.T) {
	c := MustCompile(DefaultConfig()).tools
	if c.scan == nil {
		t.Fatal("the default rules have no automaton")
	}
	texts := []string{
		"",
		"test result: FAILED. 1 passed; 2 failed\n",
		"error[E0308]: mismatched types\n  --> src/main.rs:4:18\nerror: could not compile `x`\n",
		"--- FAIL: TestX (0.00s)\nFAIL\tgithub.com/x/y\t0.1s\n",
		"ok  \tgithub.com/x/y\t0.1s\n",
		"=========== 2 failed, 3 passed in 0.12s ===========\n",
		"Tests:       1 failed, 4 passed, 5 total\n",
		"[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS\n",
		"Executed 3 tests, with 1 failure (0 unexpected) in 0.1 seconds\n",
		"make: *** [all] Error 2\n",
		"3 issues:\n* errcheck: 1\n",
		"    Finished `release` profile [optimized] target(s) in 41.3s\n",
		"src/a.ts(12,5): error TS2345: Argument of type 'string'\n",
		"✖ 3 problems (2 errors, 1 warning)\n",
		"warning: unused\nerror: aborting\n",
		strings.Repeat("error error error ", 2000),
		strings.Repeat("2026-01-01T00:00:00Z ERROR request failed: error=timeout\n", 500),
	}
	for _, text := range texts {
		checkOnePass(t, c, text)
	}
}

func FuzzOnePass(f *testing.F) {
	c := MustCompile(DefaultConfig()).tools
	f.Add("test result: FAILED\nerror[E0308]")
	f.Add("Tests run: 1, Failures: 1, Errors: 0\nBUILD FAILURE")
	f.Fuzz(func(t *testing.T, text string) { checkOnePass(t, c, text) })
}
