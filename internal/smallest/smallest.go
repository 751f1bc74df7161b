// Package smallest keeps the k smallest strings of a stream, sorted, in O(k) memory:
// the examples a warning names, the candidates an ambiguous id matches. It keeps
// duplicates as they come and refuses nothing; k ≤ 0 keeps none.
package smallest

import "slices"

// Keep inserts s into list, a sorted list of at most k strings, if it is among the k
// smallest seen, and drops what falls beyond k.
func Keep(list *[]string, s string, k int) {
	i, _ := slices.BinarySearch(*list, s)
	if i < k {
		*list = slices.Insert(*list, i, s)
		*list = (*list)[:min(len(*list), k)]
	}
}
