package registry

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// index locates the keys of a TOML document, so that validation errors name a line
// and --update-baseline can rewrite a baseline where it stands.
type index struct {
	src []byte
	// kvs are the document's key-values (inline tables' members not separately), in
	// document order; byPath finds one by its resolved path.
	kvs    []kvSpan
	byPath map[string]int
	// headers are the table headers ([a.b] and [[a]]) in document order.
	headers []headerSpan
	// blockEnd gives, per dataset index, the end of the line of the last expression
	// that belongs to it: where a new baseline table is inserted.
	blockEnd map[int]int
}

// kvSpan is one key-value: its resolved path (array-of-tables elements as their
// index: datasets.1.baselines.default.struggle.precision) and where it stands.
type kvSpan struct {
	path         []string
	start        int // the first byte of the key
	lastKey      int // the first byte of the key's last part
	valueStart   int
	end          int // the byte after the value
	inlineTable  bool
	line, column int
}

// headerSpan is one table header.
type headerSpan struct {
	path  []string
	start int
	line  int
	array bool
}

func pathKey(path []string) string { return strings.Join(path, ".") }

// newIndex walks a document that go-toml has already decoded without error.
func newIndex(src []byte) (*index, error) {
	ix := &index{src: src, byPath: map[string]int{}, blockEnd: map[int]int{}}
	var p unstable.Parser
	p.Reset(src)
	var table []string         // the current table's resolved path
	arrays := map[string]int{} // resolved path of an array of tables → its last index
	resolve := func(parts []string) []string {
		var out []string
		for _, part := range parts {
			out = append(out, part)
			if i, ok := arrays[pathKey(out)]; ok {
				out = append(out, strconv.Itoa(i))
			}
		}
		return out
	}
	for p.NextExpression() {
		e := p.Expression()
		parts, first, last := keyParts(e)
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			resolved := resolve(parts)
			if e.Kind == unstable.ArrayTable {
				resolved = append(resolve(parts[:len(parts)-1]), parts[len(parts)-1])
				k := pathKey(resolved)
				i, seen := arrays[k]
				if seen {
					i++
				}
				arrays[k] = i
				resolved = append(resolved, strconv.Itoa(i))
			}
			table = resolved
			ix.headers = append(ix.headers, headerSpan{path: resolved, start: first, line: lineOf(src, first), array: e.Kind == unstable.ArrayTable})
			ix.own(resolved, lineEnd(src, first))
		case unstable.KeyValue:
			path := append(append([]string(nil), table...), parts...)
			v := e.Value()
			span := kvSpan{path: path, start: first, lastKey: last, valueStart: int(v.Raw.Offset),
				end: int(e.Raw.Offset + e.Raw.Length), inlineTable: v.Kind == unstable.InlineTable}
			span.line, span.column = lineOf(src, first), first-bytes.LastIndexByte(src[:first], '\n')
			ix.byPath[pathKey(path)] = len(ix.kvs)
			ix.kvs = append(ix.kvs, span)
			ix.own(path, lineEnd(src, span.end))
		}
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	return ix, nil
}

// own records that an expression ending its line at end belongs to the dataset its
// path names, if any.
func (ix *index) own(path []string, end int) {
	if len(path) < 2 || path[0] != "datasets" {
		return
	}
	i, err := strconv.Atoi(path[1])
	if err != nil {
		return
	}
	if end > ix.blockEnd[i] {
		ix.blockEnd[i] = end
	}
}

// keyParts returns the parts of an expression's key and the offsets of its first
// and last part.
func keyParts(e *unstable.Node) (parts []string, first, last int) {
	it := e.Key()
	first = -1
	for it.Next() {
		n := it.Node()
		parts = append(parts, string(n.Data))
		if first < 0 {
			first = int(n.Raw.Offset)
		}
		last = int(n.Raw.Offset)
	}
	return parts, first, last
}

// line returns the line of the key at path: where it is written, else where the
// first key or table under it is, else the line of the nearest enclosing key or
// table; 0 when none is written.
func (ix *index) line(path ...string) int {
	under := func(p []string, n int) bool { return len(p) >= n && slices.Equal(p[:n], path[:n]) }
	for n := len(path); n > 0; n-- {
		k := pathKey(path[:n])
		if i, ok := ix.byPath[k]; ok {
			return ix.kvs[i].line
		}
		first := 0
		for _, h := range ix.headers {
			if under(h.path, n) {
				first = h.line
				break
			}
		}
		for _, kv := range ix.kvs {
			if under(kv.path, n) && (first == 0 || kv.line < first) {
				first = kv.line
				break
			}
		}
		if first > 0 {
			return first
		}
	}
	return 0
}

// at formats "line N: " for the key at path, or "" when it has no line.
func (ix *index) at(path ...string) string {
	if l := ix.line(path...); l > 0 {
		return fmt.Sprintf("line %d: ", l)
	}
	return ""
}

// lineOf returns the 1-based line of offset.
func lineOf(src []byte, offset int) int { return bytes.Count(src[:offset], []byte("\n")) + 1 }

// lineEnd returns the offset just after the newline ending offset's line (or the
// document's end).
func lineEnd(src []byte, offset int) int {
	if i := bytes.IndexByte(src[offset:], '\n'); i >= 0 {
		return offset + i + 1
	}
	return len(src)
}

// lineStart returns the offset of the first byte of offset's line.
func lineStart(src []byte, offset int) int { return bytes.LastIndexByte(src[:offset], '\n') + 1 }
