package detect

// A tool's output is read by some forty rules, each looking for its literals. With
// strings.Contains that is one pass over the text per literal: fast where the
// literals' first bytes are rare (a short cargo log), but real outputs are code, file
// contents and logs full of the bytes the literals start with, where each pass
// crawls (a log where every line says "error": most of a millisecond over the 64 KiB
// window). litScan finds every literal of every rule in one pass instead, on every
// output whatever its length: an Aho–Corasick automaton, its failure links folded
// into a table of transitions over byte classes, so each byte of the text costs two
// loads whatever the literals. It says which literals occur, nothing more; the rules
// then read the answer instead of the text. (Up to 8 KiB the rules once searched one
// literal at a time; over the tools' outputs of the real Claude Code corpus the one
// pass is 1.7 times as fast, BenchmarkDetectCorpus in replay.) The human-message
// patterns' prefilter literals are found the same way (litTable.scan): one pass over
// the lowered message rather than a search a literal.

// litScan finds which of a fixed set of literals occur in a text, in one pass. It is
// immutable after newLitScan and safe for concurrent use.
type litScan struct {
	n      int       // literals
	class  [256]byte // byte → class; class 0: a byte no literal holds
	nclass int
	// next[s+class] is the next state after state s on a byte of class: states are
	// numbered by their rows' offsets (state k is k*nclass), so that no byte costs a
	// multiplication. State 0 is the root.
	next []uint32
	// States from outFrom on end at least one literal: out[(s-outFrom)/nclass] lists
	// the literals that end there, those of its proper suffixes included.
	outFrom int
	out     [][]uint16
}

// maxScanLits, maxScanStates and maxScanTable (transitions: 4 MiB of them) bound an
// automaton; beyond them newLitScan returns nil and the rules search for their
// literals one by one.
const (
	maxScanLits   = 1024
	maxScanStates = 1 << 16 // with 255 classes, offsets within a uint32
	maxScanTable  = 1 << 20
)

// newLitScan returns the automaton of lits (non-empty, distinct), or nil when they
// exceed its bounds.
func newLitScan(lits []string) *litScan {
	if len(lits) == 0 || len(lits) > maxScanLits {
		return nil
	}
	l := &litScan{n: len(lits)}
	for _, lit := range lits {
		for i := 0; i < len(lit); i++ {
			if l.class[lit[i]] == 0 {
				l.nclass++
				l.class[lit[i]] = byte(l.nclass)
			}
		}
	}
	if l.nclass == 255 {
		return nil // every class taken: the others would have none of their own
	}
	l.nclass++ // class 0
	nc := l.nclass
	// The trie: child[s*nc+c] is the state after s on class c, or 0 (the root is
	// no state's child). A literal adds at most its length in states.
	bound := 1
	for _, lit := range lits {
		bound += len(lit)
	}
	if bound > maxScanStates {
		bound = maxScanStates
	}
	if bound*nc > maxScanTable {
		return nil
	}
	child := make([]int32, bound*nc)
	outs := make([][]uint16, 1, bound)
	for id, lit := range lits {
		s := 0
		for i := 0; i < len(lit); i++ {
			c := int(l.class[lit[i]])
			if child[s*nc+c] == 0 {
				if len(outs) == maxScanStates {
					return nil
				}
				child[s*nc+c] = int32(len(outs))
				outs = append(outs, nil)
			}
			s = int(child[s*nc+c])
		}
		outs[s] = append(outs[s], uint16(id))
	}
	// Breadth first, so that a state's failure state is complete before it, child
	// becomes the transitions: those of a state without a child on a class are its
	// failure state's.
	states := len(outs)
	delta := child[:states*nc]
	fail := make([]int32, states)
	queue := make([]int32, 0, states)
	for c := range nc {
		if t := delta[c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := int(queue[0])
		queue = queue[1:]
		f := int(fail[s])
		for c := range nc {
			t := delta[s*nc+c]
			if t == 0 {
				delta[s*nc+c] = delta[f*nc+c]
				continue
			}
			fail[t] = delta[f*nc+c]
			if o := outs[fail[t]]; len(o) > 0 {
				outs[t] = append(outs[t][:len(outs[t]):len(outs[t])], o...)
			}
			queue = append(queue, t)
		}
	}
	// Number the states that end a literal last, so that one comparison a byte
	// tells whether anything ended there.
	perm := make([]int, states)
	n := 0
	for s := range states {
		if len(outs[s]) == 0 {
			perm[s] = n
			n++
		}
	}
	l.outFrom = n * nc
	l.out = make([][]uint16, states-n)
	for s := range states {
		if len(outs[s]) > 0 {
			perm[s] = n
			l.out[n-l.outFrom/nc] = outs[s]
			n++
		}
	}
	l.next = make([]uint32, states*nc)
	for s := range states {
		for c := range nc {
			l.next[perm[s]*nc+c] = uint32(perm[delta[s*nc+c]] * nc)
		}
	}
	return l
}

// words is the length of the bit set scan fills.
func (l *litScan) words() int { return (l.n + 63) / 64 }

// scanText sets in found (l.words() words, zeroed by the caller) the bit of every
// literal of l that occurs in text, a tool's output or a lowered human message.
func scanText[T string | []byte](l *litScan, text T, found []uint64) {
	next, class, nc, outFrom := l.next, &l.class, l.nclass, l.outFrom
	left := l.n
	s := 0
	for i := 0; i < len(text); i++ {
		s = int(next[s+int(class[text[i]])])
		if s < outFrom {
			continue
		}
		for _, id := range l.out[(s-outFrom)/nc] {
			w, b := id>>6, uint64(1)<<(id&63)
			if found[w]&b == 0 {
				found[w] |= b
				if left--; left == 0 {
					return
				}
			}
		}
	}
}

// has reports whether literal id is set in found.
func has(found []uint64, id uint16) bool { return found[id>>6]&(1<<(id&63)) != 0 }
