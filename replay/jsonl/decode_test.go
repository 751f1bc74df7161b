package jsonl

import (
	"encoding/json"
	"reflect"
	"testing"
)

type decodeTarget struct {
	Cycle    int     `json:"cycle"`
	Cost     float64 `json:"cost"`
	Name     string  `json:"name"`
	Approved bool    `json:"approved"`
	Findings []struct {
		Severity string `json:"severity"`
		Text     string `json:"text"`
	} `json:"findings"`
}

func TestDecodeObject(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    decodeTarget
		bad     []string
		wantErr bool
	}{
		{"clean", `{"cycle":2,"cost":1.5,"name":"x"}`, decodeTarget{Cycle: 2, Cost: 1.5, Name: "x"}, nil, false},
		{"one wrong field loses only that field", `{"cycle":2,"cost":"1.5","name":"x","approved":true}`,
			decodeTarget{Cycle: 2, Name: "x", Approved: true}, []string{"cost"}, false},
		{"every wrong field is named", `{"approved":"yes","cycle":"2","cost":1,"name":7}`,
			decodeTarget{Cost: 1}, []string{"approved", "cycle", "name"}, false},
		{"a nested wrong field keeps the rest of the list", `{"cycle":1,"findings":[{"severity":3,"text":"a"},{"severity":"minor","text":"b"}]}`,
			decodeTarget{Cycle: 1, Findings: []struct {
				Severity string `json:"severity"`
				Text     string `json:"text"`
			}{{Text: "a"}, {Severity: "minor", Text: "b"}}}, []string{"findings.severity"}, false},
		{"not an object", `[1,2]`, decodeTarget{}, nil, true},
		{"syntax error", `{"cycle":`, decodeTarget{}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got decodeTarget
			bad, err := DecodeObject([]byte(tt.data), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if tt.wantErr {
				return
			}
			var fields []string
			for _, b := range bad {
				fields = append(fields, b.Field)
			}
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(fields, tt.bad) {
				t.Errorf("got %+v bad %v, want %+v bad %v", got, fields, tt.want, tt.bad)
			}
		})
	}
	if d := Describe([]FieldError{{"cost", "string", "float64"}}); d != "field cost is a JSON string, not a float64" {
		t.Errorf("Describe = %q", d)
	}
}

// blocks decodes a list of findings with its own UnmarshalJSON, as the Claude Code
// reader's message content does: a wrong type inside comes back as its error.
type blocks struct {
	List []struct {
		Severity string `json:"severity"`
	}
}

func (b *blocks) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, &b.List) }

type customTarget struct {
	Content   blocks `json:"content"`
	Timestamp string `json:"timestamp"`
	UUID      string `json:"uuid"`
}

// TestDecodeObjectPastAnUnmarshaler: json.Unmarshal stops at a field whose own
// UnmarshalJSON fails and leaves every field after it empty (the uuid and timestamp
// of a Claude Code record whose tool result has is_error "yes"); DecodeObject loses
// only the wrong field.
func TestDecodeObjectPastAnUnmarshaler(t *testing.T) {
	data := []byte(`{"content":[{"severity":3},{"severity":"minor"}],"timestamp":"2026-03-01T10:00:00Z","uuid":"u1"}`)
	var plain customTarget
	if json.Unmarshal(data, &plain) == nil || plain.UUID != "" {
		t.Fatalf("json.Unmarshal no longer stops at a failing UnmarshalJSON (got %+v): this test shows nothing", plain)
	}
	var got customTarget
	bad, err := DecodeObject(data, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got.Timestamp != "2026-03-01T10:00:00Z" || got.UUID != "u1" || len(got.Content.List) != 2 || got.Content.List[1].Severity != "minor" {
		t.Errorf("decoded %+v: the fields beside the wrong one are lost", got)
	}
	if len(bad) != 1 || bad[0].Field != "content.severity" {
		t.Errorf("bad = %v, want content.severity", bad)
	}
}

func TestKind(t *testing.T) {
	for in, want := range map[string]string{`{"a":1}`: "object", " \n[1]": "array", `"x"`: "string", "true": "boolean", "false": "boolean",
		"null": "null", "-1.5": "number", "  ": "nothing", "": "nothing"} {
		if got := Kind([]byte(in)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", in, got, want)
		}
	}
}
