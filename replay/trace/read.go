package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/replay/clockfault"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// SourceName is the name runs read by this package carry in [input.Run.Source].
const SourceName = "trace"

// MaxLine is the longest trace line read; longer lines are reported and skipped.
const MaxLine = 64 << 20

// MaxBackstep is how far an event's ts may fall behind an earlier event's of its run
// before one of them is taken for a clock fault (see package clockfault).
const MaxBackstep = 10 * time.Minute

var knownKinds = map[string]bool{
	KindTaskStart: true, KindAgentDone: true, KindFilterResult: true, KindFilterFixAttempt: true,
	KindFilterFixResult: true, KindCycleDone: true, KindTaskState: true,
}

// Sniff reports whether head, the opening bytes of a file, looks like a run trace: one
// of its first JSON object lines ([jsonl.HeadObjects]) is a trace event
// ([SniffRecord]). A garbage first line, or a first event of a kind this version does
// not know, does not hide the file's format.
func Sniff(head []byte) bool {
	for obj := range jsonl.HeadObjects(head, 0) {
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
	line     int
	c        CycleDone
	stamp    int  // index into runBuilder.stamps
	inferred bool // the cycle number was unreadable and is taken from the cycle's place
}

// stamp is one event's time and line.
type stamp struct {
	t    time.Time
	line int
}

type runBuilder struct {
	run    *input.Run
	cycles []cycleAt
	start  TaskStart
	state  *TaskState
	msgs   []string    // add's messages, reused
	stamps []stamp     // every event's time, in file order
	times  []time.Time // the stamps' times once clock faults are placed
	// callStamps and checkStamps are the stamps of run.Calls and run.Checks.
	callStamps, checkStamps []int
	// tmp holds each kind's payload as it is decoded, so that decoding one (its address
	// goes to encoding/json) does not allocate it.
	tmp struct {
		agent      AgentDone
		filter     FilterResult
		fixAttempt FilterFixAttempt
		fixResult  FilterFixResult
		cycle      CycleDone
	}
}

// Read reads the runs of one trace file. file is the name used in problems and in
// [input.Run.File]. Runs come back sorted by key; problems in line order.
func Read(file string, r io.Reader) ([]*input.Run, []input.Problem) {
	return ReadOnly(file, r, nil)
}

// ReadOnly is Read building only the runs whose key keep accepts (nil: every run).
// The runs it returns are the ones Read returns with those keys, event for event; of
// the other runs' events only the key is read, and what is wrong with their data is
// not reported — the problems of a line as such (not JSON, no task, an unknown kind,
// a bad ts) are, as Read reports them. It is for a reader that replays only some runs
// and drops the problems of the file's other lines anyway: a shard of a split replay
// reading a file another shard reports on.
func ReadOnly(file string, r io.Reader, keep func(key string) bool) ([]*input.Run, []input.Problem) {
	rd := jsonl.NewReader(r, MaxLine)
	tr := &traceReader{file: file, builders: map[string]*runBuilder{}, keep: keep}
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tr.report(0, input.ProblemRead, "reading stopped after line %d: %v; the runs before it are kept", rd.Line(), err)
			break
		}
		if l.Oversize {
			tr.report(l.Num, input.ProblemOversize, "line of %d bytes exceeds the %d-byte limit; skipped", l.Len, MaxLine)
			continue
		}
		if l.Blank() {
			continue
		}
		valid := l.ValidUTF8()
		if !valid {
			tr.report(l.Num, input.ProblemInvalidUTF8, "line is not valid UTF-8; invalid bytes read as U+FFFD")
		}
		tr.line(l, valid)
	}
	rd.Close()
	keys := make([]string, 0, len(tr.builders))
	for k := range tr.builders {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	runs := make([]*input.Run, 0, len(keys))
	for _, k := range keys {
		run, more := tr.builders[k].finish()
		for _, p := range more {
			p.File = file
			tr.probs = append(tr.probs, p)
		}
		if run != nil {
			runs = append(runs, run)
		}
	}
	slices.SortStableFunc(tr.probs, func(a, b input.Problem) int { return a.Line - b.Line })
	return runs, tr.probs
}

type traceReader struct {
	file     string
	probs    []input.Problem
	builders map[string]*runBuilder
	strings  stringCache
	key      []byte   // the run key of a line, reused
	env      envelope // the envelope of a line, reused
	keep     func(key string) bool
	skipped  map[string]bool // the keys keep refused, asked once each
}

func (tr *traceReader) report(line int, kind input.ProblemKind, format string, args ...any) {
	tr.probs = append(tr.probs, input.Problem{File: tr.file, Line: line, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

// keeps reports whether keep accepts the run key, asking keep once per key.
func (tr *traceReader) keeps(key []byte) bool {
	if tr.skipped[string(key)] {
		return false
	}
	if tr.keep(string(key)) {
		return true
	}
	if tr.skipped == nil {
		tr.skipped = map[string]bool{}
	}
	tr.skipped[string(key)] = true
	return false
}

// line reads one line: one event, or the records of a line that holds several. valid
// says that the line is valid UTF-8: then the fast decoder reads what it can.
func (tr *traceReader) line(l jsonl.Line, valid bool) {
	env := &tr.env // reused, not allocated per line: a line's records are read once it is done with it
	*env = envelope{}
	var bad []jsonl.FieldError
	var err error
	if !valid || !decodeEnvelope(l.Bytes, env, &tr.strings) {
		*env = envelope{}
		valid = false // an odd line: its payload is decoded as before too
		bad, err = jsonl.DecodeObject(l.Bytes, env)
	}
	if err != nil {
		if recs, detail, ok := l.Split(); ok {
			tr.report(l.Num, input.ProblemMalformed, "%s", detail)
			for _, rec := range recs {
				tr.line(rec, rec.ValidUTF8())
			}
			return
		}
		if l.Unterminated {
			tr.report(l.Num, input.ProblemTruncated, "final line is cut off (%v); skipped", err)
		} else {
			tr.report(l.Num, input.ProblemMalformed, "not a JSON trace event: %v; skipped", err)
		}
		return
	}
	if len(bad) > 0 {
		tr.report(l.Num, input.ProblemInvalid, "event %s; read without it", jsonl.Describe(bad))
	}
	ts, err := time.Parse(time.RFC3339Nano, env.TS)
	switch {
	case env.Kind == "" || env.Task == "":
		tr.report(l.Num, input.ProblemInvalid, "event without kind or task; skipped")
		return
	case err != nil:
		tr.report(l.Num, input.ProblemInvalid, "ts %q is not an RFC 3339 time; skipped", env.TS)
		return
	case !knownKinds[env.Kind]:
		tr.report(l.Num, input.ProblemUnknownKind, "unknown event kind %q; skipped", env.Kind)
		return
	}
	ts = clockfault.Recorded(ts)
	key := append(tr.key[:0], env.Task...)
	if env.Epoch != "" {
		key = append(append(key, '@'), env.Epoch...)
	}
	tr.key = key
	b := tr.builders[string(key)]
	if b == nil && tr.keep != nil && !tr.keeps(key) {
		return
	}
	if b == nil {
		b = &runBuilder{run: &input.Run{Key: string(key), Source: SourceName, File: tr.file, Line: l.Num,
			TaskID: env.Task, Epoch: env.Epoch, FilterKnown: true, CostSource: input.CostMeasured, LintFixKnown: true}}
		tr.builders[b.run.Key] = b
	}
	if msg := b.add(env.Kind, env.Data, valid, ts, l.Num); msg != "" {
		tr.report(l.Num, input.ProblemInvalid, "%s %s", env.Kind, msg)
	}
}

// add records one event; it returns a description of what is wrong with it, or "".
func (b *runBuilder) add(kind string, data json.RawMessage, valid bool, ts time.Time, line int) string {
	r := b.run
	si := len(b.stamps)
	b.stamps = append(b.stamps, stamp{t: ts, line: line})
	msgs := b.msgs[:0]
	note := func(msg string) {
		if msg != "" {
			msgs = append(msgs, msg)
		}
	}
	defer func() { b.msgs = msgs[:0] }()
	switch kind {
	case KindTaskStart:
		msg, _, ok := decode(data, valid, &b.start)
		note(msg)
		if ok {
			note(inRange("max_cycles", &b.start.MaxCycles))
			checkLimits(&b.start.MaxCycles, &b.start.MaxBudgetUSD, note)
			r.Title, r.Phase = b.start.Title, b.start.Phase
		}
	case KindAgentDone:
		a := &b.tmp.agent
		*a = AgentDone{}
		msg, _, ok := decode(data, valid, a)
		note(msg)
		if ok {
			note(inRange("cycle", &a.Cycle))
		}
		switch {
		case !ok:
		case a.Role == "":
			note("without a role; skipped")
		default:
			r.Calls = append(r.Calls, input.AgentCall{Cycle: a.Cycle, Role: a.Role, CostUSD: a.CostUSD,
				DurationMS: a.DurationMS, Tokens: a.Tokens, Time: ts, Line: line})
			b.callStamps = append(b.callStamps, si)
			if !(a.CostUSD >= 0) {
				note(fmt.Sprintf("cost_usd %v is negative or not a number; kept as recorded", a.CostUSD))
			}
		}
	case KindFilterResult:
		f := &b.tmp.filter
		*f = FilterResult{}
		msg, _, ok := decode(data, valid, f)
		note(msg)
		if ok {
			note(inRange("cycle", &f.Cycle))
			e := input.CheckEvent{Cycle: f.Cycle, Kind: kind, Check: f.Check, Passed: f.Passed, Time: ts}
			if !f.Passed {
				e.OutputLen = len(f.Output)
			}
			b.check(si, e)
		}
	case KindFilterFixAttempt:
		f := &b.tmp.fixAttempt
		*f = FilterFixAttempt{}
		msg, _, ok := decode(data, valid, f)
		note(msg)
		if ok {
			note(inRange("cycle", &f.Cycle))
			note(inRange("attempt", &f.Attempt))
			b.check(si, input.CheckEvent{Cycle: f.Cycle, Kind: kind, Check: f.Check, Passed: f.Passed,
				Attempt: f.Attempt, CostUSD: f.CostUSD, Time: ts})
		}
	case KindFilterFixResult:
		f := &b.tmp.fixResult
		*f = FilterFixResult{}
		msg, _, ok := decode(data, valid, f)
		note(msg)
		if ok {
			note(inRange("cycle", &f.Cycle))
			note(inRange("attempts", &f.Attempts))
			b.check(si, input.CheckEvent{Cycle: f.Cycle, Kind: kind, Check: f.Check, Passed: f.Fixed,
				Attempt: f.Attempts, CostUSD: f.CostUSD, Time: ts})
		}
	case KindCycleDone:
		c := &b.tmp.cycle
		*c = CycleDone{}
		msg, bad, ok := decode(data, valid, c)
		note(msg)
		if !ok {
			break
		}
		inferred := slices.ContainsFunc(bad, func(e jsonl.FieldError) bool { return e.Field == "cycle" })
		if m := inRange("cycle", &c.Cycle); m != "" {
			note(m)
			inferred = true
		}
		note(inRange("max_cycles", &c.MaxCycles))
		checkLimits(&c.MaxCycles, &c.MaxBudgetUSD, note)
		note(inRange("lint_fix_calls", &c.LintFixCalls))
		note(inRange("filter_fix_attempts", &c.FilterFixAttempts))
		if inferred {
			// The cycle number is lost: the cycle_done is the one after the run's
			// cycles so far, in file order.
			c.Cycle = 1
			for _, at := range b.cycles {
				c.Cycle = max(c.Cycle, at.c.Cycle+1)
			}
			note(fmt.Sprintf("cycle taken as %d, the one after the run's cycles before it", c.Cycle))
		}
		if c.Cycle < 1 {
			note(fmt.Sprintf("cycle %d is not a 1-based cycle number; skipped", c.Cycle))
			break
		}
		b.cycles = append(b.cycles, cycleAt{line: line, c: *c, stamp: si, inferred: inferred})
	case KindTaskState:
		var st TaskState
		msg, _, ok := decode(data, valid, &st)
		note(msg)
		if !ok {
			break
		}
		note(inRange("cycles", &st.Cycles))
		if o := input.Outcome(st.Outcome); !o.Valid() || o == input.OutcomeIncomplete {
			note(fmt.Sprintf("outcome %q is not one of approved, max_cycles, budget_exceeded, decomposed, error; skipped", st.Outcome))
			break
		}
		prev := b.state
		b.state = &st
		if prev != nil {
			note(fmt.Sprintf("repeats the run's outcome (%s, now %s); the last one counts", prev.Outcome, st.Outcome))
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	return strings.Join(msgs, "; ")
}

// inRange reads *v, an integer field of an event's payload, as 0 when it lies outside
// the range of a 32-bit integer, as a field of the wrong type is read without it, and
// says so ("" when it is in range): the output tables hold counts and cycle numbers as
// 32-bit integers, where a wider value would wrap (2147483648 as -2147483648) while
// the scoring used it whole.
func inRange(field string, v *int) string {
	if *v >= math.MinInt32 && *v <= math.MaxInt32 {
		return ""
	}
	msg := fmt.Sprintf("field %s %d is outside the range of a 32-bit integer; read without it", field, *v)
	*v = 0
	return msg
}

// checkLimits reads a negative max_cycles or max_budget_usd as not given (0), as a
// field of the wrong type is read without it, and says so through note: a limit is a
// number of cycles or an amount of money. A limit of 0 is left as it is: quasar's
// configuration takes 0 for "not set", and so does the reader (a cycle_done's 0 leaves
// the run's limit to its task_start).
func checkLimits(maxCycles *int, maxBudget *float64, note func(string)) {
	if *maxCycles < 0 {
		note(fmt.Sprintf("field max_cycles %d is negative; read without it", *maxCycles))
		*maxCycles = 0
	}
	if *maxBudget < 0 {
		note(fmt.Sprintf("field max_budget_usd %v is negative; read without it", *maxBudget))
		*maxBudget = 0
	}
}

// check records a filter check or fix attempt.
func (b *runBuilder) check(si int, c input.CheckEvent) {
	c.Line = b.stamps[si].line
	b.run.Checks = append(b.run.Checks, c)
	b.checkStamps = append(b.checkStamps, si)
}

// decode reads an event's payload into v, field by field where it must: a field of
// the wrong JSON type is lost, not the event. valid says that data is valid UTF-8:
// then the fast decoder reads it when it can. It returns what is wrong ("" when
// nothing), the fields lost, and whether the event is usable at all.
func decode[T payload](data json.RawMessage, valid bool, v *T) (msg string, bad []jsonl.FieldError, ok bool) {
	if valid && fastDecode(data, v) {
		return "", nil, true
	}
	bad, err := jsonl.DecodeObject(data, v)
	switch {
	case err != nil:
		return "payload: " + err.Error() + "; skipped", nil, false
	case len(bad) > 0:
		msg = "payload: " + jsonl.Describe(bad) + "; read without it"
	}
	if near := nearMisses(data, v); near != "" {
		msg = strings.Join(slices.DeleteFunc([]string{msg, "payload: " + near}, func(s string) bool { return s == "" }), "; ")
	}
	return msg, bad, true
}

// payloadKeys are the fields of a payload type.
func payloadKeys(v any) jsonl.Fields {
	switch v.(type) {
	case *TaskStart:
		return taskStartKeys
	case *AgentDone:
		return agentDoneKeys
	case *FilterResult:
		return filterKeys
	case *FilterFixAttempt:
		return fixAttKeys
	case *FilterFixResult:
		return fixResKeys
	case *CycleDone:
		return cycleDoneKeys
	case *TaskState:
		return taskStateKeys
	}
	return nil
}

// nearMisses describes the keys of a payload object v is decoded from that are near
// misses of its fields — misspelt, read as absent: 'field "aproved" is not the
// format's (did you mean "approved"?); ignored' — or is "". A key beside the very field
// it resembles ("duration" beside "duration_ms") is another field, not a misspelling;
// so is a cycle_done field in a task_state, which a final CycleState may carry
// ("cycle").
func nearMisses[T payload](data []byte, v *T) string {
	keys := payloadKeys(v)
	_, final := any(v).(*TaskState)
	var present, lower []string
	s := jsonl.NewScanner(data)
	s.Object(true, func(key []byte) bool {
		present, lower = append(present, string(key)), append(lower, strings.ToLower(string(key)))
		return s.Skip()
	})
	var out []string
	for i, key := range present {
		if name, ok := keys.NearMiss([]byte(key)); ok && !(final && cycleDoneKeys[lower[i]]) && !slices.Contains(lower, name) {
			out = append(out, fmt.Sprintf("field %q is not the format's (did you mean %q?)", key, name))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, ", ") + "; ignored"
}

// placeTimes finds the clock faults among the run's event times, reports them, places
// each faulty event at its trusted neighbour's time and sets the run's start and end
// from the times as placed.
func (b *runBuilder) placeTimes(report func(line int, kind input.ProblemKind, format string, args ...any)) {
	b.times = make([]time.Time, len(b.stamps))
	for i, st := range b.stamps {
		b.times[i] = st.t
	}
	if !clockfault.Consistent(len(b.times), func(i int) time.Time { return b.times[i] }, MaxBackstep) {
		for _, f := range clockfault.Find(b.times, MaxBackstep) {
			st := b.stamps[f.Index]
			report(st.line, input.ProblemInvalid, "ts %s is %s the run's events around it (a clock fault); the event is placed at line %d's time, in file order",
				clockfault.Format(st.t), f.Describe(st.t), b.stamps[f.From].line)
			b.times[f.Index] = f.Placed
		}
		for i, si := range b.callStamps {
			b.run.Calls[i].Time = b.times[si]
		}
		for i, si := range b.checkStamps {
			b.run.Checks[i].Time = b.times[si]
		}
	}
	for i, t := range b.times {
		if i == 0 || t.Before(b.run.Start) {
			b.run.Start = t
		}
		if t.After(b.run.End) {
			b.run.End = t
		}
	}
}

// finish assembles the run, or returns nil when it has no usable cycle.
func (b *runBuilder) finish() (*input.Run, []input.Problem) {
	r := b.run
	var probs []input.Problem
	report := func(line int, kind input.ProblemKind, format string, args ...any) {
		probs = append(probs, input.Problem{Line: line, Kind: kind, Detail: fmt.Sprintf("run %s: ", r.Key) + fmt.Sprintf(format, args...)})
	}
	b.placeTimes(report)
	// By cycle; a cycle whose number was read wins over one whose number was inferred.
	slices.SortStableFunc(b.cycles, func(x, y cycleAt) int {
		if x.c.Cycle != y.c.Cycle {
			return x.c.Cycle - y.c.Cycle
		}
		return boolInt(x.inferred) - boolInt(y.inferred)
	})
	prevCost := 0.0
	lintFixes := 0                                                  // the run's lint-fix calls so far, which the run table sums as a 32-bit integer
	maxCycles, maxBudget := b.start.MaxCycles, b.start.MaxBudgetUSD // the limits in force, as the cycles go
	for _, at := range b.cycles {
		c := at.c
		want := len(r.Cycles) + 1
		switch {
		case c.Cycle < want && at.inferred:
			report(at.line, input.ProblemInvalid, "the cycle_done whose cycle number was taken as %d repeats a recorded cycle %d; skipped", c.Cycle, c.Cycle)
			continue
		case c.Cycle < want:
			report(at.line, input.ProblemInvalid, "cycle %d recorded twice; the first record counts", c.Cycle)
			continue
		}
		if c.Cycle > want {
			report(at.line, input.ProblemInvalid, "cycle %d missing; cycles from %d on are dropped", want, c.Cycle)
			r.CyclesDropped = true
			break
		}
		if !(c.TotalCostUSD >= prevCost) || math.IsInf(c.TotalCostUSD, 0) {
			report(at.line, input.ProblemInvalid, "cumulative cost %v at cycle %d is below the previous %v or not finite; kept as recorded",
				c.TotalCostUSD, c.Cycle, prevCost)
		} else {
			prevCost = c.TotalCostUSD
		}
		if sum := lintFixes + c.LintFixCalls; sum < math.MinInt32 || sum > math.MaxInt32 {
			report(at.line, input.ProblemInvalid, "lint_fix_calls %d at cycle %d takes the run's total past the range of a 32-bit integer; read without it",
				c.LintFixCalls, c.Cycle)
			c.LintFixCalls = 0
		}
		lintFixes += c.LintFixCalls
		cyc := input.Cycle{Cycle: c.Cycle, Time: b.times[at.stamp], TotalCostUSD: c.TotalCostUSD,
			FilterCheckName: c.FilterCheckName, FilterOutput: c.FilterOutput, LintFixCalls: c.LintFixCalls,
			Approved: c.Approved, FilterFixAttempts: c.FilterFixAttempts, FilterFixCostUSD: c.FilterFixCostUSD, Line: at.line}
		for _, f := range c.Findings {
			rf, bad := f.reviewFinding(c.Cycle)
			if bad != "" {
				report(at.line, input.ProblemInvalid, "cycle %d finding: %s", c.Cycle, bad)
			}
			cyc.Findings = append(cyc.Findings, rf)
		}
		if c.MaxCycles > 0 {
			r.MaxCycles, maxCycles = c.MaxCycles, c.MaxCycles
		}
		if c.MaxBudgetUSD > 0 {
			r.MaxBudgetUSD, maxBudget = c.MaxBudgetUSD, c.MaxBudgetUSD
		}
		cyc.MaxCycles, cyc.MaxBudgetUSD = maxCycles, maxBudget
		r.Cycles = append(r.Cycles, cyc)
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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
