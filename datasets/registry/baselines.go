package registry

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/internal/atomicfile"
)

// Update is one baseline --update-baseline records: the figure measured now (NaN
// when undefined), or the removal of a baseline whose metric is no longer measured.
type Update struct {
	Dataset string
	Key     Key
	Value   float64
	Remove  bool
}

// Change is one baseline an edit changed: Old is nil for a baseline recorded for the
// first time, New is nil for one removed.
type Change struct {
	Dataset  string
	Key      Key
	Old, New *Baseline
}

// Edit returns the registry's text with the updates applied, and the baselines that
// changed. Only the baselines' values move: an existing baseline keeps its tolerance
// and everything around it (comments, order, layout); a new one is written after the
// last baseline of its configuration and detector, or in a new
// [datasets.baselines.CONFIG.DETECTOR] table at the end of its dataset, with the
// metric's default tolerance. The result is parsed again and checked before it is
// returned.
func (r *Registry) Edit(updates []Update) ([]byte, []Change, error) {
	type edit struct {
		start, end int
		text       string
		seq        int
	}
	var edits []edit
	add := func(start, end int, text string) {
		edits = append(edits, edit{start, end, text, len(edits)})
	}
	var changes []Change
	want := map[string]map[Key]*Baseline{} // dataset → key → the baseline expected after the edit (nil: removed)
	byDataset := map[string][]Update{}
	var order []string
	for _, u := range updates {
		if _, ok := byDataset[u.Dataset]; !ok {
			order = append(order, u.Dataset)
		}
		byDataset[u.Dataset] = append(byDataset[u.Dataset], u)
	}
	for _, name := range order {
		i := slices.IndexFunc(r.Datasets, func(d Dataset) bool { return d.Name == name })
		if i < 0 {
			return nil, nil, fmt.Errorf("update of dataset %q, which the registry does not hold", name)
		}
		ds := r.Datasets[i]
		want[name] = map[Key]*Baseline{}
		type group struct{ config, detector string }
		var newKeys []Key
		for _, u := range byDataset[name] {
			old, exists := ds.Baselines[u.Key]
			span, ok := r.ix.kv(ds.Index, u.Key)
			switch {
			case u.Remove && !exists:
				continue
			case u.Remove:
				start := lineStart(r.src, span.start)
				add(start, lineEnd(r.src, span.end), "")
				o := old
				changes = append(changes, Change{Dataset: name, Key: u.Key, Old: &o})
				want[name][u.Key] = nil
			case exists && ok:
				nb := Baseline{Value: u.Value, Tolerance: old.Tolerance}
				if same(old.Value, u.Value) {
					want[name][u.Key] = &nb
					continue
				}
				add(span.valueStart, span.end, formatBaseline(nb))
				o := old
				changes = append(changes, Change{Dataset: name, Key: u.Key, Old: &o, New: &nb})
				want[name][u.Key] = &nb
			case exists:
				return nil, nil, fmt.Errorf("dataset %s: baseline %s is not where the registry said it was", name, u.Key)
			default:
				newKeys = append(newKeys, u.Key)
			}
		}
		// New baselines, grouped by configuration and detector in the order given.
		var groups []group
		members := map[group][]Key{}
		for _, k := range newKeys {
			g := group{k.Config, k.Detector}
			if _, ok := members[g]; !ok {
				groups = append(groups, g)
			}
			members[g] = append(members[g], k)
		}
		var tables strings.Builder
		for _, g := range groups {
			var lines strings.Builder
			for _, k := range members[g] {
				tol := 0.0
				if det, ok := LookupDetector(k.Detector); ok {
					if m, ok := det.Metric(k.Metric); ok {
						tol = m.Tolerance
					}
				}
				nb := Baseline{Value: valueOf(byDataset[name], k), Tolerance: tol}
				changes = append(changes, Change{Dataset: name, Key: k, New: &nb})
				want[name][k] = &nb
				fmt.Fprintf(&lines, "%s = %s\n", tomlKey(k.Metric), formatBaseline(nb))
			}
			if last, ok := r.ix.lastOfGroup(ds.Index, g.config, g.detector); ok {
				// After the group's last baseline, written the same way (indent, dotted prefix).
				indent := string(r.src[lineStart(r.src, last.start):last.start])
				prefix := string(r.src[last.start:last.lastKey])
				var b strings.Builder
				for _, l := range strings.SplitAfter(strings.TrimSuffix(lines.String(), "\n"), "\n") {
					b.WriteString(indent + prefix + strings.TrimSuffix(l, "\n") + "\n")
				}
				at := lineEnd(r.src, last.end)
				add(at, at, newlineBefore(r.src, at)+b.String())
				continue
			}
			if h, ok := r.ix.header("datasets", strconv.Itoa(ds.Index), "baselines", g.config, g.detector); ok {
				// The group's table is there, emptied by an earlier removal: under its header.
				at := lineEnd(r.src, h.start)
				add(at, at, newlineBefore(r.src, at)+lines.String())
				continue
			}
			fmt.Fprintf(&tables, "\n[datasets.baselines.%s.%s]\n%s", tomlKey(g.config), tomlKey(g.detector), lines.String())
		}
		if tables.Len() > 0 {
			at := r.ix.blockEnd[ds.Index]
			add(at, at, newlineBefore(r.src, at)+tables.String())
		}
	}
	slices.SortStableFunc(edits, func(a, b edit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.seq - b.seq
	})
	var out bytes.Buffer
	pos := 0
	for _, e := range edits {
		if e.start < pos {
			return nil, nil, fmt.Errorf("overlapping baseline edits at byte %d", e.start)
		}
		out.Write(r.src[pos:e.start])
		out.WriteString(e.text)
		pos = e.end
	}
	out.Write(r.src[pos:])
	// Check the result: it must load, and hold exactly the baselines intended.
	after, err := Parse(r.Path, out.Bytes())
	if err != nil {
		return nil, nil, fmt.Errorf("the updated registry does not load (nothing written): %w", err)
	}
	for name, keys := range want {
		i := slices.IndexFunc(after.Datasets, func(d Dataset) bool { return d.Name == name })
		for k, b := range keys {
			got, ok := after.Datasets[i].Baselines[k]
			if b == nil && ok || b != nil && (!ok || !same(got.Value, b.Value) || got.Tolerance != b.Tolerance) {
				return nil, nil, fmt.Errorf("the updated registry holds %s/%s = %v, not %v (nothing written)", name, k, got, b)
			}
		}
	}
	return out.Bytes(), changes, nil
}

// Rewrite applies the updates to the registry file: it is replaced atomically, with
// its permissions, its byte order mark and its line endings (CRLF) kept; a symbolic
// link is followed, the file it names rewritten. A file that no longer holds what was
// read (edited while the run went on) is not rewritten: an error says so.
func (r *Registry) Rewrite(updates []Update) ([]Change, error) {
	src, changes, err := r.Edit(updates)
	if err != nil || len(changes) == 0 {
		return changes, err
	}
	path := r.Path
	if target, err := filepath.EvalSymlinks(r.Path); err == nil {
		path = target
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	const bom = "\xef\xbb\xbf"
	text, hasBOM := bytes.CutPrefix(cur, []byte(bom))
	if !bytes.Equal(text, r.src) {
		return nil, fmt.Errorf("%s changed since it was read (edited while the datasets were replayed): nothing rewritten; run again", r.Path)
	}
	out := src
	if n := bytes.Count(text, []byte("\r\n")); n > 0 && n == bytes.Count(text, []byte("\n")) {
		out = bytes.ReplaceAll(bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
	}
	if hasBOM {
		out = append([]byte(bom), out...)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := atomicfile.WriteFile(path, out, mode); err != nil {
		return nil, err
	}
	r.src = bytes.TrimPrefix(out, []byte(bom))
	return changes, nil
}

func valueOf(us []Update, k Key) float64 {
	for _, u := range us {
		if u.Key == k {
			return u.Value
		}
	}
	return math.NaN()
}

// same reports whether two baseline values are equal, NaN equal to NaN.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// kv returns the key-value of a dataset's baseline.
func (ix *index) kv(dataset int, k Key) (kvSpan, bool) {
	i, ok := ix.byPath[pathKey([]string{"datasets", strconv.Itoa(dataset), "baselines", k.Config, k.Detector, k.Metric})]
	if !ok {
		return kvSpan{}, false
	}
	return ix.kvs[i], true
}

// lastOfGroup returns the last baseline key-value of a dataset's configuration and
// detector in the document.
func (ix *index) lastOfGroup(dataset int, config, detector string) (kvSpan, bool) {
	prefix := []string{"datasets", strconv.Itoa(dataset), "baselines", config, detector}
	var last kvSpan
	found := false
	for _, s := range ix.kvs {
		if len(s.path) == len(prefix)+1 && slices.Equal(s.path[:len(prefix)], prefix) && s.end > last.end {
			last, found = s, true
		}
	}
	return last, found
}

// header returns the table header of that resolved path.
func (ix *index) header(path ...string) (headerSpan, bool) {
	i := slices.IndexFunc(ix.headers, func(h headerSpan) bool { return !h.array && slices.Equal(h.path, path) })
	if i < 0 {
		return headerSpan{}, false
	}
	return ix.headers[i], true
}

// formatBaseline writes a baseline as an inline table.
func formatBaseline(b Baseline) string {
	return fmt.Sprintf("{ value = %s, tolerance = %s }", FormatFloat(b.Value), FormatFloat(b.Tolerance))
}

// FormatFloat writes v as a TOML float: the shortest text that reads back as v,
// always with a point or an exponent; nan for NaN.
func FormatFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKey writes a key part, quoted unless it is a bare key.
func tomlKey(s string) string {
	if bareKey.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

// newlineBefore returns "\n" when text inserted at offset would otherwise continue
// a line that has no newline (the end of a file without one).
func newlineBefore(src []byte, at int) string {
	if at > 0 && src[at-1] != '\n' {
		return "\n"
	}
	return ""
}
