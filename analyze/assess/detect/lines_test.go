package detect

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// linePatterns are patterns run from line starts (lines true) or as they are, each
// for a reason in its comment.
var linePatterns = []struct {
	expr  string
	lines bool
}{
	{`(?m)^=+ (?:.*, )?\d+ (?:failed|errors?)\b.* in [\d.]+m?s\b`, true}, // pytest: x+ opens with x
	{`(?m)^Found \d+ errors? (?:in \d+ files?|\()|(?m)^Found \d+ errors?\.$`, true},
	{`(?m)^Ran \d+ tests? in [\d.]+s\s+OK\b`, true}, // a match that runs over lines
	{`(?m)^[1-9]\d* issues?:$`, true},               // a class of first characters
	{`(?m)^(?:ab|cd)x|(?m)^e{2,}f`, true},
	{`(?m)^(Found) (\d+)`, true},
	{`(?m)^\bgo\b`, false},                                          // no literal after the ^
	{`(?m)^\s*Tests\s+\d+ failed`, false},                           // nor here
	{`(?m)^a*b`, false},                                             // a* may be empty
	{`(?m)^Failed!\s+-\s+Failed:\s+[1-9]|Test Run Failed\.`, false}, // an alternative not at a line start
	{`(?mi)^found`, false},                                          // case folded
	{`^Found`, false},                                               // not multi-line: the text's start
	{`(?m)^Found|\Afoo`, false},                                     // \A would hold at every line start
	{`(?m)^Found\b.*$`, true},
	{`(?m)^é+\d`, true},
}

// lineTexts are texts the patterns are matched against, and the parts the random
// texts are made of.
var lineTexts = []string{
	"", "\n", "\n\n\n", "Found 3 errors in 2 files", "x\nFound 3 errors.", "Found 3 errors.\n",
	"  Found 3 errors.", "\r\nFound 1 error (", "Found\n", "Found 12", "== 1 failed, 2 passed in 0.12s ==",
	"foo\n=== 2 failed in 3s", "=\n= 2 failed in 3s", "Ran 3 tests in 0.1s\n\nOK", "Ran 3 tests in 0.1s\n\nFAILED",
	"Ran 1 test in 2s OK", "12 issues:", "x12 issues:", "0 issues:", "ab\ncdx", "abx", "eef", "ef", "e\neef",
	"aab", "aa\nab", "b", "go", " go", "Tests 3 failed", "  Tests 3 failed", "Test Run Failed.",
	"Failed! - Failed: 2", "found", "FOUND", "foo", "x\nfoo", "é\néé1", "é1", "\xff\nFound 1 error.",
}

// TestLineStarts: a pattern run from its line starts finds what the pattern finds run
// everywhere, on every text; the patterns that may be run so are, and only those.
func TestLineStarts(t *testing.T) {
	for _, p := range linePatterns {
		c, err := TextMatch{Regexp: p.expr}.Compile()
		if err != nil {
			t.Fatal(err)
		}
		if (c.lines != nil) != p.lines {
			t.Errorf("%s: run from line starts %v, want %v", p.expr, c.lines != nil, p.lines)
		}
		re := regexp.MustCompile(p.expr)
		check := func(s string) {
			want := re.MatchString(s)
			if got := c.Match(s); got != want {
				t.Errorf("%s on %q: %v, the pattern %v", p.expr, s, got, want)
			}
			// Match reads the automaton first: the line starts are its fallback.
			if c.lines != nil && c.lines.match(s) != want {
				t.Errorf("%s on %q from its line starts: %v, the pattern %v", p.expr, s, !want, want)
			}
		}
		forPairs(lineTexts, check)
	}
}

// forPairs calls check on each text, and on each pair of them joined as they are and
// across a line break.
func forPairs(texts []string, check func(string)) {
	for _, a := range texts {
		check(a)
		for _, b := range texts {
			check(a + b)
			check(a + "\n" + b)
		}
	}
}

// TestDefaultRulesByLine: the toolchain rules whose patterns can be run from their line
// starts are.
func TestDefaultRulesByLine(t *testing.T) {
	n := 0
	for _, r := range DefaultExtraToolRules() {
		c, err := r.TextMatch.Compile()
		if err != nil {
			t.Fatal(err)
		}
		if c.lines != nil {
			n++
		}
		if r.Name == "pytest.test_failure" && c.lines == nil {
			t.Errorf("%s is run everywhere", r.Name)
		}
	}
	if n < 8 {
		t.Errorf("%d of the toolchain rules are run from line starts, want at least 8", n)
	}
}

func FuzzLineStarts(f *testing.F) {
	for i, s := range lineTexts {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, i uint8, s string) {
		p := linePatterns[int(i)%len(linePatterns)]
		c, err := TextMatch{Regexp: p.expr}.Compile()
		if err != nil {
			t.Fatal(err)
		}
		want := regexp.MustCompile(p.expr).MatchString(s)
		if got := c.Match(s); got != want {
			t.Fatalf("%s on %q: %v, the pattern %v", p.expr, s, got, want)
		}
		if c.lines != nil && c.lines.match(s) != want {
			t.Fatalf("%s on %q from its line starts: %v, the pattern %v", p.expr, s, !want, want)
		}
	})
}

// BenchmarkToolRuleLog: the pytest failure rule over a 64 KiB test log, as Match runs it
// (its literal gates, then its automaton), from its line starts, and everywhere by regexp.
func BenchmarkToolRuleLog(b *testing.B) {
	var log strings.Builder
	for log.Len() < 64<<10 {
		log.WriteString("tests/test_api.py::test_get_user PASSED [ 12%] error handling ok\n")
	}
	log.WriteString("=========== 1 failed, 310 passed in 4.21s ===========\n")
	s := log.String()
	expr := `(?m)^=+ (?:.*, )?\d+ (?:failed|errors?)\b.* in [\d.]+m?s\b`
	c, _ := TextMatch{Regexp: expr}.Compile()
	re := regexp.MustCompile(expr)
	b.Run("match", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			if !c.Match(s) {
				b.Fatal("no match")
			}
		}
	})
	b.Run("line-starts", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			if !c.lines.match(s) {
				b.Fatal("no match")
			}
		}
	})
	b.Run("everywhere", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			if !re.MatchString(s) {
				b.Fatal("no match")
			}
		}
	})
}

func TestRequiredSetsExact(t *testing.T) {
	tests := []struct {
		src  string
		want [][]string
	}{
		{"error\\[E\\d{4}\\]|error: could not compile `", [][]string{{"error"}, {"[E", ": could not compile `"}}},
		{`Build FAILED\.|error CS\d{4}: `, [][]string{{"Build FAILED.", "error CS"}}},
		{`(?m)^Tests:\s+(?:\d+ \w+, )*\d+ failed`, [][]string{{"Tests:"}, {" failed"}}},
		{`(?i)BUILD SUCCESS`, nil}, // folded: the text is searched as it is
		{`\d+ passed`, [][]string{{" passed"}}},
		{`x*|y`, nil},
		{`ab\x{FFFD}c|d`, nil}, // U+FFFD matches a byte that is not UTF-8 too
	}
	for _, tt := range tests {
		if got := requiredSets(tt.src, true); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.src, got, tt.want)
		}
	}
}

// FuzzRuleGates: a default tool rule's pattern, behind the literals derived from it,
// matches exactly where the pattern alone does.
func FuzzRuleGates(f *testing.F) {
	var exprs []string
	for _, r := range append(SeedToolRules(), DefaultExtraToolRules()...) {
		if r.TextMatch.Regexp != "" {
			exprs = append(exprs, r.TextMatch.Regexp)
		}
	}
	f.Add(uint8(0), "error[E0308]: mismatched types")
	f.Add(uint8(1), "Tests:       1 failed, 4 passed, 5 total")
	f.Add(uint8(2), "x.go:12:5: undefined: y")
	exprs = append(exprs, `error\x{FFFD}\d`)
	f.Add(uint8(len(exprs)-1), "error\xff1")
	f.Fuzz(func(t *testing.T, i uint8, s string) {
		expr := exprs[int(i)%len(exprs)]
		c, err := TextMatch{Regexp: expr}.Compile()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.Match(s), regexp.MustCompile(expr).MatchString(s); got != want {
			t.Fatalf("%s on %q: %v, the pattern alone %v (gates %q)", expr, s, got, want, c.need)
		}
	})
}
