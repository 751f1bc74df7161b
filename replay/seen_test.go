package replay

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/replay/input"
)

// seenStores are the ways a firstReads keeps its pages the tests try: in memory, in a
// scratch file from the first page, and moving there after a few pages.
func seenStores(t testing.TB) []struct {
	name string
	new  func(name func(int32) string) *firstReads
} {
	aside := func(memPages int) func(name func(int32) string) *firstReads {
		return func(name func(int32) string) *firstReads {
			f := newFirstReads(name, tempScratch(t, os.O_RDWR), 0)
			f.memPages = memPages
			return f
		}
	}
	return []struct {
		name string
		new  func(name func(int32) string) *firstReads
	}{
		{"memory", func(name func(int32) string) *firstReads { return newFirstReads(name, nil, 0) }},
		{"aside", aside(0)},
		{"aside after 3 pages", aside(3)},
	}
}

func TestFirstReads(t *testing.T) {
	files := []string{"a/one.jsonl", "b/two.jsonl", "c/three.jsonl"}
	type add struct {
		key   string
		file  int32
		first string // "" when it is no duplicate
	}
	long := string(make([]byte, 1<<20))
	var many, manyAgain []add // enough keys to split pages many times
	for i := range 20 * pageSlots {
		many = append(many, add{fmt.Sprintf("q-%d", i), int32(i % 3), ""})
		manyAgain = append(manyAgain, add{fmt.Sprintf("q-%d", i), int32((i + 1) % 3), files[i%3]})
	}
	for _, tt := range []struct {
		name string
		adds []add
	}{
		{"distinct keys", []add{{"q-1", 0, ""}, {"q-2", 0, ""}, {"q-3", 1, ""}}},
		{"a key read again names the file that had it first",
			[]add{{"q-1", 0, ""}, {"q-2", 1, ""}, {"q-1", 2, "a/one.jsonl"}, {"q-2", 2, "b/two.jsonl"}, {"q-1", 1, "a/one.jsonl"}}},
		{"a duplicate within one file", []add{{"s", 1, ""}, {"s", 1, "b/two.jsonl"}}},
		{"keys differing in one byte, case or trailing space are distinct",
			[]add{{"q-1", 0, ""}, {"q-2", 1, ""}, {"Q-1", 1, ""}, {"q-1 ", 1, ""}, {"q-1\x00", 2, ""}}},
		{"empty, Unicode and huge keys", []add{{"", 0, ""}, {"séance-é", 1, ""}, {long, 2, ""},
			{"séance-é", 2, "b/two.jsonl"}, {"", 2, "a/one.jsonl"}, {long, 0, "c/three.jsonl"}, {long + "x", 0, ""}}},
		{"many keys, then all of them again", append(many, manyAgain...)},
		{"many keys, each read again at once", func() []add {
			var adds []add
			for i := range many {
				adds = append(adds, many[i], manyAgain[i])
			}
			return adds
		}()},
	} {
		for _, store := range seenStores(t) {
			t.Run(tt.name+"/"+store.name, func(t *testing.T) {
				seen := store.new(func(i int32) string { return files[i] })
				for i, a := range tt.adds {
					first, dup := seen.add(a.key, a.file)
					if dup != (a.first != "") || first != a.first {
						t.Fatalf("add %d (%.10q from %s) = %q, %v; want %q", i, a.key, files[a.file], first, dup, a.first)
					}
				}
				if err := seen.failed(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestFirstReadsSharedBits: hashes that share their low bits, which address them,
// split pages on bit after bit and are kept apart; hashes that differ only in the bits
// that do not address them are kept apart too; more hashes sharing all the addressing
// bits than a page holds are a failure, never a wrong answer.
func TestFirstReadsSharedBits(t *testing.T) {
	mk := func(addr uint32, rest uint64) tag {
		var t tag
		binary.LittleEndian.PutUint32(t[:4], addr)
		binary.LittleEndian.PutUint64(t[4:], rest)
		return t
	}
	for _, tt := range []struct {
		name  string
		tags  func(i int) tag
		n     int
		depth uint // at least this global depth after the adds
		fails bool
	}{
		{"sharing the low 8 bits", func(i int) tag { return mk(uint32(i)<<8|0xab, uint64(i)) }, 4 * pageSlots, 10, false},
		{"sharing the low 12 bits, and the rest", func(i int) tag { return mk(uint32(i)<<12|0xabc, 42) }, 16 * pageSlots, 16, false},
		{"sharing the addressing bits, a page of them", func(i int) tag { return mk(7, uint64(i)) }, pageSlots, 0, false},
		{"differing only in the last byte", func(i int) tag { return mk(uint32(i%4), uint64(i/4)<<56) }, 4 * pageSlots, 2, false},
		{"half sharing the low 12 bits, half not", func(i int) tag {
			if i%2 == 0 {
				return mk(uint32(i)<<12|0xabc, 0)
			}
			return mk(uint32(i)*0x9e3779b9, 1)
		}, 32 * pageSlots, 16, false},
		{"more sharing the addressing bits than a page holds", func(i int) tag { return mk(7, uint64(i)) }, pageSlots + 1, 0, true},
	} {
		for _, store := range seenStores(t) {
			t.Run(tt.name+"/"+store.name, func(t *testing.T) {
				seen := store.new(nil)
				for i := range tt.n {
					if first, dup := seen.addTag(tt.tags(i), int32(i)); dup {
						t.Fatalf("tag %d taken for the one first read from %d", i, first)
					}
				}
				if err := seen.failed(); (err != nil) != tt.fails {
					t.Fatalf("failed() = %v", err)
				}
				if tt.fails {
					if _, dup := seen.addTag(tt.tags(0), 0); dup {
						t.Error("a duplicate found after a failure")
					}
					return
				}
				if seen.depth < tt.depth {
					t.Errorf("global depth %d, want ≥ %d", seen.depth, tt.depth)
				}
				checkPages(t, seen)
				for i := range tt.n {
					if first, dup := seen.addTag(tt.tags(i), -1); !dup || first != int32(i) {
						t.Fatalf("tag %d read again: %d, %v", i, first, dup)
					}
				}
			})
		}
	}
}

// checkPages checks what extendible hashing keeps true: each page's hashes share their
// low (page) depth bits, those of every directory entry pointing at it, and a page of
// depth d is pointed at by 2^(depth-d) entries; the pages hold the keys added.
func checkPages(t *testing.T, f *firstReads) {
	t.Helper()
	if len(f.dir) != 1<<f.depth {
		t.Fatalf("%d directory entries at depth %d", len(f.dir), f.depth)
	}
	pointers := make([]int, len(f.pages))
	keys := 0
	for i, p := range f.dir {
		pointers[p]++
		d := uint(f.pages[p].depth)
		if d > f.depth {
			t.Fatalf("page %d split on %d bits, the directory indexed by %d", p, d, f.depth)
		}
		slots := f.read(p, int(f.pages[p].used))
		for s := 0; s < len(slots); s += slotSize {
			if a := binary.LittleEndian.Uint32(slots[s:]); a&(1<<d-1) != uint32(i)&(1<<d-1) {
				t.Fatalf("directory entry %b points at page %d (depth %d) holding a hash addressed %b", i, p, d, a)
			}
		}
	}
	for p, pg := range f.pages {
		if pointers[p] != 1<<(f.depth-uint(pg.depth)) {
			t.Fatalf("page %d of depth %d pointed at by %d entries at depth %d", p, pg.depth, pointers[p], f.depth)
		}
		keys += int(pg.used)
	}
	if keys != f.keys || f.failed() != nil {
		t.Fatalf("%d keys in the pages, %d added; %v", keys, f.keys, f.failed())
	}
}

// TestFirstReadsFailing: a scratch file that cannot be created, written or read back
// fails the set at once, with the file named, and no key is taken for a duplicate
// after it.
func TestFirstReadsFailing(t *testing.T) {
	closed := func(t *testing.T) func(string) (*os.File, error) {
		return func(name string) (*os.File, error) {
			f, err := tempScratch(t, os.O_RDWR)(name)
			f.Close()
			return f, err
		}
	}
	for _, tt := range []struct {
		name    string
		scratch func(t *testing.T) func(string) (*os.File, error)
		want    string
	}{
		{"cannot be created", func(*testing.T) func(string) (*os.File, error) {
			return func(string) (*os.File, error) { return nil, os.ErrPermission }
		}, "keeping the run and session keys aside: permission denied"},
		{"cannot be written", func(t *testing.T) func(string) (*os.File, error) { return tempScratch(t, os.O_RDONLY) },
			"keeping the run and session keys aside in "},
		{"cannot be read back", func(t *testing.T) func(string) (*os.File, error) { return tempScratch(t, os.O_WRONLY) },
			"reading back the run and session keys from "},
		{"closed", closed, "keeping the run and session keys aside in "},
	} {
		for _, memPages := range []int{0, 2} {
			t.Run(fmt.Sprint(tt.name, "/after ", memPages, " pages"), func(t *testing.T) {
				seen := newFirstReads(func(i int32) string { return fmt.Sprint("file-", i) }, tt.scratch(t), 0)
				seen.memPages = memPages
				var err error
				i := 0
				for ; i < 10*pageSlots && err == nil; i++ {
					if first, dup := seen.add(fmt.Sprint("k", i), int32(i)); dup {
						t.Fatalf("key %d taken for the one read from %s", i, first)
					}
					err = seen.failed()
				}
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("failed() = %v, want %q", err, tt.want)
				}
				if memPages > 0 && i <= memPages*pageSlots/2 {
					t.Errorf("failed at key %d, while the pages were in memory", i)
				}
				for j := range i {
					if first, dup := seen.add(fmt.Sprint("k", j), 0); dup {
						t.Fatalf("after the failure key %d taken for the one read from %s", j, first)
					}
				}
			})
		}
	}
}

// TestFirstReadsLikeAMap: on many random keys, some read many times, the set gives the
// answers a map from every key to its first file gives.
func TestFirstReadsLikeAMap(t *testing.T) {
	n := 300_000
	if testing.Short() {
		n = 60_000
	}
	for _, store := range seenStores(t) {
		t.Run(store.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			want := map[string]int32{}
			seen := store.new(func(i int32) string { return fmt.Sprint(i) })
			for i := range n {
				key := fmt.Sprintf("k%x", rng.Uint64N(uint64(n))) // some 37% read again
				file := int32(rng.IntN(1 << 20))
				first, dup := seen.add(key, file)
				w, wdup := want[key]
				if !wdup {
					want[key] = file
				}
				if dup != wdup || (dup && first != fmt.Sprint(w)) {
					t.Fatalf("add %d (%s from %d) = %q, %v; a map has %d, %v", i, key, file, first, dup, w, wdup)
				}
			}
			if err := seen.failed(); err != nil {
				t.Fatal(err)
			}
			checkPages(t, seen)
			if store.name != "memory" && seen.mem != nil {
				t.Error("the pages were not moved aside")
			}
		})
	}
}

// TestReplayKeysAside: a replay of more runs than the duplicate-key set holds in
// memory keeps it in a scratch file, finds the duplicate and delivers what a replay
// holding it delivers; one whose keys cannot be read back fails with that.
func TestReplayKeysAside(t *testing.T) {
	plan := make([]synth.Scenario, 1500) // some 8 pages of keys: moved aside past 2 (Options.keyPages)
	for i := range plan {
		plan[i] = synth.Converge1 // one cycle: the cheapest run to replay
	}
	runs := synth.Generate(synth.Config{Plan: plan, Seed: 3})
	fsys := fstest.MapFS{}
	for name, data := range synth.Files(runs) {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	fsys["zz-again.jsonl"] = fsys[runs[7].File]
	replayed := func(scratch func(string) (*os.File, error)) (string, error) {
		h := sha256.New()
		var problems []string
		sum, err := Replay(context.Background(), fsys, Options{Workers: 2, Struggle: struggle.DefaultStruggleConfig(), Scratch: scratch, keyPages: 2},
			Sinks{Runs: func(r *RunResult) error { fmt.Fprintln(h, r.Run.File, r.Run.Key, r.Struggle.Triggered); return nil },
				Problems: func(p input.Problem) error { problems = append(problems, p.String()); return nil }})
		if err != nil {
			return "", err
		}
		return fmt.Sprintln(hex.EncodeToString(h.Sum(nil)), sum.Fingerprint, sum.Runs, problems), nil
	}
	var created []string
	aside := tempScratch(t, os.O_RDWR)
	got, err := replayed(func(name string) (*os.File, error) { created = append(created, name); return aside(name) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(created, "seen") {
		t.Errorf("scratch files %v: the keys were not kept aside", created)
	}
	dup := fmt.Sprintf(" 1500 [zz-again.jsonl:1: duplicate_run: run %s was already read from %s; this one is skipped]\n", runs[7].Key, runs[7].File)
	if !strings.HasSuffix(got, dup) {
		t.Errorf("keys aside: %s, want the duplicate%s", got, dup)
	}
	if held, err := replayed(nil); err != nil || got != held {
		t.Errorf("keys aside: %v\n%s\nheld:\n%s", err, got, held)
	}
	names, unreadable := tempScratch(t, os.O_RDWR), tempScratch(t, os.O_WRONLY)
	_, err = replayed(func(name string) (*os.File, error) {
		if name == "seen" {
			return unreadable(name)
		}
		return names(name)
	})
	if err == nil || !strings.Contains(err.Error(), "reading back the run and session keys") {
		t.Errorf("keys that cannot be read back: %v", err)
	}
}

// BenchmarkFirstReads: the cost of an add and the memory a key holds, kept in memory,
// kept aside in a scratch file, and in a map from the key's hash (the set as it was).
func BenchmarkFirstReads(b *testing.B) {
	type set interface {
		add(key string, file int32) (string, bool)
	}
	for _, n := range []int{10_000, 1_000_000} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("synth-%07d@e1", i)
		}
		for _, store := range []struct {
			name string
			new  func() set
		}{
			{"map", func() set { return mapFirstReads{} }},
			{"memory", func() set { return newFirstReads(nil, nil, 0) }},
			{"aside", func() set { return newFirstReads(nil, tempScratch(b, os.O_RDWR), 0) }},
		} {
			b.Run(fmt.Sprintf("%s/keys=%d", store.name, n), func(b *testing.B) {
				var live float64
				for range b.N {
					b.StopTimer()
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					b.StartTimer()
					s := store.new()
					for i, k := range keys {
						s.add(k, int32(i))
					}
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&after)
					live = float64(after.HeapAlloc) - float64(before.HeapAlloc)
					if f, ok := s.(*firstReads); ok && f.failed() != nil {
						b.Fatal(f.failed())
					}
					runtime.KeepAlive(s)
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/add")
				b.ReportMetric(live/float64(n), "B/key")
			})
		}
	}
}

// mapFirstReads is the set as it was kept before pages: a map from the first half of
// a key's SHA-256 to its first file.
type mapFirstReads map[[16]byte]int32

func (m mapFirstReads) add(key string, file int32) (string, bool) {
	sum := sha256.Sum256([]byte(key))
	h := [16]byte(sum[:16])
	if _, ok := m[h]; ok {
		return "", true
	}
	m[h] = file
	return "", false
}
