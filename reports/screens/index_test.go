package screens

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
)

// manyRows returns a synthetic run table's rows: n sessions, with quasar runs among
// them, keys that share long prefixes (and one key twice), starts on a few days,
// equal starts, and undated sessions.
func manyRows(n int) []reports.RunRow {
	rng := rand.New(rand.NewPCG(7, 11))
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var rows []reports.RunRow
	for i := range n {
		key := fmt.Sprintf("%08x-%d", rng.Uint32N(1<<12), i) // 3 of the 8 hex digits random: prefixes shared
		if i == n/2 {
			// A session twice: the key of one a third of the way.
			for j := len(rows) / 3; ; j-- {
				if rows[j].Kind == "session" {
					key = rows[j].RunKey
					break
				}
			}
		}
		row := reports.RunRow{RunKey: key, Kind: "session", Title: fmt.Sprintf("session %d", i), Events: ptr(int32(i % 17))}
		if i%11 != 0 {
			at := day.Add(time.Duration(rng.IntN(20*24)) * time.Hour) // equal starts happen
			row.StartedAt = &at
		}
		rows = append(rows, row)
		if i%9 == 0 {
			rows = append(rows, reports.RunRow{RunKey: fmt.Sprintf("q-%d", i), Kind: "quasar_run", StartedAt: &day})
		}
	}
	return rows
}

// refScreens is what the screens show of rows, computed the plain way: every session
// held, sorted, windowed and cut, each short id from its neighbours among all keys.
func refScreens(rows []reports.RunRow, opts HistoryOptions) (sessions int, history []string, short map[string]string) {
	var ss []reports.RunRow
	for _, r := range rows {
		if r.Kind == "session" {
			ss = append(ss, r)
		}
	}
	slices.SortStableFunc(ss, func(a, b reports.RunRow) int {
		switch {
		case a.StartedAt == nil && b.StartedAt == nil:
		case a.StartedAt == nil:
			return 1
		case b.StartedAt == nil:
			return -1
		default:
			if c := b.StartedAt.Compare(*a.StartedAt); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.RunKey, b.RunKey)
	})
	keys := make([]string, len(ss))
	for i := range ss {
		keys[i] = ss[i].RunKey
	}
	slices.Sort(keys)
	short = map[string]string{}
	for i, k := range keys {
		n := 0
		if i > 0 {
			n = max(n, commonPrefix(k, keys[i-1]))
		}
		if i+1 < len(keys) {
			n = max(n, commonPrefix(k, keys[i+1]))
		}
		short[k] = truncateID(k, max(ShortIDLen, n+1))
	}
	var since time.Time
	if opts.Days > 0 && len(ss) > 0 && ss[0].StartedAt != nil {
		since = ss[0].StartedAt.Add(-time.Duration(opts.Days) * 24 * time.Hour)
	}
	for _, s := range ss {
		if opts.Days > 0 && (s.StartedAt == nil || s.StartedAt.Before(since)) {
			continue
		}
		if opts.Limit == 0 || len(history) < opts.Limit {
			history = append(history, s.RunKey+" "+s.Title)
		}
	}
	return len(ss), history, short
}

// TestScreensOfManyRowGroups holds the screens of a run table of many row groups —
// read a batch of columns at a time, the rows shown fetched by position — to the
// screens computed with every row held. Groups of 37 rows are read through; in groups
// of 500 the rows shown are sought; with pages of 256 bytes a batch of a column spans
// many pages, each of which the reader may reuse once it reads the next.
func TestScreensOfManyRowGroups(t *testing.T) {
	rows := manyRows(1500)
	for _, tt := range []struct {
		group int64
		page  int
	}{{37, 0}, {500, 0}, {500, 256}} {
		t.Run(fmt.Sprintf("group=%d/page=%d", tt.group, tt.page), func(t *testing.T) { testScreensOfRowGroups(t, rows, tt.group, tt.page) })
	}
}

func testScreensOfRowGroups(t *testing.T, rows []reports.RunRow, group int64, page int) {
	path := filepath.Join(t.TempDir(), "results.parquet")
	opts := []parquet.WriterOption{parquet.MaxRowsPerRowGroup(group), parquet.KeyValueMetadata("loopwatch.table", "runs")}
	if page > 0 {
		opts = append(opts, parquet.PageBufferSize(page))
	}
	if err := parquet.WriteFile(path, rows, opts...); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sessions, _, short := refScreens(rows, HistoryOptions{})
	if r.Sessions != sessions || r.OtherRuns != len(rows)-sessions {
		t.Fatalf("Open counts %d sessions and %d other runs, want %d and %d", r.Sessions, r.OtherRuns, sessions, len(rows)-sessions)
	}
	for _, opts := range []HistoryOptions{{}, {Days: 7}, {Days: 3, Limit: 5}, {Limit: 1}, {Limit: 600}, {Days: 1}, {Days: 400, Limit: 2000}} {
		h, err := r.History(opts)
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := refScreens(rows, opts)
		var got []string
		for _, s := range h.Sessions {
			got = append(got, s.ID+" "+s.Title)
			if s.ShortID != short[s.ID] {
				t.Errorf("%+v: %s shown as %s, want %s", opts, s.ID, s.ShortID, short[s.ID])
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: %d sessions listed, want %d; first difference at %d", opts, len(got), len(want), firstDiff(got, want))
		}
	}
	st, err := r.Status()
	if err != nil {
		t.Fatal(err)
	}
	_, newest, _ := refScreens(rows, HistoryOptions{Limit: 1})
	if st.ActiveSession == nil || st.ActiveSession.ID+" "+st.ActiveSession.Title != newest[0] {
		t.Errorf("status shows %+v, want %s", st.ActiveSession, newest[0])
	}
	// Sessions found by their key: their own row; of a key twice, the row shown first.
	_, all, _ := refScreens(rows, HistoryOptions{})
	first := map[string]string{} // key → title of its first row in display order
	for _, s := range slices.Backward(all) {
		key, title, _ := strings.Cut(s, " ")
		first[key] = title
	}
	twice := 0
	for i, row := range rows {
		if row.Kind != "session" || i%150 != 0 && short[row.RunKey] != row.RunKey {
			continue
		}
		got, err := r.Find(row.RunKey)
		if err != nil {
			t.Fatal(err)
		}
		if got.RunKey != row.RunKey || got.Title != first[row.RunKey] {
			t.Errorf("Find(%s) = %s %q, want %q", row.RunKey, got.RunKey, got.Title, first[row.RunKey])
		}
		if got.Title != row.Title {
			twice++
		}
	}
	if twice != 1 {
		t.Errorf("%d rows of a key twice found as the other row, want 1", twice)
	}
	// A prefix that begins many sessions names the first eight and counts the rest.
	_, err = r.Find("0")
	var le *LookupError
	if !errors.As(err, &le) || le.Matches < 100 || len(le.Candidates) != maxCandidates || !slices.IsSorted(le.Candidates) ||
		!strings.Contains(err.Error(), fmt.Sprintf("and %d more", le.Matches-maxCandidates)) {
		t.Errorf("Find(\"0\"): %v", err)
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestFolderShardOwnsItsSessions: a folder whose shard holds a session another shard
// owns (by its key's hash) is refused, and one whose shards each hold their own is read
// whole.
func TestFolderShardOwnsItsSessions(t *testing.T) {
	owned := func(i int) []string { // three keys shard i of 2 owns
		var keys []string
		for k := 0; len(keys) < 3; k++ {
			if key := fmt.Sprintf("session-%02d", k); replay.ShardOf(key, 2) == i {
				keys = append(keys, key)
			}
		}
		return keys
	}
	write := func(dir string, i int, keys []string) {
		md := map[string]string{reports.ShardKey: fmt.Sprintf("%d/2", i), reports.InputListingKey: "listing"}
		out, err := reports.NewFolderOutput(dir, fmt.Sprintf("shard=%d", i), fmt.Sprintf("shard=%d", i), md)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Abort()
		runs, err := reports.NewTable[reports.RunRow](out, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if err := runs.Write(reports.RunRow{RunKey: k, Kind: "session", Events: ptr[int32](2)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := out.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	good, bad := t.TempDir(), t.TempDir()
	write(good, 0, owned(0))
	write(good, 1, owned(1))
	r, err := Open(good)
	if err != nil || r.Sessions != 6 || r.Events != 12 || r.Shards() != 2 {
		t.Fatalf("a folder of two shards: %+v, %v", r, err)
	}
	r.Close()
	write(bad, 0, owned(0))
	write(bad, 1, append(owned(1), owned(0)[1]))
	_, err = Open(bad)
	var fe *FileError
	want := fmt.Sprintf("session %s is not shard 1/2's: its key hashes to shard 0, so the folder mixes outputs", owned(0)[1])
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
		t.Errorf("a session in the other shard: %v; want %q", err, want)
	}
}

// TestScreensOfACorruptRunTable corrupts a run table of several row groups, written
// without page checksums, at 150 places (every sixth with -short), one byte or a run of
// bytes at a time, and shows every screen of each: each is shown or fails with an
// error, never a panic (at place 18 a corrupt page header made the Parquet reader index
// out of range).
func TestScreensOfACorruptRunTable(t *testing.T) {
	const places = 150
	step := 1
	if testing.Short() {
		step = 6
	}
	rows := manyRows(300)
	var clean bytes.Buffer
	if err := parquet.Write(&clean, rows, parquet.MaxRowsPerRowGroup(64), parquet.KeyValueMetadata("loopwatch.table", "runs")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.parquet")
	opened := 0
	tried := 0
	for i := 0; i < places; i += step {
		tried++
		b := bytes.Clone(clean.Bytes())
		at, n := i*len(b)/places, 1+i%3*7 // 1, 8 or 15 bytes
		for j := range n {
			b[(at+j)%len(b)] ^= byte(0x5a + i)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path)
		if err != nil {
			continue
		}
		opened++
		defer r.Close()
		r.Status()
		r.History(HistoryOptions{})
		r.History(HistoryOptions{Days: 2, Limit: 3})
		r.Find(rows[len(rows)/2].RunKey)
		r.Find("0")
	}
	if opened == 0 || opened == tried {
		t.Errorf("%d of %d corrupted tables opened: the corruption reached nothing, or everything", opened, tried)
	}
}

// TestKeyColumns: a run table without started_at or events (every session undated,
// no events) is read; one without run_key, or whose key columns hold other kinds of
// values, is refused as no loopwatch run table.
func TestKeyColumns(t *testing.T) {
	type bare struct {
		RunKey string `parquet:"run_key"`
		Kind   string `parquet:"kind"`
	}
	type noKey struct {
		Kind string `parquet:"kind"`
	}
	type intKey struct {
		RunKey int64  `parquet:"run_key"`
		Kind   string `parquet:"kind"`
	}
	type textStart struct {
		RunKey    string `parquet:"run_key"`
		Kind      string `parquet:"kind"`
		StartedAt string `parquet:"started_at"`
	}
	dir := t.TempDir()
	md := parquet.KeyValueMetadata("loopwatch.table", "runs")
	write := func(name string, write func(string) error) string {
		path := filepath.Join(dir, name+".parquet")
		if err := write(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name    string
		path    string
		wantErr string
	}{
		{"no start, no events", write("bare", func(p string) error {
			return parquet.WriteFile(p, []bare{{"s-2", "session"}, {"s-1", "session"}, {"q", "quasar_run"}}, md)
		}), ""},
		{"no run_key", write("nokey", func(p string) error { return parquet.WriteFile(p, []noKey{{"session"}}, md) }), "no run_key column of BYTE_ARRAY values"},
		{"an integer run_key", write("intkey", func(p string) error { return parquet.WriteFile(p, []intKey{{1, "session"}}, md) }), "no run_key column of BYTE_ARRAY values"},
		{"a text start", write("textstart", func(p string) error { return parquet.WriteFile(p, []textStart{{"s", "session", "today"}}, md) }), "no started_at column of INT64 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(tt.path)
			if tt.wantErr != "" {
				var fe *FileError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open: %v, want a *FileError with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			h, err := r.History(HistoryOptions{})
			if err != nil || r.Sessions != 2 || r.OtherRuns != 1 || r.Events != 0 || h.Undated != 2 || len(h.Sessions) != 2 || h.Sessions[0].ID != "s-1" {
				t.Errorf("history %+v, %v (%d sessions, %d other runs, %d events)", h, err, r.Sessions, r.OtherRuns, r.Events)
			}
		})
	}
}

// TestFarTimes: a session whose times lie outside 1677–2262 — which parquet-go reads
// into a time.Time wrapped, the year 1 as 1754 — is shown with its times as written,
// through the key index, the run table's row and the session's tables.
func TestFarTimes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.parquet")
	out, err := reports.NewOutput(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Abort()
	tb := sessionTables(t, out)
	start := time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)
	end := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, err := range []error{
		tb.runs.Write(reports.RunRow{RunKey: "far", Kind: "session", StartedAt: &start, EndedAt: &end, Events: ptr[int32](1)}),
		tb.events.Write(reports.EventRow{SessionKey: "far", Index: 1, At: &end, Kind: "user_message", Signals: []string{}}),
		tb.interventions.Write(reports.InterventionRow{SessionKey: "far", EventIndex: 1, At: &start, Type: "clarification_pause"}),
		out.Commit(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, err := r.Detail("far")
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Session; s.StartedAt == nil || !s.StartedAt.Equal(start) || s.EndedAt == nil || !s.EndedAt.Equal(end) {
		t.Errorf("session from %v to %v, want %v to %v", s.StartedAt, s.EndedAt, start, end)
	}
	if len(d.Interventions) != 1 || d.Interventions[0].At == nil || !d.Interventions[0].At.Equal(start) {
		t.Errorf("interventions %+v, want one at %v", d.Interventions, start)
	}
	h, err := r.History(HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Sessions) != 1 || h.Sessions[0].StartedAt == nil || !h.Sessions[0].StartedAt.Equal(start) {
		t.Errorf("history %+v, want the session from %v", h.Sessions, start)
	}
}
