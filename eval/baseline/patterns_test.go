package baseline

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestVibesPatternsCompile(t *testing.T) {
	neg, pos := VibesPatterns()
	if len(neg) != 10 || len(pos) != 8 {
		t.Fatalf("%d negative and %d positive patterns, want vibes' 10 and 8", len(neg), len(pos))
	}
	literals := map[string]string{
		`(?i)\berror\b`: "error", `(?i)\bnot\s+work`: "not", `(?i)\bdoesn't\s+work`: "doesn't",
		`(?i)\bworks?\b`: "work", `(?i)\bcan't\b`: "can't", `(?i)\bfrustrat`: "frustrat",
	}
	for _, src := range append(neg, pos...) {
		p, err := compileVibesPattern(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if want, ok := literals[src]; ok && p.literal != want {
			t.Errorf("%s: prefilter literal %q, want %q", src, p.literal, want)
		}
		if !strings.Contains(strings.ToLower(src), p.literal) || p.literal == "" {
			t.Errorf("%s: prefilter literal %q is not in the pattern", src, p.literal)
		}
	}
	for _, bad := range []string{`\berror\b`, `(?i)\b(error|fail)`, `(?i)\berror.*`} {
		if _, err := compileVibesPattern(bad); err == nil {
			t.Errorf("%s: compiled, want an error (outside the shipped shape)", bad)
		}
	}
	neg[0] = "changed"
	if again, _ := VibesPatterns(); again[0] != `(?i)\berror\b` {
		t.Errorf("VibesPatterns shares its slice: %q", again[0])
	}
}

func TestVibesHits(t *testing.T) {
	tests := []struct {
		text     string
		neg, pos int
		re2      bool // Go's native RE2 \b and \s would count differently
	}{
		{text: "error", neg: 1},
		{text: "ERROR: build broke", neg: 1},
		{text: "an Error.", neg: 1},
		{text: "errors everywhere", neg: 0},
		{text: "terror", neg: 0},
		{text: "error_code", neg: 0},
		{text: "_error", neg: 0},
		{text: "error2", neg: 0},
		{text: "file.error", neg: 1},
		{text: "error error error", neg: 1},
		{text: "error, failed, wrong, broken", neg: 4},
		{text: "the test failed", neg: 1},
		{text: "failedx", neg: 0},
		{text: "so frustrating", neg: 1},
		{text: "I'm confused", neg: 1},
		{text: "unconfused", neg: 0},
		{text: "it does not   work", neg: 1, pos: 1},
		{text: "not\nworking", neg: 1},
		{text: "notwork", neg: 0},
		{text: "doesn't work", neg: 1, pos: 1},
		{text: "doesn’t work", neg: 0, pos: 1},
		{text: "I can't", neg: 1},
		{text: "cant", neg: 0},
		{text: "it won't build", neg: 1},
		{text: "thanks!", pos: 1},
		{text: "Thank you", pos: 1},
		{text: "perfect", pos: 1},
		{text: "perfectly", pos: 0},
		{text: "excellent", pos: 1},
		{text: "great", pos: 1},
		{text: "greatest", pos: 0},
		{text: "it works", pos: 1},
		{text: "work", pos: 1},
		{text: "worked", pos: 0},
		{text: "workspace", pos: 0},
		{text: "successfully", pos: 1},
		{text: "completed", pos: 1},
		{text: "done", pos: 1},
		{text: "undone", pos: 0},
		{text: "done.", pos: 1},
		{text: "Perfect, thanks, done, great work", pos: 5},
		{text: "", neg: 0},
		// Unicode: the regex crate's \b and \s, not RE2's.
		{text: "áerror", neg: 0, re2: true},
		{text: "errorβ", neg: 0, re2: true},
		{text: "e\u0301rror", neg: 0},                      // a combining mark is a word character in both: "rror" never matches
		{text: "\u0301error", neg: 0, re2: true},           // a mark before the word joins it
		{text: "\u200derror", neg: 0, re2: true},           // so does a zero-width joiner (Join_Control)
		{text: "\u24b6error", neg: 0, re2: true},           // and a circled letter (Other_Alphabetic)
		{text: "٣error", neg: 0, re2: true},                // and an Arabic-Indic digit
		{text: "«error»", neg: 1},                          // punctuation is not
		{text: "not\u00a0work", neg: 1, pos: 1, re2: true}, // a no-break space is \s in the regex crate
		{text: "not\u2003working", neg: 1, re2: true},      // so is an em space
		{text: "not\vwork", neg: 1, pos: 1, re2: true},     // and a vertical tab, which RE2's \s leaves out
		{text: "ſuccess", pos: 1, re2: true},               // (?i) folds the long s, a word character to the regex crate only
		{text: "ERRORé", neg: 0, re2: true},
		{text: "ÉTAT: ERROR, Done", neg: 1, pos: 1},
		{text: "\xffERROR", neg: 1, re2: false}, // a byte that begins no character is not a word character
		{text: "\xc3error", neg: 1},             // nor is a lead byte cut short
		{text: "é\xa9error", neg: 1},            // nor a stray continuation byte after a character
		{text: "NOT \u00a0\t WORK", neg: 1, pos: 1, re2: true},
		{text: "not \u00a0", neg: 0},
		{text: "WORKS WORKSS", pos: 1},
		{text: "workss works", pos: 1},
		{text: "it wor\u212a", pos: 1, re2: true}, // the Kelvin sign folds onto k: matched by the regular expressions
		{text: "Error ſuccess", neg: 1, pos: 1, re2: true},
		{text: strings.Repeat("terror ", 500) + "error", neg: 1},
	}
	neg, pos := VibesPatterns()
	var native []*regexp.Regexp
	for _, src := range append(neg, pos...) {
		native = append(native, regexp.MustCompile(src))
	}
	for _, tt := range tests {
		gotNeg, gotPos := VibesHits(tt.text)
		if gotNeg != tt.neg || gotPos != tt.pos {
			t.Errorf("VibesHits(%q) = %d negative, %d positive; want %d, %d", tt.text, gotNeg, gotPos, tt.neg, tt.pos)
		}
		re2Neg, re2Pos := 0, 0
		for i, re := range native {
			if re.MatchString(tt.text) {
				if i < len(neg) {
					re2Neg++
				} else {
					re2Pos++
				}
			}
		}
		if differs := re2Neg != tt.neg || re2Pos != tt.pos; differs != tt.re2 {
			t.Errorf("%q: RE2 counts %d, %d; the table says RE2 differs: %v", tt.text, re2Neg, re2Pos, tt.re2)
		}
	}
}

// TestPrefilterFold checks the claim that makes the prefilter exact: (?i) folds no
// character but ſ and the Kelvin sign onto the ASCII letters of the literals.
func TestPrefilterFold(t *testing.T) {
	for c := 'a'; c <= 'z'; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf && prefilterFold(string(r)) != string(c) {
				t.Errorf("(?i) folds %U onto %c and the prefilter does not", r, c)
			}
		}
	}
	if got := prefilterFold("ERRor ſuccess \u212aé"); got != "error success ké" {
		t.Errorf("prefilterFold = %q", got)
	}
}

// FuzzVibesHits checks the prefilter against the regular expressions alone, and, on
// ASCII text without a vertical tab, the translation against Go's own \b and \s,
// which mean the same there.
func FuzzVibesHits(f *testing.F) {
	for _, s := range []string{"error", "it does not work", "doesn't\twork", "Thanks, done", "áerror", "works?", "ſuccess"} {
		f.Add(s)
	}
	neg, pos := VibesPatterns()
	var native []*regexp.Regexp
	for _, src := range append(neg, pos...) {
		native = append(native, regexp.MustCompile(src))
	}
	all := compiledVibes()
	f.Fuzz(func(t *testing.T, text string) {
		folded := prefilterFold(text)
		lowered, at := vibesFold(text)
		if at && len(lowered) != len(text) {
			t.Fatalf("vibesFold(%q) = %q: not byte for byte", text, lowered)
		}
		ascii := !strings.ContainsFunc(text, func(r rune) bool { return r >= utf8.RuneSelf || r == '\v' })
		wantNeg, wantPos := 0, 0
		for i := range all {
			got := all[i].matches(text, folded)
			if plain := all[i].re.MatchString(text); got != plain {
				t.Fatalf("%s on %q: with prefilter %v, without %v", all[i].source, text, got, plain)
			}
			if at {
				if fast := all[i].matchesAt(lowered); fast != got {
					t.Fatalf("%s on %q: where the literal occurs %v, the regular expression %v", all[i].source, text, fast, got)
				}
			}
			switch {
			case !got:
			case i < len(neg):
				wantNeg++
			default:
				wantPos++
			}
			if ascii {
				if re2 := native[i].MatchString(text); got != re2 {
					t.Fatalf("%s on ASCII %q: %v, RE2 %v", all[i].source, text, got, re2)
				}
			}
		}
		if n, p := VibesHits(text); n != wantNeg || p != wantPos {
			t.Fatalf("VibesHits(%q) = %d, %d; the regular expressions %d, %d", text, n, p, wantNeg, wantPos)
		}
	})
}

// TestVibesFold checks the fold matchesAt reads: ASCII letters lowered in place,
// and no fold (the regular expressions instead) for text with ſ or the Kelvin sign.
func TestVibesFold(t *testing.T) {
	tests := []struct {
		text, want string
		ok         bool
	}{
		{"", "", true},
		{"error", "error", true},
		{"ÉTAT Error \xff", "État error \xff", true}, // É is not ASCII: left as it is
		{"ſuccess", "", false},
		{"WOR\u212a", "", false},
	}
	for _, tt := range tests {
		got, ok := vibesFold(tt.text)
		if got != tt.want || ok != tt.ok {
			t.Errorf("vibesFold(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

// TestVibesPatternRest checks what each shipped pattern reads after its literal.
func TestVibesPatternRest(t *testing.T) {
	want := map[string]string{ // the rest: letters, "?" after an optional one, "_" for \s+; "|" a final boundary
		`(?i)\berror\b`: "|", `(?i)\bfrustrat`: "", `(?i)\bnot\s+work`: "_work", `(?i)\bdoesn't\s+work`: "_work",
		`(?i)\bworks?\b`: "s?|", `(?i)\bcan't\b`: "|", `(?i)\bthank`: "",
	}
	for _, p := range compiledVibes() {
		w, ok := want[p.source]
		if !ok {
			continue
		}
		var b strings.Builder
		for _, tok := range p.rest {
			switch {
			case tok.c == 0:
				b.WriteByte('_')
			case tok.optional:
				b.WriteString(string(tok.c) + "?")
			default:
				b.WriteByte(tok.c)
			}
		}
		if p.trailing {
			b.WriteByte('|')
		}
		if b.String() != w {
			t.Errorf("%s: rest %q, want %q", p.source, b.String(), w)
		}
		delete(want, p.source)
	}
	if len(want) > 0 {
		t.Errorf("patterns not shipped: %v", want)
	}
}

// TestIsVibesWord holds isVibesWord, which matchesAt reads before and after a word,
// to the word class the regular expressions are built with, rune by rune.
func TestIsVibesWord(t *testing.T) {
	class := regexp.MustCompile(`^[` + wordClass + `]$`)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates: no UTF-8 encoding; the reader sees utf8.RuneError
		}
		if got, want := isVibesWord(r), class.MatchString(string(r)); got != want {
			t.Fatalf("isVibesWord(%U) = %v, the word class %v", r, got, want)
		}
	}
}
