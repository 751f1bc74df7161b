package screens

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/loopwatch/loopwatch/internal/golden"
	"github.com/loopwatch/loopwatch/reports"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// openFixture writes the fixture into a temporary folder, changes into it (so the
// screens name the file "results.parquet", as in the golden files) and opens it.
func openFixture(t *testing.T) *Results {
	t.Helper()
	dir := t.TempDir()
	writeFixture(t, dir)
	t.Chdir(dir)
	r, err := Open("results.parquet")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestGolden renders every screen of the fixture as text and JSON and compares them
// with testdata/*.golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	golden, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	r := openFixture(t)
	detail := func(id string) func() (renderer, error) {
		return func() (renderer, error) { return r.Detail(id) }
	}
	tests := []struct {
		name  string
		build func() (renderer, error)
	}{
		{"status", func() (renderer, error) { return r.Status() }},
		{"history", func() (renderer, error) { return r.History(HistoryOptions{Days: 7}) }},
		{"history_all", func() (renderer, error) { return r.History(HistoryOptions{}) }},
		{"history_limit", func() (renderer, error) { return r.History(HistoryOptions{Days: 30, Limit: 2}) }},
		{"session", detail("5f3c0")},
		{"session_long", detail(keyC)},
		{"session_empty", detail("9e")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.build()
			if err != nil {
				t.Fatal(err)
			}
			var text, js bytes.Buffer
			if err := s.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := s.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(js.Bytes()) {
				t.Fatalf("invalid JSON:\n%s", js.String())
			}
			checkGolden(t, filepath.Join(golden, tt.name+".txt.golden"), text.Bytes())
			checkGolden(t, filepath.Join(golden, tt.name+".json.golden"), js.Bytes())
		})
	}
}

type renderer interface {
	WriteText(w io.Writer) error
	WriteJSON(w io.Writer) error
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, got, *update)
}

// TestRenderingIsStable renders each screen twice from two openings of the file.
func TestRenderingIsStable(t *testing.T) {
	r := openFixture(t)
	r2, err := Open("results.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	for _, id := range []string{keyA, keyC} {
		d1, err1 := r.Detail(id)
		d2, err2 := r2.Detail(id)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		var b1, b2 bytes.Buffer
		d1.WriteJSON(&b1)
		d2.WriteJSON(&b2)
		if b1.String() != b2.String() {
			t.Errorf("%s: two renderings differ", id)
		}
	}
}

func TestFind(t *testing.T) {
	r := openFixture(t)
	tests := []struct {
		id         string
		want       string   // the session found
		candidates []string // an ambiguous prefix's
		wantErr    string
	}{
		{id: keyA, want: keyA},
		{id: "5f3c0", want: keyA},
		{id: "5f3c1111", want: keyB},
		{id: "7", want: keyC},
		{id: "5f3c", candidates: []string{keyA, keyB}, wantErr: `session "5f3c" is ambiguous in results.parquet: it begins 2 sessions: ` + keyA + ", " + keyB},
		{id: "zz", wantErr: `no session "zz" in results.parquet (assess history --days 0 lists them all)`},
		{id: "q-1", wantErr: `no session "q-1"`}, // a quasar run is not a session
		{id: "", wantErr: "the session id is empty"},
		{id: keyA + "x", wantErr: "no session"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			row, err := r.Find(tt.id)
			if tt.wantErr == "" {
				if err != nil || row.RunKey != tt.want {
					t.Fatalf("Find(%q) = %v, %v; want %s", tt.id, row, err, tt.want)
				}
				return
			}
			var le *LookupError
			if !errors.As(err, &le) {
				t.Fatalf("Find(%q) error %v, want a *LookupError", tt.id, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if !slices.Equal(le.Candidates, tt.candidates) {
				t.Errorf("candidates %v, want %v", le.Candidates, tt.candidates)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is more than one line: %q", err)
			}
		})
	}
}

func TestHistoryWindow(t *testing.T) {
	r := openFixture(t)
	keys := func(h History) []string {
		var k []string
		for _, s := range h.Sessions {
			k = append(k, s.ID)
		}
		return k
	}
	tests := []struct {
		opts     HistoryOptions
		want     []string
		inWindow int
	}{
		{HistoryOptions{Days: 7}, []string{keyA, keyB}, 2},
		{HistoryOptions{Days: 1}, []string{keyA, keyB}, 2}, // B started 19 hours before A
		{HistoryOptions{Days: 10}, []string{keyA, keyB, keyC}, 3},
		{HistoryOptions{Days: 9}, []string{keyA, keyB}, 2},
		{HistoryOptions{Days: 0}, []string{keyA, keyB, keyC, keyD}, 4},
		{HistoryOptions{Days: 0, Limit: 3}, []string{keyA, keyB, keyC}, 4},
		{HistoryOptions{Days: 7, Limit: 1}, []string{keyA}, 2},
	}
	for _, tt := range tests {
		h, err := r.History(tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := keys(h); !slices.Equal(got, tt.want) || h.InWindow != tt.inWindow || h.TotalSessions != 4 || h.Undated != 1 {
			t.Errorf("%+v: sessions %v (in window %d, total %d, undated %d), want %v (in window %d)", tt.opts, got, h.InWindow,
				h.TotalSessions, h.Undated, tt.want, tt.inWindow)
		}
	}
}

func TestShortIDs(t *testing.T) {
	r := openFixture(t)
	want := map[string]string{keyA: "5f3c0000", keyB: "5f3c1111", keyC: "77aa0000", keyD: "9e000000"}
	got, err := r.shortIDs(keyA, keyB, keyC, keyD)
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("shortIDs = %v, %v; want %v", got, err, want)
	}
	for k, w := range want { // one key at a time: the others read from the file
		if got, err := r.shortIDs(k); err != nil || got[k] != w {
			t.Errorf("shortIDs(%s) = %v, %v; want %s", k, got, err, w)
		}
	}
	if got, err := r.shortIDs(); err != nil || len(got) != 0 {
		t.Errorf("no keys: %v, %v", got, err)
	}
}

// TestPrefixes holds the prefixes kept of some keys, read among a stream of keys, to
// the shortest unique prefixes of all the keys sorted together, whichever keys are
// kept and in whatever order the stream comes.
func TestPrefixes(t *testing.T) {
	tests := []struct {
		name   string
		stream []string
		want   map[string]string // every key's, of the whole stream
	}{
		{"lengthen to stay unique", []string{"abcdefgh-1", "abcdefgh-2", "abc", "zzzzzzzzzz"},
			map[string]string{"abcdefgh-1": "abcdefgh-1", "abcdefgh-2": "abcdefgh-2", "abc": "abc", "zzzzzzzzzz": "zzzzzzzz"}},
		{"a key twice stays whole", []string{"abcdefghij", "abcdefghij", "abcdefghik", "b"},
			map[string]string{"abcdefghij": "abcdefghij", "abcdefghik": "abcdefghik", "b": "b"}},
		{"a farther key shares less", []string{"aaaaaaaaa1", "aaaaaaaaa2x", "aaaaaaaaa2y", "aaaaaaaab"},
			map[string]string{"aaaaaaaaa1": "aaaaaaaaa1", "aaaaaaaaa2x": "aaaaaaaaa2x", "aaaaaaaaa2y": "aaaaaaaaa2y", "aaaaaaaab": "aaaaaaaab"}},
		{"a prefix of another key", []string{"0123456789", "01234567", "012345678"},
			map[string]string{"0123456789": "0123456789", "01234567": "01234567", "012345678": "012345678"}},
		{"multi-byte", []string{"ééééé-1", "ééééé-2", "ééééx"},
			map[string]string{"ééééé-1": "ééééé-1", "ééééé-2": "ééééé-2", "ééééx": "ééééx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := slices.Sorted(maps.Keys(tt.want))
			for mask := 1; mask < 1<<len(keys); mask++ { // every non-empty set of kept keys
				var kept []string
				for i, k := range keys {
					if mask&(1<<i) != 0 {
						kept = append(kept, k)
					}
				}
				backward := slices.Clone(tt.stream)
				slices.Reverse(backward)
				for _, stream := range [][]string{tt.stream, backward} {
					p := newPrefixes(kept)
					for _, x := range stream {
						p.see(x)
					}
					for k, got := range p.short() {
						if got != tt.want[k] {
							t.Errorf("kept %v, stream %v: %s → %q, want %q", kept, stream, k, got, tt.want[k])
						}
					}
				}
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	results := writeFixture(t, dir)
	text := filepath.Join(dir, "notes.parquet")
	os.WriteFile(text, []byte("not parquet at all\n"), 0o644)
	foreign := filepath.Join(dir, "foreign.parquet")
	if err := parquet.WriteFile(foreign, []struct{ A int }{{1}}); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "folder.parquet"), 0o755)
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.parquet"), "nope.parquet: no such file (run `replay --out " + filepath.Join(dir, "nope.parquet") + "` first"},
		{"not parquet", text, "notes.parquet: not a Parquet file"},
		{"not loopwatch", foreign, "foreign.parquet: not a loopwatch results file (no loopwatch.table metadata)"},
		{"a sibling table", strings.TrimSuffix(results, ".parquet") + ".events.parquet", "is the events table of a replay, not its run table (give --results " + results + ")"},
		{"not .parquet", filepath.Join(dir, "results.csv"), "the name must end in .parquet"},
		{"a folder without a run table", filepath.Join(dir, "folder.parquet"), "folder.parquet: is a folder without a run table (results/shard=i/part-0.parquet)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.path)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Open error %v, want a *FileError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is more than one line: %q", err)
			}
		})
	}
}

func TestDetailMissingSibling(t *testing.T) {
	dir := t.TempDir()
	results := writeFixture(t, dir)
	r, err := Open(results)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	events := r.Sibling("events")
	if err := os.Remove(events); err != nil {
		t.Fatal(err)
	}
	_, err = r.Detail(keyA)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != events || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("Detail without the events table: %v", err)
	}
}

func TestStatusWithoutSessions(t *testing.T) {
	r := &Results{Path: "q.parquet", OtherRuns: 3}
	s, err := r.Status()
	if err != nil {
		t.Fatal(err)
	}
	if s.Enabled || s.ActiveSession != nil || s.Breaker.State != "none" {
		t.Errorf("status of a file without sessions: %+v", s)
	}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Enabled: false", "Circuit Breaker: no session (threshold: unknown)", "Sessions: 0 (0 events); 3 quasar runs besides"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := r.Find("x"); err == nil || !strings.Contains(err.Error(), "only 3 quasar runs") {
		t.Errorf("Find in a file without sessions: %v", err)
	}
	var h bytes.Buffer
	hs, err := r.History(HistoryOptions{Days: 7})
	if err != nil {
		t.Fatal(err)
	}
	hs.WriteText(&h)
	if !strings.Contains(h.String(), "No sessions in q.parquet.") || strings.Contains(h.String(), "for details") {
		t.Errorf("history of a file without sessions:\n%s", h.String())
	}
}

func TestTrajectory(t *testing.T) {
	tests := []struct {
		name      string
		values    []float64
		width     int
		sparkline string
		cells     []float64
		peakAt    int
	}{
		{"empty", nil, 30, "", []float64{}, -1},
		{"fewer events than cells", []float64{0, 0.5, 1}, 30, "▁▅█", []float64{0, 0.5, 1}, 2},
		{"bucket maxima", []float64{0.1, 0.9, 0.2, 0.3}, 2, "█▃", []float64{0.9, 0.3}, 1},
		{"uneven buckets", []float64{0, 0, 0, 0, 0.3}, 3, "▁▁▃", []float64{0, 0, 0.3}, 4},
		{"first of equal peaks", []float64{0.5, 0.5}, 30, "▅▅", []float64{0.5, 0.5}, 0},
		{"levels", []float64{0, 0.124, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 0.999, 1.5, -1}, 30, "▁▁▂▃▄▅▆▇███▁",
			[]float64{0, 0.124, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 0.999, 1.5, -1}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := trajectory(tt.values, tt.width)
			if tr.Sparkline != tt.sparkline || !slices.Equal(tr.Values, tt.cells) || tr.Cells != len(tt.cells) {
				t.Errorf("trajectory = %q %v (%d cells), want %q %v", tr.Sparkline, tr.Values, tr.Cells, tt.sparkline, tt.cells)
			}
			if tt.peakAt < 0 {
				if tr.Peak != nil || tr.PeakEvent != nil || tr.Final != nil {
					t.Errorf("peak of no events: %v %v %v", tr.Peak, tr.PeakEvent, tr.Final)
				}
			} else if tr.PeakEvent == nil || *tr.PeakEvent != tt.peakAt {
				t.Errorf("peak at %v, want %d", tr.PeakEvent, tt.peakAt)
			}
		})
	}
}

func TestMsgList(t *testing.T) {
	tests := []struct {
		ix   []int
		want string
	}{
		{[]int{33}, "msg 33"},
		{[]int{15, 22}, "msgs 15, 22"},
		{[]int{120, 120, 138}, "msgs 120×2, 138"},
		{[]int{5, 5}, "msg 5×2"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, "msgs 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, … 2 more"},
	}
	for _, tt := range tests {
		if got := msgList(tt.ix); got != tt.want {
			t.Errorf("msgList(%v) = %q, want %q", tt.ix, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		sec  float64
		want string
	}{
		{45, "45 seconds"}, {1, "1 second"}, {59.6, "1 minute"}, {23 * 60, "23 minutes"}, {60 * 60, "1 hour"},
		{2*3600 + 5*60, "2 hours 5 minutes"}, {3600 + 60, "1 hour 1 minute"},
	}
	for _, tt := range tests {
		if got := duration(&tt.sec); got != tt.want {
			t.Errorf("duration(%v) = %q, want %q", tt.sec, got, tt.want)
		}
	}
	if got := duration(nil); got != "—" {
		t.Errorf("duration(nil) = %q", got)
	}
}

func TestThresholds(t *testing.T) {
	if th := thresholds(""); th != nil {
		t.Errorf("no config: %+v", th)
	}
	if th := thresholds("{not json"); th != nil {
		t.Errorf("bad config: %+v", th)
	}
	th := thresholds(`{"breaker":{"frustration_threshold":0.5,"failure_threshold":4,"correction_storm":2,"correction_window":"2m0s","cooldown":"1m0s"}}`)
	if th == nil || *th != (Thresholds{Frustration: 0.5, ConsecutiveFailures: 4, CorrectionStorm: 2, CorrectionWindow: "2m0s", Cooldown: "1m0s"}) {
		t.Errorf("thresholds = %+v", th)
	}
}

// TestRowGroupStatistics checks that the statistics Detail relies on to skip row groups
// are written, and rule out a key outside them.
func TestRowGroupStatistics(t *testing.T) {
	r := openFixture(t)
	f, err := os.Open(r.Sibling("events"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	leaf, ok := pf.Schema().Lookup("run_key")
	if !ok {
		t.Fatal("no run_key column")
	}
	st := pf.Metadata().RowGroups[0].Columns[leaf.ColumnIndex].MetaData.Statistics
	for key, want := range map[string]bool{keyA: true, keyB: true, keyC: true, "0000": false, "zzzz": false} {
		if got := mayHold(st, key); got != want {
			t.Errorf("mayHold(%s) = %v, want %v (statistics %q–%q)", key, got, want, st.MinValue, st.MaxValue)
		}
	}
	if !mayHold(format.Statistics{}, "anything") {
		t.Error("without statistics every row group may hold the key")
	}
}

// TestMixedOrIncompleteOutputIsRefused: a sibling table from another replay, or a run
// table whose output has no manifest (an interrupted commit), is refused.
func TestMixedOrIncompleteOutputIsRefused(t *testing.T) {
	dir := t.TempDir()
	results := writeFixture(t, dir)
	// Another replay's events table, put beside this run table.
	other := filepath.Join(t.TempDir(), "results.parquet")
	out, err := reports.NewOutput(other, map[string]string{"loopwatch.input_fingerprint": "ffff0000"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reports.NewTable[reports.RunRow](out, ""); err != nil {
		t.Fatal(err)
	}
	ev, err := reports.NewTable[reports.EventRow](out, "events")
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Write(reports.EventRow{SessionKey: keyA, Index: 1, Kind: "user_message"}); err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out.Path("events"))
	r, err := Open(results)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.WriteFile(r.Sibling("events"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = r.Detail(keyA)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != r.Sibling("events") || !strings.Contains(err.Error(), "another replay") {
		t.Errorf("Detail with another replay's events table: %v", err)
	}
	// No manifest: the commit did not finish.
	if err := os.Remove(reports.ManifestPath(results)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(results); !errors.As(err, &fe) || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("Open without a manifest: %v", err)
	}
}
