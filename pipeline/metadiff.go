package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDiffMembers is how many differing members a metadata difference names.
const maxDiffMembers = 3

// diffValueBytes is how much of a differing value a metadata difference quotes.
const diffValueBytes = 60

// metadataDifference says how a metadata value differs between two shards, named
// nameA and nameB ("shard=0"), for a message: of two JSON objects or arrays, the
// members that differ, by their path, with both values ("resamples 200 in shard=0,
// 100 in shard=1"), the first maxDiffMembers of them in path order, compared whole and
// quoted from their first differing byte when it lies past what a cut would show
// (showDiffering); of other values (or
// JSON that differs in its bytes only), both quoted from their first differing byte.
// okA and okB say whether each shard has the key at all.
func metadataDifference(a, b string, okA, okB bool, nameA, nameB string) string {
	switch {
	case !okA:
		return fmt.Sprintf("absent in %s, %s in %s", nameA, quoteFrom(b, 0), nameB)
	case !okB:
		return fmt.Sprintf("%s in %s, absent in %s", quoteFrom(a, 0), nameA, nameB)
	}
	if va, vb, ok := decodeComposite(a, b); ok {
		var diffs []string
		n := jsonDiffs("", va, vb, func(path, x, y string) {
			if len(diffs) < maxDiffMembers {
				x, y = showDiffering(x, y)
				diffs = append(diffs, fmt.Sprintf("%s %s in %s, %s in %s", path, x, nameA, y, nameB))
			}
		})
		if n > 0 {
			if n > len(diffs) {
				diffs = append(diffs, fmt.Sprintf("and %d more", n-len(diffs)))
			}
			return strings.Join(diffs, "; ")
		}
	}
	i := runeStart(a, commonPrefix(a, b)) // quote whole characters
	return fmt.Sprintf("from byte %d: %s in %s, %s in %s", i, quoteFrom(a, i), nameA, quoteFrom(b, i), nameB)
}

// commonPrefix is how many bytes a and b begin alike with.
func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// quoteFrom quotes excerpt(s, i).
func quoteFrom(s string, i int) string { return strconv.Quote(excerpt(s, i)) }

// excerpt is s from byte i (a character's start), at most diffValueBytes of it, "…"
// marking what is left out before and after.
func excerpt(s string, i int) string {
	rest, cut := s[i:], false
	if len(rest) > diffValueBytes {
		rest, cut = rest[:runeStart(rest, diffValueBytes)], true
	}
	if i > 0 {
		rest = "…" + rest
	}
	if cut {
		rest += "…"
	}
	return rest
}

// decodeComposite decodes a and b when both are a JSON object or array.
func decodeComposite(a, b string) (va, vb any, ok bool) {
	decode := func(s string) (any, bool) {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil || d.More() {
			return nil, false
		}
		switch v.(type) {
		case map[string]any, []any:
			return v, true
		}
		return nil, false
	}
	va, okA := decode(a)
	vb, okB := decode(b)
	return va, vb, okA && okB
}

// jsonDiffs calls diff, in path order, for each member of two decoded JSON values that
// differs — an object's members by name, an array's elements by index when the arrays
// are as long — with the two values (or "absent"), and returns how many differ.
func jsonDiffs(path string, a, b any, diff func(path, a, b string)) int {
	if ma, ok := a.(map[string]any); ok {
		if mb, ok := b.(map[string]any); ok {
			n := 0
			for _, k := range slices.Sorted(maps.Keys(unionKeys(ma, mb))) {
				x, okA := ma[k]
				y, okB := mb[k]
				p := joinPath(path, k)
				switch {
				case okA && okB:
					n += jsonDiffs(p, x, y, diff)
				case okA:
					diff(p, jsonText(x), "absent")
					n++
				default:
					diff(p, "absent", jsonText(y))
					n++
				}
			}
			return n
		}
	}
	if sa, ok := a.([]any); ok {
		if sb, ok := b.([]any); ok && len(sa) == len(sb) {
			n := 0
			for i := range sa {
				n += jsonDiffs(fmt.Sprintf("%s[%d]", path, i), sa[i], sb[i], diff)
			}
			return n
		}
	}
	if x, y := jsonText(a), jsonText(b); x != y {
		if path == "" {
			path = "(the whole value)"
		}
		diff(path, x, y)
		return 1
	}
	return 0
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonText is v as compact JSON, whole: two values are compared in full, and cut
// for display only (showDiffering).
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// showDiffering returns two differing JSON texts for display, each at most
// diffValueBytes of it, "…" marking what is left out: from their start when they
// differ early enough to show it (in the first half of that), else each from their
// first differing byte — two long values alike up to there would read the same.
// "absent" is shown as it is.
func showDiffering(x, y string) (string, string) {
	i := 0
	if x != "absent" && y != "absent" {
		i = commonPrefix(x, y)
	}
	if i < diffValueBytes/2 {
		i = 0
	}
	i = min(runeStart(x, i), runeStart(y, i)) // the same byte in both, a character's start
	return excerpt(x, i), excerpt(y, i)
}

// runeStart moves i (≤ len(s)) back to the start of the character it is in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
