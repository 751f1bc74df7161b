package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// SourceName is the name runs read by this package carry in [input.Run.Source].
const SourceName = "trace"

// MaxLine is the longest trace line read; longer lines are reported and skipped.
const MaxLine = 64 << 20

var knownKinds = map[string]bool{
	KindTaskStart: true, KindAgentDone: true, KindFilterResult: true, KindFilterFixAttempt: true,
	KindFilterFixResult: true, KindCycleDone: true, KindTaskState: true,
}

// Sniff reports whether head, the opening bytes of a file, looks like a run trace: one
// of its first JSON object lines ([jsonl.HeadObjects]) is a trace event
// ([SniffRecord]). A garbage first line, or a first event of a kind this version does
// not know, does not hide the file's format.
func Sniff(head []byte) bool {
	for _, obj := range jsonl.HeadObjects(head, 0) {
		if SniffRecord(obj) {
			return true
		}
	}
	return false
}

// SniffRecord reports whether a record's top-level keys (string values, others "")
// are a trace event's: ts, kind and task, and kind is a trace kind.
func SniffRecord(obj map[string]string) bool {
	_, hasTS := obj["ts"]
	_, hasTask := obj["task"]
	return hasTS && hasTask && knownKinds[obj["kind"]]
}

type envelope struct {
	TS    string          `json:"ts"`
	Kind  string          `json:"kind"`
	Epoch string          `json:"epoch"`
	Task  string          `json:"task"`
	Data  json.RawMessage `json:"data"`
}

type cycleAt struct {
	line int
	c    CycleDone
	ts   time.Time
}

type runBuilder struct {
	run    *input.Run
	cycles []cycleAt
	start  TaskStart
	state  *TaskState
}

// Read reads the runs of one trace file. file is the name used in problems and in
// [input.Run.File]. Runs come back sorted by key; problems in line order.
func Read(file string, r io.Reader) ([]*input.Run, []input.Problem) {
	rd := jsonl.NewReader(r, MaxLine)
	var probs []input.Problem
	report := func(line int, kind input.ProblemKind, format string, args ...any) {
		probs = append(probs, input.Problem{File: file, Line: line, Kind: kind, Detail: fmt.Sprintf(format, args...)})
	}
	builders := map[string]*runBuilder{}
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			report(0, input.ProblemRead, "reading stopped after line %d: %v; the runs before it are kept", rd.Line(), err)
			break
		}
		if l.Oversize {
			report(l.Num, input.ProblemOversize, "line of %d bytes exceeds the %d-byte limit; skipped", l.Len, MaxLine)
			continue
		}
		if l.Blank() {
			continue
		}
		if !l.ValidUTF8() {
			report(l.Num, input.ProblemInvalidUTF8, "line is not valid UTF-8; invalid bytes read as U+FFFD")
		}
		var env envelope
		if err := json.Unmarshal(l.Bytes, &env); err != nil {
			if l.Unterminated {
				report(l.Num, input.ProblemTruncated, "final line is cut off (%v); skipped", err)
			} else {
				report(l.Num, input.ProblemMalformed, "not a JSON trace event: %v; skipped", err)
			}
			continue
		}
		ts, err := time.Parse(time.RFC3339Nano, env.TS)
		switch {
		case env.Kind == "" || env.Task == "":
			report(l.Num, input.ProblemInvalid, "event without kind or task; skipped")
			continue
		case err != nil:
			report(l.Num, input.ProblemInvalid, "ts %q is not an RFC 3339 time; skipped", env.TS)
			continue
		case !knownKinds[env.Kind]:
			report(l.Num, input.ProblemUnknownKind, "unknown event kind %q; skipped", env.Kind)
			continue
		}
		ts = ts.UTC()
		key := env.Task
		if env.Epoch != "" {
			key += "@" + env.Epoch
		}
		b := builders[key]
		if b == nil {
			b = &runBuilder{run: &input.Run{Key: key, Source: SourceName, File: file, Line: l.Num,
				TaskID: env.Task, Epoch: env.Epoch, Start: ts, FilterKnown: true, CostSource: input.CostMeasured, LintFixKnown: true}}
			builders[key] = b
		}
		if ts.Before(b.run.Start) {
			b.run.Start = ts
		}
		if ts.After(b.run.End) {
			b.run.End = ts
		}
		if msg := b.add(env.Kind, env.Data, ts, l.Num); msg != "" {
			report(l.Num, input.ProblemInvalid, "%s %s", env.Kind, msg)
		}
	}
	keys := make([]string, 0, len(builders))
	for k := range builders {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	runs := make([]*input.Run, 0, len(keys))
	for _, k := range keys {
		run, more := builders[k].finish()
		for _, p := range more {
			p.File = file
			probs = append(probs, p)
		}
		if run != nil {
			runs = append(runs, run)
		}
	}
	slices.SortStableFunc(probs, func(a, b input.Problem) int { return a.Line - b.Line })
	return runs, probs
}

// add records one event; it returns a description of what is wrong with it, or "".
func (b *runBuilder) add(kind string, data json.RawMessage, ts time.Time, line int) string {
	r := b.run
	switch kind {
	case KindTaskStart:
		if msg := decode(data, &b.start); msg != "" {
			return msg
		}
		r.Title, r.Phase = b.start.Title, b.start.Phase
	case KindAgentDone:
		var a AgentDone
		if msg := decode(data, &a); msg != "" {
			return msg
		}
		if a.Role == "" {
			return "without a role; skipped"
		}
		r.Calls = append(r.Calls, input.AgentCall{Cycle: a.Cycle, Role: a.Role, CostUSD: a.CostUSD,
			DurationMS: a.DurationMS, Tokens: a.Tokens, Time: ts})
		if !(a.CostUSD >= 0) {
			return fmt.Sprintf("cost_usd %v is negative or not a number; kept as recorded", a.CostUSD)
		}
	case KindFilterResult:
		var f FilterResult
		if msg := decode(data, &f); msg != "" {
			return msg
		}
		r.Checks = append(r.Checks, input.CheckEvent{Cycle: f.Cycle, Kind: kind, Check: f.Check, Passed: f.Passed, Time: ts})
	case KindFilterFixAttempt:
		var f FilterFixAttempt
		if msg := decode(data, &f); msg != "" {
			return msg
		}
		r.Checks = append(r.Checks, input.CheckEvent{Cycle: f.Cycle, Kind: kind, Check: f.Check, Passed: f.Passed,
			Attempt: f.Attempt, CostUSD: f.CostUSD, Time: ts})
	case KindFilterFixResult:
		var f FilterFixResult
		if msg := decode(data, &f); msg != "" {
			return msg
		}
		r.Checks = append(r.Checks, input.CheckEvent{Cycle: f.Cycle, Kind: kind, Check: f.Check, Passed: f.Fixed,
			Attempt: f.Attempts, CostUSD: f.CostUSD, Time: ts})
	case KindCycleDone:
		var c CycleDone
		if msg := decode(data, &c); msg != "" {
			return msg
		}
		if c.Cycle < 1 {
			return fmt.Sprintf("cycle %d is not a 1-based cycle number; skipped", c.Cycle)
		}
		b.cycles = append(b.cycles, cycleAt{line: line, c: c, ts: ts})
	case KindTaskState:
		var s TaskState
		if msg := decode(data, &s); msg != "" {
			return msg
		}
		if o := input.Outcome(s.Outcome); !o.Valid() || o == input.OutcomeIncomplete {
			return fmt.Sprintf("outcome %q is not one of approved, max_cycles, budget_exceeded, decomposed, error; skipped", s.Outcome)
		}
		prev := b.state
		b.state = &s
		if prev != nil {
			return fmt.Sprintf("repeats the run's outcome (%s, now %s); the last one counts", prev.Outcome, s.Outcome)
		}
	}
	return ""
}

// decode unmarshals an event's payload into v; it returns what is wrong, or "".
func decode[T any](data json.RawMessage, v *T) string {
	if err := json.Unmarshal(data, v); err != nil {
		return "payload: " + err.Error() + "; skipped"
	}
	return ""
}

// finish assembles the run, or returns nil when it has no usable cycle.
func (b *runBuilder) finish() (*input.Run, []input.Problem) {
	r := b.run
	var probs []input.Problem
	report := func(line int, kind input.ProblemKind, format string, args ...any) {
		probs = append(probs, input.Problem{Line: line, Kind: kind, Detail: fmt.Sprintf("run %s: ", r.Key) + fmt.Sprintf(format, args...)})
	}
	slices.SortStableFunc(b.cycles, func(x, y cycleAt) int { return x.c.Cycle - y.c.Cycle })
	prevCost := 0.0
	for _, at := range b.cycles {
		c := at.c
		want := len(r.Cycles) + 1
		if c.Cycle < want {
			report(at.line, input.ProblemInvalid, "cycle %d recorded twice; the first record counts", c.Cycle)
			continue
		}
		if c.Cycle > want {
			report(at.line, input.ProblemInvalid, "cycle %d missing; cycles from %d on are dropped", want, c.Cycle)
			break
		}
		if !(c.TotalCostUSD >= prevCost) || math.IsInf(c.TotalCostUSD, 0) {
			report(at.line, input.ProblemInvalid, "cumulative cost %v at cycle %d is below the previous %v or not finite; kept as recorded",
				c.TotalCostUSD, c.Cycle, prevCost)
		} else {
			prevCost = c.TotalCostUSD
		}
		cyc := input.Cycle{Cycle: c.Cycle, Time: at.ts, TotalCostUSD: c.TotalCostUSD,
			FilterCheckName: c.FilterCheckName, FilterOutput: c.FilterOutput, LintFixCalls: c.LintFixCalls,
			Approved: c.Approved, FilterFixAttempts: c.FilterFixAttempts, FilterFixCostUSD: c.FilterFixCostUSD}
		for _, f := range c.Findings {
			cyc.Findings = append(cyc.Findings, f.reviewFinding(c.Cycle))
		}
		r.Cycles = append(r.Cycles, cyc)
		if c.MaxCycles > 0 {
			r.MaxCycles = c.MaxCycles
		}
		if c.MaxBudgetUSD > 0 {
			r.MaxBudgetUSD = c.MaxBudgetUSD
		}
	}
	if len(r.Cycles) == 0 {
		report(r.Line, input.ProblemUnusable, "no usable cycle_done event; run skipped")
		return nil, probs
	}
	if r.MaxCycles == 0 {
		r.MaxCycles = b.start.MaxCycles
	}
	if r.MaxBudgetUSD == 0 {
		r.MaxBudgetUSD = b.start.MaxBudgetUSD
	}
	switch {
	case b.state != nil:
		r.Outcome, r.Reason = input.Outcome(b.state.Outcome), strings.TrimSpace(b.state.Reason)
	case r.LastCycle().Approved:
		r.Outcome, r.Reason = input.OutcomeApproved, "no task_state; the last cycle was approved"
	default:
		r.Outcome = input.OutcomeIncomplete
	}
	return r, probs
}
