package trace

import (
	"bytes"

	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// The trace reader's fast decoder: one pass over a line that validates all of it
// exactly as encoding/json does ([jsonl.Scanner]) and decodes, in the same pass, the
// envelope's fields, its data left in place; then one pass over the data that decodes
// the kind's payload. A line or payload it is not sure of — a syntax error, a field of
// an unexpected type, a key that matches a field only ignoring case, a field given
// twice, invalid UTF-8 — is left to jsonl.DecodeObject, as every line was before; on
// what the fast decoder accepts it yields what DecodeObject yields (FuzzDecodeEnvelope
// and FuzzDecodePayload hold it to that).

var (
	envelopeKeys  = jsonl.NewFields("ts", "kind", "epoch", "task", "data")
	taskStartKeys = jsonl.NewFields("title", "phase", "max_cycles", "max_budget_usd")
	agentDoneKeys = jsonl.NewFields("cycle", "role", "cost_usd", "duration_ms", "tokens")
	filterKeys    = jsonl.NewFields("cycle", "check", "passed", "output", "elapsed_ms")
	fixAttKeys    = jsonl.NewFields("cycle", "check", "attempt", "cost_usd", "passed")
	fixResKeys    = jsonl.NewFields("cycle", "check", "fixed", "attempts", "cost_usd")
	cycleDoneKeys = jsonl.NewFields("cycle", "max_cycles", "total_cost_usd", "max_budget_usd", "filter_check_name",
		"filter_output", "findings", "lint_fix_calls", "approved", "filter_fix_attempts", "filter_fix_cost_usd")
	findingKeys   = jsonl.NewFields("id", "severity", "description", "status")
	taskStateKeys = jsonl.NewFields("outcome", "cycles", "total_cost_usd", "reason")
)

// stringCache holds the envelope strings a file repeats on every line (its task and
// epoch), so that a line naming the same ones as the line before allocates none.
type stringCache struct{ task, epoch string }

// decodeEnvelope decodes line, a line that is valid UTF-8, into env (the zero
// envelope), or reports false when the line must be decoded by jsonl.DecodeObject; env
// is then partly filled and must be reset. env.Data is a sub-slice of line.
func decodeEnvelope(line []byte, env *envelope, cache *stringCache) bool {
	s := jsonl.NewScanner(line)
	var seen uint32
	ok := s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "ts":
			return once(&seen, 1) && str(s, &env.TS, nil)
		case "kind":
			return once(&seen, 2) && str(s, &env.Kind, nil)
		case "epoch":
			return once(&seen, 4) && str(s, &env.Epoch, &cache.epoch)
		case "task":
			return once(&seen, 8) && str(s, &env.Task, &cache.task)
		case "data":
			raw, ok := s.Raw()
			env.Data = raw
			return once(&seen, 16) && ok
		default:
			return !envelopeKeys.Folds(key) && s.Skip()
		}
	})
	if !ok || !s.End() {
		return false
	}
	env.Kind = kindName(env.Kind)
	return true
}

// kindName returns the package's constant for a known kind, so that the string a line
// decoded to is not kept.
func kindName(kind string) string {
	for _, k := range [...]string{KindTaskStart, KindAgentDone, KindFilterResult, KindFilterFixAttempt, KindFilterFixResult,
		KindCycleDone, KindTaskState} {
		if k == kind {
			return k
		}
	}
	return kind
}

// str decodes a string into *dst, or leaves *dst as it is for null; with cache, a
// string equal to *cache is *cache, and a new one replaces it.
func str(s *jsonl.Scanner, dst *string, cache *string) bool {
	raw, ok := s.Raw()
	switch {
	case !ok:
		return false
	case raw[0] == 'n':
		return true // null
	case raw[0] != '"':
		return false
	}
	raw = raw[1 : len(raw)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		*dst = jsonl.Unquote(raw)
		return true
	}
	if cache == nil {
		*dst = string(raw)
		return true
	}
	if string(raw) != *cache {
		*cache = string(raw)
	}
	*dst = *cache
	return true
}

// unknown reports whether a key of a payload that is none of keys can be skipped by the
// fast decoder: not one of them ignoring case (encoding/json would take it) and no
// near miss of one (the slow path decides whether to report it: see nearMisses).
func unknown(keys jsonl.Fields, key []byte) bool {
	if keys.Folds(key) {
		return false
	}
	_, near := keys.NearMiss(key)
	return !near
}

// once marks bit in seen and reports whether it was not marked yet.
func once(seen *uint32, bit uint32) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// payload is a kind's payload type with its fast decoder.
type payload interface {
	TaskStart | AgentDone | FilterResult | FilterFixAttempt | FilterFixResult | CycleDone | TaskState
}

// fastDecode decodes data, which is valid UTF-8, into v as json.Unmarshal would, or
// reports false — v unchanged — when it is not sure of it.
func fastDecode[T payload](data []byte, v *T) bool {
	tmp := *v // json.Unmarshal decodes into v as it is: so does the fast decoder
	s := jsonl.NewScanner(data)
	var ok bool
	switch p := any(&tmp).(type) {
	case *TaskStart:
		ok = p.decode(s)
	case *AgentDone:
		ok = p.decode(s)
	case *FilterResult:
		ok = p.decode(s)
	case *FilterFixAttempt:
		ok = p.decode(s)
	case *FilterFixResult:
		ok = p.decode(s)
	case *CycleDone:
		ok = p.decode(s)
	case *TaskState:
		ok = p.decode(s)
	}
	if !ok || !s.End() {
		return false
	}
	*v = tmp
	return true
}

func (p *TaskStart) decode(s *jsonl.Scanner) bool {
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "title":
			return once(&seen, 1) && s.String(&p.Title)
		case "phase":
			return once(&seen, 2) && s.String(&p.Phase)
		case "max_cycles":
			return once(&seen, 4) && s.Int(&p.MaxCycles)
		case "max_budget_usd":
			return once(&seen, 8) && s.Float64(&p.MaxBudgetUSD)
		}
		return unknown(taskStartKeys, key) && s.Skip()
	})
}

func (p *AgentDone) decode(s *jsonl.Scanner) bool {
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "cycle":
			return once(&seen, 1) && s.Int(&p.Cycle)
		case "role":
			return once(&seen, 2) && s.String(&p.Role)
		case "cost_usd":
			return once(&seen, 4) && s.Float64(&p.CostUSD)
		case "duration_ms":
			return once(&seen, 8) && s.Int64(&p.DurationMS)
		case "tokens":
			return once(&seen, 16) && s.Int64(&p.Tokens)
		}
		return unknown(agentDoneKeys, key) && s.Skip()
	})
}

func (p *FilterResult) decode(s *jsonl.Scanner) bool {
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "cycle":
			return once(&seen, 1) && s.Int(&p.Cycle)
		case "check":
			return once(&seen, 2) && s.String(&p.Check)
		case "passed":
			return once(&seen, 4) && s.Bool(&p.Passed)
		case "output":
			return once(&seen, 8) && s.String(&p.Output)
		case "elapsed_ms":
			return once(&seen, 16) && s.Int64(&p.ElapsedMS)
		}
		return unknown(filterKeys, key) && s.Skip()
	})
}

func (p *FilterFixAttempt) decode(s *jsonl.Scanner) bool {
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "cycle":
			return once(&seen, 1) && s.Int(&p.Cycle)
		case "check":
			return once(&seen, 2) && s.String(&p.Check)
		case "attempt":
			return once(&seen, 4) && s.Int(&p.Attempt)
		case "cost_usd":
			return once(&seen, 8) && s.Float64(&p.CostUSD)
		case "passed":
			return once(&seen, 16) && s.Bool(&p.Passed)
		}
		return unknown(fixAttKeys, key) && s.Skip()
	})
}

func (p *FilterFixResult) decode(s *jsonl.Scanner) bool {
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "cycle":
			return once(&seen, 1) && s.Int(&p.Cycle)
		case "check":
			return once(&seen, 2) && s.String(&p.Check)
		case "fixed":
			return once(&seen, 4) && s.Bool(&p.Fixed)
		case "attempts":
			return once(&seen, 8) && s.Int(&p.Attempts)
		case "cost_usd":
			return once(&seen, 16) && s.Float64(&p.CostUSD)
		}
		return unknown(fixResKeys, key) && s.Skip()
	})
}

func (p *CycleDone) decode(s *jsonl.Scanner) bool {
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "cycle":
			return once(&seen, 1) && s.Int(&p.Cycle)
		case "max_cycles":
			return once(&seen, 2) && s.Int(&p.MaxCycles)
		case "total_cost_usd":
			return once(&seen, 4) && s.Float64(&p.TotalCostUSD)
		case "max_budget_usd":
			return once(&seen, 8) && s.Float64(&p.MaxBudgetUSD)
		case "filter_check_name":
			return once(&seen, 16) && s.String(&p.FilterCheckName)
		case "filter_output":
			return once(&seen, 32) && s.String(&p.FilterOutput)
		case "findings":
			return once(&seen, 64) && decodeFindings(s, &p.Findings)
		case "lint_fix_calls":
			return once(&seen, 128) && s.Int(&p.LintFixCalls)
		case "approved":
			return once(&seen, 256) && s.Bool(&p.Approved)
		case "filter_fix_attempts":
			return once(&seen, 512) && s.Int(&p.FilterFixAttempts)
		case "filter_fix_cost_usd":
			return once(&seen, 1024) && s.Float64(&p.FilterFixCostUSD)
		}
		return unknown(cycleDoneKeys, key) && s.Skip()
	})
}

// decodeFindings decodes a list of findings, or null into nil, as encoding/json does
// into a nil slice: an empty list is an empty slice, a null element a zero Finding.
func decodeFindings(s *jsonl.Scanner, dst *[]Finding) bool {
	if s.Peek() == 'n' {
		*dst = nil
		return s.Null()
	}
	if *dst != nil {
		return false // encoding/json decodes into the slice's elements: not the fast decoder's case
	}
	out := []Finding{}
	ok := s.Array(func() bool {
		out = append(out, Finding{})
		if s.Peek() == 'n' {
			return s.Null()
		}
		return out[len(out)-1].decode(s)
	})
	*dst = out
	return ok
}

func (p *Finding) decode(s *jsonl.Scanner) bool {
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "id":
			return once(&seen, 1) && s.String(&p.ID)
		case "severity":
			return once(&seen, 2) && s.String(&p.Severity)
		case "description":
			return once(&seen, 4) && s.String(&p.Description)
		case "status":
			return once(&seen, 8) && s.String(&p.Status)
		}
		return !findingKeys.Folds(key) && s.Skip()
	})
}

func (p *TaskState) decode(s *jsonl.Scanner) bool {
	var seen uint32
	return s.Object(true, func(key []byte) bool {
		switch string(key) {
		case "outcome":
			return once(&seen, 1) && s.String(&p.Outcome)
		case "cycles":
			return once(&seen, 2) && s.Int(&p.Cycles)
		case "total_cost_usd":
			return once(&seen, 4) && s.Float64(&p.TotalCostUSD)
		case "reason":
			return once(&seen, 8) && s.String(&p.Reason)
		}
		return unknown(taskStateKeys, key) && s.Skip()
	})
}
