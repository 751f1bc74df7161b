package detect

import (
	"strings"
	"testing"
)

// checkFoldText fails t where foldText's answer for text differs from the lowered
// text searched for each literal of tb alone.
func checkFoldText(t *testing.T, tb *litTable, text string) {
	t.Helper()
	buf := []byte("left over from the message before")
	ft := foldText([]byte(text), &buf, tb)
	if strings.Contains(text, "\u212A") || strings.Contains(text, "\u017F") {
		if !ft.off {
			t.Errorf("%q: the prefilters on, with a rune that folds onto ASCII", text)
		}
		return
	}
	lower := lowerASCII(text)
	if ft.off || string(ft.lower) != lower {
		t.Fatalf("%q: folded %q (off %v), want %q", text, ft.lower, ft.off, lower)
	}
	for i, l := range tb.lits {
		if got, want := has(ft.present[:], uint16(i)), strings.Contains(lower, string(l)); got != want {
			t.Errorf("%q: literal %q present %v, want %v", text, l, got, want)
		}
	}
	for i := len(tb.lits); i < maxLits; i++ {
		if has(ft.present[:], uint16(i)) {
			t.Errorf("%q: literal %d of %d present", text, i, len(tb.lits))
		}
	}
}

var foldTextCases = []string{
	"",
	"scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions",
	"Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks.",
	"STILL NOT WORKING. No, that's wrong!!",
	"Thanks, perfect — that works",
	"don't do that, I said NOT to touch it",
	"noční směna: ještě to nefunguje",
	"\xff\xfeno\x80",
	"the Kelvin sign \u212A and the long s \u017F",
	strings.Repeat("wrong again, still broken. ", 400),
}

// TestFoldText holds the one pass over the default patterns' literals to a search
// for each literal alone, and the same for literals beyond litScan's bounds, where
// foldText searches for each alone.
func TestFoldText(t *testing.T) {
	m := mustMatcher(t, DefaultPatterns())
	if m.lits.scan == nil {
		t.Fatalf("the default patterns' %d literals: no one-pass scan", len(m.lits.lits))
	}
	for _, text := range foldTextCases {
		checkFoldText(t, &m.lits, text)
	}
	var wide litTable // 128 distinct literals of 64 bytes over 200 byte classes: too many transitions
	for i := range 128 {
		b := []byte{byte(1 + i)}
		for j := range 63 {
			b = append(b, byte(1+(i*63+j)%200))
		}
		wide.add(b)
	}
	wide.add([]byte("still"))
	wide.seal()
	if wide.scan != nil {
		t.Fatal("a one-pass scan of more than its bound of transitions")
	}
	for _, text := range append(foldTextCases, string(wide.lits[0])+string(wide.lits[3])+string(wide.lits[7][:10])) {
		checkFoldText(t, &wide, text)
	}
}

func FuzzFoldText(f *testing.F) {
	for _, c := range foldTextCases {
		f.Add(c)
	}
	m := mustMatcher(f, DefaultPatterns())
	f.Fuzz(func(t *testing.T, text string) { checkFoldText(t, &m.lits, text) })
}
