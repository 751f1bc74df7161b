package jsonl

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner is the one-pass decoder the JSON Lines sources build their fast path on:
// it validates every byte of a value exactly as encoding/json does (the same grammar,
// the same escapes, control bytes refused) while the source decodes, in the same pass,
// only the fields it uses; the rest is validated and skipped, strings eight bytes at a
// time.
//
// A Scanner decodes only what it is sure of, and every method reports false for
// anything else — a syntax error, a value of a type the method does not read, nesting
// deeper than [MaxScanDepth] — leaving the line to encoding/json, which stays the
// reference: it reports the problem in its usual words, and decodes the odd cases (a
// field of the wrong type, a key matching a field only ignoring case, a field given
// twice) its usual way. A source using a Scanner must hold its fast decoder to
// encoding/json with a fuzz target. The Scanner does not check UTF-8: use it on lines
// that are valid UTF-8 ([Line.ValidUTF8]); encoding/json replaces invalid bytes.
type Scanner struct {
	b     []byte
	i     int
	depth int
}

// MaxScanDepth is the deepest nesting a Scanner reads (encoding/json's limit is 10000).
const MaxScanDepth = 1000

// NewScanner returns a Scanner at the start of b.
func NewScanner(b []byte) *Scanner { return &Scanner{b: b} }

// Fields is the set of a JSON object's field names a decoder reads, to find the keys
// encoding/json would match to one of them only ignoring case.
type Fields map[string]bool

// NewFields returns the set of names (ASCII).
func NewFields(names ...string) Fields {
	f := Fields{}
	for _, n := range names {
		f[strings.ToLower(n)] = true
	}
	return f
}

// Folds reports whether key, which is not one of the names exactly, is one ignoring
// ASCII case. A non-ASCII key never folds ([Scanner.Object] leaves the keys that
// could to encoding/json).
func (f Fields) Folds(key []byte) bool {
	var buf [32]byte
	if len(key) > len(buf) {
		return false
	}
	lower := buf[:len(key)]
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return f[string(lower)]
}

// Pos returns the scanner's offset in its input.
func (s *Scanner) Pos() int { return s.i }

// Peek returns the next byte that is not white space (0 at the end), without reading
// it.
func (s *Scanner) Peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.ws()
	return s.i == len(s.b)
}

// Object reads an object, calling member with each key (decoded) and the scanner at
// its value, which member must read. fields says that the keys are matched to fields:
// then a key that encoding/json could match to an ASCII field name only through a
// non-ASCII letter folding to an ASCII one (the Kelvin sign, the long s) makes Object
// report false.
func (s *Scanner) Object(fields bool, member func(key []byte) bool) bool {
	if s.Peek() != '{' {
		return false
	}
	s.i++
	if s.depth++; s.depth > MaxScanDepth {
		return false
	}
	if s.Peek() == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		if s.Peek() != '"' {
			return false
		}
		start := s.i + 1
		escaped, ok := s.skipString()
		if !ok {
			return false
		}
		key := s.b[start : s.i-1]
		if fields {
			if escaped {
				key = []byte(Unquote(key))
			}
			if !isASCII(key) && (bytes.Contains(key, []byte("\u017f")) || bytes.Contains(key, []byte("\u212a"))) {
				return false
			}
		}
		if s.Peek() != ':' {
			return false
		}
		s.i++
		s.ws()
		if !member(key) {
			return false
		}
		switch s.Peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Array reads an array, calling elem with the scanner at each element, which elem
// must read.
func (s *Scanner) Array(elem func() bool) bool {
	if s.Peek() != '[' {
		return false
	}
	s.i++
	if s.depth++; s.depth > MaxScanDepth {
		return false
	}
	if s.Peek() == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		s.ws()
		if !elem() {
			return false
		}
		switch s.Peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// Skip validates one value and reads past it.
func (s *Scanner) Skip() bool {
	switch s.Peek() {
	case '"':
		_, ok := s.skipString()
		return ok
	case '{':
		return s.Object(false, func([]byte) bool { return s.Skip() })
	case '[':
		return s.Array(s.Skip)
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.number()
}

// Raw validates one value and returns its bytes (a sub-slice of the input).
func (s *Scanner) Raw() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.Skip() {
		return nil, false
	}
	return s.b[start:s.i], true
}

// Null reads a null.
func (s *Scanner) Null() bool { return s.Peek() == 'n' && s.literal("null") }

// String decodes a string into *dst, or leaves *dst as it is for null, as
// encoding/json does.
func (s *Scanner) String(dst *string) bool {
	if s.Peek() == 'n' {
		return s.literal("null")
	}
	if s.Peek() != '"' {
		return false
	}
	start := s.i + 1
	escaped, ok := s.skipString()
	if !ok {
		return false
	}
	raw := s.b[start : s.i-1]
	if escaped {
		*dst = Unquote(raw)
	} else {
		*dst = string(raw)
	}
	return true
}

// OptString decodes a string into a new string, or null into nil.
func (s *Scanner) OptString(dst **string) bool {
	if s.Peek() == 'n' {
		*dst = nil
		return s.literal("null")
	}
	var v string
	if !s.String(&v) {
		return false
	}
	*dst = &v
	return true
}

// Bool decodes true or false into *dst, or leaves *dst as it is for null.
func (s *Scanner) Bool(dst *bool) bool {
	switch s.Peek() {
	case 't':
		*dst = true
		return s.literal("true")
	case 'f':
		*dst = false
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return false
}

// OptBool decodes true or false into a new bool, or null into nil.
func (s *Scanner) OptBool(dst **bool) bool {
	if s.Peek() == 'n' {
		*dst = nil
		return s.literal("null")
	}
	var v bool
	if !s.Bool(&v) {
		return false
	}
	*dst = &v
	return true
}

// Int decodes a number into *dst as encoding/json does into an int, or leaves *dst as
// it is for null; a number encoding/json would refuse for an int (a fraction, an
// exponent, out of range) reports false.
func (s *Scanner) Int(dst *int) bool {
	if s.Peek() == 'n' {
		return s.literal("null")
	}
	var v int64
	if !s.Int64(&v) || int64(int(v)) != v {
		return false
	}
	*dst = int(v)
	return true
}

// Int64 decodes a number into *dst as encoding/json does into an int64, or leaves
// *dst as it is for null; a number encoding/json would refuse reports false.
func (s *Scanner) Int64(dst *int64) bool {
	if s.Peek() == 'n' {
		return s.literal("null")
	}
	start := s.i
	if !s.number() {
		return false
	}
	v, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	if err != nil {
		return false
	}
	*dst = v
	return true
}

// Float64 decodes a number into *dst as encoding/json does into a float64, or leaves
// *dst as it is for null; a number out of a float64's range reports false.
func (s *Scanner) Float64(dst *float64) bool {
	if s.Peek() == 'n' {
		return s.literal("null")
	}
	start := s.i
	if !s.number() {
		return false
	}
	v, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	if err != nil {
		return false
	}
	*dst = v
	return true
}

// Masks for the eight-bytes-at-a-time string scan.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// skipString validates the string at the scanner (at its opening quote) and reads
// past its closing quote; escaped reports whether it holds an escape.
func (s *Scanner) skipString() (escaped, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false, false
	}
	b := s.b
	i := s.i + 1
	for {
		// Eight bytes at a time while none is a quote, a backslash or a control byte
		// (each test is exact about whether a word holds such a byte).
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ ('"' * ones)
			bs := x ^ ('\\' * ones)
			if ((q-ones)&^q|(bs-ones)&^bs|(x-0x20*ones)&^x)&highs != 0 {
				break
			}
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i >= len(b) {
			return false, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false, false
				}
				i += 6
			default:
				return false, false
			}
		default: // a control byte
			return false, false
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number validates a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	s.i = i
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// literal reads the literal word (true, false, null) at the scanner.
func (s *Scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

func (s *Scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Unquote decodes the contents of a valid JSON string (between its quotes) as
// encoding/json does: a lone or reversed UTF-16 surrogate becomes U+FFFD. The runs
// between escapes are copied whole.
func Unquote(raw []byte) string {
	var out strings.Builder
	out.Grow(len(raw))
	var buf [utf8.UTFMax]byte
	for len(raw) > 0 {
		var run, dec []byte
		run, dec, raw = unescape(raw, &buf)
		out.Write(run)
		out.Write(dec)
	}
	return out.String()
}

// unescape splits the contents of a valid JSON string at its first escape: the run
// of bytes before it, the escape decoded (in buf; none when raw holds no escape) and
// the rest after it.
func unescape(raw []byte, buf *[utf8.UTFMax]byte) (run, dec, rest []byte) {
	k := bytes.IndexByte(raw, '\\')
	if k < 0 {
		return raw, nil, nil
	}
	run, raw = raw[:k], raw[k:]
	n := 2
	switch raw[1] {
	case 'b':
		buf[0] = '\b'
	case 'f':
		buf[0] = '\f'
	case 'n':
		buf[0] = '\n'
	case 'r':
		buf[0] = '\r'
	case 't':
		buf[0] = '\t'
	case 'u':
		r := hex4(raw[2:])
		n = 6
		if utf16.IsSurrogate(r) {
			r = utf8.RuneError
			if len(raw) >= 12 && raw[6] == '\\' && raw[7] == 'u' {
				if d := utf16.DecodeRune(hex4(raw[2:]), hex4(raw[8:])); d != utf8.RuneError {
					r, n = d, 12
				}
			}
		}
		return run, utf8.AppendRune(buf[:0], r), raw[n:]
	default: // '"', '\\', '/'
		buf[0] = raw[1]
	}
	return run, buf[:1], raw[n:]
}

// hex4 decodes four hexadecimal digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// NearMiss returns the name key is likely a misspelling of, when key is none of the
// names even ignoring case: one edit away — a byte left out, added, changed, or two
// swapped; two for keys of eight bytes or more — or cut short before a name's last
// "_word" ("filter_check" for "filter_check_name", "total_cost" for
// "total_cost_usd"). Keys of fewer than four bytes are no near misses; of several
// names, the closest, then the first in order, is returned.
func (f Fields) NearMiss(key []byte) (string, bool) {
	if len(key) < 4 || len(key) > 64 || f.Folds(key) || f[string(key)] {
		return "", false
	}
	var buf [64]byte
	k := buf[:len(key)]
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		k[i] = c
	}
	allowed := 1
	if len(k) >= 8 {
		allowed = 2
	}
	best, bestD := "", allowed+1
	for name := range f {
		if len(name) < len(k)-allowed { // too short to be an edit or two away, or cut short
			continue
		}
		d := editDistance(k, name, allowed)
		if len(name) > len(k) && name[:len(k)] == string(k) && name[len(k)] == '_' && !strings.Contains(name[len(k)+1:], "_") {
			d = min(d, allowed)
		}
		if d < bestD || d == bestD && d <= allowed && name < best {
			best, bestD = name, d
		}
	}
	return best, best != ""
}

// editDistance is the optimal string alignment distance between a and b (insertions,
// deletions, substitutions and transpositions of neighbours), or limit+1 when it is
// more than limit.
func editDistance(a []byte, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	if len(b) > 64 {
		return limit + 1 // no name is as long: NearMiss's keys are at most 64 bytes
	}
	var rows [3][65]int
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}
