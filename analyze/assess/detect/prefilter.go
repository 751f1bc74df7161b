package detect

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Go's regexp runs a case-insensitive pattern at some 30 ns per byte, and a human
// message meets two dozen patterns. Most messages match none, so each pattern gets a
// prefilter: a set of literals one of which every match must contain, derived from
// the pattern's syntax tree. The message is ASCII-lower-cased once, and a pattern
// runs only if one of its literals occurs in it. The prefilter is a necessary
// condition, never a substitute: a pattern whose literals cannot be derived always
// runs.

// requiredLiterals returns literal sets such that every match of the pattern
// contains, for each set, one of its (lower-cased) literals; nil if none can be
// derived. For a top-level concatenation every part contributes its own set.
func requiredLiterals(src string) [][][]byte {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	var sets [][][]byte
	for _, part := range parts {
		strs, ok := required(part)
		if !ok || len(strs) == 0 || slices.Contains(strs, "") {
			continue
		}
		set := make([][]byte, len(strs))
		for i, l := range strs {
			set[i] = []byte(l)
		}
		sets = append(sets, set)
	}
	return sets
}

func required(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		var b strings.Builder
		for _, r := range re.Rune {
			if fold && r >= utf8.RuneSelf {
				return nil, false // ASCII lower-casing cannot follow Unicode folding
			}
			b.WriteRune(r)
		}
		return []string{lowerASCII(b.String())}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, l...)
		}
		return all, true
	case syntax.OpConcat:
		// Any sub-expression's literals are required; keep the most selective set
		// (the longest shortest literal, then the fewest literals).
		var best []string
		for _, sub := range re.Sub {
			l, ok := required(sub)
			if ok && better(l, best) {
				best = l
			}
		}
		return best, best != nil
	}
	return nil, false
}

func better(a, b []string) bool {
	if b == nil {
		return true
	}
	ma, mb := minLen(a), minLen(b)
	return ma > mb || ma == mb && len(a) < len(b)
}

func minLen(l []string) int {
	m := -1
	for _, s := range l {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return m
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// foldedText is a message ASCII-lower-cased for the prefilters. When the text holds
// a rune that Unicode case folding maps onto ASCII (the Kelvin sign K, the long s ſ),
// the prefilters are off and every pattern runs.
type foldedText struct {
	lower []byte
	off   bool
}

// foldText lower-cases s into buf when it fits, allocating otherwise.
func foldText(s string, buf []byte) foldedText {
	if strings.Contains(s, "\u212A") || strings.Contains(s, "\u017F") {
		return foldedText{off: true}
	}
	b := buf[:0]
	if cap(b) < len(s) {
		b = make([]byte, 0, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return foldedText{lower: b}
}

// mayMatch reports whether a pattern with the given literal sets can match: each
// set must have a literal in the text.
func (t *foldedText) mayMatch(sets [][][]byte) bool {
	if t.off {
		return true
	}
	for _, set := range sets {
		found := false
		for _, l := range set {
			if bytes.Contains(t.lower, l) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
