package replay_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

// fixture-style trace lines for the hardening tests.
func traceLine(task string, cycle int) string {
	return fmt.Sprintf(`{"ts":"2026-03-01T10:%02d:00Z","kind":"cycle_done","task":%q,"data":{"cycle":%d,"total_cost_usd":%d}}`, cycle, task, cycle, cycle)
}

const claudeUser = `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"5a5a0000-0000-4000-8000-000000000001","version":"2.1.0","type":"user","message":{"role":"user","content":"fix the parser"},"uuid":"u1","timestamp":"2026-03-01T10:00:00Z"}`
const claudeAssistant = `{"parentUuid":"u1","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"5a5a0000-0000-4000-8000-000000000001","version":"2.1.0","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]},"uuid":"u2","timestamp":"2026-03-01T10:00:05Z"}`

type outcome struct {
	runs, sessions int
	sum            *replay.Summary
}

func replayOnce(t *testing.T, fsys fstest.MapFS, opts replay.Options) outcome {
	t.Helper()
	var o outcome
	opts.Struggle = struggle.DefaultStruggleConfig()
	sum, err := replay.Replay(context.Background(), fsys, opts, replay.Sinks{
		Runs:     func(*replay.RunResult) error { o.runs++; return nil },
		Sessions: func(*replay.SessionResult) error { o.sessions++; return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	o.sum = sum
	return o
}

// TestRecognitionPastTheFirstLine: a file's format is recognised from its first few
// records, not its first line.
func TestRecognitionPastTheFirstLine(t *testing.T) {
	beads := string(historyFS()["b/.beads/issues.jsonl"].Data)
	deep := strings.Repeat(`{"a":`, 100_000) + strings.Repeat("}", 100_000)
	trace := traceLine("q-1", 1) + "\n" + traceLine("q-1", 2) + "\n"
	tests := []struct {
		name     string
		file     string
		data     string
		format   string
		runs     int
		sessions int
		problems map[input.ProblemKind]int
	}{
		{"beads export with a garbage first line", "issues.jsonl", "garbage\n" + beads, "beads", 2, 0,
			map[input.ProblemKind]int{input.ProblemMalformed: 1}},
		{"byte order mark", "run.jsonl", "\xef\xbb\xbf" + trace, "trace", 1, 0, nil},
		{"a 100k-deep JSON first line", "run.jsonl", deep + "\n" + trace, "trace", 1, 0,
			map[input.ProblemKind]int{input.ProblemMalformed: 1}},
		{"an unknown trace kind on line 1", "run.jsonl", `{"ts":"2026-03-01T09:59:00Z","kind":"agent_thinking","task":"q-1"}` + "\n" + trace, "trace", 1, 0,
			map[input.ProblemKind]int{input.ProblemUnknownKind: 1}},
		{"a new Claude Code record type on line 1", "5a5a0000-0000-4000-8000-000000000001.jsonl",
			`{"type":"brand-new-type","sessionId":"5a5a0000-0000-4000-8000-000000000001","timestamp":"2026-03-01T09:59:00Z"}` + "\n" + claudeUser + "\n" + claudeAssistant + "\n",
			"claude_code", 0, 1, nil},
		{"a new Claude Code record type only, with Claude Code's keys", "5a5a0000-0000-4000-8000-000000000001.jsonl",
			`{"type":"brand-new-type","sessionId":"5a5a0000-0000-4000-8000-000000000001","uuid":"x"}` + "\n" + claudeUser + "\n",
			"claude_code", 0, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := replayOnce(t, fstest.MapFS{tt.file: {Data: []byte(tt.data)}}, replay.Options{})
			if o.sum.FilesByFmt[tt.format] != 1 || o.runs != tt.runs || o.sessions != tt.sessions {
				t.Errorf("formats %v, %d runs, %d sessions; want %s, %d runs, %d sessions (problems %v)",
					o.sum.FilesByFmt, o.runs, o.sessions, tt.format, tt.runs, tt.sessions, o.sum.Problems)
			}
			if o.sum.ProblemCount[input.ProblemUnknownFile] != 0 {
				t.Errorf("reported as unknown: %v", o.sum.Problems)
			}
			for k, n := range tt.problems {
				if o.sum.ProblemCount[k] != n {
					t.Errorf("%s problems = %d, want %d (%v)", k, o.sum.ProblemCount[k], n, o.sum.Problems)
				}
			}
		})
	}
}

// TestAllProblemsReachTheProblemSink: the summary keeps the first MaxProblemDetails;
// a ProblemSink gets every one, in order.
func TestAllProblemsReachTheProblemSink(t *testing.T) {
	var b strings.Builder
	const bad = 10_050
	for i := 0; i < bad; i++ {
		b.WriteString("not json\n")
	}
	b.WriteString(traceLine("q-1", 1) + "\n")
	fsys := fstest.MapFS{"run.jsonl": {Data: []byte(b.String())}}
	var got []input.Problem
	sum, err := replay.Replay(context.Background(), fsys, replay.Options{Struggle: struggle.DefaultStruggleConfig()},
		replay.Sinks{Problems: func(p input.Problem) error { got = append(got, p); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != bad || sum.TotalProblems() != bad || len(sum.Problems) != 10_000 {
		t.Fatalf("sink got %d, total %d, details %d; want %d, %d, 10000", len(got), sum.TotalProblems(), len(sum.Problems), bad, bad)
	}
	for i, p := range got {
		if p.Line != i+1 {
			t.Fatalf("problem %d at line %d: out of order", i, p.Line)
		}
	}
	boom := errors.New("table full")
	_, err = replay.Replay(context.Background(), fsys, replay.Options{}, replay.Sinks{Problems: func(input.Problem) error { return boom }})
	if !errors.Is(err, boom) {
		t.Errorf("a failing problem sink: %v", err)
	}
}

// TestOutputInsideTheInput: the output's files (Options.Exclude) and loopwatch's
// temporaries are no input, whether they are there or not.
func TestOutputInsideTheInput(t *testing.T) {
	clean := fstest.MapFS{"runs/run.jsonl": {Data: []byte(traceLine("q-1", 1) + "\n")}}
	withOutput := fstest.MapFS{
		"runs/run.jsonl":                          clean["runs/run.jsonl"],
		"out/results.parquet":                     {Data: []byte("PAR1 not really")},
		"out/results.events.parquet":              {Data: []byte("PAR1")},
		"out/results.manifest.json":               {Data: []byte(`{"replay_id":"x"}`)},
		"out/.results.parquet.tmp-4242-81723":     {Data: []byte("half a table")},
		"runs/.results.cycles.parquet.tmp-123456": {Data: []byte("an older run's leftover")},
		"runs/.loopwatch-probe-99-1":              {},
	}
	opts := replay.Options{Exclude: []string{"out/results.parquet", "out/results.events.parquet", "out/results.manifest.json"}}
	base := replayOnce(t, clean, opts)
	got := replayOnce(t, withOutput, opts)
	if got.sum.TotalProblems() != 0 || got.sum.Fingerprint != base.sum.Fingerprint || got.sum.Files != base.sum.Files ||
		got.sum.Ignored != base.sum.Ignored || got.runs != 1 {
		t.Errorf("with the output inside the input: %d problems %v, files %d/%d, ignored %d/%d, fingerprint equal %v",
			got.sum.TotalProblems(), got.sum.Problems, got.sum.Files, base.sum.Files, got.sum.Ignored, base.sum.Ignored,
			got.sum.Fingerprint == base.sum.Fingerprint)
	}
	// A whole folder can be excluded too.
	if got := replayOnce(t, withOutput, replay.Options{Exclude: []string{"out"}}); got.sum.TotalProblems() != 0 {
		t.Errorf("excluding the folder: %v", got.sum.Problems)
	}
}

// failingLLM is an analyzer that always fails, like a claude that is not logged in.
type failingLLM struct{}

func (failingLLM) SummarizeSegment(context.Context, session.Segment) (llm.SegmentSummary, error) {
	return llm.SegmentSummary{}, errors.New("claude: exit status 1: Invalid API key")
}

func (failingLLM) AnalyzeSession(context.Context, session.Transcript) (llm.SessionAnalysis, error) {
	return llm.SessionAnalysis{}, errors.New("claude: exit status 1: Invalid API key")
}

// TestFailedAnalysisIsAProblem: a session whose analysis failed is counted and shown
// as a problem, and marked so that scoring leaves it out.
func TestFailedAnalysisIsAProblem(t *testing.T) {
	fsys := fstest.MapFS{"p/5a5a0000-0000-4000-8000-000000000001.jsonl": {Data: []byte(claudeUser + "\n" + claudeAssistant + "\n")}}
	var results []*replay.SessionResult
	sum, err := replay.Replay(context.Background(), fsys, replay.Options{Sessions: replay.SessionOptions{LLM: failingLLM{}}},
		replay.Sinks{Sessions: func(r *replay.SessionResult) error { results = append(results, r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || !results[0].AnalysisFailed() || results[0].Final().Err == "" {
		t.Fatalf("session not marked as failed: %+v", results)
	}
	if sum.ProblemCount[input.ProblemAnalysis] == 0 || !strings.Contains(sum.Problems[0].Detail, "Invalid API key") {
		t.Errorf("problems %v", sum.Problems)
	}
	// The offline analyzer does not fail.
	ok := replayOnce(t, fsys, replay.Options{})
	if ok.sum.TotalProblems() != 0 {
		t.Errorf("offline: %v", ok.sum.Problems)
	}
}

func TestExcludeWithin(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "out"), 0o755)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Skip(err)
	}
	got := replay.ExcludeWithin(link, []string{
		filepath.Join(root, "out", "r.parquet"),
		filepath.Join(root, "out", "r.events.parquet"),
		filepath.Join(root, "r.manifest.json"),
		filepath.Join(t.TempDir(), "elsewhere.parquet"),
	})
	if fmt.Sprint(got) != "[out/r.parquet out/r.events.parquet r.manifest.json]" {
		t.Errorf("ExcludeWithin = %v", got)
	}
}

// TestByteOrderMarkEverywhere: a byte order mark at the top of every file of a quasar
// history — beads, TOML, YAML, TSV, trace — changes nothing.
func TestByteOrderMarkEverywhere(t *testing.T) {
	plain := historyFS()
	marked := fstest.MapFS{}
	for name, f := range plain {
		marked[name] = &fstest.MapFile{Data: append([]byte("\xef\xbb\xbf"), f.Data...)}
	}
	a, b := replayFS(t, plain, 2), replayFS(t, marked, 2)
	if fmt.Sprint(a.runs) != fmt.Sprint(b.runs) || fmt.Sprint(a.sum.FilesByFmt) != fmt.Sprint(b.sum.FilesByFmt) ||
		a.sum.TotalProblems() != b.sum.TotalProblems() {
		t.Errorf("with byte order marks:\n runs %v\n  not %v\n formats %v, problems %v", b.runs, a.runs, b.sum.FilesByFmt, b.sum.Problems)
	}
}

// TestResumedSessionKeepsItsOwnKey: a resumed Claude Code session's file begins with
// the earlier session's records (and its hooks may go on reporting that id to the
// end); it is keyed by its own file stem, noted as a continuation, and never merged
// with — or lost as a duplicate of — the earlier session's own file.
func TestResumedSessionKeepsItsOwnKey(t *testing.T) {
	const old, resumed = "0a0a0000-0000-4000-8000-00000000000a", "0b0b0000-0000-4000-8000-00000000000b"
	rec := func(id, uuid, ts, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":%q,"timestamp":"2026-03-01T%s","message":{"role":"user","content":%q}}`+"\n", uuid, id, ts, text)
	}
	fsys := fstest.MapFS{
		"p/" + old + ".jsonl": {Data: []byte(rec(old, "a1", "10:00:00Z", "fix the parser") + rec(old, "a2", "10:05:00Z", "thanks"))},
		"p/" + resumed + ".jsonl": {Data: []byte(rec(old, "a1", "10:00:00Z", "fix the parser") + rec(old, "a2", "10:05:00Z", "thanks") +
			rec(resumed, "b1", "11:00:00Z", "now the lexer") + rec(old, "b2", "11:01:00Z", "hook output still under the old id"))},
	}
	var keys []string
	sum, err := replay.Replay(context.Background(), fsys, replay.Options{Struggle: struggle.DefaultStruggleConfig()}, replay.Sinks{
		Sessions: func(sr *replay.SessionResult) error { keys = append(keys, sr.Session.Key); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(keys) != fmt.Sprint([]string{old, resumed}) || sum.TotalProblems() != 0 {
		t.Errorf("sessions %v, problems %v; want %s and %s, no problem", keys, sum.Problems, old, resumed)
	}
	noted := false
	for what, n := range sum.Notes {
		noted = noted || (strings.Contains(what, "resuming an earlier session") && n == 1)
	}
	if !noted {
		t.Errorf("the continuation is not noted: %v", sum.Notes)
	}
}

// TestDuplicateKeysAcrossFiles: a run or session read from a second file is skipped
// and reported with both files, the first named exactly.
func TestDuplicateKeysAcrossFiles(t *testing.T) {
	session := claudeUser + "\n" + claudeAssistant + "\n"
	const id = "5a5a0000-0000-4000-8000-000000000001"
	for _, tt := range []struct {
		name           string
		fsys           fstest.MapFS
		runs, sessions int
		problems       []string // file: detail
	}{
		{"distinct runs", fstest.MapFS{"a/run.jsonl": {Data: []byte(traceLine("q-1", 1) + "\n")}, "b/run.jsonl": {Data: []byte(traceLine("q-2", 1) + "\n")}},
			2, 0, nil},
		{"a run in two files", fstest.MapFS{
			"a/run.jsonl":   {Data: []byte(traceLine("q-1", 1) + "\n" + traceLine("q-2", 1) + "\n")},
			"b/run.jsonl":   {Data: []byte(traceLine("q-2", 1) + "\n")},
			"c/é/run.jsonl": {Data: []byte(traceLine("q-1", 1) + "\n" + traceLine("q-3", 1) + "\n")}},
			3, 0, []string{"b/run.jsonl: run q-2 was already read from a/run.jsonl; this one is skipped",
				"c/é/run.jsonl: run q-1 was already read from a/run.jsonl; this one is skipped"}},
		{"a session in two folders", fstest.MapFS{"p/" + id + ".jsonl": {Data: []byte(session)}, "q/" + id + ".jsonl": {Data: []byte(session)}},
			0, 1, []string{"q/" + id + ".jsonl: session " + id + " was already read from p/" + id + ".jsonl; this one is skipped"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := replayOnce(t, tt.fsys, replay.Options{})
			var got []string
			for _, p := range o.sum.Problems {
				if p.Kind == input.ProblemDuplicate {
					got = append(got, p.File+": "+p.Detail)
				}
			}
			if o.runs != tt.runs || o.sessions != tt.sessions || fmt.Sprint(got) != fmt.Sprint(tt.problems) {
				t.Errorf("%d runs, %d sessions, duplicates %q; want %d, %d, %q", o.runs, o.sessions, got, tt.runs, tt.sessions, tt.problems)
			}
		})
	}
}
