package printable

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"runs/synth-0001.jsonl", "runs/synth-0001.jsonl"},
		{"5f3c0000-0000-4000-8000-00000000000a", "5f3c0000-0000-4000-8000-00000000000a"},
		{"ça marche — 日本語 ✓ 🙂", "ça marche — 日本語 ✓ 🙂"},
		{"a\u00a0b", "a\u00a0b"}, // a no-break space is a space
		{"\x1b[31mRED\x1b]0;pwned\a", `"\x1b[31mRED\x1b]0;pwned\a"`},
		{"new\nline.jsonl", `"new\nline.jsonl"`},
		{"tab\there", `"tab\there"`},
		{"cr\r", `"cr\r"`},
		{"del\x7f", `"del\x7f"`},
		{"c1\u0085", `"c1\u0085"`},
		{"abc\u202edcba", `"abc\u202edcba"`},
		{"bad \xff byte", `"bad \xff byte"`},
		{"the U+FFFD rune \uFFFD itself", "the U+FFFD rune \uFFFD itself"},
		{`"quoted" and \ kept`, `"quoted" and \ kept`},
		{"quote \" beside \x1b", `"quote \" beside \x1b"`},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzLine: the result never holds a rune a terminal acts on and is valid UTF-8; a
// changed text is a Go string literal that unquotes to the input; safe text is kept.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31m", "a\nb", "\xff", "\u202e", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		if strings.ContainsFunc(got, func(r rune) bool { return !unicode.IsGraphic(r) }) || !utf8Valid(got) {
			t.Fatalf("Line(%q) = %q holds a rune that is not graphic, or invalid UTF-8", s, got)
		}
		if got == s {
			return
		}
		back, err := strconv.Unquote(got)
		if err != nil || back != s {
			t.Fatalf("Line(%q) = %q unquotes to %q, %v", s, got, back, err)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }
