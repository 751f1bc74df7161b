package commits

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/replay/input/inputtest"
	"github.com/loopwatch/loopwatch/replay/join"
)

const (
	sha1 = "d5ce931809ecab586a2388d05b27e579ce67ea79"
	sha2 = "b0e755710094ae5c16263419832be53891e362fa"
	sha3 = "59e904cf35e9b9b9c92f573559982281e7e8c612"
)

func TestParseSubject(t *testing.T) {
	tests := []struct {
		in    string
		bead  string
		cycle int
		lint  bool
		ok    bool
	}{
		{"q-iyyo/cycle-2: Wire struggle detection", "q-iyyo", 2, false, true},
		{"q-mo9j/cycle-2: Define model tiers (lint fix)", "q-mo9j", 2, true, true},
		{"quasar: quasar-kf8 cycle-3", "quasar-kf8", 3, false, true},
		{"q-0mzl.1/cycle-1: a child bead id", "q-0mzl.1", 1, false, true},
		{"q-x/cycle-0: no cycle zero", "", 0, false, false},
		{"q-x/cycle-2147483647: the largest 32-bit cycle", "q-x", 2147483647, false, true},
		{"q-x/cycle-2147483648: past int32", "", 0, false, false},
		{"quasar: q-x cycle-99999999999999999999", "", 0, false, false},
		{"Merge branch 'main'", "", 0, false, false},
		{"fix: (lint fix)", "", 0, false, false},
	}
	for _, tt := range tests {
		bead, cycle, lint, ok := ParseSubject(tt.in)
		if bead != tt.bead || cycle != tt.cycle || lint != tt.lint || ok != tt.ok {
			t.Errorf("ParseSubject(%q) = %q %d %v %v", tt.in, bead, cycle, lint, ok)
		}
	}
}

func TestRead(t *testing.T) {
	tsv := sha1 + "\t2026-03-01T00:03:07-05:00\tq-a/cycle-2: two\n" +
		sha2 + "\t2026-02-28T23:52:49-05:00\tq-a/cycle-1: one\n" +
		sha3 + "\t2026-02-28T23:59:00-05:00\tq-a/cycle-1: one (lint fix)\n"
	gitLog := "commit " + sha1 + " (HEAD -> main)\nAuthor: A <a@x>\nDate:   Sun Mar 1 00:03:07 2026 -0500\n\n    q-a/cycle-2: two\n\n    body\n\n" +
		"commit " + sha2 + "\nMerge: 1 2\nAuthor: A <a@x>\nAuthorDate: 2026-02-28 23:50:00 -0500\nCommitDate: 2026-02-28 23:52:49 -0500\n\n    q-a/cycle-1: one\n" +
		"commit " + sha3 + "\nDate: 2026-02-28T23:59:00-05:00\n\n    Update README\n"
	tests := []struct {
		name     string
		in       string
		commits  []string // bead:cycle:lint@time
		problems []string
		stats    Stats
	}{
		{name: "TSV", in: tsv, stats: Stats{3, 3, 1, 0},
			commits: []string{"q-a:1:false@04:52:49", "q-a:1:true@04:59:00", "q-a:2:false@05:03:07"}},
		{name: "TSV with a header and bad lines", in: "sha\ttime\tsubject\n" + tsv + "zzz\t2026-02-28T23:52:49Z\tq-a/cycle-1: x\n" +
			sha1 + "\tyesterday\tq-a/cycle-1: x\n" + "just one field\n\n" + sha2 + "\t2026-02-28T23:52:49Z\tnot a cycle commit\n",
			stats:    Stats{4, 3, 1, 0},
			commits:  []string{"q-a:1:false@04:52:49", "q-a:1:true@04:59:00", "q-a:2:false@05:03:07"},
			problems: []string{"5:malformed_line", "6:malformed_line", "7:malformed_line"}},
		{name: "git log", in: gitLog, stats: Stats{3, 2, 0, 0},
			commits: []string{"q-a:1:false@04:52:49", "q-a:2:false@05:03:07"}},
		{name: "git log with a broken block", in: "commit " + sha1 + "\nAuthor: A\nDate: someday\n\n    q-a/cycle-1: x\n" +
			"commit " + sha2 + "\nDate: 2026-02-28T23:59:00-05:00\n",
			stats: Stats{}, problems: []string{"1:invalid_record", "3:invalid_record", "6:invalid_record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jc := join.New()
			probs, st := Read("c.tsv", strings.NewReader(tt.in), jc)
			jc.Finish()
			var got []string
			for _, c := range jc.CommitsFor("q-a") {
				got = append(got, fmt.Sprintf("%s:%d:%v@%s", c.BeadID, c.Cycle, c.LintFix, c.Time.Format("15:04:05")))
				if c.Time.Location() != time.UTC || c.File != "c.tsv" || c.Line == 0 {
					t.Errorf("commit %+v", c)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.commits) {
				t.Errorf("commits %v, want %v", got, tt.commits)
			}
			var ps []string
			for _, p := range probs {
				ps = append(ps, fmt.Sprintf("%d:%s", p.Line, p.Kind))
			}
			if fmt.Sprint(ps) != fmt.Sprint(tt.problems) {
				t.Errorf("problems %v, want %v\n%v", ps, tt.problems, probs)
			}
			if st != tt.stats {
				t.Errorf("stats %+v, want %+v", st, tt.stats)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		head string
		want bool
	}{
		{sha1 + "\t2026-03-01T00:03:07-05:00\tq-a/cycle-2: two\n", true},
		{"sha\ttime\tsubject\n" + sha1 + "\t2026-03-01T00:03:07Z\tx\n", true},
		{"commit " + sha1 + "\nAuthor: x\n", true},
		{sha1 + "\tnot a time\tx\n", false},
		{"a\tb\tc\n", false},
		{`{"id":"q-1","title":"t"}`, false},
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.head)); got != tt.want {
			t.Errorf("Sniff(%.30q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// FuzzRead checks that no input panics the reader and that every commit it records is
// a cycle commit with a sha, a cycle ≥ 1 and a time.
func FuzzRead(f *testing.F) {
	f.Add([]byte(sha1 + "\t2026-03-01T00:03:07-05:00\tq-a/cycle-2: two (lint fix)\n"))
	f.Add([]byte("commit " + sha1 + "\nDate:   Sun Mar 1 00:03:07 2026 -0500\n\n    quasar: q-a cycle-1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		jc := join.New()
		_, st := Read("f", bytes.NewReader(in), jc)
		jc.Finish()
		if _, n := jc.Counts(); n != st.CycleCommits || st.CycleCommits > st.Commits || st.LintFix > st.CycleCommits {
			t.Fatalf("stats %+v, %d recorded", st, n)
		}
	})
}

// TestReadOutOfRange: a cycle commit whose cycle is 0 or outside the range of a 32-bit
// integer (the tables' columns, where it would wrap) is reported and skipped, in a TSV
// and in git log; a time that parses to Go's zero time is a far-off time, not "no
// time" (git log's "no readable Date line").
func TestReadOutOfRange(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		commits  []string // bead:cycle@time
		problems []string // "line:kind" then a substring of the detail, after a space
		ignored  int      // commits of something else, in the note
	}{
		{name: "in range",
			in:      sha1 + "\t2026-03-01T00:03:07Z\tq-a/cycle-2147483647: x\n",
			commits: []string{"q-a:2147483647@2026-03-01T00:03:07Z"}},
		{name: "TSV: past int32, past int64, cycle 0",
			in: sha1 + "\t2026-03-01T00:03:07Z\tq-a/cycle-2147483648: x\n" + sha2 + "\t2026-03-01T00:03:07Z\tquasar: q-a cycle-99999999999999999999\n" +
				sha3 + "\t2026-03-01T00:03:07Z\tq-a/cycle-0: x (lint fix)\n" + sha1 + "\t2026-03-01T00:04:07Z\tq-a/cycle-1: x\n",
			commits: []string{"q-a:1@2026-03-01T00:04:07Z"},
			problems: []string{"1:invalid_record cycle 2147483648 is outside the range of a 32-bit integer; skipped",
				"2:invalid_record cycle 99999999999999999999 is outside", "3:invalid_record cycle 0 is not a cycle"}},
		{name: "git log: past int32",
			in:       "commit " + sha1 + "\nDate:   Sun Mar 1 00:03:07 2026 -0500\n\n    q-a/cycle-4294967297: x\n",
			problems: []string{"1:invalid_record commit " + sha1[:12] + `: subject "q-a/cycle-4294967297: x": cycle 4294967297 is outside`}},
		{name: "the zero time",
			in: sha1 + "\t0001-01-01T00:00:00Z\tq-a/cycle-1: x\n" +
				"commit " + sha2 + "\nDate: 0001-01-01T00:00:00Z\n\n    q-a/cycle-2: x\n" +
				"commit " + sha3 + "\nDate: 0001-01-01 00:00:01 +0000\n\n    q-a/cycle-3: x\n",
			commits: []string{"q-a:1@0001-01-01T00:00:00Z", "q-a:2@0001-01-01T00:00:00Z", "q-a:3@0001-01-01T00:00:01Z"}},
		{name: "a commit of something else beside one skipped",
			in:       sha1 + "\t2026-03-01T00:03:07Z\tfix a typo in the README\n" + sha2 + "\t2026-03-01T00:03:07Z\tq-a/cycle-0: x\n",
			problems: []string{"2:invalid_record cycle 0 is not a cycle"}, ignored: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jc := join.New()
			probs, st := Read("c.tsv", strings.NewReader(tt.in), jc)
			// a skipped cycle commit is a problem, not counted among the commits of something else
			if n := st.Notes()[1]; n.What != "cycle-commits: not cycle commits (ignored)" || n.Count != tt.ignored {
				t.Errorf("note %+v, want %d ignored", n, tt.ignored)
			}
			jc.Finish()
			var got []string
			for _, c := range jc.CommitsFor("q-a") {
				got = append(got, fmt.Sprintf("%s:%d@%s", c.BeadID, c.Cycle, c.Time.Format(time.RFC3339)))
				if c.Time.IsZero() || c.Cycle < 1 || c.Cycle > 1<<31-1 {
					t.Errorf("commit %+v", c)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.commits) {
				t.Errorf("commits %v, want %v", got, tt.commits)
			}
			inputtest.Problems(t, probs, tt.problems)
		})
	}
}
