package detect

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go's regexp has no DFA: over a long text it runs a pattern as an NFA, one thread a
// live partial match, 20 to 60 ns a byte when partial matches are everywhere — an
// output of near misses of one pattern costs milliseconds over the tool window.
// matcher is the pattern as a deterministic automaton over rune classes, for the one
// question the tool rules ask (does it match anywhere?): a table look-up a byte,
// whatever the text. Between partial matches it jumps, as regexp does, to the next
// place a match can start (the pattern's literal prefix, or one of the few bytes a
// match starts with). The automaton is built in full once, when the tool rules are
// compiled (a first use, for a match compiled alone); a pattern whose automaton would
// exceed the bounds keeps to regexp.

// Bounds on an automaton: its states, its rune classes, its table, and the work of
// building it (instructions followed, some 5 ns each), so that building one costs at
// most some tens of milliseconds whatever the pattern.
const (
	maxDFAStates  = 2048
	maxDFAClasses = 512
	maxDFATable   = 1 << 17
	maxDFAWork    = 1 << 21
)

// prevRep returns a rune of prev category c: what the rune before a position is, as
// far as the zero-width assertions can tell (syntax.EmptyOpContext) — 0 the
// beginning of the text (-1), 1 a newline, 2 a word character, 3 any other.
func prevRep(c int) rune {
	return [4]rune{-1, '\n', 'a', '!'}[c]
}

// matcher decides whether a pattern matches anywhere in a text.
type matcher struct {
	ascii  [utf8.RuneSelf]uint16 // class of each ASCII rune
	bounds []rune                // class k holds the runes from bounds[k] up to bounds[k+1]
	nclass int
	// next[s*nclass+k] is the state after state s reads a rune of class k. State 0
	// is "matched", absorbing.
	next []int32
	// eof[s]: the pattern matches at the end of the text from state s.
	eof []bool
	// idle[c] is the state with no partial match after a rune of prev category c;
	// idle[0], the beginning of the text, is where a text starts. The idle states
	// are numbered first: 1 to lastIdle.
	idle     [4]int32
	lastIdle int32
	// Where a match can start, for the jump from an idle state: its literal prefix,
	// else one of firstBytes (at most 3), else anywhere (neither: no jump).
	prefix     string
	firstBytes []byte
}

// newMatcher compiles the automaton of the pattern src, or returns nil when it
// exceeds the bounds (or the pattern does not parse).
func newMatcher(src string) *matcher {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil
	}
	m := &matcher{}
	if !m.classes(prog) {
		return nil
	}
	if !m.build(prog) {
		return nil
	}
	if set, nullable := first(re); !nullable {
		m.prefix, _ = prog.Prefix()
		if m.prefix == "" && !set.all {
			for c := range 256 {
				if set.has(byte(c)) {
					m.firstBytes = append(m.firstBytes, byte(c))
				}
			}
			if len(m.firstBytes) > 3 {
				m.firstBytes = nil
			}
		}
	}
	return m
}

// classes partitions the runes so that every instruction, and every zero-width
// assertion, treats the runes of a class alike.
func (m *matcher) classes(prog *syntax.Prog) bool {
	bounds := []rune{0, '\n', '\n' + 1, '0', '9' + 1, 'A', 'Z' + 1, '_', '_' + 1, 'a', 'z' + 1, utf8.RuneSelf}
	for i := range prog.Inst {
		in := &prog.Inst[i]
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1:
		default:
			continue
		}
		if len(in.Rune) == 1 {
			r := in.Rune[0]
			bounds = append(bounds, r, r+1)
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					bounds = append(bounds, f, f+1)
				}
			}
			continue
		}
		for j := 0; j+1 < len(in.Rune); j += 2 {
			bounds = append(bounds, in.Rune[j], in.Rune[j+1]+1)
		}
		if len(bounds) > 4*maxDFAClasses {
			return false
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	for len(bounds) > 0 && bounds[len(bounds)-1] > unicode.MaxRune {
		bounds = bounds[:len(bounds)-1]
	}
	if len(bounds) > maxDFAClasses {
		return false
	}
	m.bounds, m.nclass = bounds, len(bounds)
	for r := range rune(utf8.RuneSelf) {
		m.ascii[r] = uint16(m.classOf(r))
	}
	return true
}

// classOf returns r's class.
func (m *matcher) classOf(r rune) int {
	k, found := slices.BinarySearch(m.bounds, r)
	if !found {
		k--
	}
	return k
}

// prevCategory returns the prev category (see prevRep) of r.
func prevCategory(r rune) int {
	switch {
	case r == '\n':
		return 1
	case syntax.IsWordChar(r):
		return 2
	}
	return 3
}

// build constructs every state reachable from the beginning of the text, breadth
// first. A state is the program counters of the partial matches (before their
// zero-width assertions are followed) and the category of the rune read last; every
// step starts a new partial match, as an unanchored search does.
func (m *matcher) build(prog *syntax.Prog) bool {
	assertions := slices.ContainsFunc(prog.Inst, func(in syntax.Inst) bool { return in.Op == syntax.InstEmptyWidth })
	type state struct {
		pcs  []uint32
		prev int
	}
	states := []state{{}} // 0: matched
	index := map[string]int32{}
	var key []byte
	intern := func(pcs []uint32, prev int) (int32, bool) {
		if !assertions && prev != 0 {
			prev = 3 // without assertions only the beginning of the text stands apart (and it need not)
		}
		key = append(key[:0], byte(prev))
		for _, pc := range pcs {
			key = append(key, byte(pc>>24), byte(pc>>16), byte(pc>>8), byte(pc))
		}
		if id, ok := index[string(key)]; ok {
			return id, true
		}
		if len(states) == maxDFAStates {
			return 0, false
		}
		id := int32(len(states))
		index[string(key)] = id
		states = append(states, state{pcs: slices.Clone(pcs), prev: prev})
		return id, true
	}
	for c := range 4 {
		id, _ := intern(nil, c)
		m.idle[c] = id
		m.lastIdle = max(m.lastIdle, id)
	}
	seen := make([]uint32, len(prog.Inst)) // seen[pc] == gen: followed in this closure
	gen := uint32(0)
	var stack, out []uint32
	work := 0
	// closure follows the partial matches of pcs, and a new one, through everything
	// that reads no rune, between the runes prev and next (-1: the text's ends): it
	// returns the instructions that read the next rune, and whether a match ends
	// there.
	closure := func(pcs []uint32, prev, next rune, consuming []uint32) ([]uint32, bool) {
		gen++
		matched := false
		ctx := syntax.EmptyOpContext(prev, next)
		stack = append(append(stack[:0], pcs...), uint32(prog.Start))
		for len(stack) > 0 {
			pc := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			work++
			if seen[pc] == gen {
				continue
			}
			seen[pc] = gen
			in := &prog.Inst[pc]
			switch in.Op {
			case syntax.InstAlt, syntax.InstAltMatch:
				stack = append(stack, in.Arg, in.Out)
			case syntax.InstCapture, syntax.InstNop:
				stack = append(stack, in.Out)
			case syntax.InstEmptyWidth:
				if syntax.EmptyOp(in.Arg)&^ctx == 0 {
					stack = append(stack, in.Out)
				}
			case syntax.InstMatch:
				matched = true
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				consuming = append(consuming, pc)
			}
		}
		return consuming, matched
	}
	// The closure depends on the next rune only through the assertions, which tell
	// a newline, a word character and any other rune apart: one closure for each.
	var consuming [4][]uint32
	var matched [4]bool
	m.next = append(m.next, make([]int32, m.nclass)...) // matched stays matched
	m.eof = append(m.eof, true)
	for s := 1; s < len(states); s++ {
		if len(m.next)+m.nclass > maxDFATable || work > maxDFAWork {
			return false
		}
		st := states[s]
		prev := prevRep(st.prev)
		_, eof := closure(st.pcs, prev, -1, nil)
		m.eof = append(m.eof, eof)
		for c := 1; c < 4; c++ {
			consuming[c], matched[c] = closure(st.pcs, prev, prevRep(c), consuming[c][:0])
		}
		for k := range m.nclass {
			r := m.bounds[k]
			c := prevCategory(r)
			if matched[c] {
				m.next = append(m.next, 0)
				continue
			}
			out = out[:0]
			for _, pc := range consuming[c] {
				in := &prog.Inst[pc]
				if in.Op == syntax.InstRuneAny || in.Op == syntax.InstRuneAnyNotNL && r != '\n' || in.Op != syntax.InstRuneAnyNotNL && in.Op != syntax.InstRuneAny && in.MatchRune(r) {
					out = append(out, in.Out)
				}
			}
			work += 1 + len(consuming[c]) + len(out) // the steps and the key
			// No partial match goes on (most classes, from most states): the idle state.
			if len(out) == 0 {
				m.next = append(m.next, m.idle[c])
				continue
			}
			slices.Sort(out)
			out = slices.Compact(out)
			id, ok := intern(out, c)
			if !ok {
				return false
			}
			m.next = append(m.next, id)
		}
	}
	return true
}

// match reports whether the pattern matches s anywhere.
func (m *matcher) match(s string) bool {
	next, nc := m.next, m.nclass
	st := m.idle[0]
	canJump := m.prefix != "" || len(m.firstBytes) > 0
	// at[k] is the next position of the prefix (k = 0) or of firstBytes[k] at or after
	// the last jump's start, -1 when there is none, -2 before the first look: each is
	// searched for again only once passed, so the jumps read the text once.
	at := [3]int{-2, -2, -2}
	for i := 0; i < len(s); {
		if canJump && st <= m.lastIdle {
			j := m.jump(s, i, &at)
			if j < 0 {
				return m.eof[st] // no match can start in the rest: the text's end decides
			}
			if j > i {
				r, _ := utf8.DecodeLastRuneInString(s[:j])
				st, i = m.idle[prevCategory(r)], j
			}
		}
		c := s[i]
		var k int
		if c < utf8.RuneSelf {
			k = int(m.ascii[c])
			i++
		} else {
			r, n := utf8.DecodeRuneInString(s[i:])
			k = m.classOf(r)
			i += n
		}
		st = next[int(st)*nc+k]
		if st == 0 {
			return true
		}
	}
	return m.eof[st]
}

// jump returns the first position from i where a match can start, or -1; at keeps
// the positions found (see match).
func (m *matcher) jump(s string, i int, at *[3]int) int {
	find := func(k int, search func(string) int) int {
		if at[k] == -2 || at[k] >= 0 && at[k] < i {
			at[k] = -1
			if j := search(s[i:]); j >= 0 {
				at[k] = i + j
			}
		}
		return at[k]
	}
	if m.prefix != "" {
		return find(0, func(t string) int { return strings.Index(t, m.prefix) })
	}
	best := -1
	for k, b := range m.firstBytes {
		if j := find(k, func(t string) int { return strings.IndexByte(t, b) }); j >= 0 && (best < 0 || j < best) {
			best = j
		}
	}
	return best
}
