package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// envelope is the result message of `claude --print --output-format json`:
// {"type":"result","subtype":"success","is_error":false,"result":"…",…}.
type envelope struct {
	Type    string  `json:"type"`
	Subtype string  `json:"subtype"`
	IsError bool    `json:"is_error"`
	Result  *string `json:"result"`
}

// ParseEnvelope extracts the model's answer from claude's standard output. It accepts:
//
//   - the single result object of --output-format json;
//   - a JSON array of messages (--output-format json with --verbose) or one message
//     per line (--output-format stream-json), taking the last "result" message;
//   - plain text (--output-format text), returned trimmed — including text that
//     happens to be JSON without a "type" field, which is the answer itself.
//
// A result message flagged is_error, or with an "error…" subtype, or without a result
// field is an error, as is empty output or JSON messages none of which is a result.
func ParseEnvelope(out []byte) (string, error) {
	s := bytes.TrimSpace(out)
	if len(s) == 0 {
		return "", errors.New("llm: claude printed nothing")
	}
	if s[0] != '{' && s[0] != '[' {
		return string(s), nil
	}
	var (
		found    *envelope
		typed    bool // some message had a "type"
		messages int
	)
	consider := func(raw json.RawMessage) {
		var e envelope
		if json.Unmarshal(raw, &e) != nil {
			return
		}
		if e.Type != "" {
			typed = true
		}
		if e.Type == "result" {
			found = &e
		}
	}
	dec := json.NewDecoder(bytes.NewReader(s))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			if messages == 0 {
				return string(s), nil // not JSON after all: a plain-text answer
			}
			if found != nil {
				break // trailing noise after the result
			}
			return "", fmt.Errorf("llm: malformed claude output: %w", err)
		}
		messages++
		if len(raw) > 0 && raw[0] == '[' {
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) == nil {
				for _, m := range list {
					consider(m)
				}
			}
			continue
		}
		consider(raw)
	}
	switch {
	case found == nil && !typed:
		return string(s), nil
	case found == nil:
		return "", errors.New(`llm: claude output has no "result" message`)
	case found.IsError || strings.HasPrefix(found.Subtype, "error"):
		msg := ""
		if found.Result != nil {
			msg = ": " + *found.Result
		}
		return "", fmt.Errorf("llm: claude reported an error (%s)%s", found.Subtype, msg)
	case found.Result == nil:
		return "", errors.New(`llm: claude result message has no "result" field`)
	}
	return *found.Result, nil
}

type analysisJSON struct {
	Outcome    *string         `json:"outcome"`
	Confidence json.RawMessage `json:"confidence"`
	Summary    string          `json:"summary"`
}

// ParseAnalysis reads the model's session analysis from its answer: a JSON object
// {"outcome": …, "confidence": …, "summary": …}, bare, inside a ``` or ```json fence,
// or with prose around it (the first object that has an "outcome" wins, nested ones
// included). The outcome must be one of the four; the confidence a number (or numeric
// string) in [0, 1].
func ParseAnalysis(answer string) (SessionAnalysis, error) {
	var firstErr error
	try := func(text string) (SessionAnalysis, bool) {
		a, err := decodeAnalysis(text)
		if err == nil {
			return a, true
		}
		if firstErr == nil && !errors.Is(err, errNoOutcome) {
			firstErr = err
		}
		return a, false
	}
	for _, block := range fencedBlocks(answer) {
		if a, ok := try(block); ok {
			return a, nil
		}
	}
	const maxStarts = 64 // bounds the work on adversarial input
	for i, n := 0, 0; n < maxStarts; n++ {
		j := strings.IndexByte(answer[i:], '{')
		if j < 0 {
			break
		}
		if a, ok := try(answer[i+j:]); ok {
			return a, nil
		}
		i += j + 1
	}
	if firstErr != nil {
		return SessionAnalysis{}, firstErr
	}
	return SessionAnalysis{}, fmt.Errorf("llm: no JSON object with an outcome in the answer %q", clipForError(answer))
}

var errNoOutcome = errors.New("llm: no outcome")

// decodeAnalysis decodes the first JSON value of text (trailing text is ignored).
func decodeAnalysis(text string) (SessionAnalysis, error) {
	var v analysisJSON
	if err := json.NewDecoder(strings.NewReader(text)).Decode(&v); err != nil || v.Outcome == nil {
		return SessionAnalysis{}, errNoOutcome
	}
	o, err := ParseOutcome(*v.Outcome)
	if err != nil {
		return SessionAnalysis{}, err
	}
	c, err := parseConfidence(v.Confidence)
	if err != nil {
		return SessionAnalysis{}, err
	}
	return SessionAnalysis{Outcome: o, Confidence: c, Summary: strings.TrimSpace(v.Summary)}, nil
}

func parseConfidence(raw json.RawMessage) (float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, errors.New("llm: analysis has no confidence")
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, fmt.Errorf("llm: confidence %s is not a number", raw)
		}
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return 0, fmt.Errorf("llm: confidence %q is not a number", s)
		}
	}
	if math.IsNaN(f) || f < 0 || f > 1 {
		return 0, fmt.Errorf("llm: confidence %v outside [0, 1]", f)
	}
	return f, nil
}

// fencedBlocks returns the contents of ``` fences in s, in order.
func fencedBlocks(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "```")
		if i < 0 {
			return out
		}
		s = s[i+3:]
		// Skip the info string ("json") up to the end of the line.
		if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.Contains(s[:nl], "{") {
			s = s[nl+1:]
		}
		j := strings.Index(s, "```")
		if j < 0 {
			return append(out, s)
		}
		out = append(out, s[:j])
		s = s[j+3:]
	}
}

func clipForError(s string) string {
	if len(s) > 200 {
		return shorten(s, 200)
	}
	return s
}
