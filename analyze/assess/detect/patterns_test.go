package detect

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func kinds(signals []Signal) []Kind {
	out := make([]Kind, 0, len(signals))
	for _, s := range signals {
		out = append(out, s.Kind)
	}
	return out
}

func mustMatcher(t testing.TB, p Patterns) *PatternMatcher {
	t.Helper()
	m, err := NewPatternMatcher(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSeedListsAreVerbatim(t *testing.T) {
	// A guard against accidental edits: these strings are copied from the seed.
	wantFr := []string{
		`(?i)\bno\b,?\s*(that'?s?\s*)?(not|wrong)`,
		`(?i)\bi\s+(already|just)\s+(said|told|mentioned)`,
		`(?i)\btry\s+again\b`,
		`(?i)\bstill\s+(not|doesn'?t|won'?t)\b`,
		`(?i)\bwhy\s+(are|do|did)\s+you\b`,
		`(?i)\bi\s+don'?t\s+want\b`,
		`(?i)\bactually\b.*\bnot\b`,
	}
	wantSu := []string{
		`(?i)\b(perfect|excellent|great|awesome)\b`,
		`(?i)\bthat'?s?\s+(exactly|precisely)\b`,
		`(?i)\bthank(s|\s+you)\b`,
		`(?i)\bworks?\s+(great|perfectly|well)\b`,
		`(?i)\bgood\s+job\b`,
	}
	if got := SeedFrustrationPatterns(); !slices.Equal(got, wantFr) {
		t.Errorf("SeedFrustrationPatterns() = %q", got)
	}
	if got := SeedSuccessPatterns(); !slices.Equal(got, wantSu) {
		t.Errorf("SeedSuccessPatterns() = %q", got)
	}
	p := DefaultPatterns()
	if !slices.Equal(p.Frustration, wantFr) || !slices.Equal(p.Success, wantSu) {
		t.Error("DefaultPatterns does not start from the seed lists")
	}
	// Returned slices are fresh: mutating one does not change the next.
	SeedFrustrationPatterns()[0] = "x"
	if SeedFrustrationPatterns()[0] != wantFr[0] {
		t.Error("SeedFrustrationPatterns shares its backing array")
	}
}

func TestPatternsDefault(t *testing.T) {
	m := mustMatcher(t, DefaultPatterns())
	seedOnly := mustMatcher(t, Patterns{Frustration: SeedFrustrationPatterns(), Success: SeedSuccessPatterns()})
	tests := []struct {
		text                 string
		frustration, success int // hits with the default patterns
		correction           bool
		seedFrustration      int // hits with the seed's frustration list alone
	}{
		// Seed frustration patterns, one by one.
		{text: "No, that's wrong", frustration: 2, correction: true, seedFrustration: 1}, // + extra "that's wrong"
		{text: "no not that one", frustration: 1, correction: true, seedFrustration: 1},
		{text: "I already said use tabs", frustration: 1, seedFrustration: 1},
		{text: "i just told you that", frustration: 1, seedFrustration: 1},
		{text: "try again", frustration: 1, seedFrustration: 1},
		{text: "it still doesnt compile", frustration: 1, seedFrustration: 1},
		{text: "still won't start", frustration: 1, seedFrustration: 1},
		{text: "why did you delete the tests?", frustration: 1, seedFrustration: 1},
		{text: "I dont want a new file", frustration: 1, seedFrustration: 1},
		{text: "actually the button is not blue", frustration: 1, correction: true, seedFrustration: 1},
		// Missing apostrophes and what the seed misses.
		{text: "still didnt work", frustration: 2, seedFrustration: 0}, // "still didn't" and "didn't work"
		{text: "still didn't work.  what I was trying to say", frustration: 2, seedFrustration: 0},
		{text: "still no\n\n(llm) jim@host:~$ claude -c", frustration: 1, seedFrustration: 0},
		{text: "scrolling still does not work", frustration: 1, seedFrustration: 0},
		{text: "it doesnt work", frustration: 1},
		{text: "mix phx.server not working", frustration: 1},
		{text: "same error again", frustration: 1},
		{text: "that's incorrect", frustration: 1},
		// Typographic apostrophes read as ASCII ones.
		{text: "it still doesn’t compile", frustration: 1, seedFrustration: 1},
		{text: "I don’t want that", frustration: 1, seedFrustration: 1},
		// Corrections.
		{text: "I meant the other config file", correction: true},
		{text: "that's not what I asked for", frustration: 1, correction: true},
		{text: "no, use the existing helper", correction: true},
		{text: "Nope, you missed the second call site", correction: true},
		{text: "wrong file — edit main.go", correction: true},
		{text: "I asked you to keep the API", correction: true},
		{text: "please undo that", correction: true},
		// Success.
		{text: "perfect, thanks!", success: 2},
		{text: "That's exactly it", success: 1},
		{text: "thank you", success: 1},
		{text: "works great", success: 2},
		{text: "good job", success: 1},
		{text: "it worked!"}, // none of the seed's success patterns
		// False-positive bait: none of these is frustration or a correction.
		{text: "no problem, thanks", success: 1},
		{text: "No, thanks — that's all", success: 1},
		{text: "no worries"},
		{text: "No, you're right, go ahead"},
		{text: "I don't know"},
		{text: "I don't mind either way"},
		{text: "Nothing else for now"},
		{text: "the network is slow today"},
		{text: "is there any other data that could be captured"},
		{text: "not sure whether that matters"},
		{text: "try again later if the server is down", frustration: 1, seedFrustration: 1}, // literal seed hit, kept
		// Seed quirk kept verbatim: (not|wrong) has no closing \b.
		{text: "no, nothing else", frustration: 1, seedFrustration: 1},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := len(m.MatchFrustration(nil, tt.text)); got != tt.frustration {
				t.Errorf("frustration hits = %d, want %d (%v)", got, tt.frustration, m.MatchFrustration(nil, tt.text))
			}
			if got := len(m.MatchSuccess(nil, tt.text)); got != tt.success {
				t.Errorf("success hits = %d, want %d", got, tt.success)
			}
			if src, got := m.Correction(tt.text); got != tt.correction {
				t.Errorf("correction = %v (%s), want %v", got, src, tt.correction)
			}
			if got := len(seedOnly.MatchFrustration(nil, tt.text)); got != tt.seedFrustration {
				t.Errorf("seed-only frustration hits = %d, want %d", got, tt.seedFrustration)
			}
		})
	}
}

func TestUnicodeWordBoundaries(t *testing.T) {
	m := mustMatcher(t, Patterns{
		Frustration: []string{`(?i)\bno\b`},
		Success:     SeedSuccessPatterns(),
	})
	tests := []struct {
		text                 string
		frustration, success bool
	}{
		{text: "no", frustration: true},
		{text: "«no»", frustration: true},
		{text: "¡no!", frustration: true},
		{text: "noční směna", frustration: false}, // ASCII \b alone would match "no"
		{text: "Ånoé", frustration: false},
		{text: "ano", frustration: false},
		{text: "great 👍", success: true},
		{text: "👍great", success: true},
		{text: "très great!", success: true},
		{text: "greaté", success: false},
		{text: "éthanks", success: false},
		{text: "über-great", success: true},
		{text: "greaté but great", success: true}, // the second occurrence counts
		{text: "perfect\u0301", success: false},   // combining mark continues the word
		{text: "thanks_", success: false},
	}
	for _, tt := range tests {
		if got := len(m.MatchFrustration(nil, tt.text)) > 0; got != tt.frustration {
			t.Errorf("%q: frustration = %v, want %v", tt.text, got, tt.frustration)
		}
		if got := len(m.MatchSuccess(nil, tt.text)) > 0; got != tt.success {
			t.Errorf("%q: success = %v, want %v", tt.text, got, tt.success)
		}
	}
}

func TestBoundaryDetection(t *testing.T) {
	tests := []struct {
		src               string
		leading, trailing bool
	}{
		{`(?i)\bno\b`, true, true},
		{`(?is)(?m)\bx`, true, false},
		{`x\b`, false, true},
		{`x\\b`, false, false},
		{`x\\\b`, false, true},
		{`(?i)\bno\b,?\s*(that'?s?\s*)?(not|wrong)`, true, false},
		{`(?P<x>\bno)`, false, false},
	}
	for _, tt := range tests {
		set, err := compileSet("t", []string{tt.src})
		if err != nil {
			t.Fatal(err)
		}
		if set[0].leading != tt.leading || set[0].trailing != tt.trailing {
			t.Errorf("%s: leading,trailing = %v,%v want %v,%v", tt.src, set[0].leading, set[0].trailing, tt.leading, tt.trailing)
		}
	}
}

func TestNewPatternMatcherErrors(t *testing.T) {
	for _, p := range []Patterns{
		{Frustration: []string{`(`}},
		{ExtraFrustration: []string{`[a-`}},
		{Success: []string{`(?<`}},
		{Correction: []string{`*`}},
	} {
		if _, err := NewPatternMatcher(p); err == nil {
			t.Errorf("NewPatternMatcher(%+v) succeeded", p)
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	str := func(sets [][][]byte) [][]string {
		var out [][]string
		for _, set := range sets {
			var s []string
			for _, l := range set {
				s = append(s, string(l))
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		src  string
		want [][]string
	}{
		{`(?i)\btry\s+again\b`, [][]string{{"try"}, {"again"}}},
		{`(?i)\b(perfect|excellent|Great)\b`, [][]string{{"perfect", "excellent", "great"}}},
		{`(?i)\bno\b,?\s*(that'?s?\s*)?(not|wrong)`, [][]string{{"no"}, {"not", "wrong"}}},
		{`x*`, nil},
		{`(?i)é+t`, [][]string{{"t"}}}, // a non-ASCII folded literal yields no set
		{`FAILED`, [][]string{{"failed"}}},
		{`a|b*`, nil},
	}
	for _, tt := range tests {
		if got := str(requiredLiterals(tt.src)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestPrefilterOffForUnicodeFolds(t *testing.T) {
	// RE2's (?i) folds the Kelvin sign onto k; the ASCII prefilter must not hide it.
	m := mustMatcher(t, Patterns{Frustration: []string{`(?i)\bok`}})
	for _, text := range []string{"OK", "o\u212A", "ok"} {
		if len(m.MatchFrustration(nil, text)) != 1 {
			t.Errorf("%q: no match", text)
		}
	}
	long := strings.Repeat("x ", 2000) + "TRY AGAIN" // longer than the stack buffer
	if len(mustMatcher(t, DefaultPatterns()).MatchFrustration(nil, long)) != 1 {
		t.Error("long message missed")
	}
}

// anchoredCases are texts around the patterns' start literals: at the start and end
// of the text, after and before letters (ASCII and not), in other cases, with the
// Unicode folds, and near misses.
var anchoredCases = []string{
	"", "no", "No, that's wrong", "nono, not that", "know not", "no\u0301 not", "éno not", "no noté no not",
	"I already said", "i just told you", "Ii already said", "try again", "try againé", "retry again",
	"still not", "still doesn’t", "still doesnt work", "stillnot", "STILL NOT", "o\u212A still not", "ſtill not",
	"why did you", "why do you", "whywhy are you", "i don't want", "actually it is not", "actually\nnot",
	"perfect", "imperfect", "perfectly", "that's exactly it", "thats precisely", "thank you", "thanks!", "thankful",
	"works great", "work well", "good job", "goodjob", "doesn't seem to work", "is not working", "isnt working",
	"this problem again", "same bug again", "I meant it", "not what I asked", "wrong file", "undo that",
	"roll back your change", "rollback it", "I asked you to stop", "nope, you missed it", "no use",
	strings.Repeat("no ", 200) + "wrong", strings.Repeat("é", 50) + "try again",
}

// TestAnchoredMatchesLikeFull checks that running a pattern only where a match can
// start (its anchored form) gives the full regular expression's answer.
func TestAnchoredMatchesLikeFull(t *testing.T) {
	for _, p := range []Patterns{DefaultPatterns(), SeedPatterns()} {
		m := mustMatcher(t, p)
		anchored := 0
		for _, set := range []patternSet{m.frustration, m.success, m.correction} {
			for i := range set {
				if set[i].anchored != nil {
					anchored++
				}
				for _, text := range anchoredCases {
					checkAnchored(t, m, &set[i], text)
				}
			}
		}
		if anchored < 15 {
			t.Errorf("only %d patterns have an anchored form", anchored)
		}
	}
}

func checkAnchored(t *testing.T, m *PatternMatcher, p *pattern, text string) {
	t.Helper()
	b := []byte(text)
	var fold []byte
	ft := foldText(b, &fold, &m.lits)
	if full, fast := p.match(b), p.matchFolded(b, &ft); full != fast {
		t.Errorf("%s on %q: full %v, anchored %v", p.src, text, full, fast)
	}
}

func FuzzAnchoredMatch(f *testing.F) {
	for _, c := range anchoredCases {
		f.Add(c)
	}
	m := mustMatcher(f, DefaultPatterns())
	f.Fuzz(func(t *testing.T, text string) {
		for _, set := range []patternSet{m.frustration, m.success, m.correction} {
			for i := range set {
				checkAnchored(t, m, &set[i], text)
			}
		}
	})
}

func TestStartLiterals(t *testing.T) {
	tests := []struct {
		src  string
		lits string // the start literals and, after each, the bytes allowed to follow among " stn'x"
		ok   bool
	}{
		{`(?i)\bno\b,?\s*(that'?s?\s*)?(not|wrong)`, "no: tn", true},
		{`(?i)\bstill\s+(not|doesn'?t)\b`, "still: ", true},
		{`(?i)\b(?:doesn'?t|is\s+not|not)\s+work`, "doesn:t' is:  not: ", true},
		{`(?i)\bthank(s|\s+you)\b`, "thank: s", true}, // a space or an s
		{`(?i)\bgood`, "good: stn'x", true},           // the match may end right after it
		{`(?i)^\W*no`, "", false},
		{`\b.no`, "", false},
		{`(?i)\b(?:é|no)`, "", false},
		{`x\bno`, "", false},
	}
	for _, tt := range tests {
		_, starts, ok := anchoredForm(tt.src)
		if ok != tt.ok {
			t.Errorf("%s: ok %v", tt.src, ok)
			continue
		}
		var parts []string
		for _, s := range starts {
			var follow []byte
			for _, c := range []byte(" stn'x") {
				if s.follow.has(c) {
					follow = append(follow, c)
				}
			}
			parts = append(parts, string(s.lit)+":"+string(follow))
		}
		if got := strings.Join(parts, " "); got != tt.lits {
			t.Errorf("%s: %q, want %q", tt.src, got, tt.lits)
		}
	}
}

// TestReplacementCharacter: U+FFFD in a pattern also matches a byte that is not
// UTF-8, which the prefilter's and the start literals' bytes do not hold.
func TestReplacementCharacter(t *testing.T) {
	for _, src := range []string{`(?i)\bfoo\x{FFFD}`, `\bfoo\x{FFFD}`, `bar\x{FFFD}+z`, `(?i)\bstill\s+\x{FFFD}`} {
		m := mustMatcher(t, Patterns{Frustration: []string{src}})
		for _, text := range []string{"foo\xff", "FOO\xfe", "bar\xff\xfez", "still \xc3", "foo\uFFFD", "bar\uFFFDz"} {
			checkAnchored(t, m, &m.frustration[0], text)
			if got, want := len(m.MatchFrustration(nil, text)) > 0, regexp.MustCompile(src).MatchString(text); got != want {
				t.Errorf("%s on %q: matcher %v, regexp %v", src, text, got, want)
			}
		}
	}
}
