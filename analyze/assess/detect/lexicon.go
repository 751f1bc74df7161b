package detect

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Lexicon is the phrase data of the lexical friction signals ([NegationReply],
// [StillProblem], [Doubt], [CorrectionPhrase], [Exasperation], [GiveUp]) and the word
// lists the other human-text signals use. It is plain data, so a configuration can extend or replace any list;
// [DefaultLexicon] has the built-in multilingual one.
//
// # Phrase syntax
//
// A phrase is a sequence of elements separated by spaces, matched against a message's
// normalised tokens (lower-cased, Latin diacritics removed, apostrophes dropped, each
// Han/Kana character its own token — see [token]) within one clause (clauses end at
// . ! ? ; and line breaks):
//
//   - a word, normalised like the message: "doesn't", "doesnt" and "Doesn’t" are the
//     same element; a CJK word becomes one element per character ("还是不行");
//   - word~ : any token that starts with word (at least 4 bytes once normalised):
//     "fail~" matches fails, failed, failing, failure;
//   - %name : any word of the class name (see Classes);
//   - * : a gap of up to MaxGap tokens of the same clause;
//   - , : the previous word is followed by punctuation or ends its clause ("no," and
//     "no." but not the "no" of "No such file"); the phrase may go on in the next
//     clause ("yes; but …");
//   - ^ as the first element: the phrase must start the message, after any words of
//     the class "filler" ("hmm", "well", "oh") — or at one of them, for a phrase
//     whose first word is a filler itself ("^ wait ,", "ok but").
//
// A hit of a Bait phrase cancels every other hit that overlaps it: "no problem" is not
// a negation, "still not sure" is not a complaint, "没问题" is not a "没…" complaint.
type Lexicon struct {
	// Classes are named word lists for %name elements, and the lists the detector uses
	// directly: "filler" (skipped before ^), "approval" (a message made only of these
	// words and GoOn phrases, after an interrupt, is approval, not a redirect: "ok
	// continue"), "stop" (function words left out of the repeat-request similarity),
	// and "slip_act" and "second_person" (what a Slip message may say besides its
	// phrase: "hit", "esc", "pressed"; and may not: "you"). Words of "slip_act",
	// "second_person" and of a class only Slip and GoOn phrases name (the default's
	// "slip_press", the key-presses of its "wrong key" slips) are no typo targets.
	Classes map[string][]string `json:"classes"`
	// Negation phrases: a reply led by a negation ("no, use X", "nope", "não",
	// "不是", "いいえ", "nein").
	Negation []string `json:"negation"`
	// Still phrases: something still or again goes wrong ("still not working", "same
	// error again", "sigue sin funcionar", "还是不行", "まだ動かない").
	Still []string `json:"still"`
	// Doubt phrases: the human doubts the agent's work ("did you even", "are you
	// sure", "you didn't actually", "¿estás seguro?", "你确定").
	Doubt []string `json:"doubt"`
	// Correction phrases: the human says the agent got it wrong ("that's wrong", "I
	// meant", "not what I asked", "eso está mal", "我是说", "そうじゃなくて").
	Correction []string `json:"correction"`
	// Exasperation phrases: an exasperated interjection ("wtf", "ugh", "come on",
	// "joder", "putain", "卧槽", "ふざけ").
	Exasperation []string `json:"exasperation"`
	// GiveUp phrases: the human gives up on the agent doing the task ("forget it",
	// "I'll do it myself", "olvídalo", "laisse tomber", "vergiss es", "算了",
	// "自分でやる").
	GiveUp []string `json:"give_up"`
	// ExasperationEmoji lists emoji that mark exasperation ("😤🙄"); any of them in a
	// message is an Exasperation signal, unless the success patterns read the message
	// as success ("thanks, perfect 😩").
	ExasperationEmoji string `json:"exasperation_emoji"`
	// GoOn phrases approve, or resume, what the agent was doing in words the
	// "approval" class cannot hold: in languages whose words the tokenizer splits into
	// characters ("继续", "好的", "続けてください", "はい"; single characters as approval
	// words made "まだ" — "not yet" — and "どうして" — "why" — approval), and phrases
	// with words that alone are no approval ("continue where you left off"). A message
	// made only of these and "approval" words is approval. They raise no signal.
	GoOn []string `json:"go_on"`
	// Slip phrases: the human says the interrupt before their message was a slip of
	// the hand, or apologises for it ("by accident", "didn't mean to", "sin querer",
	// "aus Versehen", "不小心", "对不起"). After an interrupt, a message that holds one and
	// otherwise only approval and "slip_act" words ("sorry, hit escape by accident,
	// carry on"), no "second_person" one and no other phrase but over a slip phrase,
	// and asks no question, lets the agent go on, as approval does: no redirect, and
	// no friction signal of its words (see lexicon.onlySlip). They raise no signal of
	// their own, and a token is not read as a typo of a word only they and the slip
	// classes use.
	Slip []string `json:"slip"`
	// Bait phrases: politeness and acceptance that look like the above ("no
	// problem", "no worries", "não tem problema", "没问题", "kein Problem").
	Bait []string `json:"bait"`
	// Typos maps common misspellings to the lexicon word they stand for ("stil" →
	// "still", "agian" → "again"); a token equal to a key is read as its word. An
	// entry whose word no phrase or class uses is ignored.
	Typos map[string]string `json:"typos"`
	// MaxGap is the longest gap a * element spans, in tokens. Default 3.
	MaxGap int `json:"max_gap"`
	// Fuzzy also reads as a lexicon word of at least 5 letters a token (of letters
	// only, not itself a lexicon word) that is the word with two adjacent letters
	// swapped ("dosent" → "doesnt", "wokring" → "working") or one letter doubled or
	// added ("stilll", "errror"), or, for words of at least 6 letters, one letter
	// dropped ("workng"). A changed letter is not read as a typo: too many real words
	// are one letter from another ("skill"/"still", "words"/"works",
	// "merge"/"merde"); nor is a dropped letter in a short word ("mean"/"meant").
	// Default true.
	Fuzzy bool `json:"fuzzy"`
}

// category is what a lexicon phrase signals.
type category uint8

const (
	catNegation category = iota
	catStill
	catDoubt
	catCorrection
	catExasperation
	catGiveUp
	catGoOn
	catSlip
	catBait
	numCats
)

// kind returns the signal kind of a category (none for go-on, slip and bait).
func (c category) kind() Kind {
	switch c {
	case catNegation:
		return NegationReply
	case catStill:
		return StillProblem
	case catDoubt:
		return Doubt
	case catCorrection:
		return CorrectionPhrase
	case catExasperation:
		return Exasperation
	case catGiveUp:
		return GiveUp
	}
	return 0
}

// Lexical reports whether k is a friction signal the lexicon reads in a human
// message's words — NegationReply, StillProblem, Doubt, CorrectionPhrase,
// Exasperation, GiveUp: the kinds of its categories. Those say something of the work
// by themselves; a repeat, an interrupt and the message after one are turn-taking.
func (k Kind) Lexical() bool {
	for c := range numCats {
		if k != 0 && category(c).kind() == k {
			return true
		}
	}
	return false
}

const (
	opWord uint8 = iota
	opPrefix
	opClass
	opGap
	opPunct
)

type elem struct {
	op   uint8
	word []byte     // opWord, opPrefix
	ent  int32      // opWord: its dictionary entry
	cls  *wordClass // opClass
}

type phrase struct {
	src      string
	cat      category
	anchored bool
	elems    []elem
}

// wordClass is a class of words: exact words (a bit of each member's dictionary
// entry) and prefixes.
type wordClass struct {
	bit      uint64 // 0 for the classes past the 64th: they test exact words by map
	exact    map[string]struct{}
	prefixes [][]byte
}

// has reports whether token i of t (read as its lexicon word) is in the class.
func (c *wordClass) has(lx *lexicon, t *tokens, i int) bool {
	if c == nil {
		return false
	}
	tk := &t.toks[i]
	if c.bit != 0 {
		if tk.ent >= 0 && lx.dict.entries[tk.ent].classes&c.bit != 0 {
			return true
		}
	} else if _, ok := c.exact[string(t.word(i, lx))]; ok {
		return true
	}
	if len(c.prefixes) > 0 {
		w := t.word(i, lx)
		for _, p := range c.prefixes {
			if bytes.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}

// dictEntry is one word of the lexicon.
type dictEntry struct {
	word    []byte
	h       uint64  // hashToken(word)
	mask    uint32  // its ASCII letters
	typoOf  int32   // for a Lexicon.Typos key: the entry of its word; else -1
	classes uint64  // the classes (of the first 64) it is an exact member of
	starts  []int32 // the phrases whose first element it matches exactly
	// fuzzy: a token may be read as a typo of it (Lexicon.Fuzzy) — a word of a class or
	// phrase that raises a signal, not only of what a slip may say.
	fuzzy bool
}

// dict is an open-addressing hash table of the lexicon's words, looked up by the
// hash the tokenizer computed: one probe sequence per token.
type dict struct {
	entries []dictEntry
	slots   []int32 // entry index + 1; 0 is empty
}

func (d *dict) find(h uint64, w []byte) int32 {
	if len(d.slots) == 0 {
		return -1
	}
	mask := uint64(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := d.slots[i] - 1
		if e < 0 {
			return -1
		}
		if d.entries[e].h == h && bytes.Equal(d.entries[e].word, w) {
			return e
		}
	}
}

// add returns the entry of w, adding it (the table is rebuilt by seal).
func (d *dict) add(w []byte, index map[string]int32) int32 {
	if e, ok := index[string(w)]; ok {
		return e
	}
	e := int32(len(d.entries))
	index[string(w)] = e
	var mask uint32
	for _, c := range w {
		if c >= 'a' && c <= 'z' {
			mask |= 1 << (c - 'a')
		}
	}
	d.entries = append(d.entries, dictEntry{word: w, h: hashToken(w, 0), mask: mask, typoOf: -1})
	return e
}

// seal builds the hash table, at most half full.
func (d *dict) seal() {
	n := 16
	for n < 2*len(d.entries) {
		n *= 2
	}
	d.slots = make([]int32, n)
	mask := uint64(n - 1)
	for e := range d.entries {
		i := d.entries[e].h & mask
		for d.slots[i] != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = int32(e) + 1
	}
}

// lexicon is a compiled [Lexicon]; immutable and shared.
type lexicon struct {
	classes      map[string]*wordClass
	filler       *wordClass
	approval     *wordClass
	stop         *wordClass
	slipAct      *wordClass
	secondPerson *wordClass
	phrases      []phrase
	dict         dict
	// prefixStarts indexes the phrases whose first element is a prefix (or a class
	// with prefixes) by the hash of the prefix's first four bytes.
	prefixStarts map[uint64][]int32
	maxGap       int
	fuzzy        bool
	emoji        string    // Lexicon.ExasperationEmoji
	emojiLead    [256]bool // the first bytes of its runes' UTF-8
	// byShape lists the dictionary's words of 5 to maxFuzzyLen ASCII letters by
	// first letter and length: the candidates a token may be a typo of.
	byShape [26][maxFuzzyLen + 1][]int32
}

// key4 hashes the first four bytes of w (all of a shorter w).
func key4(w []byte) uint64 { return hashToken(w[:min(len(w), 4)], 4) }

// compileLexicon compiles l; apostrophes says how U+2019 is read, as for messages.
func compileLexicon(l Lexicon, apostrophes bool) (*lexicon, error) {
	if l.MaxGap < 0 {
		return nil, fmt.Errorf("detect: lexicon max_gap %d is negative", l.MaxGap)
	}
	lx := &lexicon{classes: map[string]*wordClass{}, prefixStarts: map[uint64][]int32{}, maxGap: l.MaxGap, fuzzy: l.Fuzzy,
		emoji: l.ExasperationEmoji}
	for _, r := range l.ExasperationEmoji {
		if r < 0x80 {
			return nil, fmt.Errorf("detect: lexicon exasperation_emoji holds the ASCII character %q", r)
		}
		lx.emojiLead[string(r)[0]] = true
	}
	index := map[string]int32{}
	var t tokens
	names := make([]string, 0, len(l.Classes))
	for name := range l.Classes {
		names = append(names, name)
	}
	slices.Sort(names)
	classWords := make(map[*wordClass][]int32, len(names)) // each class's dictionary entries
	for ci, name := range names {
		c := &wordClass{exact: map[string]struct{}{}}
		if ci < 64 {
			c.bit = 1 << ci
		}
		for _, w := range l.Classes[name] {
			e, err := parseWord(&t, w, apostrophes)
			if err != nil {
				return nil, fmt.Errorf("detect: lexicon class %q: %w", name, err)
			}
			if len(e) > 1 {
				return nil, fmt.Errorf("detect: lexicon class %q: %q is more than one word (list CJK characters one by one)", name, w)
			}
			ei := lx.dict.add(e[0].word, index)
			classWords[c] = append(classWords[c], ei)
			switch x := e[0]; x.op {
			case opWord:
				c.exact[string(x.word)] = struct{}{}
				lx.dict.entries[ei].classes |= c.bit
			case opPrefix:
				c.prefixes = append(c.prefixes, x.word)
			}
		}
		lx.classes[name] = c
	}
	lx.filler, lx.approval, lx.stop = lx.classes["filler"], lx.classes["approval"], lx.classes["stop"]
	lx.slipAct, lx.secondPerson = lx.classes["slip_act"], lx.classes["second_person"]
	inSlip, outside := map[*wordClass]bool{}, map[*wordClass]bool{} // classes %named in slip or go-on phrases, and in others
	for _, list := range []struct {
		cat category
		src []string
	}{{catNegation, l.Negation}, {catStill, l.Still}, {catDoubt, l.Doubt}, {catCorrection, l.Correction},
		{catExasperation, l.Exasperation}, {catGiveUp, l.GiveUp}, {catGoOn, l.GoOn}, {catSlip, l.Slip}, {catBait, l.Bait}} {
		for _, src := range list.src {
			ph, err := lx.parsePhrase(&t, src, list.cat, apostrophes)
			if err != nil {
				return nil, err
			}
			slipOnly := list.cat == catSlip || list.cat == catGoOn
			for i := range ph.elems {
				switch e := &ph.elems[i]; {
				case e.op == opWord || e.op == opPrefix:
					e.ent = lx.dict.add(e.word, index)
					lx.dict.entries[e.ent].fuzzy = lx.dict.entries[e.ent].fuzzy || !slipOnly
				case e.op == opClass && slipOnly:
					inSlip[e.cls] = true
				case e.op == opClass:
					outside[e.cls] = true
				}
			}
			id := int32(len(lx.phrases))
			lx.phrases = append(lx.phrases, ph)
			lx.indexPhrase(id, index)
		}
	}
	// A class's words are typo targets but for the classes only slips read: the ones
	// onlySlip reads by name, and those no phrase names outside the Slip and GoOn ones.
	for _, name := range names {
		c := lx.classes[name]
		if c == lx.slipAct || c == lx.secondPerson || inSlip[c] && !outside[c] {
			continue
		}
		for _, ei := range classWords[c] {
			lx.dict.entries[ei].fuzzy = true
		}
	}
	typos := make([]string, 0, len(l.Typos))
	for typo := range l.Typos {
		typos = append(typos, typo)
	}
	slices.Sort(typos)
	for _, typo := range typos {
		word := l.Typos[typo]
		tw, err := parseWord(&t, typo, apostrophes)
		if err != nil || len(tw) != 1 || tw[0].op != opWord {
			return nil, fmt.Errorf("detect: lexicon typo %q must be one word", typo)
		}
		ww, err := parseWord(&t, word, apostrophes)
		if err != nil || len(ww) != 1 || ww[0].op != opWord {
			return nil, fmt.Errorf("detect: lexicon typo %q: %q must be one word", typo, word)
		}
		target, ok := index[string(ww[0].word)]
		if !ok {
			continue // a list replaced by a configuration no longer uses the word
		}
		if _, ok := index[string(tw[0].word)]; ok {
			return nil, fmt.Errorf("detect: lexicon typo %q is itself a word of the lexicon", typo)
		}
		lx.dict.entries[lx.dict.add(tw[0].word, index)].typoOf = target
	}
	for e := range lx.dict.entries {
		w := lx.dict.entries[e].word
		if lx.dict.entries[e].typoOf < 0 && lx.dict.entries[e].fuzzy && len(w) >= 5 && len(w) <= maxFuzzyLen && isASCIILetters(w) {
			lx.byShape[w[0]-'a'][len(w)] = append(lx.byShape[w[0]-'a'][len(w)], int32(e))
		}
	}
	lx.dict.seal()
	return lx, nil
}

// indexPhrase records phrase id under what its first element matches: the
// dictionary entries of its exact words, and the first four bytes of its prefixes.
func (lx *lexicon) indexPhrase(id int32, index map[string]int32) {
	e := lx.phrases[id].elems[0]
	addExact := func(w []byte) {
		ent := &lx.dict.entries[lx.dict.add(w, index)]
		if n := len(ent.starts); n == 0 || ent.starts[n-1] != id {
			ent.starts = append(ent.starts, id)
		}
	}
	addPrefix := func(p []byte) {
		k := key4(p)
		if ids := lx.prefixStarts[k]; len(ids) == 0 || ids[len(ids)-1] != id {
			lx.prefixStarts[k] = append(ids, id)
		}
	}
	switch e.op {
	case opWord:
		addExact(e.word)
	case opPrefix:
		addPrefix(e.word)
	case opClass:
		words := make([]string, 0, len(e.cls.exact))
		for w := range e.cls.exact {
			words = append(words, w)
		}
		slices.Sort(words)
		for _, w := range words {
			addExact([]byte(w))
		}
		for _, p := range e.cls.prefixes {
			addPrefix(p)
		}
	}
}

func isASCIILetters(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// parseWord normalises one word of a phrase or class: a prefix (word~), or a word
// that may normalise to several tokens (a CJK word, "c'est-à-dire").
func parseWord(t *tokens, w string, apostrophes bool) ([]elem, error) {
	prefix := strings.HasSuffix(w, "~")
	if prefix {
		w = strings.TrimSuffix(w, "~")
	}
	t.tokenize([]byte(w), apostrophes, false)
	if len(t.toks) == 0 {
		return nil, fmt.Errorf("%q has no letters", w)
	}
	out := make([]elem, 0, len(t.toks))
	for i := range t.toks {
		out = append(out, elem{op: opWord, word: bytes.Clone(t.raw(i))})
	}
	if prefix {
		if len(out) != 1 || len(out[0].word) < 4 {
			return nil, fmt.Errorf("prefix %q must be one word of at least 4 bytes", w+"~")
		}
		out[0].op = opPrefix
	}
	return out, nil
}

func (lx *lexicon) parsePhrase(t *tokens, src string, cat category, apostrophes bool) (phrase, error) {
	ph := phrase{src: src, cat: cat}
	fail := func(format string, args ...any) (phrase, error) {
		return phrase{}, fmt.Errorf("detect: lexicon phrase %q: "+format, append([]any{src}, args...)...)
	}
	for i, f := range strings.Fields(src) {
		switch {
		case f == "^":
			if i != 0 {
				return fail("^ must come first")
			}
			ph.anchored = true
		case f == "*" || f == ",":
			if len(ph.elems) == 0 || ph.elems[len(ph.elems)-1].op == opGap {
				return fail("%s cannot start a phrase or follow a gap", f)
			}
			op := opGap
			if f == "," {
				op = opPunct
			}
			ph.elems = append(ph.elems, elem{op: op})
		case strings.HasPrefix(f, "%"):
			c := lx.classes[f[1:]]
			if c == nil {
				return fail("unknown class %s", f)
			}
			ph.elems = append(ph.elems, elem{op: opClass, cls: c})
		default:
			e, err := parseWord(t, f, apostrophes)
			if err != nil {
				return fail("%v", err)
			}
			ph.elems = append(ph.elems, e...)
		}
	}
	if len(ph.elems) == 0 {
		return fail("no words")
	}
	if ph.elems[len(ph.elems)-1].op == opGap {
		return fail("a gap cannot end a phrase")
	}
	return ph, nil
}

// canonicalize looks every token of t up in the dictionary and reads misspelt ones
// as the lexicon words they stand for (see Lexicon.Typos and Lexicon.Fuzzy).
func (lx *lexicon) canonicalize(t *tokens) {
	for i := range t.toks {
		tk := &t.toks[i]
		tk.canon, tk.ent = false, -1
		w := t.raw(i)
		if e := lx.dict.find(tk.h, w); e >= 0 {
			if to := lx.dict.entries[e].typoOf; to >= 0 {
				tk.canon, tk.ent = true, to
			} else {
				tk.ent = e
			}
			continue
		}
		if !lx.fuzzy || tk.cjk || tk.n < 4 || tk.n > maxFuzzyLen || w[0] < 'a' || w[0] > 'z' {
			continue
		}
		shapes := &lx.byShape[w[0]-'a']
	find:
		for n := int(tk.n) - 1; n <= int(tk.n)+1 && n <= maxFuzzyLen; n++ {
			for _, e := range shapes[n] {
				v := &lx.dict.entries[e]
				// The letter sets must be equal (a swap), or one hold the other (a letter
				// added or dropped).
				if v.mask != tk.mask && v.mask&^tk.mask != 0 && tk.mask&^v.mask != 0 {
					continue
				}
				if isASCIILetters(w) && typoOf(w, v.word) {
					tk.canon, tk.ent = true, e
					break find
				}
			}
		}
	}
}

// maxFuzzyLen bounds the length of the words fuzzy matching considers.
const maxFuzzyLen = 24

// typoOf reports whether w is a typo of the word v by Lexicon.Fuzzy's rules: two
// adjacent letters swapped, one letter added, or (v of at least 6 letters) one letter
// dropped.
func typoOf(w, v []byte) bool {
	i := 0
	for i < len(w) && i < len(v) && w[i] == v[i] {
		i++
	}
	switch len(w) - len(v) {
	case 0:
		return i+1 < len(w) && w[i] == v[i+1] && w[i+1] == v[i] && bytes.Equal(w[i+2:], v[i+2:])
	case 1:
		return bytes.Equal(w[i+1:], v[i:])
	case -1:
		return len(v) >= 6 && bytes.Equal(w[i:], v[i+1:])
	}
	return false
}

func (lx *lexicon) elemMatches(t *tokens, i int, e *elem) bool {
	switch e.op {
	case opWord:
		return t.toks[i].ent == e.ent
	case opPrefix:
		return bytes.HasPrefix(t.word(i, lx), e.word)
	case opClass:
		return e.cls.has(lx, t, i)
	}
	return false
}

// matchElems matches elems from token i within clause; it returns the end of the
// match (one past its last token).
func (lx *lexicon) matchElems(t *tokens, elems []elem, i int, clause uint16) (int, bool) {
	for len(elems) > 0 {
		e := &elems[0]
		if e.op == opPunct {
			if i == 0 || !t.toks[i-1].punct {
				return 0, false
			}
			elems = elems[1:]
			if i < len(t.toks) {
				clause = t.toks[i].clause // the punctuation may have ended the clause
			}
			continue
		}
		if e.op == opGap {
			for k := 0; k <= lx.maxGap && i+k < len(t.toks) && t.toks[i+k].clause == clause; k++ {
				if end, ok := lx.matchElems(t, elems[1:], i+k, clause); ok {
					return end, true
				}
			}
			return 0, false
		}
		if i >= len(t.toks) || t.toks[i].clause != clause || !lx.elemMatches(t, i, e) {
			return 0, false
		}
		elems, i = elems[1:], i+1
	}
	return i, true
}

// lexHit is the first phrase of a category that matched a message.
type lexHit struct {
	ok         bool
	start, end int // its tokens
	src        string
}

// maxBait bounds the bait spans remembered per message.
const maxBait = 16

// scan matches every phrase against t (canonicalised) and returns, per category,
// its first hit that no bait hit overlaps.
func (lx *lexicon) scan(t *tokens) (hits [numCats]lexHit) {
	if len(t.toks) == 0 {
		return hits
	}
	first := lx.firstWord(t)
	type span struct{ from, to int }
	var bait [maxBait]span
	nb := 0
	var cand [4 * numCats]struct {
		cat        category
		start, end int
		src        string
	}
	nc := 0
	try := func(ids []int32, i int) {
		for _, id := range ids {
			ph := &lx.phrases[id]
			if ph.cat == catSlip || ph.cat == catGoOn || ph.anchored && i > first {
				continue
			}
			end, ok := lx.matchElems(t, ph.elems, i, t.toks[i].clause)
			if !ok {
				continue
			}
			if ph.cat == catBait {
				if nb < maxBait {
					bait[nb] = span{i, end}
					nb++
				}
			} else if nc < len(cand) {
				cand[nc].cat, cand[nc].start, cand[nc].end, cand[nc].src = ph.cat, i, end, ph.src
				nc++
			}
		}
	}
	for i := range t.toks {
		exact, prefix := lx.phrasesAt(t, i)
		try(exact, i)
		try(prefix, i)
	}
	for _, c := range cand[:nc] {
		if hits[c.cat].ok {
			continue
		}
		covered := false
		for _, b := range bait[:nb] {
			if c.start < b.to && b.from < c.end {
				covered = true
				break
			}
		}
		if !covered {
			hits[c.cat] = lexHit{ok: true, start: c.start, end: c.end, src: c.src}
		}
	}
	return hits
}

// firstWord returns the index of t's first token that is not a filler word.
func (lx *lexicon) firstWord(t *tokens) int {
	first := 0
	for first < len(t.toks) && lx.filler.has(lx, t, first) {
		first++
	}
	return first
}

// phrasesAt returns the phrases that may start at token i of t: those whose first
// element is its word, and those whose first element is a prefix of its first four
// bytes.
func (lx *lexicon) phrasesAt(t *tokens, i int) (exact, prefix []int32) {
	if e := t.toks[i].ent; e >= 0 {
		exact = lx.dict.entries[e].starts
	}
	if len(lx.prefixStarts) > 0 && t.toks[i].n >= 4 && !t.toks[i].cjk {
		prefix = lx.prefixStarts[key4(t.word(i, lx))]
	}
	return exact, prefix
}

// maxSpans bounds the phrase spans [lexicon.walk] remembers; a message with more is
// neither a plain slip nor approval.
const maxSpans = 8

// span is the tokens [from, to) a phrase of category cat matched.
type span struct {
	from, to int
	cat      category
}

// walk matches the phrases of categories a and b over t and calls free for every
// token outside their spans, in order; it stops, not ok, when free returns false or,
// with spans, when more than maxSpans spans would be needed. spans, unless nil,
// receives the spans (overlapping ones of one category merged; a match inside the
// spans before it adds none), n how many.
func (lx *lexicon) walk(t *tokens, a, b category, spans *[maxSpans]span, free func(i int) bool) (n int, ok bool) {
	first, covered := lx.firstWord(t), 0
	for i := range t.toks {
		exact, prefix := lx.phrasesAt(t, i)
		for _, ids := range [2][]int32{exact, prefix} {
			for _, id := range ids {
				ph := &lx.phrases[id]
				if ph.cat != a && ph.cat != b || ph.anchored && i > first {
					continue
				}
				end, ok := lx.matchElems(t, ph.elems, i, t.toks[i].clause)
				switch {
				case !ok || spans == nil || end <= covered:
				case n > 0 && spans[n-1].cat == ph.cat && spans[n-1].to >= i: // overlapping the last: one span
					spans[n-1].to = max(spans[n-1].to, end)
				case n == maxSpans:
					return n, false
				default:
					spans[n] = span{i, end, ph.cat}
					n++
				}
				covered = max(covered, end)
			}
		}
		if i >= covered && !free(i) {
			return n, false
		}
	}
	return n, true
}

// onlySlip reports whether t says that the interrupt before it was the human's slip
// and asks nothing else: it holds a Slip phrase and asks no question; every token
// outside its Slip and GoOn phrases is an approval or "slip_act" word and none a
// "second_person" one (a "you" outside a slip phrase is the agent's slip — "you
// pushed it by mistake" — or what it should do; "thank you" too); and no lexicon
// phrase of another category matches but over a slip phrase ("pressed the wrong key"
// is no correction; "no, by accident" is a negation). "sorry, hit escape by accident,
// carry on"; "不小心按了esc，继续".
func (lx *lexicon) onlySlip(t *tokens) bool {
	if t.qrun > 0 {
		return false
	}
	var spans [maxSpans]span
	n, ok := lx.walk(t, catSlip, catGoOn, &spans, func(i int) bool {
		// No filler: "wait", "actually" and "but" hold the agent back.
		return !lx.secondPerson.has(lx, t, i) && (lx.approval.has(lx, t, i) || lx.slipAct.has(lx, t, i))
	})
	if !ok || !slices.ContainsFunc(spans[:n], func(sp span) bool { return sp.cat == catSlip }) {
		return false
	}
	hits := lx.scan(t)
	for c, h := range hits {
		if !h.ok || category(c) == catSlip || category(c) == catGoOn || category(c) == catBait {
			continue
		}
		// As a bait phrase's, a slip phrase's words are its own.
		if !slices.ContainsFunc(spans[:n], func(sp span) bool { return sp.cat == catSlip && sp.from < h.end && h.start < sp.to }) {
			return false
		}
	}
	return true
}

// onlyApproval reports whether every token of t is an approval word ("ok",
// "continue", "go ahead", "계속") or inside a GoOn phrase ("继续", "続けてください"),
// and there is at least one.
func (lx *lexicon) onlyApproval(t *tokens) bool {
	if len(t.toks) == 0 || lx.approval == nil {
		return false
	}
	_, ok := lx.walk(t, catGoOn, catGoOn, nil, func(i int) bool { return lx.approval.has(lx, t, i) })
	return ok
}

// hasEmoji reports whether text holds one of the exasperation emoji.
func (lx *lexicon) hasEmoji(text []byte) bool {
	if lx.emoji == "" {
		return false
	}
	for _, c := range text {
		if lx.emojiLead[c] {
			return bytes.ContainsAny(text, lx.emoji)
		}
	}
	return false
}

// isStop reports whether token i is a function word, left out of similarity.
func (lx *lexicon) isStop(t *tokens, i int) bool { return lx.stop.has(lx, t, i) }
