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
	var sets [][][]byte
	for _, strs := range requiredSets(src, false) {
		set := make([][]byte, len(strs))
		for i, l := range strs {
			set[i] = []byte(l)
		}
		sets = append(sets, set)
	}
	return sets
}

// requiredSets returns literal sets such that every match of the pattern contains,
// for each set, one of its literals; nil if none can be derived. With exact the
// literals are as the pattern writes them, for a text searched as it is, and a
// case-folded literal yields none; otherwise they are ASCII-lower-cased, for a text
// lower-cased the same way. For a top-level concatenation every part contributes its
// own set.
func requiredSets(src string, exact bool) [][]string {
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
	var sets [][]string
	for _, part := range parts {
		strs, ok := required(part, exact)
		if !ok || len(strs) == 0 || slices.Contains(strs, "") {
			continue
		}
		sets = append(sets, strs)
	}
	return sets
}

// required returns literals one of which every match of re contains (see
// requiredSets for exact), and whether any could be derived.
func required(re *syntax.Regexp, exact bool) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		if fold && exact {
			return nil, false // the text is not case-folded
		}
		var b strings.Builder
		for _, r := range re.Rune {
			if fold && r >= utf8.RuneSelf {
				return nil, false // ASCII lower-casing cannot follow Unicode folding
			}
			if r == utf8.RuneError {
				return nil, false // it also matches a byte that is not UTF-8, which holds no U+FFFD
			}
			b.WriteRune(r)
		}
		if exact {
			return []string{b.String()}, true
		}
		return []string{lowerASCII(b.String())}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0], exact)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0], exact)
		}
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l, ok := required(sub, exact)
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
			l, ok := required(sub, exact)
			if ok && better(l, best) {
				best = l
			}
		}
		return best, best != nil
	}
	return nil, false
}

// byteSet is a set of bytes, or every byte (all).
type byteSet struct {
	bits [4]uint64
	all  bool
}

func (s *byteSet) add(c byte) { s.bits[c>>6] |= 1 << (c & 63) }

func (s *byteSet) has(c byte) bool { return s.all || s.bits[c>>6]&(1<<(c&63)) != 0 }

func (s *byteSet) union(o byteSet) {
	s.all = s.all || o.all
	for i := range s.bits {
		s.bits[i] |= o.bits[i]
	}
}

// addRune adds the first UTF-8 byte of r; with fold, of its ASCII case twin too.
// Non-ASCII runes add every byte from 0x80 up (their first bytes).
func (s *byteSet) addRune(r rune, fold bool) {
	if r >= utf8.RuneSelf {
		for c := 0x80; c < 0x100; c++ {
			s.add(byte(c))
		}
		return
	}
	s.add(byte(r))
	if fold {
		switch {
		case 'a' <= r && r <= 'z':
			s.add(byte(r - 'a' + 'A'))
		case 'A' <= r && r <= 'Z':
			s.add(byte(r - 'A' + 'a'))
		}
	}
	if fold && (r == 'k' || r == 'K' || r == 's' || r == 'S') {
		// K and s fold onto the Kelvin sign and the long s.
		for c := 0x80; c < 0x100; c++ {
			s.add(byte(c))
		}
	}
}

// first returns the bytes a match of re can start with, and whether re matches the
// empty string. Zero-width assertions are transparent.
func first(re *syntax.Regexp) (set byteSet, nullable bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return set, true
		}
		set.addRune(re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return set, false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if r >= utf8.RuneSelf {
					set.addRune(r, false)
					break
				}
				set.add(byte(r))
			}
		}
		return set, false
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		set.all = true
		return set, false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return set, true
	case syntax.OpCapture:
		return first(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		set, _ = first(re.Sub[0])
		return set, true
	case syntax.OpPlus:
		return first(re.Sub[0])
	case syntax.OpRepeat:
		set, nullable = first(re.Sub[0])
		return set, nullable || re.Min == 0
	case syntax.OpConcat:
		return firstOfSeq(re.Sub, byteSet{}, true)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, n := first(sub)
			set.union(s)
			nullable = nullable || n
		}
		return set, nullable
	}
	set.all = true
	return set, true
}

// firstOfSeq is first of a sequence of expressions followed by what after holds
// (afterNullable: nothing need follow).
func firstOfSeq(seq []*syntax.Regexp, after byteSet, afterNullable bool) (set byteSet, nullable bool) {
	for _, e := range seq {
		s, n := first(e)
		set.union(s)
		if !n {
			return set, false
		}
	}
	set.union(after)
	return set, afterNullable
}

// startLit is a literal a match starts with, and the bytes that can follow it in a
// match (every byte when the match may end right after it).
type startLit struct {
	lit    []byte
	follow byteSet
}

// startLiterals returns the literals (lower-cased) one of which every match of re
// starts with, each with the bytes that may follow it given that after (or, with
// afterNullable, nothing) follows re; nil when they cannot be derived.
func startLiterals(re *syntax.Regexp, after byteSet, afterNullable bool) []startLit {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && r >= utf8.RuneSelf || r == utf8.RuneError { // see required
				return nil
			}
		}
		follow := after
		if afterNullable {
			follow.all = true
		}
		return []startLit{{lit: []byte(lowerASCII(string(re.Rune))), follow: follow}}
	case syntax.OpCapture:
		return startLiterals(re.Sub[0], after, afterNullable)
	case syntax.OpPlus, syntax.OpRepeat:
		if re.Op == syntax.OpRepeat && re.Min < 1 {
			return nil
		}
		return startLiterals(re.Sub[0], byteSet{all: true}, true)
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil
		}
		rest, n := firstOfSeq(re.Sub[1:], after, afterNullable)
		return startLiterals(re.Sub[0], rest, n)
	case syntax.OpAlternate:
		var all []startLit
		for _, sub := range re.Sub {
			l := startLiterals(sub, after, afterNullable)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

// anchoredForm returns, for a pattern that starts (after its flags) with \b and then
// a literal whose every alternative begins with an ASCII letter or digit, the source
// of the same pattern anchored at the start without that \b, and the literals a
// match starts with (with the bytes that may follow each). A match of the pattern is
// then exactly a match of the anchored form at a position where one of the literals
// occurs, followed by one of its bytes, and the character before is not a word
// character. ok is false for other patterns.
func anchoredForm(src string) (anchored string, starts []startLit, ok bool) {
	body := stripLeadingFlags(src)
	if !strings.HasPrefix(body, `\b`) {
		return "", nil, false
	}
	flags, rest := src[:len(src)-len(body)], body[len(`\b`):]
	re, err := syntax.Parse(flags+rest, syntax.Perl)
	if err != nil {
		return "", nil, false
	}
	starts = startLiterals(re.Simplify(), byteSet{}, true)
	if len(starts) == 0 {
		return "", nil, false
	}
	for _, s := range starts {
		if len(s.lit) == 0 || !isASCIIWordByte(s.lit[0]) {
			return "", nil, false
		}
	}
	return flags + `^(?:` + rest + `)`, starts, true
}

func isASCIIWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
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

// litTable holds the distinct prefilter literals of a matcher's patterns, so a
// message is searched once for each however many patterns share it.
type litTable struct {
	lits  [][]byte
	index map[string]uint16
	// scan finds every literal in one pass over the lowered message (see litScan),
	// rather than one search a literal. nil when the literals exceed its bounds:
	// then each is searched for alone. Set by seal.
	scan *litScan
}

// maxLits bounds the literals whose presence a foldedText records; a matcher with
// more runs every pattern without prefilter.
const maxLits = 512

// add returns the index of literal l, adding it.
func (tb *litTable) add(l []byte) uint16 {
	if i, ok := tb.index[string(l)]; ok {
		return i
	}
	if tb.index == nil {
		tb.index = map[string]uint16{}
	}
	i := uint16(len(tb.lits))
	tb.index[string(l)] = i
	tb.lits = append(tb.lits, l)
	return i
}

// seal builds the table's one-pass scan, once every literal is added (they are
// never empty: requiredSets drops a set holding the empty string).
func (tb *litTable) seal() {
	if len(tb.lits) > maxLits {
		return
	}
	lits := make([]string, len(tb.lits))
	for i, l := range tb.lits {
		lits[i] = string(l)
	}
	tb.scan = newLitScan(lits)
}

// foldedText is a message ASCII-lower-cased for the prefilters, and which of the
// matcher's literals it contains. When the text holds a rune that Unicode case
// folding maps onto ASCII (the Kelvin sign K, the long s ſ), the prefilters are off
// and every pattern runs.
type foldedText struct {
	lower   []byte
	off     bool
	present [maxLits / 64]uint64
}

// foldText lower-cases s into *buf, growing it when needed, and records which
// literals of tb it contains.
func foldText(s []byte, buf *[]byte, tb *litTable) foldedText {
	if len(tb.lits) > maxLits || bytes.Contains(s, []byte("\u212A")) || bytes.Contains(s, []byte("\u017F")) {
		return foldedText{off: true}
	}
	b := (*buf)[:0]
	for _, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	*buf = b
	ft := foldedText{lower: b}
	if tb.scan != nil {
		scanText(tb.scan, b, ft.present[:tb.scan.words()])
		return ft
	}
	for i, l := range tb.lits {
		if bytes.Contains(b, l) {
			ft.present[i>>6] |= 1 << (i & 63)
		}
	}
	return ft
}

// mayMatch reports whether a pattern with the given literal sets (indices into the
// matcher's litTable) can match: each set must have a literal in the text.
func (t *foldedText) mayMatch(sets [][]uint16) bool {
	if t.off {
		return true
	}
	for _, set := range sets {
		found := false
		for _, i := range set {
			if has(t.present[:], i) {
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
