// Package printable makes text read from the input safe to print on a line of a
// terminal. A session id, a file name or a detail quoted from a record may hold an
// escape sequence (ESC [31m, a window title set by ESC ]0;…BEL), a newline that would
// split a "file:line: kind: detail" line in two, or a bidirectional override that
// reorders what the reader sees; printed as they are, the terminal acts on them.
//
// It refuses nothing and changes no text that is already safe: what it changes, it
// shows as Go quotes it, every byte accounted for. It is for what is shown; the
// tables and JSON keep the text as it was read.
package printable

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Line returns s unchanged when it is valid UTF-8 and every rune of it is graphic
// (letters, marks, numbers, punctuation, symbols and spaces, [unicode.IsGraphic]);
// otherwise s quoted as Go quotes it, with [strconv.QuoteToGraphic]: a control
// character, a format character such as U+202E and an invalid byte become escapes
// (\x1b, \n, \u202e, \xff) between double quotes, so that what is printed holds one
// line and nothing a terminal acts on, and tells the text apart from one that was
// printed unchanged.
func Line(s string) string {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return strconv.QuoteToGraphic(s)
			}
		}
		if !unicode.IsGraphic(r) {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}
