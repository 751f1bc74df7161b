package jsonl

import (
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
