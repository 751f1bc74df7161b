package replay

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
)

// firstReads remembers which run and session keys a replay has delivered, and the
// file each was read from first, without keeping the keys: a key is known by a 96-bit
// hash of it (the first 12 bytes of its SHA-256), a file by its index among the run
// files. Two keys are taken for one only when their hashes are equal: among n keys the
// chance of that is below n²/2⁹⁷ (some 10⁻¹⁷ for a million keys, 10⁻¹³ for a hundred
// million), and a false duplicate needs it.
//
// The hashes are kept in a hash table that grows by splitting pages (extendible
// hashing): pages of pageSlots slots, each a hash and a file index, and a directory
// from the low bits of a hash to the page holding the hashes that end so. A page that
// fills is split in two on one more bit of the hash; the directory doubles when a page
// is split on more bits than it is indexed by. Given a scratch file, the pages stay in
// memory until there are memPages of them, then move to the file: from there an add
// reads back the used part of one page and writes one slot (a split writes two pages),
// and what a replay holds past the pages' first 256 KiB is the directory and 4 bytes
// a page: some 7 bytes for every 100 keys (BenchmarkFirstReads: 0.07 B a key at a
// million keys; the map from a 128-bit hash this replaces held 35–45). Without one,
// the pages stay in memory: 21–28 bytes a key.
//
// A failure to create, write or read back the scratch file is kept for failed: from
// then on add takes every key for a new one, and the replay fails with it.
type firstReads struct {
	name     func(file int32) string
	scratch  func(name string) (*os.File, error) // nil: the pages stay in memory
	memPages int                                 // pages held in memory before they move to the scratch file

	dir   []uint32 // page of each of the 2^depth values of a hash's low bits
	depth uint     // bits of a hash dir is indexed by
	pages []page
	keys  int // hashes held

	mem   []byte   // the pages, back to back, while they are in memory
	file  *os.File // the pages, page p at p*pageSize, once moved aside
	buf   []byte   // a page read back from the file
	spare []byte   // the slots a split moves
	err   error    // the first failure of the scratch file
}

// page is what is held of a page: the hashes in it share their low depth bits, and
// its first used slots are filled.
type page struct {
	depth uint8
	used  uint16
}

const (
	tagSize   = 12                  // bytes of a key's hash kept in a slot; its first 4 address it
	slotSize  = tagSize + 4         // the hash, then the file's index (little-endian)
	pageSize  = 4096                // bytes of a page
	pageSlots = pageSize / slotSize // slots of a page
	// maxSkew bounds how far a page is split: on at most maxSkew bits more than the
	// number of keys has. Among n keys whose hashes are uniform, the chance that more
	// than a page of them share their low log₂n+maxSkew bits is below 2⁻²⁵⁰⁰;
	// otherwise the directory could double up to 2³² entries.
	maxSkew = 6
	// seenMemPages is how many pages are held in memory before they move to the
	// scratch file: 256 KiB, some 11,000 keys (pages are 70% full on average).
	seenMemPages = 64
)

// tag is the part of a key's hash that is kept; its first 4 bytes, little-endian, are
// the bits the directory and the splits use, lowest first.
type tag [tagSize]byte

func (t *tag) addr() uint32 { return binary.LittleEndian.Uint32(t[:4]) }

func keyTag(key string) tag {
	sum := sha256.Sum256([]byte(key))
	return tag(sum[:tagSize])
}

// newFirstReads returns an empty set; name names a file by its index. Given scratch,
// the set moves to a file it creates once it holds more than a few hundred KiB.
func newFirstReads(name func(file int32) string, scratch func(name string) (*os.File, error), memPages int) *firstReads {
	if memPages <= 0 {
		memPages = seenMemPages
	}
	return &firstReads{name: name, scratch: scratch, memPages: memPages}
}

// add records key as read from file, unless it was read before: then dup is true and
// first names the file that had it first.
func (f *firstReads) add(key string, file int32) (first string, dup bool) {
	i, dup := f.addTag(keyTag(key), file)
	if !dup {
		return "", false
	}
	return f.name(i), true
}

// failed returns the first failure of the scratch file, nil if none.
func (f *firstReads) failed() error {
	if f == nil {
		return nil
	}
	return f.err
}

// addTag records t as read from file unless it was recorded before: then dup is true
// and first is the file it was recorded with.
func (f *firstReads) addTag(t tag, file int32) (first int32, dup bool) {
	if f.err != nil {
		return 0, false
	}
	if f.dir == nil {
		if !f.grow() {
			return 0, false
		}
		f.dir = []uint32{0}
	}
	a := t.addr()
	for {
		p := f.dir[a&(1<<f.depth-1)]
		slots := f.read(p, int(f.pages[p].used))
		if f.err != nil {
			return 0, false
		}
		if s := find(slots, &t); s >= 0 {
			return int32(binary.LittleEndian.Uint32(slots[s+tagSize:])), true
		}
		if used := int(f.pages[p].used); used < pageSlots {
			var slot [slotSize]byte
			copy(slot[:], t[:])
			binary.LittleEndian.PutUint32(slot[tagSize:], uint32(file))
			if !f.write(p, used, slot[:]) {
				return 0, false
			}
			f.pages[p].used++
			f.keys++
			return 0, false
		}
		if !f.split(p, slots) {
			return 0, false
		}
	}
}

// find returns where t is among slots, -1 if it is not.
func find(slots []byte, t *tag) int {
	head, tail := binary.LittleEndian.Uint64(t[:8]), binary.LittleEndian.Uint32(t[8:])
	for s := 0; s+slotSize <= len(slots); s += slotSize {
		slot := slots[s : s+slotSize]
		if binary.LittleEndian.Uint64(slot) == head && binary.LittleEndian.Uint32(slot[8:]) == tail {
			return s
		}
	}
	return -1
}

// split splits page p, full of slots (read from it), on the next bit of its hashes
// into p and a new page, and points the directory's half of p's entries at the new
// page. slots may be p in memory: what grow does to the pages leaves them as they are.
func (f *firstReads) split(p uint32, slots []byte) bool {
	d := uint(f.pages[p].depth)
	if d >= min(32, uint(bits.Len(uint(f.keys)))+maxSkew) {
		f.err = fmt.Errorf("keeping the run and session keys: more than %d of %d keys share the low %d bits of their hash", pageSlots, f.keys, d)
		return false
	}
	if !f.grow() {
		return false
	}
	q := uint32(len(f.pages) - 1)
	if d == f.depth {
		f.dir = append(f.dir, f.dir...)
		f.depth++
	}
	low := int(binary.LittleEndian.Uint32(slots) & (1<<d - 1)) // the bits p's hashes share
	// Keep the slots whose bit d is clear at the front of slots, in order; move the
	// others to the new page, in order.
	n := len(slots) / slotSize
	moved := f.spare[:0]
	kept := 0
	for s := 0; s < n; s++ {
		slot := slots[s*slotSize : (s+1)*slotSize]
		if binary.LittleEndian.Uint32(slot)>>d&1 == 0 {
			copy(slots[kept*slotSize:], slot)
			kept++
		} else {
			moved = append(moved, slot...)
		}
	}
	if !f.write(p, 0, slots[:kept*slotSize]) || !f.write(q, 0, moved) {
		return false
	}
	f.pages[p] = page{depth: uint8(d + 1), used: uint16(kept)}
	f.pages[q] = page{depth: uint8(d + 1), used: uint16(n - kept)}
	f.spare = moved
	for i := low | 1<<d; i < len(f.dir); i += 1 << (d + 1) {
		f.dir[i] = q
	}
	return true
}

// grow adds an empty page, moving the pages to the scratch file when there are
// memPages of them.
func (f *firstReads) grow() bool {
	if f.file == nil && f.scratch != nil && len(f.pages) >= f.memPages {
		file, err := f.scratch("seen")
		if err != nil {
			f.err = fmt.Errorf("keeping the run and session keys aside: %w", err)
			return false
		}
		f.file = file
		for p, pg := range f.pages {
			if !f.write(uint32(p), 0, f.mem[p*pageSize:p*pageSize+int(pg.used)*slotSize]) {
				return false
			}
		}
		f.mem = nil
	}
	f.pages = append(f.pages, page{})
	if f.file == nil {
		f.mem = append(f.mem, make([]byte, pageSize)...)
	}
	return true
}

// read returns the first used slots of page p: in memory, or read back from the
// scratch file into buf (nil, with f.err set, when that fails).
func (f *firstReads) read(p uint32, used int) []byte {
	if f.file == nil {
		at := int(p) * pageSize
		return f.mem[at : at+used*slotSize]
	}
	if f.buf == nil {
		f.buf = make([]byte, pageSize)
	}
	n, err := f.file.ReadAt(f.buf[:used*slotSize], int64(p)*pageSize)
	if n < used*slotSize {
		if err == nil {
			err = errors.New("short read")
		}
		f.err = fmt.Errorf("reading back the run and session keys from %s: %w", f.file.Name(), err)
		return nil
	}
	return f.buf[:used*slotSize]
}

// write writes b into page p from slot s.
func (f *firstReads) write(p uint32, s int, b []byte) bool {
	at := int(p)*pageSize + s*slotSize
	if f.file == nil {
		copy(f.mem[at:], b)
		return true
	}
	if _, err := f.file.WriteAt(b, int64(at)); err != nil {
		f.err = fmt.Errorf("keeping the run and session keys aside in %s: %w", f.file.Name(), err)
		return false
	}
	return true
}
