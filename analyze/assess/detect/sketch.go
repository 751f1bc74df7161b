package detect

import "math"

// sketchK is how many token hashes a [sketch] keeps.
const sketchK = 32

// sketch is a bottom-k sketch of a message's content tokens: the sketchK smallest
// hashes of its distinct tokens. For a message with at most sketchK distinct tokens
// it is the exact set; for a longer one it estimates set similarities without bound
// on the message's length. It is a fixed-size value: a session keeps a bounded
// history of them at no allocation.
type sketch struct {
	h [sketchK]uint64 // ascending
	n int             // hashes held
}

func (s *sketch) reset() { s.n = 0 }

// add offers the hash x.
func (s *sketch) add(x uint64) {
	if s.n == sketchK && x >= s.h[sketchK-1] {
		return
	}
	i := 0
	for i < s.n && s.h[i] < x {
		i++
	}
	if i < s.n && s.h[i] == x {
		return
	}
	if s.n < sketchK {
		s.n++
	}
	copy(s.h[i+1:s.n], s.h[i:s.n-1])
	s.h[i] = x
}

// size estimates the number of distinct tokens: exact when the sketch is not full,
// otherwise from the sketch's largest hash (the k-th smallest of uniform values).
func (s *sketch) size() float64 {
	if s.n < sketchK {
		return float64(s.n)
	}
	return float64(sketchK-1) / (float64(s.h[sketchK-1]) / math.MaxUint64)
}

// similarity returns the Jaccard similarity of the two token sets and their overlap
// coefficient (shared tokens over the smaller set's): exact for sets of at most
// sketchK tokens, estimated beyond. Empty sets have similarity 0.
func similarity(a, b *sketch) (jaccard, overlap float64) {
	if a.n == 0 || b.n == 0 {
		return 0, 0
	}
	// The k smallest hashes of the union, and how many of them both sets hold. Each
	// is no larger than either full sketch's largest hash, so whether a set holds it
	// is known exactly from that set's sketch.
	i, j, union, both := 0, 0, 0, 0
	for union < sketchK && (i < a.n || j < b.n) {
		switch {
		case j >= b.n || i < a.n && a.h[i] < b.h[j]:
			i++
		case i >= a.n || b.h[j] < a.h[i]:
			j++
		default:
			i++
			j++
			both++
		}
		union++
	}
	if union == 0 {
		return 0, 0
	}
	jaccard = float64(both) / float64(union)
	sa, sb := a.size(), b.size()
	inter := jaccard * (sa + sb) / (1 + jaccard)
	return jaccard, min(1, inter/min(sa, sb))
}

// hashToken hashes a token's bytes (FNV-1a, then a finalising mix so the bottom-k
// choice is uniform).
func hashToken(b []byte, seed uint64) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return mix(h)
}

// mix is the finaliser of MurmurHash3: every input bit affects every output bit.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
