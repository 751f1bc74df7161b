package eval

import (
	"hash/maphash"
	"slices"
	"strings"
)

// span locates a text in a textArena: its offset in the low 40 bits, its length in
// the high 24. Lengths spanLong and spanTime are marks: the text is long (its offset
// indexes textArena.long) or the span is no text at all but a moment's time (its
// offset indexes memLabels.times).
type span uint64

const (
	spanLenBits = 24
	spanOffMask = 1<<(64-spanLenBits) - 1
	spanLong    = 1<<spanLenBits - 1 // a text kept apart: of spanTime bytes (16 MiB) or more
	spanTime    = 1<<spanLenBits - 2 // a moment's time, not a text
)

func makeSpan(off, n int) span { return span(uint64(n)<<(64-spanLenBits) | uint64(off)&spanOffMask) }
func (s span) off() int        { return int(s & spanOffMask) }
func (s span) len() int        { return int(s >> (64 - spanLenBits)) }
func (s span) isTime() bool    { return s.len() == spanTime }
func timeSpan(i int) span      { return makeSpan(i, spanTime) }

// textArena holds texts back to back in one growing buffer instead of one allocation
// each. The texts it returns are parts of the buffer, never copied: the buffer only
// grows at its end, and a grown buffer is a new one, so a returned text never
// changes. Texts of spanTime bytes (16 MiB) or more are kept apart, one allocation each.
type textArena struct {
	buf  strings.Builder
	long []string
}

// put copies s into the arena and returns where it is.
func (a *textArena) put(s string) span {
	if len(s) >= spanTime || a.buf.Len()+len(s) > spanOffMask {
		a.long = append(a.long, strings.Clone(s))
		return makeSpan(len(a.long)-1, spanLong)
	}
	off := a.buf.Len()
	a.buf.WriteString(s)
	return makeSpan(off, len(s))
}

// clip copies what the arena holds into a buffer of its size, letting go of the room
// its growth left at the end: a returned text stays a part of the old buffer.
func (a *textArena) clip() {
	if a.buf.Cap() == a.buf.Len() {
		return
	}
	old := a.buf.String()
	a.buf = strings.Builder{}
	a.buf.Grow(len(old))
	a.buf.WriteString(old)
}

// clip lets go of the room that growing left at the end of the records, moments and
// arena, once all labels are read (the arena doubles as it grows: up to half its size).
func (ls *memLabels) clip() {
	ls.arena.clip()
	ls.recs = slices.Clip(slices.Clone(ls.recs))
	ls.moments = slices.Clip(slices.Clone(ls.moments))
}

// text returns the text at s (not a time).
func (a *textArena) text(s span) string {
	if n := s.len(); n != spanLong {
		return a.buf.String()[s.off() : s.off()+n]
	}
	return a.long[s.off()]
}

// keyIndex finds a key's record among memLabels.recs without holding a string per key:
// an open-addressed hash table (linear probing, at most half full) whose slots hold a
// record's index plus one (0: an empty slot) in their low 32 bits and the high 32 bits
// of its key's hash in their high 32; a slot whose hash bits match is verified against
// its key in the arena, so that a hash collision costs a probe, never a wrong record.
type keyIndex struct {
	slots []uint64
	seed  maphash.Seed
}

// keyOf returns record i's key.
func (ls *memLabels) keyOf(i uint32) string { return ls.arena.text(ls.recs[i].key) }

// find returns key's record (ok) or, when it has none, the empty slot it would go in
// (-1 when the index is empty).
func (ls *memLabels) find(key string) (slot int, rec uint32, ok bool) {
	x := &ls.keys
	if len(x.slots) == 0 {
		return -1, 0, false
	}
	mask := len(x.slots) - 1
	h := maphash.String(x.seed, key)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return i, 0, false
		}
		if v>>32 == h>>32 && ls.keyOf(uint32(v)-1) == key {
			return i, uint32(v) - 1, true
		}
	}
}

// insert indexes record rec, the last of ls.recs, keyed key, which has no record yet;
// slot is find's for key.
func (ls *memLabels) insert(key string, rec uint32, slot int) {
	if x := &ls.keys; 2*(int(rec)+1) > len(x.slots) {
		ls.grow(int(rec))
		slot, _, _ = ls.find(key)
	}
	ls.keys.slots[slot] = maphash.String(ls.keys.seed, key)>>32<<32 | uint64(rec+1)
}

// grow makes room in the index for more than n records, reindexing the first n.
func (ls *memLabels) grow(n int) {
	x := &ls.keys
	if len(x.slots) == 0 {
		x.seed = maphash.MakeSeed()
	}
	size := max(16, 2*len(x.slots))
	for 2*(n+1) > size {
		size *= 2
	}
	x.slots = make([]uint64, size)
	mask := size - 1
	for r := range uint32(n) {
		h := maphash.String(x.seed, ls.keyOf(r))
		i := int(h) & mask
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = h>>32<<32 | uint64(r+1)
	}
}
