package detect

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SeedFrustrationPatterns returns the seed's seven default frustration patterns,
// verbatim (assessment-logic.md, FRUSTRATION_PATTERNS). Each call returns a new slice.
//
// Known quirks of the verbatim patterns, kept on purpose: the first one has no
// boundary after (not|wrong), so "no, nothing else" matches it; "still didnt work"
// matches none of them ("didn't" is not in the list) — [ExtraFrustrationPatterns]
// covers that.
func SeedFrustrationPatterns() []string {
	return []string{
		`(?i)\bno\b,?\s*(that'?s?\s*)?(not|wrong)`,
		`(?i)\bi\s+(already|just)\s+(said|told|mentioned)`,
		`(?i)\btry\s+again\b`,
		`(?i)\bstill\s+(not|doesn'?t|won'?t)\b`,
		`(?i)\bwhy\s+(are|do|did)\s+you\b`,
		`(?i)\bi\s+don'?t\s+want\b`,
		`(?i)\bactually\b.*\bnot\b`,
	}
}

// SeedSuccessPatterns returns the seed's five default success patterns, verbatim
// (assessment-logic.md, SUCCESS_PATTERNS). Each call returns a new slice.
func SeedSuccessPatterns() []string {
	return []string{
		`(?i)\b(perfect|excellent|great|awesome)\b`,
		`(?i)\bthat'?s?\s+(exactly|precisely)\b`,
		`(?i)\bthank(s|\s+you)\b`,
		`(?i)\bworks?\s+(great|perfectly|well)\b`,
		`(?i)\bgood\s+job\b`,
	}
}

// ExtraFrustrationPatterns returns loopwatch's additions to the seed's frustration
// list. They are kept apart from [SeedFrustrationPatterns] so the seed's list stays
// verbatim and each list can be switched off on its own. They catch what real
// transcripts show and the seed misses:
//
//   - "still" followed by a past or negated complaint the seed does not list:
//     "still didnt work", "still no", "still broken", "still the same", "still failing";
//   - "doesn't/didn't/isn't/not … work(ing)": "doesnt work", "didn't seem to work",
//     "not working";
//   - "that's wrong/incorrect/not right/not it/not what I…" without a leading "no";
//   - "same error again", "this problem again".
func ExtraFrustrationPatterns() []string {
	return []string{
		`(?i)\bstill\s+(?:didn'?t|isn'?t|can'?t|no\b|broken\b|fail(?:s|ed|ing)?\b|the\s+same\b|wrong\b)`,
		`(?i)\b(?:doesn'?t|didn'?t|does\s+not|did\s+not|isn'?t|is\s+not|not)\s+(?:seem\s+to\s+)?work(?:s|ed|ing)?\b`,
		`(?i)\bthat'?s\s+(?:wrong|incorrect|not\s+(?:right|it|what\s+i))\b`,
		`(?i)\b(?:same|this)\s+(?:error|problem|issue|bug)\s+again\b`,
	}
}

// DefaultCorrectionPatterns returns the patterns that mark a human message as a
// correction of the agent. The seed calls is_correction without defining it; these
// cover its examples ("no, that's wrong", "I meant …", "actually … not"):
//
//   - a message that opens with "no"/"nope" followed by a corrective word ("no, you
//     misunderstood", "no, don't …", "no, use …", "no I said …"), but not "no
//     problem", "no, thanks", "no worries", "no, you're right";
//   - the seed's "no, that's not/wrong" frustration pattern, with a closing \b so that
//     "no, nothing else" is not a correction;
//   - "I meant";
//   - "not what I asked/meant/wanted/said";
//   - "actually … not" (also a seed frustration pattern: such a message counts as both);
//   - "wrong file/function/one/place/approach/…";
//   - "I said …", "I asked you to/for …" (a repeated request);
//   - "undo/revert/roll back that/this/it/your …".
func DefaultCorrectionPatterns() []string {
	return []string{
		`(?i)^\W*(?:no|nope)\b[\s,.!:;-]*(?:you(?:'re\s+wrong|\s+(?:misunderstood|misread|didn'?t|broke|missed|forgot|changed|removed|deleted|should|need))|it'?s\s+not|not\s+(?:that|this|what|like|quite)|don'?t|stop|wait|undo|revert|use|i\s+(?:said|meant|asked|wanted|told))\b`,
		`(?i)\bno\b,?\s*(that'?s?\s*)?(not|wrong)\b`,
		`(?i)\bi\s+meant\b`,
		`(?i)\bnot\s+what\s+i\s+(?:asked|meant|wanted|said)\b`,
		`(?i)\bactually\b.*\bnot\b`,
		`(?i)\bwrong\s+(?:file|function|method|one|place|directory|folder|branch|approach|way)\b`,
		`(?i)\bi\s+(?:said|asked\s+(?:you\s+)?(?:to|for))\b`,
		`(?i)\b(?:undo|revert|roll\s*back)\s+(?:that|this|it|what\s+you|your)\b`,
	}
}

// SeedCorrectionPatterns returns the correction patterns of the seed preset. The seed
// calls is_correction without defining it; its reading here is
// [DefaultCorrectionPatterns], the patterns loopwatch wrote for the seed's examples
// ("no, that's wrong", "I meant …", "actually … not"), which the seed preset has
// always run. Each call returns a new slice.
func SeedCorrectionPatterns() []string { return DefaultCorrectionPatterns() }

// SeedPatterns returns the seed's patterns alone: its frustration and success lists
// verbatim, no extra frustration patterns, and [SeedCorrectionPatterns].
func SeedPatterns() Patterns {
	return Patterns{
		Frustration:      SeedFrustrationPatterns(),
		ExtraFrustration: []string{},
		Success:          SeedSuccessPatterns(),
		Correction:       SeedCorrectionPatterns(),
	}
}

// Patterns configures a [PatternMatcher]. Every entry is a Go (RE2) regular
// expression; see [NewPatternMatcher] for how word boundaries are read.
type Patterns struct {
	// Frustration holds the seed's frustration patterns (default
	// [SeedFrustrationPatterns]).
	Frustration []string `json:"frustration"`
	// ExtraFrustration holds additional frustration patterns (default
	// [ExtraFrustrationPatterns]); a hit counts exactly like a seed hit.
	ExtraFrustration []string `json:"extra_frustration"`
	// Success holds the success patterns (default [SeedSuccessPatterns]).
	Success []string `json:"success"`
	// Correction holds the correction patterns (default [DefaultCorrectionPatterns]);
	// any hit makes the message a correction.
	Correction []string `json:"correction"`
}

// DefaultPatterns returns the seed's patterns plus loopwatch's extras and corrections.
func DefaultPatterns() Patterns {
	return Patterns{
		Frustration:      SeedFrustrationPatterns(),
		ExtraFrustration: ExtraFrustrationPatterns(),
		Success:          SeedSuccessPatterns(),
		Correction:       DefaultCorrectionPatterns(),
	}
}

// PatternMatcher matches human messages against compiled frustration, success and
// correction patterns. It is immutable after [NewPatternMatcher] and safe for
// concurrent use; one matcher serves every session.
type PatternMatcher struct {
	frustration patternSet
	success     patternSet
	correction  patternSet
	apostrophes bool
	lits        litTable // every pattern's prefilter literals
}

// NewPatternMatcher compiles p once.
//
// Word boundaries: Go's regexp implements \b for ASCII only, so `\bno\b` would match
// the "no" of "noční" (the č is not an ASCII word character). For a pattern that
// begins (after any leading flag group such as (?i)) or ends with \b, the matcher
// therefore also requires the rune just before the match, resp. just after it, not
// to be a Unicode letter, digit, mark or underscore. \b inside a pattern stays ASCII.
//
// Typographic apostrophes (U+2019, as macOS and phones type them) are read as ASCII
// apostrophes before matching, so "doesn’t" matches the seed's `doesn'?t`; a
// [Config] can switch that off (Config.TypographicApostrophes).
//
// Speed: Go's regexp needs some 30 ns per byte for these case-insensitive patterns,
// so each pattern is guarded by literals derived from its syntax tree (see
// prefilter.go): a pattern runs only when the message, lower-cased once, contains
// them. The guard never changes a result, only skips patterns that cannot match.
func NewPatternMatcher(p Patterns) (*PatternMatcher, error) { return newPatternMatcher(p, true) }

func newPatternMatcher(p Patterns, apostrophes bool) (*PatternMatcher, error) {
	m := PatternMatcher{apostrophes: apostrophes}
	var err error
	fr := make([]string, 0, len(p.Frustration)+len(p.ExtraFrustration))
	fr = append(append(fr, p.Frustration...), p.ExtraFrustration...)
	if m.frustration, err = compileSet("frustration", fr); err != nil {
		return nil, err
	}
	if m.success, err = compileSet("success", p.Success); err != nil {
		return nil, err
	}
	if m.correction, err = compileSet("correction", p.Correction); err != nil {
		return nil, err
	}
	for _, set := range []patternSet{m.frustration, m.success, m.correction} {
		for i := range set {
			for _, lits := range set[i].litSets {
				idx := make([]uint16, len(lits))
				for j, l := range lits {
					idx[j] = m.lits.add(l)
				}
				set[i].lits = append(set[i].lits, idx)
			}
		}
	}
	m.lits.seal()
	return &m, nil
}

// MatchFrustration appends one Frustration signal per frustration pattern that matches
// text (read whole) and returns the extended slice.
func (m *PatternMatcher) MatchFrustration(dst []Signal, text string) []Signal {
	b, ft := m.prepare(text)
	return m.frustration.appendMatches(dst, Frustration, b, &ft)
}

// MatchSuccess appends one Success signal per success pattern that matches text.
func (m *PatternMatcher) MatchSuccess(dst []Signal, text string) []Signal {
	b, ft := m.prepare(text)
	return m.success.appendMatches(dst, Success, b, &ft)
}

// Correction reports whether text is a correction, and the first correction
// pattern that matched.
func (m *PatternMatcher) Correction(text string) (pattern string, ok bool) {
	b, ft := m.prepare(text)
	return m.correction.first(b, &ft)
}

func (m *PatternMatcher) prepare(text string) ([]byte, foldedText) {
	b := appendApos(nil, text, m.apostrophes)
	var fold []byte
	return b, foldText(b, &fold, &m.lits)
}

// appendHumanBytes appends every signal of a human message's window (apostrophes
// already mapped): frustration hits, success hits, then at most one UserCorrection.
// fold is the caller's reusable buffer for the lower-cased copy.
func (m *PatternMatcher) appendHumanBytes(dst []Signal, text []byte, fold *[]byte) []Signal {
	ft := foldText(text, fold, &m.lits)
	dst = m.frustration.appendMatches(dst, Frustration, text, &ft)
	dst = m.success.appendMatches(dst, Success, text, &ft)
	if src, ok := m.correction.first(text, &ft); ok {
		dst = append(dst, Signal{Kind: UserCorrection, Source: src})
	}
	return dst
}

type pattern struct {
	src           string
	re            *regexp.Regexp
	anchored      *regexp.Regexp // re without its leading \b, anchored at the start (see anchoredForm)
	starts        []startLit     // the literals every match of re starts with, when anchored is set
	litSets       [][][]byte     // prefilter: each set has a literal in every match (see requiredLiterals)
	lits          [][]uint16     // litSets as indices into the matcher's litTable
	leading       bool           // source starts with \b: check the rune before the match
	trailing      bool           // source ends with \b: check the rune after the match
	needsBoundary bool           // leading || trailing
}

type patternSet []pattern

// stripLeadingFlags removes leading flag groups such as "(?i)" or "(?is)".
func stripLeadingFlags(s string) string {
	for strings.HasPrefix(s, "(?") {
		i := 2
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			i++
		}
		if i == 2 || i >= len(s) || s[i] != ')' {
			break
		}
		s = s[i+1:]
	}
	return s
}

func compileSet(name string, srcs []string) (patternSet, error) {
	set := make(patternSet, 0, len(srcs))
	for _, src := range srcs {
		re, err := regexp.Compile(src)
		if err != nil {
			return nil, fmt.Errorf("detect: %s pattern %q: %w", name, src, err)
		}
		body := stripLeadingFlags(src)
		p := pattern{
			src:      src,
			re:       re,
			leading:  strings.HasPrefix(body, `\b`),
			trailing: endsWithBoundary(body),
		}
		p.needsBoundary = p.leading || p.trailing
		p.litSets = requiredLiterals(src)
		if a, starts, ok := anchoredForm(src); ok {
			if p.anchored, err = regexp.Compile(a); err != nil {
				return nil, fmt.Errorf("detect: %s pattern %q, anchored: %w", name, src, err)
			}
			p.starts = starts
		}
		set = append(set, p)
	}
	return set, nil
}

// endsWithBoundary reports whether s ends with an unescaped \b.
func endsWithBoundary(s string) bool {
	if !strings.HasSuffix(s, `\b`) {
		return false
	}
	n := 0 // backslashes before the final "b"
	for i := len(s) - 2; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func (set patternSet) appendMatches(dst []Signal, k Kind, text []byte, ft *foldedText) []Signal {
	for i := range set {
		if ft.mayMatch(set[i].lits) && set[i].matchFolded(text, ft) {
			dst = append(dst, Signal{Kind: k, Source: set[i].src})
		}
	}
	return dst
}

func (set patternSet) first(text []byte, ft *foldedText) (string, bool) {
	for i := range set {
		if ft.mayMatch(set[i].lits) && set[i].matchFolded(text, ft) {
			return set[i].src, true
		}
	}
	return "", false
}

// matchFolded is match, run only where a match can start when the pattern has an
// anchored form and the folded text is usable: at each occurrence of one of its
// start literals after a non-word character. It finds a match exactly when match
// does.
func (p *pattern) matchFolded(text []byte, ft *foldedText) bool {
	if p.anchored == nil || ft.off {
		return p.match(text)
	}
	for si := range p.starts {
		lit, follow := p.starts[si].lit, &p.starts[si].follow
		for from := 0; ; {
			j := bytes.Index(ft.lower[from:], lit)
			if j < 0 {
				break
			}
			i := from + j
			from = i + 1
			if end := i + len(lit); end < len(text) && !follow.has(text[end]) {
				continue
			}
			if i > 0 {
				if r, _ := utf8.DecodeLastRune(text[:i]); isWordRune(r) {
					continue
				}
			}
			if !p.trailing {
				if p.anchored.Match(text[i:]) {
					return true
				}
				continue
			}
			if loc := p.anchored.FindIndex(text[i:]); loc != nil && p.boundaryOK(text, []int{i, i + loc[1]}) {
				return true
			}
		}
	}
	return false
}

func (p *pattern) match(text []byte) bool {
	if !p.needsBoundary {
		return p.re.Match(text)
	}
	loc := p.re.FindIndex(text)
	if loc == nil {
		return false
	}
	if p.boundaryOK(text, loc) {
		return true
	}
	// The leftmost match sits next to a non-ASCII letter: look at the others.
	for _, loc := range p.re.FindAllIndex(text, -1) {
		if p.boundaryOK(text, loc) {
			return true
		}
	}
	return false
}

func (p *pattern) boundaryOK(text []byte, loc []int) bool {
	if p.leading && loc[0] > 0 {
		if r, _ := utf8.DecodeLastRune(text[:loc[0]]); isWordRune(r) {
			return false
		}
	}
	if p.trailing && loc[1] < len(text) {
		if r, _ := utf8.DecodeRune(text[loc[1]:]); isWordRune(r) {
			return false
		}
	}
	return true
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}
