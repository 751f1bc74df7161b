package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loopwatch/loopwatch/replay/input"
)

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// tempScratch returns a Scratch that creates files in a test folder, opened with flag.
func tempScratch(t testing.TB, flag int) func(string) (*os.File, error) {
	dir := t.TempDir()
	return func(name string) (*os.File, error) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|flag, 0o600)
		if err == nil {
			t.Cleanup(func() { f.Close() })
		}
		return f, err
	}
}

// newTable returns a finished table of these files.
func newTable(t *testing.T, paths []string, files []sniffedFile, scratch func(string) (*os.File, error)) *fileTable {
	t.Helper()
	tab, err := newFileTable(scratch)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		var sn sniffedFile
		if files != nil {
			sn = files[i]
		}
		tab.add(p, sn)
	}
	if err := tab.finish(); err != nil {
		t.Fatal(err)
	}
	return tab
}

// sniffedOf returns a sniffedFile for each path, with every field set in turn.
func sniffedOf(paths []string) []sniffedFile {
	out := make([]sniffedFile, len(paths))
	for i := range out {
		sn := sniffedFile{kib: uint32(i * 977)}
		if i%(len(formats)+1) > 0 {
			sn.format = &formats[i%(len(formats)+1)-1]
		}
		sn.ignored, sn.labels, sn.subagent, sn.attached = i%2 == 0, i%3 == 0, i%5 == 0, i%7 == 0
		sn.keyed, sn.keyOwned, sn.owned = i%11 == 0, i%13 == 0, i%17 == 0
		sn.whole, sn.foreign = i%23 == 0, i%29 == 0
		if sn.whole {
			sn.sum = [wholeSum]byte{byte(i), byte(i >> 8), 0xfe, 15: 0xef}
		}
		if i%19 == 0 {
			sn.rare = &sniffedRare{problem: &input.Problem{File: paths[i], Detail: "rare"}}
		}
		out[i] = sn
	}
	return out
}

// TestFileTableFormats: a record's first byte names every format in its low bits,
// beside its flags.
func TestFileTableFormats(t *testing.T) {
	if len(formats)+1 > formatBits || formatBits&(flagWhole|flagForeign) != 0 {
		t.Fatalf("%d formats do not fit in a record's format bits %#x beside its flags %#x", len(formats), formatBits, flagWhole|flagForeign)
	}
}

// TestFileTable: what a table is given comes back whole, in memory or aside, read in
// order, backwards or by path.
func TestFileTable(t *testing.T) {
	many := make([]string, 5000)
	for i := range many {
		many[i] = fmt.Sprintf("sessions/p%d/%08x-6f1c-4d5e-9a2b-%012x.jsonl", i/1000, i*7919, i)
	}
	slices.Sort(many)
	for _, tt := range []struct {
		name  string
		paths []string
	}{
		{"none", nil},
		{"at the root", []string{"a.jsonl", "b.jsonl"}},
		{"folders, nested, revisited", []string{"a/b/x.jsonl", "a/x.jsonl", "a/y.jsonl", "a/z.jsonl", "c/x.jsonl", "top.csv"}},
		{"Unicode, spaces, dots", []string{".beads/issues.jsonl", "a/.hidden", "a/b/c/d/e/f", "séance/é t.jsonl", "日本/語.jsonl"}},
		{"a name ending in a slash, empty names", []string{"", "/", "a/", "a/b"}},
		{"long", []string{strings.Repeat("d/", 500) + strings.Repeat("x", 100000), "y"}},
		{"many", many},
	} {
		for _, aside := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/aside=%v", tt.name, aside), func(t *testing.T) {
				var scratch func(string) (*os.File, error)
				if aside {
					scratch = tempScratch(t, os.O_RDWR)
				}
				want := sniffedOf(tt.paths)
				tab := newTable(t, tt.paths, want, scratch)
				if tab.len() != len(tt.paths) {
					t.Fatalf("%d files, want %d", tab.len(), len(tt.paths))
				}
				backward := seq(len(tt.paths))
				slices.Reverse(backward)
				jumps := seq(len(tt.paths))
				for i := range jumps {
					jumps[i] = (i * 7919) % len(jumps)
				}
				for _, i := range slices.Concat(seq(len(tt.paths)), backward, jumps) {
					name, sn := tab.at(i)
					if name != tt.paths[i] || sn != want[i] || tab.name(i) != name || tab.file(i) != sn {
						t.Fatalf("at(%d) = %.60q %+v, want %.60q %+v", i, name, sn, tt.paths[i], want[i])
					}
				}
				for i, p := range tt.paths {
					if sn, ok := tab.find(p); !ok || sn != want[i] {
						t.Errorf("find(%.60q) = %+v %v, want %+v", p, sn, ok, want[i])
					}
					if _, ok := tab.find(p + "\x00"); ok {
						t.Errorf("found %.60q", p+"\x00")
					}
				}
				if err := tab.failed(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestFileNamesAside: a table kept in scratch files is read back a part at a time, so
// that files asked for nearly in order cost few reads; a path or record that cannot be
// read back is a failure kept for the replay, never a wrong answer; a scratch that
// cannot be created or written fails at once.
func TestFileNamesAside(t *testing.T) {
	var paths []string
	for i := range 20000 {
		paths = append(paths, fmt.Sprintf("sessions/p%d/%08x-6f1c-4d5e-9a2b-%012x.jsonl", i/5000, i*7919, i))
	}
	files := sniffedOf(paths)
	tab := newTable(t, paths, files, tempScratch(t, os.O_RDWR))
	for i := range paths {
		if name, sn := tab.at(i); name != paths[i] || sn != files[i] {
			t.Fatalf("at(%d) = %q %+v, want %q %+v", i, name, sn, paths[i], files[i])
		}
	}
	parts := func(n int64) int { return int((n + asidePart - 1) / asidePart) }
	if tab.names.reads != parts(tab.names.size) || tab.records.reads != parts(tab.records.size) {
		t.Errorf("%d and %d parts read for %d bytes of names and %d of records read in order",
			tab.names.reads, tab.records.reads, tab.names.size, tab.records.size)
	}
	if tab.records.size != int64(len(paths))*recordSize {
		t.Errorf("%d bytes of records for %d files", tab.records.size, len(paths))
	}

	for _, tt := range []struct {
		name    string
		spoil   func(tab *fileTable) error
		failure string
	}{
		{"write only", nil, "reading back the file records"},
		{"names cut short", func(tab *fileTable) error { return tab.names.file.Truncate(tab.names.size / 2) }, "reading back the file names"},
		{"records cut short", func(tab *fileTable) error { return tab.records.file.Truncate(tab.records.size - 1) }, "reading back the file records"},
		{"closed", func(tab *fileTable) error { return tab.records.file.Close() }, "reading back the file records"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flag := os.O_RDWR
			if tt.spoil == nil {
				flag = os.O_WRONLY
			}
			tab := newTable(t, paths, files, tempScratch(t, flag))
			if tt.spoil != nil {
				if err := tt.spoil(tab); err != nil {
					t.Fatal(err)
				}
			}
			var bad int
			for i := range paths {
				name, sn := tab.at(i)
				if name == "" {
					bad++
					if sn != (sniffedFile{}) {
						t.Fatalf("file %d: no name but %+v", i, sn)
					}
					continue
				}
				if name != paths[i] || sn != files[i] {
					t.Fatalf("at(%d) = %q %+v, want %q %+v", i, name, sn, paths[i], files[i])
				}
			}
			if bad == 0 {
				t.Fatal("every file read back")
			}
			if err := tab.failed(); err == nil || !strings.Contains(err.Error(), tt.failure) {
				t.Errorf("failed() = %v, want %q", err, tt.failure)
			}
		})
	}

	if _, err := newFileTable(func(string) (*os.File, error) { return nil, os.ErrPermission }); err == nil {
		t.Error("a scratch that cannot be created was taken")
	}
	closed := func(name string) (*os.File, error) {
		f, err := tempScratch(t, os.O_RDWR)(name)
		f.Close()
		return f, err
	}
	tab, err := newFileTable(closed)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		tab.add(p, sniffedFile{})
	}
	if err := tab.finish(); err == nil || !strings.Contains(err.Error(), "aside") {
		t.Errorf("a scratch that cannot be written: %v", err)
	}
}

// TestSniffAllAcrossChunks: a subagent transcript recognised in a later chunk than its
// parent's is attached to it and goes by its session's key, in every shard, whether
// the table is kept aside or not.
func TestSniffAllAcrossChunks(t *testing.T) {
	line := func(id, uuid string, side bool) string {
		return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":%q,"isSidechain":%v,"timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"hi"}}`+"\n", uuid, id, side)
	}
	fsys := fstest.MapFS{
		"p/s-key.jsonl":                     {Data: []byte(line("s-key", "u1", false))},
		"p/s-key/subagents/agent-a.jsonl":   {Data: []byte(line("s-key", "u2", true))},
		"p/renamed.jsonl":                   {Data: []byte(line("other", "u3", false))},
		"p/renamed/subagents/agent-b.jsonl": {Data: []byte(line("other", "u4", true))},
		"q/x/subagents/agent-c.jsonl":       {Data: []byte(line("orphan", "u5", true))},
	}
	for i := range sniffChunk + 10 { // between the keyed parent and its subagent
		fsys[fmt.Sprintf("p/s-key.notes%04d.md", i)] = &fstest.MapFile{Data: []byte("notes")}
	}
	var paths []string
	for p := range fsys {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, tt := range []struct {
		shard Shard
		aside bool
	}{{Shard{}, false}, {Shard{}, true}, {Shard{0, 3}, true}, {Shard{1, 3}, false}, {Shard{2, 3}, true}} {
		t.Run(fmt.Sprintf("%v/aside=%v", tt.shard, tt.aside), func(t *testing.T) {
			var scratch func(string) (*os.File, error)
			if tt.aside {
				scratch = tempScratch(t, os.O_RDWR)
			}
			tab, _, err := sniffAll(context.Background(), fsys, paths, nil, 2, tt.shard, scratch)
			if err != nil {
				t.Fatal(err)
			}
			split, keyOwned := tt.shard.Split(), tt.shard.Owns("s-key")
			for _, want := range []struct {
				path                                   string
				subagent, attached, keyed, owned, rare bool
			}{
				{"p/s-key.jsonl", false, false, split, keyOwned, false},
				{"p/s-key/subagents/agent-a.jsonl", true, true, split, keyOwned, false},
				{"p/renamed.jsonl", false, false, false, tt.shard.Owns("p/renamed.jsonl"), false},
				{"p/renamed/subagents/agent-b.jsonl", true, true, false, tt.shard.Owns("p/renamed/subagents/agent-b.jsonl"), false},
				{"q/x/subagents/agent-c.jsonl", true, false, false, tt.shard.Owns("q/x/subagents/agent-c.jsonl"), false},
			} {
				i, _ := slices.BinarySearch(paths, want.path)
				name, sn := tab.at(i)
				if name != want.path || sn.format == nil || sn.subagent != want.subagent || sn.attached != want.attached ||
					sn.keyed != want.keyed || sn.keyed && sn.keyOwned != keyOwned || sn.owned != want.owned || (sn.rare != nil) != want.rare {
					t.Errorf("%s: %q %+v, want %+v", want.path, name, sn, want)
				}
			}
			if len(tab.rare) != 0 || tab.len() != len(paths) || tab.failed() != nil {
				t.Errorf("%d rare of %d files, failed %v", len(tab.rare), tab.len(), tab.failed())
			}
		})
	}
}
