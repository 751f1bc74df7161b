package jsonl

import (
	"bytes"
	"strings"
	"testing"
)

func TestSplitJoined(t *testing.T) {
	rec1 := `{"parentUuid":"p1","type":"progress","uuid":"u1"}`
	rec2 := `{"type":"summary","summary":"S","leafUuid":"u1"}`
	rec3 := `{"parentUuid":"p2","type":"user","message":{"content":"hi {there}"}}`
	tests := []struct {
		name   string
		line   string
		want   []string
		cutOff int
		ok     bool
	}{
		{"two complete records (a lost newline)", rec1 + rec2, []string{rec1, rec2}, 0, true},
		{"three with spaces between", rec1 + " " + rec2 + "\t" + rec3, []string{rec1, rec2, rec3}, 0, true},
		{"cut off in a string, then a record", `{"parentUuid":"p0","message":{"content":"abc` + rec3,
			[]string{rec3}, len(`{"parentUuid":"p0","message":{"content":"abc`), true},
		{"cut off in a key", `{"parentUuid":"p0","mess` + rec1, []string{rec1}, len(`{"parentUuid":"p0","mess`), true},
		{"cut off after a comma", `{"parentUuid":"p0",` + rec1, []string{rec1}, len(`{"parentUuid":"p0",`), true},
		{"cut off in a number", `{"parentUuid":"p0","n":12` + rec1, []string{rec1}, len(`{"parentUuid":"p0","n":12`), true},
		{"cut off after a colon: the next record became its value", `{"parentUuid":` + rec1,
			[]string{rec1}, len(`{"parentUuid":`), true},
		{"complete, cut off, complete", rec2 + `{"parentUuid":"p0","x":"ab` + rec1, []string{rec2, rec1}, len(`{"parentUuid":"p0","x":"ab`), true},
		{"complete then cut off", rec1 + `{"parentUuid":"p9","x":"a`, []string{rec1}, len(`{"parentUuid":"p9","x":"a`), true},
		{"NUL bytes before a record", "\x00\x00\x00" + rec1, []string{rec1}, 3, true},
		{"one valid record is not joined", rec1, nil, 0, false},
		{"one record missing its brace is lost whole", `{"type":"user","message":{"content":"x"}`, nil, 0, false},
		{"garbage only", "not json at all", nil, 0, false},
		{"empty", "", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, ok := SplitJoined([]byte(tt.line))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.ok, j)
			}
			if !ok {
				return
			}
			var got []string
			for _, r := range j.Records {
				got = append(got, string(r))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || j.CutOff != tt.cutOff {
				t.Errorf("got %q cut %d, want %q cut %d", got, j.CutOff, tt.want, tt.cutOff)
			}
		})
	}
}

func TestSplitJoinedIsBounded(t *testing.T) {
	// A bad line full of '{' must not cost a pass per brace.
	line := []byte(`{"a":` + strings.Repeat(`{"a":1,`, 20000))
	if _, ok := SplitJoined(line); ok {
		t.Fatal("recovered a record from garbage")
	}
}

// FuzzSplitJoined checks that what SplitJoined recovers is complete JSON objects taken
// from the line, in order, and that it accounts for every other non-space byte.
func FuzzSplitJoined(f *testing.F) {
	f.Add([]byte(`{"a":1}{"b":2}`))
	f.Add([]byte(`{"a":"x{"a":1}`))
	f.Add([]byte(`{"a":{"a":2}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		j, ok := SplitJoined(line)
		if !ok {
			return
		}
		rest := line
		kept := 0
		for _, r := range j.Records {
			i := bytes.Index(rest, r)
			if i < 0 || r[0] != '{' || !complete(r, 0) {
				t.Fatalf("record %q is not a complete object of the line, in order", r)
			}
			rest = rest[i+len(r):]
			kept += len(r)
		}
		if len(j.Records) == 0 || len(j.Records) == 1 && j.CutOff == 0 {
			t.Fatalf("ok with %+v", j)
		}
		if kept+j.CutOff > len(line) {
			t.Fatalf("kept %d + cut off %d > %d bytes", kept, j.CutOff, len(line))
		}
		if j.CutOff == 0 && len(bytes.Join(bytes.Fields(line), nil)) != len(bytes.Join(bytes.Fields(bytes.Join(j.Records, nil)), nil)) {
			t.Fatalf("nothing cut off, but the records %q are not the whole line %q", j.Records, line)
		}
	})
}
