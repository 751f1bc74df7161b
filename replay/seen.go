package replay

import "crypto/sha256"

// firstReads remembers which run and session keys a replay has delivered, and the
// file each was read from first, without keeping the keys: a key is known by a 128-bit
// hash of it (the first half of its SHA-256), a file by its index among the run files.
// Two keys are taken for one only when their hashes are equal: among n keys the chance
// of that is below n²/2¹²⁹ (some 10⁻²⁷ for a million keys), and a false duplicate needs it.
type firstReads struct {
	first map[[2]uint64]int32 // key's hash → index of the file that had it first
	name  func(file int32) string
}

// newFirstReads returns an empty set; name names a file by its index.
func newFirstReads(name func(file int32) string) *firstReads {
	return &firstReads{first: map[[2]uint64]int32{}, name: name}
}

// add records key as read from file, unless it was read before: then dup is true and
// first names the file that had it first.
func (f *firstReads) add(key string, file int32) (first string, dup bool) {
	h := keyHash(key)
	if i, ok := f.first[h]; ok {
		return f.name(i), true
	}
	f.first[h] = file
	return "", false
}

func keyHash(key string) [2]uint64 {
	sum := sha256.Sum256([]byte(key))
	var h [2]uint64
	for i := range 16 {
		h[i/8] = h[i/8]<<8 | uint64(sum[i])
	}
	return h
}
