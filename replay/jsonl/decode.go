package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// FieldError is a field of a record that [DecodeObject] left out.
type FieldError struct {
	Field string // the field's JSON path, e.g. "total_cost_usd" or "findings.severity"
	Value string // the JSON type it had: "string", "number", "object", …
	Want  string // the Go type it should have decoded into
}

func (e FieldError) String() string {
	return fmt.Sprintf("%s is a JSON %s, not a %s", e.Field, e.Value, e.Want)
}

// DecodeObject decodes the JSON object data into v, a pointer to a struct. A field
// whose value has the wrong JSON type (a string where a number belongs, an object for
// a bool, …) is left out — at the depth where it is wrong: a nested field loses only
// itself, the rest of its object is kept — and listed in bad; every other field is
// decoded as usual. Unlike [json.Unmarshal], which reports only the first such field
// and stops decoding where a field's own UnmarshalJSON fails, bad lists each field
// that lost a value, in key order, and no field is lost for another's sake. err is
// non-nil only when data is not a JSON object of the right shape at all (a syntax
// error, an array): then nothing is usable.
func DecodeObject(data []byte, v any) (bad []FieldError, err error) {
	if err = json.Unmarshal(data, v); err == nil {
		return nil, nil // the common case: nothing more to allocate
	}
	return decodeFields(data, v, err)
}

// decodeFields is DecodeObject's slow path, for a record json.Unmarshal refused. It
// decodes the object again one top-level field at a time into v, so that a field
// whose decoding stops with an error — json.Unmarshal gives up on the rest of the
// object when a field's UnmarshalJSON returns one — takes no other field with it.
func decodeFields(data []byte, v any, err error) (bad []FieldError, _ error) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return nil, err
	}
	if te.Field == "" {
		return nil, err // the value itself is of the wrong type
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return []FieldError{fieldError(te)}, nil
	}
	rv := reflect.ValueOf(v).Elem()
	rv.SetZero()
	var buf bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		buf.Reset()
		buf.WriteByte('{')
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(fields[k])
		buf.WriteByte('}')
		// Into v itself: a field wrong deep inside keeps what was decoded around it.
		err := json.Unmarshal(buf.Bytes(), v)
		if errors.As(err, &te) {
			bad = append(bad, fieldError(te))
		}
	}
	if len(bad) == 0 { // cannot happen; never lose the first error
		bad = append(bad, fieldError(te))
	}
	return bad, nil
}

func fieldError(te *json.UnmarshalTypeError) FieldError {
	want := "value"
	if te.Type != nil {
		want = te.Type.String()
	}
	return FieldError{Field: te.Field, Value: te.Value, Want: want}
}

// Describe renders bad as one phrase for a problem's detail: "field x is a JSON string,
// not a float64" or "fields x, y have the wrong JSON type (x is …; y is …)".
func Describe(bad []FieldError) string {
	if len(bad) == 1 {
		return "field " + bad[0].String()
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d fields have the wrong JSON type (", len(bad))
	for i, e := range bad {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.String())
	}
	b.WriteByte(')')
	return b.String()
}

// Kind names the JSON type of the value b holds by its first byte past white space:
// object, array, string, boolean, null or number ("nothing" when b is blank). It does
// not validate b.
func Kind(b []byte) string {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
