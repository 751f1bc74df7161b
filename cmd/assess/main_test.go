package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/internal/doctest"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/screens"
)

// The fixture: TestMain builds the replay command and replays the hand-written Claude
// Code transcripts of testdata/transcripts (three sessions: 5f3c0000… with a
// correction storm, 5f3c1111… a quiet question, 77aa0000… ten days older) with
// testdata/labels.csv into a temporary folder, so the screens are tested on what the
// real pipeline writes.
var fixture struct {
	dir    string // holds results.parquet and its sibling tables
	replay string // the built replay binary
	err    error
}

const (
	sessionA = "5f3c0000-0000-4000-8000-00000000000a"
	sessionB = "5f3c1111-0000-4000-8000-00000000000b"
	sessionC = "77aa0000-0000-4000-8000-00000000000c"
)

func TestMain(m *testing.M) {
	flag.Parse()
	tmp, err := os.MkdirTemp("", "assess-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixture.dir = filepath.Join(tmp, "fixture")
	fixture.replay = filepath.Join(tmp, "replay")
	fixture.err = buildFixture()
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func buildFixture() error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the go command is needed to build the replay command: %w", err)
	}
	build := exec.Command(goCmd, "build", "-o", fixture.replay, "github.com/loopwatch/loopwatch/cmd/replay")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build cmd/replay: %v\n%s", err, out)
	}
	if err := os.MkdirAll(fixture.dir, 0o755); err != nil {
		return err
	}
	in, labels := filepath.Join("testdata", "transcripts"), filepath.Join("testdata", "labels.csv")
	if err := replay(in, labels, filepath.Join(fixture.dir, "results.parquet")); err != nil {
		return err
	}
	return replay(in, labels, filepath.Join(fixture.dir, "out")+string(filepath.Separator)) // the folder layout (out/)
}

// replay runs the built replay command on a folder of transcripts, with more flags.
func replay(in, labels, out string, flags ...string) error {
	cmd := exec.Command(fixture.replay, append([]string{"--in", in, "--labels", labels, "--out", out}, flags...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("replay --in %s: %v\n%s", in, err, b)
	}
	return nil
}

func needFixture(t *testing.T) string {
	t.Helper()
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return filepath.Join(fixture.dir, "results.parquet")
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestDocExamples runs every example invocation of the command's documentation in a
// folder holding the fixture as results.parquet: each must be in the --help text too
// and succeed.
func TestDocExamples(t *testing.T) {
	needFixture(t)
	examples := doctest.Examples(t, "assess", usage, 5)
	t.Chdir(fixture.dir)
	for _, ex := range examples {
		code, stdout, stderr := runCLI(strings.Fields(ex)[1:]...)
		if code != 0 || stderr != "" {
			t.Errorf("%s: exit %d\n%s", ex, code, stderr)
			continue
		}
		if strings.Contains(ex, "--json") {
			if !json.Valid([]byte(stdout)) {
				t.Errorf("%s: invalid JSON:\n%s", ex, stdout)
			}
		} else if !strings.Contains(stdout, "\n───") && !strings.Contains(stdout, "\n─") {
			t.Errorf("%s: no screen:\n%s", ex, stdout)
		}
	}
	code, _, stderr := runCLI("--help")
	if code != 0 || !strings.Contains(stderr, "Examples:") || !strings.Contains(stderr, "--results") {
		t.Errorf("--help: exit %d\n%s", code, stderr)
	}
}

// TestScreens checks the three screens on what the real pipeline wrote for the
// fixture's transcripts.
func TestScreens(t *testing.T) {
	results := needFixture(t)
	tests := []struct {
		name string
		args []string
		want []string // in stdout, in order
		not  []string
	}{
		{"status", []string{"status"}, []string{
			"Assessment Status\n─────────────────\nEnabled: true\nCircuit Breaker: TRIPPED (3 interventions; frustration: ",
			"threshold: 0.20)", "Active Session", "Session: " + sessionA, "Messages: 5\n", "Checkpoints: ",
			"Interventions: 3 (first: explicit_check_in at msg 5)", "Replay", "Sessions: 3 (23 events)", "Analyzer: offline"}, nil},
		{"history, last 7 days", []string{"history"}, []string{
			"Session History (last 7 days to 2026-03-02 09:00)", "SESSION   OUTCOME", "LABEL", "MSGS  FRUST  INTERV  DATE (UTC)",
			"\n5f3c0000  partial", "2026-03-02 09:00", "\n5f3c1111  success", "2026-03-01 14:00\n",
			"1 older session not shown (--days 0 shows all).", "Use `assess --results " + results + " history <session-id>` for details."},
			[]string{"77aa0000"}},
		{"history, all", []string{"history", "--days", "0"}, []string{"Session History (all 3 sessions)", "5f3c0000", "5f3c1111",
			"77aa0000  failure"}, []string{"not shown"}},
		{"history, limit", []string{"history", "--days=0", "--limit=1"}, []string{"5f3c0000", "Showing the newest 1 of 3 sessions (--limit 1)."},
			[]string{"5f3c1111"}},
		{"one session by prefix", []string{"history", "5f3c0"}, []string{
			"Session: " + sessionA, "Date: 2026-03-02 09:00 UTC", "Duration: 5 minutes", "Messages: 5 (13 events in all)",
			"Outcome: partial (confidence: ", "Label: partial (confidence: high)",
			"Frustration Trajectory\n──────────────────────\n0.0 ▁", " 1.0\n    Start", "End\nPeak 1.",
			"Checkpoints\n───────────\n1. \"", "Signals Detected\n────────────────\n• 1x test_failure (msg 3)",
			"x user_correction (msgs 5, 7, 9)", "Labelled friction: msgs 5, 7",
			"Interventions\n─────────────\n1. explicit_check_in at 2026-03-02 09:01:00 UTC (msg 5; frustration 1.00)",
			"2. clarification_pause at 2026-03-02 09:02:00 UTC (msg 7; 2 corrections in the window)",
			"3. clarification_pause at 2026-03-02 09:03:00 UTC (msg 9; 3 corrections in the window)",
			"Analysis\n────────\npartial: "}, nil},
		{"a quiet session", []string{"history", sessionB}, []string{"Session: " + sessionB, "Checkpoints: None", "Signals Detected: None",
			"Labelled friction: None", "Interventions: None"}, nil},
		{"an unlabelled session", []string{"history", "77"}, []string{"Session: " + sessionC, "• 1x interrupt (msg 4)"}, []string{"Label", "Labelled friction"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"--results", results}, tt.args...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rest := stdout
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (after what came before it):\n%s", w, stdout)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tt.not {
				if strings.Contains(stdout, n) {
					t.Errorf("output has %q:\n%s", n, stdout)
				}
			}
		})
	}
}

// TestFolderOutput: the screens of a folder output (replay --out DIR/) — not split, or
// split in two shards written by two replays — are the file output's, but for the
// path they name and, split, the number of shards; one shard's run table shows that
// shard alone; a folder missing a shard, or mixing two splits, is refused.
func TestFolderOutput(t *testing.T) {
	results := needFixture(t)
	in, labels := filepath.Join("testdata", "transcripts"), filepath.Join("testdata", "labels.csv")
	split := t.TempDir()
	for i := range 2 {
		if err := replay(in, labels, split+string(filepath.Separator), "--shard", fmt.Sprintf("%d/2", i)); err != nil {
			t.Fatal(err)
		}
	}
	screens := [][]string{{"status"}, {"history", "--days", "0"}, {"history", sessionA}, {"history", sessionB}, {"history", sessionC},
		{"--json", "status"}, {"--json", "history", "--days", "0"}, {"--json", "history", sessionC}}
	show := func(path string, args []string) string {
		t.Helper()
		code, stdout, stderr := runCLI(append([]string{"--results", path}, args...)...)
		if code != 0 || stderr != "" {
			t.Fatalf("--results %s %v: exit %d\n%s", path, args, code, stderr)
		}
		return strings.ReplaceAll(stdout, path, "RESULTS")
	}
	// The split output's status says how many shards it read, and has no input
	// fingerprint until metrics merges the shards; the rest is the whole's.
	shardsLine := regexp.MustCompile(`(?m)^Shards: \d+\n|"shards": \d+,\s*`)
	fingerprint := regexp.MustCompile(`Input fingerprint: \S+|"input_fingerprint": "[^"]*"`)
	for _, args := range screens {
		want := show(results, args)
		if got := show(filepath.Join(fixture.dir, "out"), args); got != want {
			t.Errorf("%v of the folder output differs from the file output's:\n%s\nwant:\n%s", args, got, want)
		}
		got := show(split, args)
		if slices.Contains(args, "status") {
			if !strings.Contains(got, "Shards: 2\n") && !strings.Contains(got, `"shards": 2`) ||
				!strings.Contains(got, "Input fingerprint: —") && !strings.Contains(got, `"input_fingerprint": ""`) {
				t.Errorf("%v of the split output: not 2 shards and no fingerprint:\n%s", args, got)
			}
			got, want = fingerprint.ReplaceAllString(shardsLine.ReplaceAllString(got, ""), "FP"), fingerprint.ReplaceAllString(want, "FP")
		}
		if got != want {
			t.Errorf("%v of the output split in 2 shards differs from the whole's:\n%s\nwant:\n%s", args, got, want)
		}
	}
	// One shard's run table: that shard's sessions only.
	var total int
	for i := range 2 {
		part := filepath.Join(split, "results", fmt.Sprintf("shard=%d", i), "part-0.parquet")
		h := show(part, []string{"history", "--days", "0"})
		total += strings.Count(h, "5f3c") + strings.Count(h, "77aa")
	}
	if total != 3 {
		t.Errorf("the two shards' run tables list %d sessions, want 3", total)
	}
	// Files and folders hive readers skip as hidden (a name starting with "." or "_":
	// Finder's .DS_Store, Spark's _SUCCESS and _temporary) are no part of the set:
	// the screens are the split's.
	hidden := t.TempDir()
	if err := os.CopyFS(hidden, os.DirFS(split)); err != nil {
		t.Fatal(err)
	}
	part1, err := os.ReadFile(filepath.Join(split, "results", "shard=1", "part-0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{".DS_Store": nil, "_SUCCESS": nil, filepath.Join("shard=0", ".DS_Store"): nil,
		filepath.Join("_temporary", "part-0.parquet"): part1, filepath.Join(".old", "part-0.parquet"): part1} {
		p := filepath.Join(hidden, "results", name)
		if os.MkdirAll(filepath.Dir(p), 0o755) != nil || os.WriteFile(p, b, 0o644) != nil {
			t.Fatal(p)
		}
	}
	for _, args := range screens {
		if got, want := show(hidden, args), show(split, args); got != want {
			t.Errorf("%v of the split output with hidden files differs from the split's:\n%s\nwant:\n%s", args, got, want)
		}
	}
	// A folder missing a shard; a folder whose shards read different inputs (shard 1
	// copied from a split of fewer transcripts); a folder holding one shard twice.
	fewer := t.TempDir()
	ents, err := os.ReadDir(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents[:len(ents)-1] {
		if b, err := os.ReadFile(filepath.Join(in, e.Name())); err != nil || os.WriteFile(filepath.Join(fewer, e.Name()), b, 0o644) != nil {
			t.Fatal(err)
		}
	}
	other := t.TempDir()
	if err := replay(fewer, labels, other+string(filepath.Separator), "--shard", "1/2"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, want string }{
		// The messages of metrics: assess checks a folder as it does.
		{"one shard of two", "incomplete set: shard 1 of 2 is missing (no _manifests/shard=1.manifest.json)"},
		{"two inputs", "mixed sets: shards 0 and 1 read different input"},
		{"a shard twice", "duplicated shard: shard=1.manifest.json holds the manifest of shard 0/2"},
		{"a partition named 01", filepath.Join("results", "shard=01") + " is not a partition of this set of 2 shards"},
		{"a part file no manifest lists", filepath.Join("results", "shard=0", "part-1.parquet") + " is no file of this set"},
	} {
		dir := t.TempDir()
		if err := replay(in, labels, dir+string(filepath.Separator), "--shard", "0/2"); err != nil {
			t.Fatal(err)
		}
		switch tt.name {
		case "a partition named 01", "a part file no manifest lists": // the complete split, and a copy of a part
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(dir, os.DirFS(split)); err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(dir, "results", "shard=01", "part-0.parquet")
			if tt.name == "a part file no manifest lists" {
				to = filepath.Join(dir, "results", "shard=0", "part-1.parquet")
			}
			b, err := os.ReadFile(filepath.Join(split, "results", "shard=1", "part-0.parquet"))
			if err != nil || os.MkdirAll(filepath.Dir(to), 0o755) != nil || os.WriteFile(to, b, 0o644) != nil {
				t.Fatal(err)
			}
		case "two inputs":
			if err := os.CopyFS(dir, os.DirFS(other)); err != nil {
				t.Fatal(err)
			}
		case "a shard twice": // shard 0's run table and manifest copied as shard 1's
			if err := os.CopyFS(filepath.Join(dir, "results", "shard=1"), os.DirFS(filepath.Join(dir, "results", "shard=0"))); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "_manifests", "shard=0.manifest.json"))
			if err != nil || os.WriteFile(filepath.Join(dir, "_manifests", "shard=1.manifest.json"), b, 0o644) != nil {
				t.Fatal(err)
			}
		}
		code, _, stderr := runCLI("--results", dir, "status")
		if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, %q; want 2 and %q", tt.name, code, stderr, tt.want)
		}
	}

	// Shards replayed with different configurations, which metrics refuses to merge.
	mixed := t.TempDir()
	if err := replay(in, labels, mixed+string(filepath.Separator), "--shard", "0/2"); err != nil {
		t.Fatal(err)
	}
	if err := replay(in, labels, mixed+string(filepath.Separator), "--shard", "1/2", "--assess-config", "seed"); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("--results", mixed, "status")
	if want := `mixed sets: shards 0 and 1 were replayed with a different loopwatch.assess_config (breaker.cooldown "1m0s" in shard=0, "5m0s" in shard=1; `; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("shards of two configurations: exit %d, %q; want 2 and %q", code, stderr, want)
	}

	// A folder whose derived tables are an earlier replay's: a later replay wrote its
	// own tables and did not complete its merge (here: the earlier merge's files put
	// back by hand). Refused until metrics derives them again.
	stale := t.TempDir()
	if err := replay(in, labels, stale+string(filepath.Separator)); err != nil {
		t.Fatal(err)
	}
	saved := t.TempDir()
	derived := []string{"metrics", "curves", filepath.Join(reports.ManifestFolder, reports.MergedSet+".manifest.json")}
	for _, name := range derived {
		if err := os.Rename(filepath.Join(stale, name), filepath.Join(saved, filepath.Base(name))); err != nil {
			t.Fatal(err)
		}
	}
	if err := replay(in, labels, stale+string(filepath.Separator), "--assess-config", "seed"); err != nil {
		t.Fatal(err)
	}
	for _, name := range derived {
		if err := os.RemoveAll(filepath.Join(stale, name)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(saved, filepath.Base(name)), filepath.Join(stale, name)); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr = runCLI("--results", stale, "status")
	if want := "its derived tables (metrics, curves, fixloop) were derived from other shards than those it holds"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("stale derived tables: exit %d, %q; want 2 and %q", code, stderr, want)
	}
}

// TestJSON decodes each screen's JSON into the screens' structs and checks it agrees
// with the text.
func TestJSON(t *testing.T) {
	results := needFixture(t)
	decode := func(v any, args ...string) {
		t.Helper()
		code, stdout, stderr := runCLI(append([]string{"--results", results, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		dec := json.NewDecoder(strings.NewReader(stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stdout)
		}
	}
	var st screens.Status
	decode(&st, "status")
	if !st.Enabled || st.Breaker.State != "tripped" || st.ActiveSession == nil || st.ActiveSession.ID != sessionA ||
		st.Breaker.Thresholds == nil || st.Breaker.Thresholds.Frustration != 0.2 || st.Replay.Sessions != 3 || st.Replay.Events != 23 {
		t.Errorf("status: %+v", st)
	}
	var h screens.History
	decode(&h, "history")
	if h.Days != 7 || h.TotalSessions != 3 || h.InWindow != 2 || len(h.Sessions) != 2 || h.Sessions[0].ID != sessionA || h.Sessions[1].ID != sessionB {
		t.Errorf("history: %+v", h)
	}
	var d screens.Detail
	decode(&d, "history", "5f3c0")
	if d.Session.ID != sessionA || d.Trajectory.Cells != 13 || len(d.Trajectory.Values) != 13 || d.Trajectory.Peak == nil ||
		*d.Trajectory.Peak != d.Session.PeakFrustrationEMA || len(d.Interventions) != 3 || d.Interventions[0].EventIndex != 5 ||
		len(d.Checkpoints) != d.Session.Checkpoints {
		t.Errorf("detail: %+v", d)
	}
	kinds := map[string]int{}
	for _, s := range d.Signals {
		kinds[s.Kind] = s.Count
		if len(s.Events) != s.Count {
			t.Errorf("signal %s: %d events for %d signals", s.Kind, len(s.Events), s.Count)
		}
	}
	if kinds["user_correction"] != 3 || kinds["test_failure"] != 1 || kinds["test_success"] != 1 {
		t.Errorf("signals: %+v", d.Signals)
	}
}

func TestErrors(t *testing.T) {
	results := needFixture(t)
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.parquet")
	if err := parquet.WriteFile(foreign, []struct{ A int }{{1}}); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "notes.parquet")
	os.WriteFile(text, []byte("hello\n"), 0o644)
	missing := filepath.Join(dir, "results.parquet")
	events := strings.TrimSuffix(results, ".parquet") + ".events.parquet"
	tests := []struct {
		name string
		args []string
		code int
		want []string // in stderr
	}{
		{"missing results", []string{"--results", missing, "status"}, 2, []string{"assess: " + missing + ": no such file", "replay --out " + missing}},
		{"missing default results", []string{"history"}, 2, []string{"assess: results.parquet: no such file (run `replay --out results.parquet` first, or give --results FILE)"}},
		{"not Parquet", []string{"--results", text, "status"}, 2, []string{text + ": not a Parquet file"}},
		{"not a loopwatch file", []string{"--results", foreign, "history"}, 2, []string{foreign + ": not a loopwatch results file (no loopwatch.table metadata)", "replay --out"}},
		{"a sibling table", []string{"--results", events, "status"}, 2, []string{"is the events table of a replay, not its run table (give --results " + results + ")"}},
		{"ambiguous prefix", []string{"--results", results, "history", "5f3c"}, 1, []string{`session "5f3c" is ambiguous`, sessionA, sessionB}},
		{"unknown session", []string{"--results", results, "history", "deadbeef"}, 1, []string{`no session "deadbeef" in ` + results}},
		{"no command", nil, 2, []string{"no command: give status or history"}},
		{"unknown command", []string{"stats"}, 2, []string{`unknown command "stats"`}},
		{"status with an argument", []string{"status", "x"}, 2, []string{`status takes no argument, got "x"`}},
		{"two sessions", []string{"history", "a", "b"}, 2, []string{"history takes at most one session id"}},
		{"--days with status", []string{"status", "--days", "3"}, 2, []string{"--days and --limit apply to history only"}},
		{"--limit with a session", []string{"history", "5f3c0", "--limit", "3"}, 2, []string{"not one session"}},
		{"negative days", []string{"history", "--days", "-1"}, 2, []string{"must be ≥ 0"}},
		{"unknown flag", []string{"--frobnicate", "status"}, 2, []string{"unknown flag: --frobnicate"}},
	}
	t.Chdir(dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not contain %q", stderr, w)
				}
			}
			if n := strings.Count(stderr, "\n"); n != 1 {
				t.Errorf("stderr is %d lines, want one:\n%s", n, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
		})
	}
}

// TestCorpus replays the shared Claude Code corpus and checks that the session with
// the highest frustration shows its trajectory. It skips when the corpus is absent.
func TestCorpus(t *testing.T) {
	needFixture(t)
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skipf("no Claude Code corpus: %v", err)
	}
	results := filepath.Join(t.TempDir(), "cc.parquet")
	if err := replay(dir, filepath.Join(dir, "labels.csv"), results); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("--results", results, "--json", "history", "--days", "0")
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, stderr)
	}
	var h screens.History
	if err := json.Unmarshal([]byte(stdout), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Sessions) < 10 {
		t.Fatalf("only %d sessions in the corpus", len(h.Sessions))
	}
	// The session with the highest frustration, and the longest one that rises
	// above the sparkline's lowest level (its events are bucketed into cells).
	var top, long *screens.Session
	for i := range h.Sessions {
		s := &h.Sessions[i]
		if top == nil || s.PeakFrustrationEMA > top.PeakFrustrationEMA {
			top = s
		}
		if s.PeakFrustrationEMA >= 0.125 && (long == nil || s.Events > long.Events) {
			long = s
		}
	}
	if top.PeakFrustrationEMA < 0.125 {
		t.Fatalf("no session of the corpus rises above the sparkline's lowest level (peak %.2f)", top.PeakFrustrationEMA)
	}
	if long.Events <= screens.TrajectoryWidth {
		t.Errorf("the longest frustrated session has only %d events", long.Events)
	}
	for _, s := range []*screens.Session{top, long} {
		checkTrajectory(t, results, s)
	}
}

// checkTrajectory checks the detail screen of session s: its trajectory's cells, its
// peak against the session row, and the sparkline in the text.
func checkTrajectory(t *testing.T, results string, s *screens.Session) {
	t.Helper()
	code, stdout, stderr := runCLI("--results", results, "--json", "history", s.ShortID)
	if code != 0 {
		t.Fatalf("history %s: exit %d: %s", s.ShortID, code, stderr)
	}
	var d screens.Detail
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatal(err)
	}
	tr := d.Trajectory
	if d.Session.ID != s.ID || tr.Cells != min(screens.TrajectoryWidth, s.Events) || tr.Peak == nil || *tr.Peak != s.PeakFrustrationEMA {
		t.Fatalf("%s: trajectory %+v for a session of %d events with peak %v", s.ID, tr, s.Events, s.PeakFrustrationEMA)
	}
	highest := 0.0
	for _, v := range tr.Values {
		highest = max(highest, v)
	}
	if highest != *tr.Peak {
		t.Errorf("%s: the cells' highest value %v is not the peak %v", s.ID, highest, *tr.Peak)
	}
	code, stdout, stderr = runCLI("--results", results, "history", s.ShortID)
	if code != 0 {
		t.Fatalf("history %s: exit %d: %s", s.ShortID, code, stderr)
	}
	line := "0.0 " + tr.Sparkline + " 1.0\n"
	if !strings.Contains(stdout, "Frustration Trajectory\n──────────────────────\n"+line) || strings.Trim(tr.Sparkline, "▁") == "" {
		t.Errorf("%s: no trajectory above the floor in:\n%s", s.ID, stdout)
	}
	t.Logf("%s (%d events): %s (peak %.2f)", s.ShortID, s.Events, tr.Sparkline, *tr.Peak)
}

// TestReadmeShowsTheScreens checks that the assess example in the README is what the
// commands it shows print on the fixture today: the history screen whole, and every
// line quoted from the session screen.
func TestReadmeShowsTheScreens(t *testing.T) {
	needFixture(t)
	readme := []byte(corpus.Readme(t))
	_, block, ok := strings.Cut(string(readme), "$ assess history\n")
	if !ok {
		t.Fatal("README has no `$ assess history` example")
	}
	history, detail, ok := strings.Cut(block, "$ assess history 5f3c0\n")
	if !ok {
		t.Fatal("README has no `$ assess history 5f3c0` example")
	}
	detail, _, _ = strings.Cut(detail, "```")
	t.Chdir(fixture.dir)
	code, stdout, stderr := runCLI("history")
	if code != 0 || stdout != history {
		t.Errorf("README's `assess history` is stale (exit %d, %s); the command prints:\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = runCLI("history", "5f3c0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(detail), "\n") {
		if line != "…" && !strings.Contains(stdout, line+"\n") {
			t.Errorf("README quotes %q from `assess history 5f3c0`, which prints:\n%s", line, stdout)
		}
	}
}

// TestHostileText: a session id holding escape sequences (a colour, a window title,
// BEL) and a file name holding a newline reach neither the screens nor the replay's
// problem lines as they are: they are shown Go-quoted, each on its line.
func TestHostileText(t *testing.T) {
	needFixture(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	id := "\x1b[31mRED\x1b]0;pwned\a"
	line := `{"type":"user","sessionId":"\u001b[31mRED\u001b]0;pwned\u0007","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n"
	for name, data := range map[string]string{"a.jsonl": line, "b.jsonl": line, "new\nline.jsonl": "x\n"} {
		if err := os.WriteFile(filepath.Join(in, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	results := filepath.Join(dir, "results.parquet")
	cmd := exec.Command(fixture.replay, "--in", in, "--out", results)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"\n" + `"new\nline.jsonl": unknown_file: `, `b.jsonl:1: duplicate_run: "session \x1b[31mRED\x1b]0;pwned\a was already read from a.jsonl`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("replay's stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	code, stdout, errOut := runCLI("--results", results, "history", "--days", "0")
	if code != 0 {
		t.Fatalf("assess history: exit %d: %s", code, errOut)
	}
	for name, out := range map[string]string{"replay's stderr": stderr.String(), "assess history": stdout} {
		if strings.ContainsAny(out, "\x1b\a") || strings.Contains(out, id) {
			t.Errorf("%s holds the raw escapes:\n%q", name, out)
		}
	}
	if !strings.Contains(stdout, "\n"+`"\x1b[31mRED"  success`) { // the id's first 8 characters, quoted
		t.Errorf("assess history does not show the id quoted:\n%s", stdout)
	}
}
