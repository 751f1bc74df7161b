package jsonl

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestScannerSkip checks that Skip accepts exactly the values encoding/json accepts.
func TestScannerSkip(t *testing.T) {
	for _, in := range []string{
		`0`, `-0`, `12.5e-3`, `1E+2`, `-`, `01`, `1.`, `.5`, `1e`, `+1`, `0x1`,
		`true`, `false`, `null`, `tru`, `nul`, `True`,
		`""`, `"a\"b\\c\/d\b\f\n\r\t\u00e9"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\tb\"", "\"a\x7fb\"", `"unterminated`,
		`[]`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `{}`, `{"a":1}`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`,
		` { "a" : [ 1 , { } ] } `, strings.Repeat("[", MaxScanDepth) + strings.Repeat("]", MaxScanDepth),
	} {
		s := NewScanner([]byte(in))
		ok := s.Skip() && s.End()
		deep := strings.Count(in, "[") >= MaxScanDepth
		if ok != json.Valid([]byte(in)) && !(deep && !ok) {
			t.Errorf("Skip(%q) = %v, json.Valid %v", in, ok, json.Valid([]byte(in)))
		}
	}
}

// TestFieldsFolds checks the keys that match a field only ignoring case.
func TestFieldsFolds(t *testing.T) {
	f := NewFields("type", "sessionId")
	for key, want := range map[string]bool{"Type": true, "TYPE": true, "sessionid": true, "SESSIONID": true, "types": false, "x": false,
		strings.Repeat("a", 40): false} {
		if got := f.Folds([]byte(key)); got != want {
			t.Errorf("Folds(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestObjectKeys checks that an escaped key is decoded for the member and that a key
// that could fold to an ASCII name through a non-ASCII letter is not read.
func TestObjectKeys(t *testing.T) {
	for _, tt := range []struct {
		in, keys string
		ok       bool
	}{
		{`{"typ\u0065":1,"é":2}`, "type é", true},
		{`{"ſ":1}`, "", false},
		{`{"\u212a":1}`, "", false},
	} {
		var keys []string
		s := NewScanner([]byte(tt.in))
		ok := s.Object(true, func(k []byte) bool { keys = append(keys, string(k)); return s.Skip() })
		if ok != tt.ok || ok && strings.Join(keys, " ") != tt.keys {
			t.Errorf("%s: %v %q, want %v %q", tt.in, ok, keys, tt.ok, tt.keys)
		}
	}
}

// FuzzSkip holds Skip to json.Valid.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,true,null,"x\u00e9"]}`, `[{"b":{}},""]`, `"\ud800"`, `01`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := NewScanner(in)
		if ok := s.Skip() && s.End(); ok && !json.Valid(in) {
			t.Fatalf("Skip accepted %q, which encoding/json refuses", in)
		}
	})
}

// FuzzUnquote holds String to encoding/json on any JSON string.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`a\"b\\c\/d\b\f\n\r\t`, `\u00e9\u20ac\ud83d\ude00`, `\ud800`, `\udc00\ud800x`, `\ud800\u0041`, `\uD83D\uDE00\ud83d`, "é 不是"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		quoted := append(append([]byte{'"'}, raw...), '"')
		var want string
		valid := json.Unmarshal(quoted, &want) == nil
		s := NewScanner(quoted)
		var got string
		ok := s.String(&got) && s.End()
		if ok && !valid {
			t.Fatalf("String accepted %q, which encoding/json refuses", quoted)
		}
		if valid && !ok {
			t.Fatalf("String refused %q", quoted)
		}
		if ok && utf8.Valid(raw) && got != want {
			t.Fatalf("String(%q) = %q, encoding/json %q", quoted, got, want)
		}
	})
}

// TestScannerNumbers holds Int, Int64 and Float64 to encoding/json: each accepts
// exactly the values json.Unmarshal decodes into its type without an error, to the
// same value, and leaves the destination as it is for null.
func TestScannerNumbers(t *testing.T) {
	for _, in := range []string{
		`0`, `-0`, `7`, `-12`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `1.5`, `1e2`, `1E+2`,
		`-1.25e-3`, `1e400`, `-1e400`, `4.9e-324`, `1e-400`, `null`, `"1"`, `true`, `01`, `1.`, `-`, `[1]`,
	} {
		data := []byte(in)
		i, i64, f := 42, int64(42), 42.5
		wi, wi64, wf := i, i64, f
		whole := func(read func(*Scanner) bool) bool { s := NewScanner(data); return read(s) && s.End() }
		okI := whole(func(s *Scanner) bool { return s.Int(&i) })
		okI64 := whole(func(s *Scanner) bool { return s.Int64(&i64) })
		okF := whole(func(s *Scanner) bool { return s.Float64(&f) })
		errI := json.Unmarshal(data, &wi)
		errI64 := json.Unmarshal(data, &wi64)
		errF := json.Unmarshal(data, &wf)
		if okI != (errI == nil) || okI && i != wi {
			t.Errorf("Int(%s) = %v %d; json.Unmarshal: %d, %v", in, okI, i, wi, errI)
		}
		if okI64 != (errI64 == nil) || okI64 && i64 != wi64 {
			t.Errorf("Int64(%s) = %v %d; json.Unmarshal: %d, %v", in, okI64, i64, wi64, errI64)
		}
		if okF != (errF == nil) || okF && math.Float64bits(f) != math.Float64bits(wf) {
			t.Errorf("Float64(%s) = %v %v; json.Unmarshal: %v, %v", in, okF, f, wf, errF)
		}
	}
}

// TestNearMiss: a key one or two edits from a name, or cut short before its last
// "_word", is a near miss of it; a name, its case folded, a short key or a field of
// another meaning is not.
func TestNearMiss(t *testing.T) {
	f := NewFields("cycle", "total_cost_usd", "filter_check_name", "approved", "findings", "filter_output", "cost_usd", "lint_fix_calls")
	for _, tt := range []struct {
		key, want string
	}{
		{"aproved", "approved"},
		{"approvde", "approved"},
		{"Aproved", "approved"},
		{"filter_check", "filter_check_name"},
		{"filter_chek_name", "filter_check_name"},
		{"total_cost", "total_cost_usd"},
		{"total_costs_usd", "total_cost_usd"},
		{"cost", "cost_usd"},
		{"cylce", "cycle"},
		{"findigns", "findings"},
		{"approved", ""},       // a name
		{"APPROVED", ""},       // a name, its case folded
		{"cyc", ""},            // too short
		{"all_findings", ""},   // quasar's accumulated findings: another field
		{"filter_history", ""}, // another field
		{"coder_output", ""},   // another field
		{"lint_fix", "lint_fix_calls"},
		{"lint", ""},         // cut short of more than one word
		{"task_bead_id", ""}, // another field
		{"filter_check_names", "filter_check_name"},
	} {
		got, ok := f.NearMiss([]byte(tt.key))
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("NearMiss(%q) = %q, %v; want %q", tt.key, got, ok, tt.want)
		}
	}
}

// BenchmarkNearMiss: a key no name is near — the cost a trace pays for each field it
// carries beyond the format's.
func BenchmarkNearMiss(b *testing.B) {
	f := NewFields("cycle", "max_cycles", "total_cost_usd", "max_budget_usd", "filter_check_name",
		"filter_output", "findings", "lint_fix_calls", "approved", "filter_fix_attempts", "filter_fix_cost_usd")
	key := []byte("review_output")
	b.ReportAllocs()
	for b.Loop() {
		f.NearMiss(key)
	}
}
