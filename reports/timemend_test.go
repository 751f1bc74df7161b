package reports

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// farTimes are times parquet-go reads wrong without TimeMend (outside 1677–2262), the
// edges of what it reads right, and ordinary ones.
var farTimes = []string{
	"0001-01-01T00:00:00.001Z",
	"0001-01-01T00:00:01Z",
	"1066-10-14T09:00:00Z",
	"1677-09-21T00:12:43.145Z",
	"1677-09-21T00:12:43.146Z",
	"1969-12-31T23:59:59.999Z",
	"1970-01-01T00:00:00Z",
	"2026-03-02T09:00:05.123Z",
	"2262-04-11T23:47:16.854Z",
	"2262-04-11T23:47:16.855Z",
	"2300-01-01T00:00:00Z",
	"9999-12-31T23:59:59.999Z",
}

// TestTimeMendTables: a time of any year a run table holds, millisecond by millisecond,
// reads back as written through ReadRows and a RowReader; a null stays nil.
func TestTimeMendTables(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "res.parquet")
	out, err := NewOutput(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	tab := mustTable[RunRow](t, out, "")
	var want []RunRow
	for i, s := range farTimes {
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		r := RunRow{RunKey: s, Kind: "session", StartedAt: &at}
		if i%3 == 0 {
			r.EndedAt = &at
		}
		want = append(want, r)
		if err := tab.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRows[RunRow](path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].StartedAt.Equal(*want[i].StartedAt) {
			t.Errorf("started_at %s read back as %s", farTimes[i], got[i].StartedAt.Format(time.RFC3339Nano))
		}
		if (got[i].EndedAt == nil) != (want[i].EndedAt == nil) || got[i].EndedAt != nil && !got[i].EndedAt.Equal(*want[i].EndedAt) {
			t.Errorf("ended_at of %s: %v, want %v", farTimes[i], got[i].EndedAt, want[i].EndedAt)
		}
	}
}

// mendRow has times of every unit parquet-go stores, as values, pointers and nested.
type mendRow struct {
	Milli  time.Time  `parquet:"milli,timestamp(millisecond:utc)"`
	Micro  *time.Time `parquet:"micro,optional,timestamp(microsecond:utc)"`
	Nano   time.Time  `parquet:"nano,timestamp(nanosecond:utc)"`
	Nested struct {
		Milli *time.Time `parquet:"milli,optional,timestamp(millisecond:utc)"`
	} `parquet:"nested"`
}

// TestTimeMendUnits: kept aside in a RowFile and read back, millisecond and
// microsecond times of any year, values or pointers, top-level or nested, are the
// times written; nanosecond ones, which parquet-go does not multiply, in its range.
func TestTimeMendUnits(t *testing.T) {
	var want []mendRow
	for _, s := range farTimes {
		at, _ := time.Parse(time.RFC3339Nano, s)
		var r mendRow
		r.Milli = at
		micro := at.Add(7 * time.Microsecond)
		r.Micro = &micro
		r.Nano = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
		r.Nested.Milli = &at
		want = append(want, r)
	}
	want = append(want, mendRow{Milli: want[0].Milli, Nano: want[0].Nano}) // nulls
	got, _ := throughRowFile(t, want, len(want))
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
			}
		}
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
}

// TestTimeMendArithmetic: every value within 2^57 milliseconds (2^60 microseconds) of
// 1970, multiplied into nanoseconds with wrapping, is recovered.
func TestTimeMendArithmetic(t *testing.T) {
	fields := NewTimeMend[mendRow]().fields
	if len(fields) != 3 {
		t.Fatalf("%d fields found, want 3 (milli, micro, nested milli)", len(fields))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		f    timeField
		unit int64
		bits uint
	}{{fields[0], 1e6, 57}, {fields[1], 1e3, 60}} {
		edges := []int64{0, 1, -1, 1<<c.bits - 1, -1 << c.bits, (1<<63 - 1) / c.unit, (1<<63-1)/c.unit + 1, -(1<<63)/c.unit - 1}
		for i := range 100000 {
			v := rng.Int64N(1<<(c.bits+1)) - 1<<c.bits
			if i < len(edges) {
				v = edges[i]
			}
			wrapped := time.Unix(0, int64(uint64(v)*uint64(c.unit))).UTC()
			got := c.f.mend(wrapped)
			want := time.Unix(v/(1e9/c.unit), v%(1e9/c.unit)*c.unit).UTC()
			if !got.Equal(want) {
				t.Fatalf("unit %d: value %d read back as %s, want %s", c.unit, v, got, want)
			}
		}
	}
}
