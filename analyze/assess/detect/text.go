package detect

import (
	"bytes"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TextWindow bounds how much of a human message is read, so that detection costs the
// same for a 100-byte reply and a 1 MB pasted log: the first Head and the last Tail
// bytes (cut on rune boundaries) are scanned, joined by a line break, and the middle
// is skipped. A human's complaint sits at the start of what they type ("still no:"
// followed by a paste) or at its end (a paste followed by "same error again"), almost
// never in the middle of a paste. A message no longer than Head+Tail is read whole.
// Zero for both reads every message whole, as the seed does.
type TextWindow struct {
	// Head is how many bytes from the start of a message are read. Default 2048.
	Head int `json:"head_bytes"`
	// Tail is how many bytes from the end of a message are read. Default 1024.
	Tail int `json:"tail_bytes"`
}

// DefaultTextWindow returns the defaults documented on [TextWindow].
func DefaultTextWindow() TextWindow { return TextWindow{Head: 2048, Tail: 1024} }

// Validate checks that both bounds are ≥ 0 and that a bounded window reads something.
func (w TextWindow) Validate() error {
	if w.Head < 0 || w.Tail < 0 {
		return errors.New("detect: text window bounds must be ≥ 0")
	}
	return nil
}

// unbounded reports whether the window reads every message whole.
func (w TextWindow) unbounded() bool { return w.Head == 0 && w.Tail == 0 }

// windowSep joins the head and the tail of a long message: a line break, so that no
// pattern or phrase spans the cut.
const windowSep = "\n…\n"

// appendWindow appends the scanned part of s to dst: all of s when it fits the window,
// otherwise its head, windowSep and its tail. With apostrophes set, U+2019 (the
// typographic apostrophe phones and macOS type) is written as an ASCII apostrophe.
func (w TextWindow) appendWindow(dst []byte, s string, apostrophes bool) []byte {
	head, tail, cut := w.Cut(s)
	dst = appendApos(dst, head, apostrophes)
	if !cut {
		return dst
	}
	dst = append(dst, windowSep...)
	return appendApos(dst, tail, apostrophes)
}

// Cut returns the parts of s the window reads: s whole (cut false, tail empty) when
// the window is unbounded or s fits it, otherwise its first Head and last Tail bytes,
// each cut on a rune boundary. A search for a phrase in both parts costs the same
// whatever the size of s; a phrase that spans the cut is not found, as in the
// detector's reading (the parts are joined there by a line break).
func (w TextWindow) Cut(s string) (head, tail string, cut bool) {
	if w.unbounded() || len(s) <= w.Head+w.Tail {
		return s, "", false
	}
	return s[:runeCut(s, w.Head)], s[runeCut(s, len(s)-w.Tail):], true
}

// runeCut returns the largest rune boundary of s at or before i.
func runeCut(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// appendApos appends s, mapping U+2019 to "'" when apostrophes is set.
func appendApos(dst []byte, s string, apostrophes bool) []byte {
	if !apostrophes {
		return append(dst, s...)
	}
	for {
		i := indexRightQuote(s)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(append(dst, s[:i]...), '\'')
		s = s[i+len("\u2019"):]
	}
}

// indexRightQuote returns the index of the first U+2019 in s, or -1.
func indexRightQuote(s string) int {
	// U+2019 is E2 80 99; scan for its first byte, which ASCII text never has.
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 0xE2 && s[i+1] == 0x80 && s[i+2] == 0x99 {
			return i
		}
	}
	return -1
}

// token is one normalised word of a message: a run of letters and digits lower-cased
// with its Latin diacritics removed and its apostrophes dropped ("Doesn't" → "doesnt",
// "não" → "nao"), or one Han, Hiragana or Katakana character, since those scripts do
// not separate words by spaces.
type token struct {
	off    uint32 // offset of its bytes in tokens.norm
	n      uint16 // length of its bytes
	clause uint16 // index of its clause: clauses end at . ! ? ; and line breaks
	cjk    bool   // a single Han/Kana character
	punct  bool   // punctuation or the end of its clause follows it
	canon  bool   // read as the lexicon word ent, of which it is a misspelling
	h      uint64 // hashToken of its bytes
	mask   uint32 // the ASCII letters it holds, one bit each
	ent    int32  // the lexicon's dictionary entry of the word it is read as; -1 if none
}

// tokens is a message's normalised words, and what the tokenizer noticed on the way.
// It is scratch space: the detector reuses one per session.
type tokens struct {
	norm []byte  // every token's bytes, back to back
	toks []token // in text order
	// qrun is the longest run of question and exclamation marks holding a question
	// mark ("??", "?!", "？？"): an incredulous question.
	qrun int
	// fenced: lines of a fenced code block were left out (tokenize with prose).
	fenced bool
}

// maxTokens bounds the tokens of one message; a window of a few KB never reaches it.
const maxTokens = 4096

func (t *tokens) reset() {
	t.norm, t.toks, t.qrun, t.fenced = t.norm[:0], t.toks[:0], 0, false
}

// word returns token i's bytes, or the lexicon word it is read as.
func (t *tokens) word(i int, lx *lexicon) []byte {
	tk := &t.toks[i]
	if tk.canon {
		return lx.dict.entries[tk.ent].word
	}
	return t.norm[tk.off : tk.off+uint32(tk.n)]
}

// raw returns token i's own bytes.
func (t *tokens) raw(i int) []byte {
	tk := &t.toks[i]
	return t.norm[tk.off : tk.off+uint32(tk.n)]
}

// tokenize splits text into normalised tokens (see [token]). With apostrophes set,
// U+2019 inside a word is dropped like an ASCII apostrophe; otherwise it separates
// words, as in the seed's patterns. With prose set, pasted code is left out: the
// lines of a fenced block ("```" or "~~~" opening a line, fences included), whose
// words — an error a log prints, "wrong" in a test's name — are not the human's.
func (t *tokens) tokenize(text []byte, apostrophes, prose bool) {
	t.reset()
	var clause uint16
	start := -1 // offset in norm of the current word, -1 outside a word
	run, hasQ := 0, false
	spaced, prev := false, rune('\n') // spaced: the run follows a space, as a binary operator does
	endWord := func() {
		if start >= 0 {
			if len(t.toks) < maxTokens {
				w := t.norm[start:]
				var mask uint32
				for _, c := range w {
					if c >= 'a' && c <= 'z' {
						mask |= 1 << (c - 'a')
					}
				}
				t.toks = append(t.toks, token{off: uint32(start), n: uint16(min(len(w), 0xFFFF)), clause: clause,
					h: hashToken(w, 0), mask: mask, ent: -1})
			}
			start = -1
		}
	}
	inFence := false // inside a fenced code block
	for i := 0; i < len(text); {
		if prose && (i == 0 || text[i-1] == '\n') {
			// Pasted code and logs are not the human's words: a fenced block's lines
			// are skipped, fences included, up to the line break, which ends a clause.
			if fence := isFence(text[i:]); fence || inFence && text[i] != '\n' {
				endWord()
				inFence = inFence != fence
				run, hasQ, t.fenced = 0, false, true
				if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
					i += j
				} else {
					i = len(text)
				}
				continue
			}
		}
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		i += size
		if r >= 0xFF01 && r <= 0xFF5E { // full-width ASCII ("ｎｏ", "？"): read as ASCII
			r -= 0xFEE0
		}
		switch {
		case r == '?' || r == '!':
			if run == 0 {
				spaced = prev == ' ' || prev == '\t'
			}
			run++
			hasQ = hasQ || r == '?'
		case r == ' ' && run > 0:
		case run > 0:
			// A run between spaces with more of the line after it is an operator of
			// pasted code ("name ?? 'anon'", "x ??= 1"), not a question.
			if hasQ && run > t.qrun && !(spaced && r != '\n' && r != '\r') && r != '=' {
				t.qrun = run
			}
			run, hasQ = 0, false
		}
		prev = r
		switch {
		case r < utf8.RuneSelf:
			c := byte(r)
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			case c == '\'':
				continue // inside a word it joins ("doesn't"); elsewhere it is nothing
			default:
				endWord()
				if c != ' ' && c != '\t' && c != '\r' {
					t.markPunct()
				}
				if c == '\n' || c == ';' || c == '!' || c == '?' || c == '.' && (i >= len(text) || text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t') {
					clause++
				}
				continue
			}
			if start < 0 {
				start = len(t.norm)
			}
			t.norm = append(t.norm, c)
		case r == '\u2019' && apostrophes:
			continue
		case isCJK(r):
			endWord()
			start = len(t.norm)
			t.norm = utf8.AppendRune(t.norm, r)
			if len(t.toks) < maxTokens {
				t.toks = append(t.toks, token{off: uint32(start), n: uint16(len(t.norm) - start), clause: clause, cjk: true,
					h: hashToken(t.norm[start:], 0), ent: -1})
			}
			start = -1
		case r == '。' || r == '；' || r == '\u2028' || r == '\u2029':
			endWord()
			t.markPunct()
			clause++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = len(t.norm)
			}
			t.norm = appendFolded(t.norm, unicode.ToLower(r))
		case unicode.IsMark(r):
			// A combining accent continues its word and, like a precomposed one, is dropped.
		case unicode.IsPunct(r):
			endWord()
			t.markPunct()
		default:
			endWord()
		}
	}
	if hasQ && run > t.qrun { // a run that ends the text
		t.qrun = run
	}
	endWord()
	if n := len(t.toks); n > 0 {
		t.toks[n-1].punct = true
	}
}

// isFence reports whether line opens with a code fence ("```", "~~~"), after at most
// three spaces.
func isFence(line []byte) bool {
	for k := 0; k < 3 && len(line) > 0 && line[0] == ' '; k++ {
		line = line[1:]
	}
	return bytes.HasPrefix(line, []byte("```")) || bytes.HasPrefix(line, []byte("~~~"))
}

// markPunct notes that punctuation follows the last token, unless another token
// came after it. It is called right after endWord, so the last token is the one the
// punctuation follows exactly when no word is open.
func (t *tokens) markPunct() {
	if n := len(t.toks); n > 0 {
		t.toks[n-1].punct = true
	}
}

// isCJK reports whether r is a Han ideograph, Hiragana or Katakana (including the
// prolonged sound mark and the iteration mark): scripts written without spaces, so
// each character is its own token.
func isCJK(r rune) bool {
	switch {
	case r >= 0x3040 && r <= 0x30FF, // Hiragana, Katakana (with ー)
		r >= 0x4E00 && r <= 0x9FFF, // CJK Unified Ideographs
		r >= 0x3400 && r <= 0x4DBF, // Extension A
		r >= 0xF900 && r <= 0xFAFF, // Compatibility Ideographs
		r >= 0xFF66 && r <= 0xFF9F, // half-width Katakana
		r == 0x3005:                // 々
		return true
	case r < 0x2E80:
		return false
	}
	return unicode.Is(unicode.Han, r)
}

// opensWithTag reports whether text, after leading white space, opens with an
// XML-like tag such as "<ci-monitor-event>" or "<command-name>".
func opensWithTag(text string) bool {
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r') {
		i++
	}
	if i >= len(text) || text[i] != '<' {
		return false
	}
	j := i + 1
	for j < len(text) && isTagByte(text[j], j > i+1) {
		j++
	}
	return j > i+1 && j < len(text) && (text[j] == '>' || text[j] == ' ')
}

// isTagByte reports whether c may be part of a tag's name (a digit not first).
func isTagByte(c byte, notFirst bool) bool {
	return isLetter(c) || c == '-' || c == '_' || isDigit(c) && notFirst
}

// maxTagScan bounds how far from a message's end [ownText] looks for the closing
// tag the human's words follow.
const maxTagScan = 4096

// ownText returns what the human typed in a message that opens with an XML-like
// tag: the text after the last closing tag ("</ide_selection>") of the message's
// last maxTagScan bytes. Clients and hooks put context in front of the human's words
// — an IDE's "<ide_opened_file>…</ide_opened_file>" or "<ide_selection>…" block, a
// CI monitor's event — so a message that opens with a tag is the human's where text
// follows its elements, and a tool's where nothing does (own is empty, tagged true).
// A message that opens with a tag no closing tag near its end follows (pasted markup,
// "<Button onClick={save}/> this still doesn't fire") is read whole (tagged false),
// as is every message that does not open with a tag. The cost is bounded by
// maxTagScan whatever the message's size.
func ownText(s string) (own string, tagged bool) {
	if !opensWithTag(s[:min(len(s), maxTagScan)]) {
		return s, false
	}
	scan := strings.TrimRight(s[max(0, len(s)-maxTagScan):], " \t\r\n")
	for end := len(scan); end > 0; {
		i := strings.LastIndex(scan[:end], "</")
		if i < 0 {
			break
		}
		j := i + 2
		for j < len(scan) && isTagByte(scan[j], j > i+2) {
			j++
		}
		if j > i+2 && j < len(scan) && scan[j] == '>' {
			return strings.TrimLeft(scan[j+1:], " \t\r\n"), true
		}
		end = i
	}
	if strings.HasSuffix(scan, "/>") { // a self-closing element at the end: nothing typed after it
		return "", true
	}
	return s, false
}

// latin1Fold maps U+00E0–U+00FF (lower-case Latin-1 letters) to their base letter;
// '?' marks the ones folded to two letters and '-' the non-letter ÷.
const latin1Fold = "aaaaaa?ceeeeiiiidnooooo-ouuuuy?y"

// latinAFold maps U+0100–U+017F (Latin Extended-A) to the base letter; '?' marks the
// ligatures.
const latinAFold = "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii??jjkkkllllllllllnnnnnnnnnoooooo??rrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs"

// appendFolded appends the lower-case rune r with its Latin diacritics removed, so
// that "não", "nao" and "NÃO" are one word, as are "müde" and "mude".
func appendFolded(dst []byte, r rune) []byte {
	switch {
	case r == 0xDF: // ß
		return append(dst, 's', 's')
	case r >= 0xE0 && r <= 0xFF:
		switch c := latin1Fold[r-0xE0]; c {
		case '?':
			if r == 0xE6 {
				return append(dst, 'a', 'e')
			}
			return append(dst, 't', 'h') // þ
		case '-':
			return dst
		default:
			return append(dst, c)
		}
	case r >= 0x100 && r <= 0x17F:
		switch c := latinAFold[r-0x100]; c {
		case '?':
			if r <= 0x133 {
				return append(dst, 'i', 'j')
			}
			return append(dst, 'o', 'e')
		default:
			return append(dst, c)
		}
	case r == 0x451: // Cyrillic ё is commonly typed as е
		return utf8.AppendRune(dst, 0x435)
	}
	return utf8.AppendRune(dst, r)
}
