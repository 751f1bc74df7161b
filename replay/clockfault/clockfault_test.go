package clockfault

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// seq builds times from minute offsets; "Z" marks a missing time.
func seq(minutes ...any) []time.Time {
	out := make([]time.Time, len(minutes))
	for i, m := range minutes {
		switch v := m.(type) {
		case int:
			out[i] = t0.Add(time.Duration(v) * time.Minute)
		case time.Duration:
			out[i] = t0.Add(v)
		case string: // "Z": no time
		}
	}
	return out
}

func TestFind(t *testing.T) {
	const day = 24 * time.Hour
	const years70 = 70 * 365 * day
	tests := []struct {
		name  string
		times []time.Time
		want  string // index:ahead/behind@from
	}{
		{"in order", seq(0, 1, 2, 3), "[]"},
		{"small back-steps are no fault", seq(0, 5, 3, 9, 8, 8), "[]"},
		{"a long pause forward is no fault", seq(0, 1, 3*24*60, 3*24*60+1), "[]"},
		{"one record 70 years ahead, then 37 good ones", append(seq(0, 1, years70), seq(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38)...), "[2:ahead@1]"},
		{"one record days behind", seq(0, 1, 2, -3*24*60, 3, 4), "[3:behind@2]"},
		{"the first record far ahead", seq(years70, 0, 1, 2, 3), "[0:ahead@1]"},
		{"the first record days ahead", seq(3*24*60, 0, 1, 2, 3), "[0:ahead@1]"},
		{"the last record far ahead", seq(0, 1, 2, years70), "[3:ahead@2]"},
		{"two records ahead together", seq(0, 1, 5*24*60, 5*24*60, 2, 3, 4), "[2:ahead@1 3:ahead@1]"},
		{"a clock set back for good blames the later side", seq(100*60, 100*60+1, 100*60+2, 0, 1, 2), "[3:behind@2 4:behind@2 5:behind@2]"},
		{"missing times are passed over", seq(0, "Z", years70, "Z", 1, 2), "[2:ahead@0]"},
		{"nothing", nil, "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range Find(tt.times, 10*time.Minute) {
				dir := "behind"
				if f.Ahead {
					dir = "ahead"
				}
				got = append(got, fmt.Sprintf("%d:%s@%d", f.Index, dir, f.From))
				if !f.Placed.Equal(tt.times[f.From]) {
					t.Errorf("fault %d placed at %v, not at record %d's time", f.Index, f.Placed, f.From)
				}
			}
			if g := fmt.Sprint(got); g != tt.want && !(g == "[]" && tt.want == "[]") {
				t.Errorf("Find = %s, want %s", g, tt.want)
			}
		})
	}
}

// FuzzFind checks that faults come in index order, are never a missing time, and are
// each placed at a record that has a time.
func FuzzFind(f *testing.F) {
	f.Add([]byte{0, 1, 2, 200, 3, 4})
	f.Add([]byte{50, 0, 1, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		times := make([]time.Time, len(b))
		for i, v := range b {
			if v != 255 {
				times[i] = t0.Add(time.Duration(v) * time.Hour)
			}
		}
		faults := Find(times, 10*time.Minute)
		prev := -1
		for _, f := range faults {
			if f.Index <= prev || times[f.Index].IsZero() || f.From < 0 || f.From >= len(times) || times[f.From].IsZero() {
				t.Fatalf("bad fault %+v (times %v)", f, b)
			}
			prev = f.Index
		}
		if len(faults) > len(b) {
			t.Fatal("more faults than records")
		}
	})
}

func TestRecorded(t *testing.T) {
	east := time.FixedZone("east", 2*3600)
	for _, tc := range []struct {
		in         time.Time
		wantZero   bool   // read as no time
		wantFormat string // Format of what it is read as
	}{
		{time.Time{}, false, "0001-01-01T00:00:00Z"},
		{time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), false, "0001-01-01T00:00:01Z"},
		{time.Date(1, 1, 1, 2, 0, 0, 0, east), false, "0001-01-01T00:00:00Z"}, // the zero time, written in another zone
		{time.Date(2026, 3, 2, 16, 0, 0, 5, east), false, "2026-03-02T14:00:00.000000005Z"},
	} {
		got := Recorded(tc.in)
		if got.IsZero() != tc.wantZero || got.Location() != time.UTC || Format(got) != tc.wantFormat {
			t.Errorf("Recorded(%v) = %v (zero %v, %v), formatted %q; want zero %v, UTC, %q", tc.in, got, got.IsZero(), got.Location(), Format(got), tc.wantZero, tc.wantFormat)
		}
		if !tc.in.IsZero() && !got.Equal(tc.in) {
			t.Errorf("Recorded(%v) = %v, another instant", tc.in, got)
		}
	}
	// What it reads the zero time as is far from a time of today, as the second after it is.
	now := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	zero, second := Recorded(time.Time{}), Recorded(time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC))
	if got, want := Far([]time.Time{now, now, zero}), Far([]time.Time{now, now, second}); len(got) != 1 || !slices.Equal(got, want) {
		t.Errorf("Far with the zero time read: %v, with a second later: %v; want the same one fault", got, want)
	}
}
