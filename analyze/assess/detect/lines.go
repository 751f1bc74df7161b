package detect

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// A tool rule's pattern is run over up to ToolConfig.ScanBytes of a tool's output,
// and Go's regexp tries it at every byte. Many of the toolchain rules can only match
// at the start of a line that opens with a known literal — `(?m)^=+ …` (pytest),
// `(?m)^Found \d+ errors?…` (ruff, mypy), `(?m)^Tests:…` (jest) — so such a pattern
// is tried only there: at each line start followed by one of the literals, anchored.
// That is the same answer, not an approximation: every match of the pattern begins at
// a line start (each of its alternatives opens with a multi-line ^), so it matches the
// text exactly when it matches, anchored, the rest of the text from one of those line
// starts; what the pattern's assertions see there — ^ true, a word boundary after a
// non-word character — is what they see in the whole text, and nothing after it
// changes.

// lineStarts runs a pattern whose every match begins at a line start, opening with
// one of prefixes, from those line starts only.
type lineStarts struct {
	anchored *regexp.Regexp // the pattern, anchored at the text's start: \A(?:pattern)
	prefixes []string       // every match begins with one of them
}

// newLineStarts returns the line-start runner of the pattern expr, or nil when the
// pattern is not one whose every alternative opens with a multi-line ^ and then one
// of a few literals (the pattern is then run as it is).
func newLineStarts(expr string) *lineStarts {
	t, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	t = t.Simplify()
	for t.Op == syntax.OpCapture {
		t = t.Sub[0]
	}
	if hasOp(t, syntax.OpBeginText) { // \A would hold at every line start tried
		return nil
	}
	branches := []*syntax.Regexp{t}
	if t.Op == syntax.OpAlternate {
		branches = t.Sub
	}
	var prefixes []string
	for _, b := range branches {
		if b.Op != syntax.OpConcat || len(b.Sub) < 2 || b.Sub[0].Op != syntax.OpBeginLine {
			return nil
		}
		first := b.Sub[1]
		for first.Op == syntax.OpPlus || first.Op == syntax.OpRepeat && first.Min >= 1 { // x+ opens with x
			first = first.Sub[0]
		}
		p := prefixesOf(first)
		if len(p) == 0 || len(prefixes)+len(p) > 16 {
			return nil
		}
		prefixes = append(prefixes, p...)
	}
	anchored, err := regexp.Compile(`\A(?:` + expr + `)`)
	if err != nil { // the pattern does not survive being wrapped (a trailing \Q): run it as it is
		return nil
	}
	return &lineStarts{anchored: anchored, prefixes: prefixes}
}

// hasOp reports whether op occurs anywhere in t.
func hasOp(t *syntax.Regexp, op syntax.Op) bool {
	if t.Op == op {
		return true
	}
	for _, s := range t.Sub {
		if hasOp(s, op) {
			return true
		}
	}
	return false
}

// match reports whether the pattern matches s.
func (l *lineStarts) match(s string) bool {
	for _, p := range l.prefixes {
		if strings.HasPrefix(s, p) && l.anchored.MatchString(s) {
			return true
		}
		for i := 0; ; {
			j := strings.Index(s[i:], "\n"+p)
			if j < 0 {
				break
			}
			i += j + 1
			if l.anchored.MatchString(s[i:]) {
				return true
			}
		}
	}
	return false
}
