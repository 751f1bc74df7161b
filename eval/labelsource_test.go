package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/loopwatch/loopwatch/internal/corpus"
)

// readBoth reads in as labels held in memory (the store before labels stayed in their
// sources) and as labels kept in their source, at; it fails unless both read alike
// (the same error, the same problems).
func readBoth(t testing.TB, in []byte, at io.ReaderAt, opts LabelOptions) (mem, src *Labels) {
	t.Helper()
	mem, mprobs, merr := ReadLabelsWith(bytes.NewReader(in), opts)
	opts.Source = at
	src, sprobs, serr := ReadLabelsWith(bytes.NewReader(in), opts)
	if (merr == nil) != (serr == nil) || merr != nil && merr.Error() != serr.Error() {
		t.Fatalf("errors: in memory %v, in the source %v", merr, serr)
	}
	if !reflect.DeepEqual(mprobs, sprobs) {
		t.Fatalf("problems: in memory %+v, in the source %+v", mprobs, sprobs)
	}
	return mem, src
}

// referenceOf returns the reference store holding what mem holds, set in Index order.
func referenceOf(t testing.TB, mem *Labels) *referenceLabels {
	t.Helper()
	ref := newReferenceLabels()
	keys := make([]string, mem.Len())
	mem.EachKey(func(i int, k string) { keys[i] = k })
	for _, k := range keys {
		r, _ := mem.Get(k)
		ref.Set(r)
	}
	return ref
}

// checkSourced fails unless src, labels kept in their source, holds what mem, the same
// file read into memory, holds — and what the reference store holds of them — for
// every key and some it has not, with no error reading them again.
func checkSourced(t testing.TB, mem, src *Labels) {
	t.Helper()
	keys := mem.Keys()
	checkAgainstReference(t, mem, referenceOf(t, mem), keys)
	checkAgainstReference(t, src, referenceOf(t, mem), append(keys, "missing", keys[0]+" "))
	if err := src.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	if src.src == nil || len(src.src.refs) != src.Len() {
		t.Fatalf("the records are not kept in the source: %+v", src.src)
	}
}

const syntheticRuns = "run_key,label,outcome,label_source,rule\n" +
	"q-1,positive,failed,human,\n\n" +
	"\"q,2\",negative,,derived,\"a \"\"quoted\"\"\nrule\"\r\n" +
	"q-3,excluded,,robot,r\n" +
	"q-1,negative,,,\n" +
	",positive,,,\n" +
	"q-4,maybe,,,\n" +
	"séance-é,ambiguous\n" +
	"q-5,positive,,,,,extra"

const syntheticSessionsJSON = "\n  \n" + `{"session_id":"s-1","outcome":"failure","friction_uuids":["a","b"],"friction_times":"2026-03-01T10:00:00+01:00","notes":"n","file":"f"}` + "\r\n" +
	`{"run_key":"q","label":"positive","human_msgs":"3"}` + "\n" +
	"not json\n\n" +
	`{"session_id":"s-2","outcome":"success","moments":"x;2026-03-01T10:00:00Z;y","human_msgs":2,"confidence":"high"}` + "\n" +
	`{"session_id":"s-1","outcome":"partial","label_rule":"by hand"}` + "\n" +
	`{"session_id":"s-3","outcome":"none"}`

// TestSourcedLabelsMatchMemory: label files — synthetic, the built-in sample's and the
// corpus's — kept in their source hold what they hold read into memory, every field,
// Index and Keys, with and without their text, from bytes and from a file.
func TestSourcedLabelsMatchMemory(t *testing.T) {
	files := map[string][]byte{
		"runs.csv":                []byte(syntheticRuns),
		"runs with a BOM.csv":     append([]byte("\xef\xbb\xbf\n\n"), syntheticRuns...),
		"sessions.jsonl":          []byte(syntheticSessionsJSON),
		"sessions.csv":            []byte(sessionCSV),
		"huge key.csv":            []byte("run_key,label\n" + strings.Repeat("é", 1<<20) + ",positive\nq,negative\n"),
		"synthetic sessions.csv":  syntheticSessionLabels(2000, 1),
		"sample runs.csv":         readFile(t, "../datasets/sample/labels/runs.csv"),
		"sample sessions.csv":     readFile(t, "../datasets/sample/labels/sessions.csv"),
		"sessions, one line.json": []byte(`{"session_id":"s","outcome":"failure"}`),
	}
	if dir, err := corpus.Dir("claude-code"); err == nil {
		files["corpus labels.csv"] = readFile(t, filepath.Join(dir, "labels.csv"))
	} else {
		t.Logf("no corpus: %v", err)
	}
	for name, in := range files {
		for _, opts := range []LabelOptions{{}, {NoText: true}, {Outcomes: mustOutcomes("failure,partial")}} {
			t.Run(fmt.Sprintf("%s/%+v", name, opts), func(t *testing.T) {
				mem, src := readBoth(t, in, bytes.NewReader(in), opts)
				checkSourced(t, mem, src)
				f := writeTemp(t, in)
				mem, src = readBoth(t, in, f, opts)
				checkSourced(t, mem, src)
			})
		}
	}
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeTemp(t testing.TB, b []byte) *os.File {
	t.Helper()
	name := filepath.Join(t.TempDir(), "labels")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// syntheticSessionLabels is a session label file of n sessions (synthetic), some
// labelled twice, with moments and notes.
func syntheticSessionLabels(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	var b bytes.Buffer
	b.WriteString("session_id,file,outcome,confidence,human_msgs,friction_uuids,friction_times,notes\n")
	var keys []string
	for i := range n {
		k := fmt.Sprintf("%08x-%04x-%04x", rng.Uint32(), rng.IntN(1<<16), i)
		if i%9 == 8 {
			k = keys[rng.IntN(len(keys))]
		}
		keys = append(keys, k)
		var ids []string
		for j := range rng.IntN(4) {
			ids = append(ids, fmt.Sprintf("%s-m%d", k, j))
		}
		fmt.Fprintf(&b, "%s,p/%s.jsonl,%s,%s,%d,%s,%s,\"note %d, \"\"quoted\"\"\"\n", k, k, []string{"success", "partial", "failure", "abandoned", "none"}[rng.IntN(5)],
			[]string{"high", "low", ""}[rng.IntN(3)], rng.IntN(9), strings.Join(ids, ";"), time.Unix(int64(1e9+i), 0).UTC().Format(time.RFC3339), i)
	}
	return b.Bytes()
}

// TestSourcedLabelsMerge: label files merged as a replay merges its --labels files —
// in memory, kept in their sources, and the two mixed — hold what the merge of the
// records one by one holds (the later file's label counts, keys added in sorted
// order), and tell the same keys labelled in both.
func TestSourcedLabelsMerge(t *testing.T) {
	a, b := syntheticSessionLabels(500, 1), syntheticSessionLabels(400, 1) // the same keys at first
	c := []byte(syntheticRuns)
	read := func(in []byte, sourced bool) *Labels {
		opts := LabelOptions{Name: "f"}
		if sourced {
			opts.Source = bytes.NewReader(in)
		}
		ls, _, err := ReadLabelsWith(bytes.NewReader(in), opts)
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	for _, mode := range [][3]bool{{false, false, false}, {true, true, true}, {false, true, true}, {true, false, true}, {true, true, false}} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			all, ref := read(a, mode[0]), referenceOf(t, read(a, false))
			for i, in := range [][]byte{b, c} {
				next := read(in, mode[i+1])
				var wantBoth []string
				for _, k := range next.Keys() { // the merge as the pipeline did it before Merge
					if _, dup := ref.Get(k); dup {
						wantBoth = append(wantBoth, k)
					}
					r, _ := next.Get(k)
					ref.Set(r)
				}
				both, err := all.Merge(next)
				if err != nil || !reflect.DeepEqual(both, wantBoth) {
					t.Fatalf("merge %d: %d keys in both, %v; want %d", i, len(both), err, len(wantBoth))
				}
			}
			checkAgainstReference(t, all, ref, append(ref.Keys(), "missing"))
			if err := all.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// changingSource is a source whose bytes can be changed, or made to fail, after the
// labels were read.
type changingSource struct {
	b   []byte
	err error
}

func (s *changingSource) ReadAt(p []byte, off int64) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	return bytes.NewReader(s.b).ReadAt(p, off)
}

// TestSourcedLabelsChanged: a source that changes or fails after its labels were read
// never gives a wrong label: the label is not found and Err says why, whether it was
// cut short, rewritten in place (the same length, another label or key), shifted, or
// fails to read.
func TestSourcedLabelsChanged(t *testing.T) {
	in := []byte("run_key,label\nq-1,positive\nq-2,negative\nq-3,positive\n")
	for _, tt := range []struct {
		name   string
		change func(s *changingSource)
		lost   []string // the keys whose label is no longer there
		want   string   // in the error
	}{
		{"cut short", func(s *changingSource) { s.b = s.b[:len(s.b)-8] }, []string{"q-3"}, "cut short"},
		{"another label, the same length", func(s *changingSource) { s.b = bytes.Replace(s.b, []byte("q-2,negative"), []byte("q-2,positive"), 1) }, []string{"q-2"}, "changed since it was read"},
		{"another key", func(s *changingSource) { s.b = bytes.Replace(s.b, []byte("q-2"), []byte("q-9"), 1) }, []string{"q-2"}, "changed since it was read"},
		{"shifted", func(s *changingSource) {
			s.b = append([]byte("run_key,label\nq-0,negative\n"), s.b[len("run_key,label\n"):]...)
		}, []string{"q-1", "q-2", "q-3"}, "changed since it was read"},
		{"emptied", func(s *changingSource) { s.b = nil }, []string{"q-1", "q-2", "q-3"}, "cut short"},
		{"a read error", func(s *changingSource) { s.err = errors.New("disk on fire") }, []string{"q-1", "q-2", "q-3"}, "disk on fire"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &changingSource{b: bytes.Clone(in)}
			ls, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{Source: s, Name: "labels.csv"})
			if err != nil || ls.Len() != 3 {
				t.Fatal(err, ls.Len())
			}
			tt.change(s)
			for _, k := range []string{"q-1", "q-2", "q-3"} {
				r, ok := ls.Get(k)
				lost := strings.Contains(strings.Join(tt.lost, " "), k)
				if ok == lost || ok && (r.Key != k || r.Label != map[string]Label{"q-1": Positive, "q-2": Negative, "q-3": Positive}[k]) {
					t.Errorf("Get(%s) = %+v, %v after the change", k, r, ok)
				}
				if _, ok := ls.Index(k); ok == lost {
					t.Errorf("Index(%s) found %v after the change", k, ok)
				}
			}
			err = ls.Err()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "labels.csv:") {
				t.Fatalf("Err %v, want %q named with the file", err, tt.want)
			}
			if tt.want == "changed since it was read" && !errors.Is(err, ErrLabelsChanged) {
				t.Errorf("Err %v is not ErrLabelsChanged", err)
			}
			// Keys reads every label again: it fails the same way.
			fresh, _, _ := ReadLabelsWith(bytes.NewReader(in), LabelOptions{Source: s})
			if keys := fresh.Keys(); len(keys) == 3 || fresh.Err() == nil {
				t.Errorf("Keys %v, Err %v after the change", keys, fresh.Err())
			}
			if _, err := NewLabels().Merge(fresh); err == nil {
				t.Error("Merge of labels that cannot be read again: no error")
			}
		})
	}
}

// TestSourcedLabelsCollision: a key whose hash other records have too costs a read of
// each of them, never a wrong answer — among the sorted records and in the tail.
func TestSourcedLabelsCollision(t *testing.T) {
	in := []byte("run_key,label\nq-1,positive\nq-2,negative\nq-3,excluded\n")
	read := func() *Labels {
		ls, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{Source: bytes.NewReader(in)})
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	check := func(ls *Labels, key string, label Label, index int) {
		t.Helper()
		if r, ok := ls.Get(key); !ok || r.Label != label || r.Key != key {
			t.Errorf("Get(%s) = %+v, %v", key, r, ok)
		}
		if i, ok := ls.Index(key); !ok || i != index {
			t.Errorf("Index(%s) = %d, %v", key, i, ok)
		}
		if err := ls.Err(); err != nil {
			t.Error(err)
		}
	}
	// q-1 and q-2 take q-3's hash: a search for q-3 reads them first.
	ls := read()
	for n := range 2 {
		ls.src.refs[n].hash = keyHash("q-3")
	}
	ls.src.sorted = nil
	ls.seal()
	check(ls, "q-3", Excluded, 2)
	// Every sourced record takes the hash of q-4, kept in memory in the tail.
	ls = read()
	for n := range 3 {
		ls.src.refs[n].hash = keyHash("q-4")
	}
	ls.src.sorted = nil
	ls.seal()
	ls.Set(LabelRecord{Key: "q-4", Label: Ambiguous, Line: 9})
	ls.Set(LabelRecord{Key: "q-5", Label: Negative, Line: 10})
	if len(ls.src.tail) == 0 {
		t.Fatal("no tail")
	}
	check(ls, "q-4", Ambiguous, 3)
	check(ls, "q-5", Negative, 4)
	if _, ok := ls.Get("q-0"); ok {
		t.Error("Get(q-0) found a label")
	}
}

// FuzzLabelsReread reads label files, whatever their bytes, into memory and kept in
// their source: both must read alike and hold the same labels, read again without
// an error.
func FuzzLabelsReread(f *testing.F) {
	f.Add([]byte(syntheticRuns))
	f.Add([]byte(syntheticSessionsJSON))
	f.Add([]byte(sessionCSV))
	f.Add([]byte("\xef\xbb\xbfrun_key,label\r\nq,\"positive\"\r\n\"q\r\n2\",negative"))
	f.Add([]byte("session_id,outcome,moments\ns,failure,\"a;2026-03-01T10:00:00Z\"\n\n\"s\",\"success\"\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		mem, src := readBoth(t, in, bytes.NewReader(in), LabelOptions{})
		if mem == nil || mem.Len() == 0 {
			return
		}
		checkSourced(t, mem, src)
		// The index moved into a scratch file: the same labels.
		if err := src.MoveIndex((&memScratch{}).open); err != nil {
			t.Fatal(err)
		}
		checkAgainstReference(t, src, referenceOf(t, mem), append(mem.Keys(), "missing"))
		if err := src.Err(); err != nil {
			t.Fatal(err)
		}
	})
}

func mustOutcomes(s string) OutcomeClass {
	c, err := ParseOutcomeClass(s)
	if err != nil {
		panic(err)
	}
	return c
}

// TestSourcedLabelsBytesPerLabel holds labels kept in their source to at most 32
// bytes a label of live heap, index included, whatever their text: 50,000 session
// labels with moments and notes; and to at most a byte a label once their index is
// moved into a scratch file.
func TestSourcedLabelsBytesPerLabel(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap: not under the race detector")
	}
	const n = 50_000
	in := syntheticSessionLabels(n, 3)
	src := bytes.NewReader(in)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	ls, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{Source: src, NoText: true})
	if err != nil {
		t.Fatal(err)
	}
	after := heap()
	per := float64(int64(after)-int64(before)) / float64(ls.Len())
	t.Logf("%d labels from a %d-byte file: %.1f bytes a label", ls.Len(), len(in), per)
	if per > 32 {
		t.Errorf("%.1f bytes a label, want at most 32", per)
	}
	if unsafe.Sizeof(labelRef{}) != 24 {
		t.Errorf("a labelRef is %d bytes, want 24", unsafe.Sizeof(labelRef{}))
	}
	// The index moved into a scratch file (itself on the heap here, not counted): at
	// most a byte a label stays.
	scratch := &memScratch{}
	if err := ls.MoveIndex(scratch.open); err != nil {
		t.Fatal(err)
	}
	scratchHeap := uint64(cap(scratch.b))
	moved := float64(int64(heap()-scratchHeap)-int64(before)) / float64(ls.Len())
	t.Logf("the index moved: %.2f bytes a label", moved)
	if moved > 1 {
		t.Errorf("the index moved: %.2f bytes a label, want at most 1", moved)
	}
	runtime.KeepAlive(scratch)
	runtime.KeepAlive(ls)
	runtime.KeepAlive(in)
}
