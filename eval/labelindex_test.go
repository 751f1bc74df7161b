package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// memScratch is a scratch file in memory that can fail: writing once it holds
// writeLimit bytes (when not 0), reading when readErr is set.
type memScratch struct {
	b          []byte
	writeLimit int
	readErr    error
	reads      int
}

func (m *memScratch) Write(p []byte) (int, error) {
	if m.writeLimit > 0 && len(m.b)+len(p) > m.writeLimit {
		return 0, errors.New("scratch disk full")
	}
	m.b = append(m.b, p...)
	return len(p), nil
}

func (m *memScratch) ReadAt(p []byte, off int64) (int, error) {
	m.reads++
	if m.readErr != nil {
		return 0, m.readErr
	}
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memScratch) open() (IndexScratch, error) { return m, nil }

// moved reads in kept in its source and moves its index into a scratch in memory.
func moved(t testing.TB, in []byte, opts LabelOptions) (*Labels, *memScratch) {
	t.Helper()
	opts.Source = bytes.NewReader(in)
	ls, _, err := ReadLabelsWith(bytes.NewReader(in), opts)
	if err != nil {
		t.Fatal(err)
	}
	m := &memScratch{}
	if err := ls.MoveIndex(m.open); err != nil {
		t.Fatal(err)
	}
	if ls.Len() > 0 && (ls.src.disk == nil || ls.src.refs != nil) {
		t.Fatal("the index was not moved")
	}
	return ls, m
}

// TestMovedIndexMatchesMemory: labels whose index was moved into a scratch file hold
// what the same file read into memory holds — every field, Index, Lookup of keys and
// of keys without a label, Keys — for files of a block of the index, less, more and
// many blocks, and labels kept in memory among them.
func TestMovedIndexMatchesMemory(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []byte
		set  []LabelRecord // set after the reading, before the move
	}{
		{"runs", []byte(syntheticRuns), nil},
		{"sessions.jsonl", []byte(syntheticSessionsJSON), nil},
		{"one label", []byte(`{"session_id":"s","outcome":"failure"}`), nil},
		{"a block less one", syntheticSessionLabels(blockRefs-1, 1), nil},
		{"a block", syntheticSessionLabels(blockRefs, 1), nil},
		{"a block and one", syntheticSessionLabels(blockRefs+1, 1), nil},
		{"many blocks", syntheticSessionLabels(5000, 2), nil},
		{"labels kept in memory too", syntheticSessionLabels(500, 3),
			[]LabelRecord{{Key: "set-1", Label: Positive, Line: 9}, {Key: "set-2", Label: Negative, Line: 10, Moments: []Moment{{ID: "m"}}}}},
		{"a huge key kept in memory", []byte("run_key,label\n" + strings.Repeat("é", 1<<20) + ",positive\nq,negative\n"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mem, _, err := ReadLabelsWith(bytes.NewReader(tt.in), LabelOptions{})
			if err != nil {
				t.Fatal(err)
			}
			src, _, err := ReadLabelsWith(bytes.NewReader(tt.in), LabelOptions{Source: bytes.NewReader(tt.in)})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tt.set {
				mem.Set(r)
				src.Set(r)
			}
			m := &memScratch{}
			if err := src.MoveIndex(m.open); err != nil {
				t.Fatal(err)
			}
			if src.src.disk == nil || src.src.refs != nil {
				t.Fatal("the index was not moved")
			}
			keys := mem.Keys()
			misses := []string{"missing"}
			for _, k := range keys[:min(len(keys), 50)] {
				misses = append(misses, k+" ", "x"+k)
			}
			checkAgainstReference(t, src, referenceOf(t, mem), append(keys, misses...))
			indices := map[string]int{}
			if err := src.EachKey(func(i int, k string) { indices[k] = i }); err != nil {
				t.Fatal(err)
			}
			for k, i := range indices {
				if wi, _ := mem.Index(k); wi != i {
					t.Errorf("EachKey gives %s index %d, in memory %d", k, i, wi)
				}
			}
			if err := src.Err(); err != nil {
				t.Fatal(err)
			}
			if want := (src.Len() + blockRefs - 1) / blockRefs; len(src.src.disk.fence) != want {
				t.Errorf("%d fence posts for %d labels, want %d", len(src.src.disk.fence), src.Len(), want)
			}
			// Set brings the index back into memory; the labels stay the same.
			src.Set(LabelRecord{Key: "after", Label: Excluded, Line: 99})
			mem.Set(LabelRecord{Key: "after", Label: Excluded, Line: 99})
			if src.src.disk != nil {
				t.Fatal("Set left the index in its scratch file")
			}
			checkAgainstReference(t, src, referenceOf(t, mem), append(keys, "after", "missing"))
		})
	}
}

// TestMovedIndexCollision: a key whose 64-bit hash other records have too costs a
// read of each of them, never a wrong answer — whether it comes first or last among
// them, and when they fill blocks of the index and cross from one block to the next —
// and a key's hash the first of a block costs one read of the index.
func TestMovedIndexCollision(t *testing.T) {
	in := syntheticSessionLabels(4*blockRefs, 5)
	mem, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := mem.Len()
	if n < 3*blockRefs {
		t.Fatalf("%d labels, want 3 blocks", n)
	}
	keyAt := make([]string, n)
	mem.EachKey(func(i int, k string) { keyAt[i] = k })
	for _, tt := range []struct {
		name          string
		target        int // the record whose key is looked up
		first, length int // the records that take its hash, it among them
		cont          bool
	}{
		{"two keys, the key first", 0, 0, 2, false},
		{"two keys, the key last", 1, 0, 2, false},
		{"a block and a half, the key last", blockRefs + blockRefs/2 - 1, 0, blockRefs + blockRefs/2, true},
		{"a block and a half, the key first", 40, 40, blockRefs + blockRefs/2, true},
		{"every key, the key in the middle", n / 2, 0, n, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{Source: bytes.NewReader(in)})
			if err != nil {
				t.Fatal(err)
			}
			key := keyAt[tt.target]
			for i := tt.first; i < tt.first+tt.length; i++ {
				src.src.refs[i].hash = keyHash(key)
			}
			src.src.sorted = nil
			src.seal()
			m := &memScratch{}
			if err := src.MoveIndex(m.open); err != nil {
				t.Fatal(err)
			}
			if got := len(src.src.disk.cont) > 0; got != tt.cont {
				t.Errorf("blocks continuing a hash: %v, want %v", src.src.disk.cont, tt.cont)
			}
			want, _ := mem.Get(key)
			if r, i, ok := src.Lookup(key); !ok || i != tt.target || !reflect.DeepEqual(r, want) {
				t.Errorf("Lookup(%s) = %+v, %d, %v; want %+v, %d", key, r, i, ok, want, tt.target)
			}
			for i, k := range keyAt { // the keys whose hashes are theirs
				if i >= tt.first && i < tt.first+tt.length {
					continue
				}
				if r, j, ok := src.Lookup(k); !ok || j != i || r.Key != k {
					t.Fatalf("Lookup(%s) = %+v, %d, %v", k, r, j, ok)
				}
			}
			if _, ok := src.Get("missing"); ok {
				t.Error("Get(missing) found a label")
			}
			if err := src.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
	src, m := moved(t, in, LabelOptions{})
	d := src.src.disk
	for b := range d.fence {
		found := ""
		for _, k := range keyAt {
			if keyHash(k) == d.fence[b] {
				found = k
			}
		}
		m.reads = 0
		if _, ok := src.Get(found); !ok || m.reads != 1 {
			t.Errorf("Get(%s), the first of block %d: %v, %d reads of the index", found, b, ok, m.reads)
		}
	}
}

// TestMovedIndexFails: a scratch file that cannot be opened or written fails
// MoveIndex and leaves the index in memory; one that fails to read, or is cut short,
// after the move, makes Get, Index and EachKey find nothing and Err say why — never a
// missing label without an error. A label file that changes after the move fails as
// it does before.
func TestMovedIndexFails(t *testing.T) {
	in := syntheticSessionLabels(1000, 4)
	mem, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keys := mem.Keys()
	read := func() *Labels {
		ls, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{Source: bytes.NewReader(in)})
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	for _, tt := range []struct {
		name string
		open func() (IndexScratch, error)
	}{
		{"cannot open", func() (IndexScratch, error) { return nil, errors.New("no room for a scratch file") }},
		{"cannot write", (&memScratch{writeLimit: 3 * blockSize}).open},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ls := read()
			if err := ls.MoveIndex(tt.open); err == nil {
				t.Fatal("MoveIndex: no error")
			}
			if ls.src.disk != nil {
				t.Fatal("the index was moved")
			}
			checkAgainstReference(t, ls, referenceOf(t, mem), keys)
		})
	}
	for _, tt := range []struct {
		name   string
		change func(m *memScratch)
		want   string
	}{
		{"a read error", func(m *memScratch) { m.readErr = errors.New("scratch on fire") }, "scratch on fire"},
		{"cut short", func(m *memScratch) { m.b = m.b[:len(m.b)/2] }, "unexpected EOF"},
		{"emptied", func(m *memScratch) { m.b = nil }, "unexpected EOF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			get := func(ls *Labels) int {
				found := 0
				for _, k := range keys {
					if _, ok := ls.Get(k); ok {
						found++
					}
				}
				return found
			}
			ls, m := moved(t, in, LabelOptions{})
			tt.change(m)
			if found := get(ls); found == len(keys) {
				t.Errorf("every label found after the scratch file %s", tt.name)
			}
			err := ls.Err()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "scratch file") {
				t.Errorf("Err %v, want %q", err, tt.want)
			}
			ls, m = moved(t, in, LabelOptions{})
			tt.change(m)
			if err := ls.EachKey(func(int, string) {}); err == nil || ls.Err() == nil {
				t.Errorf("EachKey: %v, Err %v", err, ls.Err())
			}
		})
	}
	t.Run("the label file changed", func(t *testing.T) {
		s := &changingSource{b: bytes.Clone(in)}
		ls, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{Source: s, Name: "labels.csv"})
		if err != nil {
			t.Fatal(err)
		}
		if err := ls.MoveIndex((&memScratch{}).open); err != nil {
			t.Fatal(err)
		}
		s.b = s.b[:len(s.b)/2]
		missing := 0
		for _, k := range keys {
			if _, ok := ls.Get(k); !ok {
				missing++
			}
		}
		if missing == 0 || !errors.Is(ls.Err(), ErrLabelsChanged) {
			t.Errorf("%d labels missing, Err %v", missing, ls.Err())
		}
	})
}

// TestMovedIndexMerge: labels merged into labels whose index was moved, and labels
// whose index was moved merged into others, hold what the merge in memory holds.
func TestMovedIndexMerge(t *testing.T) {
	a, b := syntheticSessionLabels(700, 1), syntheticSessionLabels(400, 6)
	read := func(in []byte, src bool) *Labels {
		opts := LabelOptions{}
		if src {
			opts.Source = bytes.NewReader(in)
		}
		ls, _, err := ReadLabelsWith(bytes.NewReader(in), opts)
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	want := read(a, false)
	wantBoth, err := want.Merge(read(b, false))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ moveA, moveB bool }{{true, false}, {false, true}, {true, true}} {
		t.Run(fmt.Sprintf("%+v", tt), func(t *testing.T) {
			la, lb := read(a, true), read(b, true)
			if tt.moveA {
				la.MoveIndex((&memScratch{}).open)
			}
			if tt.moveB {
				lb.MoveIndex((&memScratch{}).open)
			}
			both, err := la.Merge(lb)
			if err != nil || !reflect.DeepEqual(both, wantBoth) {
				t.Fatalf("Merge: %v; both %d, want %d", err, len(both), len(wantBoth))
			}
			checkAgainstReference(t, la, referenceOf(t, want), append(want.Keys(), "missing"))
		})
	}
}

// TestMovedIndexConcurrent: Index and Lookup of labels whose index was moved
// into a file, from several goroutines at once (run under the race detector), find
// every label.
func TestMovedIndexConcurrent(t *testing.T) {
	in := syntheticSessionLabels(2000, 7)
	ls, _, err := ReadLabelsWith(bytes.NewReader(in), LabelOptions{Source: writeTemp(t, in)})
	if err != nil {
		t.Fatal(err)
	}
	scratch, err := os.Create(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer scratch.Close()
	if err := ls.MoveIndex(func() (IndexScratch, error) { return scratch, nil }); err != nil {
		t.Fatal(err)
	}
	keys := ls.Keys()
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(keys); i += 4 {
				r, j, ok := ls.Lookup(keys[i])
				if k, kok := ls.Index(keys[i]); !ok || !kok || r.Key != keys[i] || j != k {
					errs <- fmt.Sprintf("Lookup(%s) = %v, %d, %v; Index %d", keys[i], r.Key, j, ok, k)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if err := ls.Err(); err != nil {
		t.Fatal(err)
	}
}
