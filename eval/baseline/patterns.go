package baseline

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The patterns vibes ships (its PatternConfig default), in the regex crate's syntax.
var (
	vibesNegativeSources = [...]string{
		`(?i)\berror\b`, `(?i)\bfailed\b`, `(?i)\bfrustrat`, `(?i)\bconfus`, `(?i)\bwrong\b`,
		`(?i)\bbroken\b`, `(?i)\bnot\s+work`, `(?i)\bdoesn't\s+work`, `(?i)\bcan't\b`, `(?i)\bwon't\b`,
	}
	vibesPositiveSources = [...]string{
		`(?i)\bthank`, `(?i)\bperfect\b`, `(?i)\bexcellent\b`, `(?i)\bgreat\b`, `(?i)\bworks?\b`,
		`(?i)\bsuccess`, `(?i)\bcomplete`, `(?i)\bdone\b`,
	}
)

// VibesPatterns returns the 10 negative and 8 positive patterns vibes ships, in the
// regex crate's syntax, as vibes writes them.
func VibesPatterns() (negative, positive []string) {
	return append([]string(nil), vibesNegativeSources[:]...), append([]string(nil), vibesPositiveSources[:]...)
}

// vibesPattern is one shipped pattern compiled for Go with the regex crate's meaning.
type vibesPattern struct {
	source  string         // as vibes writes it
	re      *regexp.Regexp // the same language in Go's syntax
	literal string         // lower-case ASCII text every match contains once folded (a prefilter)
	// rest is the word after its literal, and trailing whether a word boundary
	// ends it: what matchesAt reads from each place the literal occurs.
	rest     []vibesToken
	trailing bool
}

// vibesToken is one item of a pattern's word after its literal: a lower-case ASCII
// letter or an apostrophe, that letter made optional by a `?`, or (c == 0) `\s+`.
type vibesToken struct {
	c        byte
	optional bool
}

// matches reports whether p matches text; folded is [prefilterFold] of text, which
// holds p's literal wherever text matches.
func (p vibesPattern) matches(text, folded string) bool {
	return strings.Contains(folded, p.literal) && p.re.MatchString(text)
}

// matchesAt reports whether p matches the text folded is [vibesFold] of, as matches
// does. The regular expression would search the text from its first byte for each
// pattern; matchesAt reads only where p's literal occurs: the character before it,
// and the rest of the word and the character after it (a whitespace run for `\s+`).
// Lowering ASCII letters makes no word character a non-word one, nor white space, so
// folded alone is read. On text without ſ and the Kelvin sign a letter of the pattern
// matches one ASCII byte, and an ASCII byte always begins a character, so the word
// is found the same way whatever the text is; FuzzVibesHits holds the two to each
// other.
func (p vibesPattern) matchesAt(folded string) bool {
	for off := 0; ; {
		k := strings.Index(folded[off:], p.literal)
		if k < 0 {
			return false
		}
		j := off + k
		if j == 0 || !isVibesWord(lastRune(folded[:j])) {
			if p.restAt(folded, j+len(p.literal), 0) {
				return true
			}
		}
		off = j + 1
	}
}

// restAt reports whether p.rest[k:], and then the word boundary when p has one,
// match folded from byte i.
func (p vibesPattern) restAt(folded string, i, k int) bool {
	for ; k < len(p.rest); k++ {
		t := p.rest[k]
		switch {
		case t.c == 0: // \s+, greedy: a letter follows it, never a white space
			n := i
			for n < len(folded) {
				r, w := utf8.DecodeRuneInString(folded[n:])
				if !unicode.Is(unicode.White_Space, r) {
					break
				}
				n += w
			}
			if n == i {
				return false
			}
			i = n
		case t.optional:
			if i < len(folded) && folded[i] == t.c && p.restAt(folded, i+1, k+1) {
				return true
			}
		case i < len(folded) && folded[i] == t.c:
			i++
		default:
			return false
		}
	}
	if !p.trailing || i == len(folded) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(folded[i:])
	return !isVibesWord(r)
}

// lastRune is the last character of s as the regular expression reads it forward
// (utf8.RuneError for a byte that begins no valid character).
func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// isVibesWord reports whether r is one of the regex crate's word characters: the
// runes of [wordClass].
func isVibesWord(r rune) bool {
	return unicode.In(r, unicode.L, unicode.Nl, unicode.M, unicode.Nd, unicode.Pc,
		unicode.Other_Alphabetic, unicode.Other_Lowercase, unicode.Other_Uppercase, unicode.Join_Control)
}

// vibesFold returns text with its ASCII letters lowered, byte for byte, and true;
// or false when text holds ſ or the Kelvin sign, which (?i) folds onto ASCII
// letters of other widths (those texts are matched by the regular expressions).
// Text without upper-case ASCII letters is returned as it is.
func vibesFold(text string) (string, bool) {
	if strings.Contains(text, "\u017f") || strings.Contains(text, "\u212a") {
		return "", false
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= 'A' && c <= 'Z' {
			if b.Cap() == 0 {
				b.Grow(len(text))
			}
			b.WriteString(text[last:i])
			b.WriteByte(c + 'a' - 'A')
			last = i + 1
		}
	}
	if b.Cap() == 0 {
		return text, true
	}
	b.WriteString(text[last:])
	return b.String(), true
}

// compiledVibes returns the shipped patterns compiled, negative ones first; they are
// compiled once, on first use (about 7 ms: the word class is large).
var compiledVibes = sync.OnceValue(func() []vibesPattern {
	out := make([]vibesPattern, 0, len(vibesNegativeSources)+len(vibesPositiveSources))
	for _, src := range append(vibesNegativeSources[:], vibesPositiveSources[:]...) {
		p, err := compileVibesPattern(src)
		if err != nil {
			panic(err) // the shipped patterns are constants; a test compiles them
		}
		out = append(out, p)
	}
	return out
})

// compileVibesPattern translates a pattern of the shipped shape — (?i)\b, a lower-case
// word with an optional `?` or `\s+`, an optional final \b — from the Rust regex
// crate's Unicode-aware meaning into Go's syntax. The regex crate's \b is a Unicode
// word boundary and its \s is Unicode White_Space, where Go's (RE2's) \b and \s are
// ASCII only: "\bx\b" does not match "áxβ" in vibes and does in Go, "not\s+work"
// matches "not\u00a0work" in vibes and not in Go. So \b becomes "start of text or a
// non-word character" before the word and "a non-word character or end of text" after
// it, with the regex crate's word characters ([wordClass]), and \s the White_Space
// class. Consuming the neighbour is sound because vibes only asks whether a pattern
// matches, and every shipped word begins and ends with a word character.
func compileVibesPattern(src string) (vibesPattern, error) {
	body, ok := strings.CutPrefix(src, `(?i)\b`)
	if !ok {
		return vibesPattern{}, fmt.Errorf("vibes pattern %q: want the shipped shape (?i)\\b…", src)
	}
	body, trailing := strings.CutSuffix(body, `\b`)
	// The word is a literal, then its rest: letters, each perhaps optional, and
	// white-space runs, each followed by a letter.
	lit, litDone := []byte(nil), false
	var rest []vibesToken
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c >= 'a' && c <= 'z' || c == '\'':
			if !litDone {
				lit = append(lit, c)
			} else {
				rest = append(rest, vibesToken{c: c})
			}
		case c == '?' && i > 0 && body[i-1] != '?' && body[i-1] != '+':
			if !litDone {
				rest = append(rest, vibesToken{c: lit[len(lit)-1]})
				lit, litDone = lit[:len(lit)-1], true // the optional letter is not in every match
			}
			rest[len(rest)-1].optional = true
		case c == '\\' && strings.HasPrefix(body[i:], `\s+`) && i+3 < len(body) && body[i+3] >= 'a' && body[i+3] <= 'z':
			litDone = true
			rest = append(rest, vibesToken{})
			i += 2
		default:
			return vibesPattern{}, fmt.Errorf("vibes pattern %q: %q is outside the shipped shape", src, c)
		}
	}
	if len(lit) == 0 {
		return vibesPattern{}, fmt.Errorf("vibes pattern %q: no literal word", src)
	}
	expr := `(?:\A|[^` + wordClass + `])(?i:` + strings.ReplaceAll(body, `\s`, whiteSpaceClass) + `)`
	if trailing {
		expr += `(?:[^` + wordClass + `]|\z)`
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return vibesPattern{}, fmt.Errorf("vibes pattern %q: %w", src, err)
	}
	return vibesPattern{source: src, re: re, literal: string(lit), rest: rest, trailing: trailing}, nil
}

// wordClass is the inside of a bracket expression holding the regex crate's Unicode
// word characters (UTS#18 Annex C): Alphabetic (letters, letter numbers and the
// Other_Alphabetic, Other_Lowercase and Other_Uppercase characters), Mark,
// Decimal_Number, Connector_Punctuation and Join_Control. The tables are Go's (the
// Unicode version of its unicode package).
//
// The categories are named rather than written out: the ranges of L alone would
// take the patterns' compiling from 6 to 10 ms. TestIsVibesWord holds the class to
// isVibesWord's tables rune by rune.
var wordClass = `\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}` +
	rangesClass(unicode.Other_Alphabetic, unicode.Other_Lowercase, unicode.Other_Uppercase, unicode.Join_Control)

// whiteSpaceClass is the regex crate's Unicode \s: the White_Space property.
var whiteSpaceClass = `[` + rangesClass(unicode.White_Space) + `]`

// rangesClass writes the code points of tables as bracket-expression ranges.
func rangesClass(tables ...*unicode.RangeTable) string {
	var b strings.Builder
	add := func(lo, hi, stride uint32) {
		if stride == 1 {
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, lo, hi)
			return
		}
		for r := lo; r <= hi; r += stride {
			fmt.Fprintf(&b, `\x{%X}`, r)
		}
	}
	for _, t := range tables {
		for _, r := range t.R16 {
			add(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
		}
		for _, r := range t.R32 {
			add(r.Lo, r.Hi, r.Stride)
		}
	}
	return b.String()
}

// prefilterFold maps text so that a pattern's literal occurs in the result wherever
// the pattern matches text: ASCII letters to lower case, and the only two non-ASCII
// characters that (?i) folds onto an ASCII letter, U+017F (ſ) and U+212A (Kelvin
// sign), to s and k. Everything else is left as it is.
func prefilterFold(text string) string {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return strings.Map(func(r rune) rune {
				switch {
				case r >= 'A' && r <= 'Z':
					return r + 'a' - 'A'
				case r == '\u017f':
					return 's'
				case r == '\u212a':
					return 'k'
				}
				return r
			}, text)
		}
	}
	return strings.ToLower(text)
}

// VibesHits counts the shipped negative and positive patterns that match text, each
// at most once, as vibes' detector does for one message.
func VibesHits(text string) (negative, positive int) {
	if text == "" {
		return 0, 0
	}
	folded, at := vibesFold(text)
	if !at {
		folded = prefilterFold(text)
	}
	for i, p := range compiledVibes() {
		var hit bool
		if at {
			hit = p.matchesAt(folded)
		} else {
			hit = p.matches(text, folded)
		}
		switch {
		case !hit:
		case i < len(vibesNegativeSources):
			negative++
		default:
			positive++
		}
	}
	return negative, positive
}
