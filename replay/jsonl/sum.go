package jsonl

import (
	"bytes"
	"hash/maphash"
	"math"
	"strconv"
	"unicode/utf8"
)

// ValueSum returns a 64-bit hash of the JSON value b as encoding/json decodes it into
// an any, and whether b is one value the [Scanner] reads whole (white space around it
// aside). Two spellings of the same value hash alike: white space between tokens,
// the order of an object's members, a string's escapes ("\u00e9" and "é", "\/" and
// "/"), and a number's ("1", "1.0", "1e0": the float64 encoding/json makes of it). A
// member given twice counts twice (encoding/json keeps the last). Sums made with one
// seed compare; ValueSum does not check UTF-8 ([Line.ValidUTF8]).
func ValueSum(seed maphash.Seed, b []byte) (uint64, bool) {
	v := valueSum{Scanner: Scanner{b: b}, seed: seed}
	sum, ok := v.sum()
	return sum, ok && v.End()
}

// Tags set the kinds of value apart: the string "1" is not the number 1.
const (
	sumString uint64 = iota + 1
	sumNumber
	sumObject
	sumArray
	sumTrue
	sumFalse
	sumNull
)

// valueSum is ValueSum's state: the scanner and the seed.
type valueSum struct {
	Scanner
	seed maphash.Seed
}

// sum reads one value and returns its sum.
func (s *valueSum) sum() (uint64, bool) {
	switch s.Peek() {
	case '"':
		start := s.i + 1
		escaped, ok := s.skipString()
		if !ok {
			return 0, false
		}
		return mix(sumString ^ s.stringSum(s.b[start:s.i-1], escaped)), true
	case '{':
		var acc, n uint64
		ok := s.Object(false, func(key []byte) bool {
			k := s.stringSum(key, bytes.IndexByte(key, '\\') >= 0)
			v, ok := s.sum()
			acc += mix(k*0x9e3779b97f4a7c15 ^ v) // members in any order
			n++
			return ok
		})
		return mix(sumObject ^ mix(acc+n)), ok
	case '[':
		h := sumArray
		ok := s.Array(func() bool {
			v, ok := s.sum()
			h = mix(h*0x100000001b3 ^ v)
			return ok
		})
		return h, ok
	case 't':
		return sumTrue, s.literal("true")
	case 'f':
		return sumFalse, s.literal("false")
	case 'n':
		return sumNull, s.literal("null")
	}
	start := s.i
	if !s.number() {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	if err != nil { // out of float64's range: encoding/json refuses it into an any
		return mix(sumNumber ^ maphash.Bytes(s.seed, s.b[start:s.i])), true
	}
	if f == 0 {
		f = 0 // -0 and 0 are one number
	}
	return mix(sumNumber ^ mix(math.Float64bits(f))), true
}

// stringSum is the hash of a string's contents (between its quotes) decoded, without
// a copy.
func (s *valueSum) stringSum(raw []byte, escaped bool) uint64 {
	if !escaped {
		return maphash.Bytes(s.seed, raw)
	}
	var h maphash.Hash
	h.SetSeed(s.seed)
	var buf [utf8.UTFMax]byte
	for run, dec := []byte(nil), []byte(nil); len(raw) > 0; h.Write(dec) {
		run, dec, raw = unescape(raw, &buf)
		h.Write(run)
	}
	return h.Sum64()
}

// mix is SplitMix64's finaliser: every bit of x moves every bit of the result.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
