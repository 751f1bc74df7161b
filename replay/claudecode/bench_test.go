package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// synthTranscript writes a realistic transcript of turns agent turns: a prompt, hook
// and Bash progress records, thinking, text, a tool call and its result (mostly a few
// KiB, every 25th 256 KiB, every 100th 4 MiB), the Bash toolUseResult beside it, and
// the Stop hook summary. It returns the transcript and the number of events it maps to.
func synthTranscript(turns int) ([]byte, int) {
	var b bytes.Buffer
	t := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	head := `"parentUuid":"p","isSidechain":false,"userType":"external","cwd":"/home/dev/project","sessionId":"bench","version":"2.1.40","gitBranch":"main"`
	stamp := func() string { t = t.Add(1500 * time.Millisecond); return t.Format("2006-01-02T15:04:05.000Z") }
	line := strings.Repeat("ok  \tgithub.com/acme/project/pkg/module\t0.123s coverage: 81.2% of statements\n", 40) // ~3 KiB
	events := 0
	for i := range turns {
		fmt.Fprintf(&b, `{"type":"file-history-snapshot","messageId":"u%d","snapshot":{"messageId":"u%d","trackedFileBackups":{"main.go":{"backupFileName":"abc@v%d","version":%d,"backupTime":"2026-03-01T09:00:00Z"}},"timestamp":"%s"},"isSnapshotUpdate":false}`+"\n", i, i, i, i, stamp())
		fmt.Fprintf(&b, `{%s,"type":"user","message":{"role":"user","content":"Turn %d: please run the tests again and fix whatever fails in the pricing module, keeping the public API unchanged."},"uuid":"u%d","timestamp":"%s","permissionMode":"default"}`+"\n", head, i, i, stamp())
		for j := range 3 {
			fmt.Fprintf(&b, `{%s,"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Bash","command":"~/.claude/hooks/check.sh %d"},"parentToolUseID":"t%d","toolUseID":"t%d","timestamp":"%s","uuid":"p%d-%d"}`+"\n", head, j, i, i, stamp(), i, j)
		}
		fmt.Fprintf(&b, `{%s,"message":{"model":"claude-opus-4-6","id":"m%d","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"%s","signature":"%s"}],"usage":{"input_tokens":3,"output_tokens":120}},"type":"assistant","uuid":"a%d","timestamp":"%s"}`+"\n",
			head, i, strings.Repeat("Consider the failing assertion and where the discount is applied. ", 15), strings.Repeat("c2lnbmF0dXJl", 40), i, stamp())
		fmt.Fprintf(&b, `{%s,"message":{"model":"claude-opus-4-6","id":"m%d","type":"message","role":"assistant","content":[{"type":"text","text":"I'll run the test suite for the pricing module and look at the first failure."}],"usage":{"input_tokens":3,"output_tokens":30}},"type":"assistant","uuid":"b%d","timestamp":"%s"}`+"\n", head, i, i, stamp())
		fmt.Fprintf(&b, `{%s,"message":{"model":"claude-opus-4-6","id":"m%d","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./pricing/... 2>&1 | tail -50","description":"Run the pricing tests"}}],"usage":{"input_tokens":3,"output_tokens":60}},"type":"assistant","uuid":"c%d","timestamp":"%s"}`+"\n", head, i, i, i, stamp())
		out := line
		switch {
		case i%100 == 99:
			out = strings.Repeat(line, 4<<20/len(line))
		case i%25 == 24:
			out = strings.Repeat(line, 256<<10/len(line))
		}
		q := fmt.Sprintf("%q", out)
		fmt.Fprintf(&b, `{%s,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t%d","type":"tool_result","content":%s,"is_error":%v}]},"uuid":"r%d","timestamp":"%s","toolUseResult":{"stdout":%s,"stderr":"","interrupted":false,"isImage":false},"sourceToolAssistantUUID":"c%d"}`+"\n",
			head, i, q, i%7 == 0, i, stamp(), q, i)
		fmt.Fprintf(&b, `{%s,"type":"system","subtype":"stop_hook_summary","hookCount":1,"hookInfos":[{"command":"callback"}],"hookErrors":[],"preventedContinuation":false,"stopReason":"","hasOutput":false,"level":"suggestion","timestamp":"%s","uuid":"s%d","toolUseID":"h%d"}`+"\n", head, stamp(), i, i)
		events += 4 // user message, assistant text, tool result, Stop hook
	}
	return b.Bytes(), events
}

// BenchmarkReadTranscript reports MB/s and events/s over a synthetic 400-turn
// transcript of about 30 MB with lines up to 8 MB:
//
//	go test -run '^$' -bench ReadTranscript -benchmem ./replay/claudecode/
func BenchmarkReadTranscript(b *testing.B) {
	data, events := synthTranscript(400)
	s, probs := ReadTranscript("bench.jsonl", bytes.NewReader(data))
	if len(probs) != 0 || len(s.Events) != events {
		b.Fatalf("%d events (want %d), problems %v", len(s.Events), events, probs)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := time.Now()
	n := 0
	for b.Loop() {
		ReadTranscript("bench.jsonl", bytes.NewReader(data))
		n++
	}
	b.ReportMetric(float64(events*n)/time.Since(start).Seconds(), "events/s")
}

// corpusFiles lists the shared corpus's transcripts, main ones apart, and their size;
// the benchmark is skipped without the corpus.
func corpusFiles(b *testing.B) (fsys fs.FS, all, mains []string, size int64) {
	fsys = os.DirFS(corpus.BenchDir(b, "claude-code"))
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		size += fi.Size()
		all = append(all, p)
		if !IsSubagentFile(p) {
			mains = append(mains, p)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return fsys, all, mains, size
}

// BenchmarkReadCorpus reports MB/s and events/s over the shared Claude Code corpus
// (every main transcript with its subagents); BenchmarkJSONValidCorpus is its anchor:
//
//	go test -run '^$' -bench 'Corpus$' -benchmem -cpu 1 ./replay/claudecode/
func BenchmarkReadCorpus(b *testing.B) {
	fsys, _, mains, size := corpusFiles(b)
	events := 0
	for _, m := range mains {
		s, _ := Read(fsys, m)
		events += len(s.Events)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	start, n := time.Now(), 0
	for b.Loop() {
		for _, m := range mains {
			Read(fsys, m)
		}
		n++
	}
	b.ReportMetric(float64(events*n)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkJSONValid is the anchor of BenchmarkReadTranscript: json.Valid over every
// line of the same transcript, the least a reader that checks its input must do. The
// reader maps the records too; compare the two MB/s side by side:
//
//	go test -run '^$' -bench 'ReadTranscript|JSONValid' -benchmem ./replay/claudecode/
func BenchmarkJSONValid(b *testing.B) {
	data, _ := synthTranscript(400)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd := jsonl.NewReader(bytes.NewReader(data), MaxLine)
		for {
			l, err := rd.Next()
			if err != nil {
				break
			}
			if !json.Valid(l.Bytes) {
				b.Fatalf("line %d is not valid JSON", l.Num)
			}
		}
	}
}

// BenchmarkDecodeRecord compares the fast decoder with encoding/json (the reference
// it keeps to, and what the reader used before) on the lines of the synthetic
// transcript.
func BenchmarkDecodeRecord(b *testing.B) {
	data, _ := synthTranscript(400)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for _, bc := range []struct {
		name   string
		decode func([]byte, *record) bool
	}{
		{"fast", decodeRecord},
		{"encoding-json", func(l []byte, r *record) bool { _, err := decodeSlow(l, r); return err == nil }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range lines {
					var r record
					if !bc.decode(l, &r) {
						b.Fatalf("not decoded: %.200s", l)
					}
				}
			}
		})
	}
}

// BenchmarkJSONValidCorpus is json.Valid over every line of the files
// BenchmarkReadCorpus reads, read the same way (the anchor of its MB/s).
func BenchmarkJSONValidCorpus(b *testing.B) {
	fsys, all, _, size := corpusFiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, name := range all {
			f, err := fsys.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			rd := jsonl.NewReader(f, MaxLine)
			for {
				l, err := rd.Next()
				if err != nil {
					break
				}
				json.Valid(l.Bytes)
			}
			f.Close()
		}
	}
}

// BenchmarkKeyFromHead: proving a session's key from a 64 KiB head of a transcript
// whose first record carries it, as a split replay does for every transcript:
//
//	go test -run '^$' -bench KeyFromHead -benchmem ./replay/claudecode/
func BenchmarkKeyFromHead(b *testing.B) {
	data, _ := synthTranscript(20)
	head := data[:64<<10]
	if key, ok := KeyFromHead("bench.jsonl", head); !ok || key != "bench" {
		b.Fatalf("KeyFromHead = %q, %v", key, ok)
	}
	b.SetBytes(int64(len(head)))
	b.ReportAllocs()
	for b.Loop() {
		KeyFromHead("bench.jsonl", head)
	}
}
