package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/replay/claudecode"
)

// formatHeads returns the opening sniffSize bytes of files of every kind: the
// built-in sample's inputs, lines of each format made here (with garbage, a byte
// order mark, a line that is not a record, a long first line, a record cut off), and
// the shared corpora's files where they are present.
func formatHeads(t testing.TB) map[string][]byte {
	t.Helper()
	heads := map[string][]byte{}
	add := func(name string, b []byte) { heads[name] = b[:min(len(b), sniffSize)] }
	walk := func(root string) {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil {
				add(p, b)
			}
			return nil
		})
	}
	root, err := corpus.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	walk(filepath.Join(root, "datasets", "sample", "inputs"))
	for _, name := range []string{"quasar", "claude-code"} {
		if dir, err := corpus.Dir(name); err == nil {
			walk(dir)
		}
	}
	trace := `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"q","data":{"cycle":1}}`
	claude := `{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"hi"}}`
	long := `{"type":"summary","summary":"` + strings.Repeat("x", 3*quickSniff) + `"}`
	for name, text := range map[string]string{
		"trace":             trace + "\n" + trace + "\n",
		"claude":            claude + "\n",
		"garbage first":     "not json\n" + claude + "\n",
		"bom":               "\xef\xbb\xbf" + trace + "\n",
		"long first line":   long + "\n" + claude + "\n",
		"cut record":        claude[:40] + "\n" + trace + "\n",
		"trailing garbage":  claude + " trailing\n" + trace + "\n",
		"other object":      `{"a":1}` + "\n" + `{"b":2}` + "\n" + trace + "\n",
		"toml":              "[nebula]\nname = 'n'\n",
		"blank lines":       "\n\n\n" + trace + "\n",
		"no newline at end": trace,
		"many objects":      strings.Repeat(`{"x":1}`+"\n", 12) + trace + "\n",
		// A transcript's keys first, a trace's after: cut after the first, the line
		// reads as a transcript; whole, as a trace (tried first).
		"two formats": `{"type":"user","sessionId":"s1","uuid":"u1","ts":"2026-03-01T10:00:00Z","task":"q","kind":"cycle_done"}` + "\n",
	} {
		add("made: "+name, []byte(text))
		add("made, padded: "+name, append([]byte(text), bytes.Repeat([]byte("\n"), quickSniff)...))
	}
	return heads
}

// TestDetectRecordFromWholeLines: the format detectRecord finds in the whole lines of
// any start of a file is the one detectFormat finds in its opening sniffSize bytes —
// what lets sniffFile decide from the first quickSniff bytes.
func TestDetectRecordFromWholeLines(t *testing.T) {
	for name, head := range formatHeads(t) {
		checkWholeLines(t, name, head)
	}
}

func checkWholeLines(t *testing.T, name string, head []byte) {
	t.Helper()
	want := detectFormat(name, head)
	for cut := 0; cut <= len(head); cut++ {
		if wholeLines := cut == 0 || cut == len(head) || head[cut-1] == '\n'; !wholeLines {
			continue // only starts that end where a line does
		}
		if got := detectRecord(head[:cut]); got != nil && got != want {
			t.Errorf("%s: the whole lines of its first %d bytes are %s, its first %d bytes %v", name, cut, got.name, len(head), formatName(want))
			return
		}
	}
}

func formatName(f *format) string {
	if f == nil {
		return "no format"
	}
	return f.name
}

// FuzzDetectRecordFromWholeLines holds detectRecord over a file's first whole lines to
// detectFormat over its first sniffSize bytes.
func FuzzDetectRecordFromWholeLines(f *testing.F) {
	for _, head := range formatHeads(f) {
		f.Add(head[:min(len(head), 4096)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWholeLines(t, "fuzz", data[:min(len(data), sniffSize)])
	})
}

// recordingFile records the buffer its every Read is given.
type recordingFile struct {
	fs.File
	reads *[][]byte
}

func (f recordingFile) Read(p []byte) (int, error) {
	*f.reads = append(*f.reads, p)
	return f.File.Read(p)
}

// TestSniffReadsIntoScratch: a file's opening bytes are read into the worker's scratch
// room whenever they fit it — a small file too, not only one read in part — so that
// recognising a file allocates no buffer of its size; in a split replay too, which
// reads a small trace whole.
func TestSniffReadsIntoScratch(t *testing.T) {
	trace := `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"q","data":{"cycle":1}}` + "\n"
	tests := []struct {
		name string
		data string
	}{
		{"a file of one line", trace},
		{"a file smaller than quickSniff", strings.Repeat(trace, quickSniff/len(trace)/2)},
		{"a file larger than quickSniff", strings.Repeat(trace, 3*quickSniff/len(trace))},
		{"a file larger than sniffSize", strings.Repeat(trace, 2*sniffSize/len(trace))},
	}
	for _, tt := range tests {
		for _, shard := range []Shard{{}, {Index: 1, Count: 2}} {
			t.Run(fmt.Sprintf("%s/shard=%s", tt.name, shard), func(t *testing.T) {
				var reads [][]byte
				files := fstest.MapFS{"t/run.jsonl": {Data: []byte(tt.data)}}
				fsys := openFunc(func(name string) (fs.File, error) {
					f, err := files.Open(name)
					return recordingFile{f, &reads}, err
				})
				scratch := make([]byte, 0, sniffSize)
				sn, facts := sniffFile(context.Background(), fsys, "t/run.jsonl", false, shard, scratch)
				if want := detectFormat("t/run.jsonl", []byte(trace)); want == nil || sn.format != want {
					t.Fatalf("recognised as %s, want %s", formatName(sn.format), formatName(want))
				}
				if len(reads) == 0 {
					t.Fatal("the file was not read")
				}
				end := &scratch[:cap(scratch)][cap(scratch)-1]
				for i, p := range reads {
					if cap(p) == 0 || &p[:cap(p)][cap(p)-1] != end {
						t.Errorf("read %d of %d (%d bytes) is not into the scratch room", i+1, len(reads), len(p))
					}
				}
				if whole := shard.Split() && len(tt.data) < sniffSize; sn.whole != whole || facts.size != int64(len(tt.data)) ||
					whole && facts.digest != sha256.Sum256([]byte(tt.data)) {
					t.Errorf("whole %v, size %d, digest %x; want whole %v, size %d, the digest of the content", sn.whole, facts.size, facts.digest, whole, len(tt.data))
				}
			})
		}
	}
}

// openFunc is an fs.FS of one Open.
type openFunc func(string) (fs.File, error)

func (f openFunc) Open(name string) (fs.File, error) { return f(name) }

// checkSniffKey checks sniffFile in a split replay on the file name of fsys, whose
// content is data: the format and key of its opening bytes read whole (detectFormat
// and claudecode.KeyFromHead over sniffSize, or maxSniff when those name no format),
// and no more than maxRead bytes read (0: any). It returns the key and the bytes read.
func checkSniffKey(t *testing.T, fsys fs.FS, name string, data []byte, maxRead int) (string, int) {
	t.Helper()
	counted := &countingFS{FS: fsys}
	sn, _ := sniffFile(context.Background(), counted, name, false, Shard{Index: 0, Count: 2}, make([]byte, 0, sniffSize))
	n := counted.read[name]
	head := data[:min(len(data), sniffSize)]
	wantFmt := detectFormat(name, head)
	if wantFmt == nil && len(head) == sniffSize { // read on, up to maxSniff
		head = data[:min(len(data), maxSniff)]
		wantFmt = detectFormat(name, head)
	}
	var wantKey string
	if wantFmt != nil && wantFmt.name == claudecode.SourceName {
		wantKey, _ = claudecode.KeyFromHead(name, head)
	}
	if sn.format != wantFmt || sn.key() != wantKey {
		t.Errorf("%s: %s, key %q; want %s, key %q", name, formatName(sn.format), sn.key(), formatName(wantFmt), wantKey)
	}
	if maxRead > 0 && n > maxRead {
		t.Errorf("%s: read %d bytes, at most %d wanted", name, n, maxRead)
	}
	return sn.key(), n
}

// TestSniffKeyFromQuickHead: in a split replay a transcript's key comes from its first
// quickSniff bytes when they prove it, else from more of its opening bytes; either way
// the format and key are those of the opening bytes read whole (checkSniffKey). A
// trace smaller than sniffSize is read whole, a larger one no further than quickSniff.
func TestSniffKeyFromQuickHead(t *testing.T) {
	rec := func(id, text string) string {
		return `{"type":"user","sessionId":"` + id + `","uuid":"u1","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	pad := func(n int) string { return `{"type":"summary","summary":"` + strings.Repeat("x", n) + `"}` + "\n" }
	trace := `{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":"q","data":{"cycle":1}}` + "\n"
	tail := strings.Repeat(rec("s1", "more"), 3*quickSniff/len(rec("s1", "more")))
	files := map[string]struct {
		data    string
		maxRead int // bytes the sniff may read
	}{
		"proved at once/s1.jsonl":                   {rec("s1", "hi") + tail, quickSniff},
		"proved past quickSniff/s1.jsonl":           {pad(2*quickSniff) + rec("s1", "hi") + tail, sniffSize},
		"proved past sniffSize/s1.jsonl":            {pad(2*sniffSize) + rec("s1", "hi") + tail, maxSniff},
		"another session's name/s2.jsonl":           {rec("s1", "hi") + tail, sniffSize},
		"small, proved/s1.jsonl":                    {rec("s1", "hi"), quickSniff},
		"a trace/run.jsonl":                         {strings.Repeat(trace, 400), sniffSize},                     // read whole: a small run file
		"a large trace/run.jsonl":                   {strings.Repeat(trace, sniffSize/len(trace)+1), quickSniff}, // too large to be read whole
		"record cut at quickSniff/s1.jsonl":         {pad(quickSniff-200) + rec("s1", strings.Repeat("y", 400)) + tail, sniffSize},
		"recognised at once, proved later/s1.jsonl": {rec("s0", "other") + pad(quickSniff) + rec("s1", "hi") + tail, sniffSize},
		"a subagent/s1/subagents/agent-a.jsonl":     {rec("s1", "sub") + tail, quickSniff}, // proves no key: not read on
	}
	mem := fstest.MapFS{}
	for name, f := range files {
		mem[name] = &fstest.MapFile{Data: []byte(f.data)}
	}
	for name, f := range files {
		checkSniffKey(t, mem, name, []byte(f.data), f.maxRead)
	}
}

// TestSniffKeyCorpus holds a split replay's recognition of every transcript of the
// shared Claude Code corpus to its opening bytes read whole (checkSniffKey), and logs
// how many main transcripts prove their session within the first quickSniff bytes.
func TestSniffKeyCorpus(t *testing.T) {
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	n, mains, keyed, quick := 0, 0, 0, 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		key, read := checkSniffKey(t, os.DirFS(dir), filepath.ToSlash(rel), b, 0)
		n++
		if !claudecode.IsSubagentFile(filepath.ToSlash(rel)) {
			mains++
			if key != "" {
				keyed++
				if read <= quickSniff {
					quick++
				}
			}
		}
		return nil
	})
	if err != nil || n < 73 {
		t.Errorf("%d corpus transcripts checked: %v", n, err)
	}
	t.Logf("%d main transcripts: %d prove their session from their opening bytes, %d of them within the first %d bytes", mains, keyed, quick, quickSniff)
}
