package fixsim

import (
	"cmp"
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/trace"
)

// fixEvent is a recorded fix-loop event of a check in a cycle.
func fixEvent(cycle int, kind, check string, passed bool, attempt int, cost float64) input.CheckEvent {
	return input.CheckEvent{Cycle: cycle, Kind: kind, Check: check, Passed: passed, Attempt: attempt, CostUSD: cost}
}

// TestObserveRecordedLoop: a run recorded with the inner fix loop on is observed as the
// loop met it — every failure its chain met, the ones fixed inside their cycle (which
// the cycle's end no longer names) included, each with what the loop did — from the
// fix events, or from the cycle's counts and filter_fix calls where no event was
// recorded; what does not add up is reported and read as the row says.
func TestObserveRecordedLoop(t *testing.T) {
	failed := func(cycle int, check string) input.CheckEvent {
		e := fixEvent(cycle, kindFilterResult, check, false, 0, 0)
		e.OutputLen = 40
		return e
	}
	attempts := func(cycle int, check string, cost float64, passed ...bool) []input.CheckEvent {
		var es []input.CheckEvent
		for i, p := range passed {
			es = append(es, fixEvent(cycle, kindFixAttempt, check, p, i+1, cost))
		}
		return es
	}
	join := func(parts ...[]input.CheckEvent) []input.CheckEvent { return slices.Concat(parts...) }
	fixCall := func(cycle int, cost float64) input.AgentCall {
		return input.AgentCall{Cycle: cycle, Role: "filter_fix", CostUSD: cost}
	}
	ended := func(check string, cost float64, fixAttempts int, fixCost float64) input.Cycle {
		c := cyc(check, cost)
		c.FilterFixAttempts, c.FilterFixCostUSD = fixAttempts, fixCost
		return c
	}
	const out = 23 // len(cyc's output)
	tests := []struct {
		name     string
		cycles   []input.Cycle
		checks   []input.CheckEvent
		calls    []input.AgentCall // beside two coder calls of $2 and $4
		outcome  input.Outcome     // approved when empty
		loopOn   bool
		want     []Failure // Cycle, Check, OutputLen, Next, Recorded compared
		meanCyc  float64
		problems []string
	}{
		{name: "no sign of the loop: simulated as before",
			cycles: []input.Cycle{cyc("test", 1), cyc("", 2)},
			checks: []input.CheckEvent{failed(1, "test")},
			want:   []Failure{{Cycle: 1, Check: "test", OutputLen: out, Next: Cleared}}, meanCyc: 1},
		{name: "fixed at the second attempt: the cycle's end names no failure",
			cycles: []input.Cycle{ended("", 3, 0, 0.5), cyc("", 4)},
			checks: join([]input.CheckEvent{failed(1, "build")}, attempts(1, "build", 0.25, false, true),
				[]input.CheckEvent{fixEvent(1, kindFixResult, "build", true, 2, 0.5)}),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: 40, Next: Cleared,
				Recorded: Recorded{Attempts: 2, Reruns: 2, Passed: 1, Fixed: true, CostUSD: 0.5}}}, meanCyc: 3.5 / 2},
		{name: "exhausted: the cycle ends failing the check, the next cycle clears it",
			cycles: []input.Cycle{ended("test", 2, 3, 0.75), cyc("", 4)},
			checks: join([]input.CheckEvent{failed(1, "test")}, attempts(1, "test", 0.25, false, false, false),
				[]input.CheckEvent{fixEvent(1, kindFixResult, "test", false, 3, 0.75)}),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "test", OutputLen: out, Next: Cleared,
				Recorded: Recorded{Attempts: 3, Reruns: 3, CostUSD: 0.75}}}, meanCyc: 3.25 / 2},
		{name: "only the verdict: its attempts and the pass of the last",
			cycles: []input.Cycle{cyc("", 3)},
			checks: []input.CheckEvent{fixEvent(1, kindFixResult, "vet", true, 3, 0.6)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "vet", Recorded: Recorded{Attempts: 3, Reruns: 3, Passed: 1, Fixed: true, CostUSD: 0.6}}},
			meanCyc: 2.4},
		{name: "only the attempts: fixed when one passed",
			cycles: []input.Cycle{cyc("", 3)},
			checks: attempts(1, "lint", 0.5, true),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "lint", Recorded: Recorded{Attempts: 1, Reruns: 1, Passed: 1, Fixed: true, CostUSD: 0.5}}},
			meanCyc: 2.5},
		{name: "only the cycle's counts: a failure its end still names was not fixed; the next cycle's has no counts",
			cycles: []input.Cycle{ended("build", 3, 2, 1), cyc("build", 5)},
			loopOn: true, want: []Failure{
				{Cycle: 1, Check: "build", OutputLen: out, Next: NotCleared, Recorded: Recorded{Attempts: 2, CostUSD: 1}},
				{Cycle: 2, Check: "build", OutputLen: out}}, meanCyc: 2},
		{name: "only the counts, reset by the fix: the failed chain result no longer named was fixed, in one attempt at least, no re-run known",
			cycles: []input.Cycle{ended("", 3, 0, 0.5)},
			checks: []input.CheckEvent{failed(1, "test")},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "test", OutputLen: 40, Recorded: Recorded{Attempts: 1, Fixed: true, CostUSD: 0.5}}},
			meanCyc: 2.5},
		{name: "only the filter_fix calls: their number and cost",
			cycles: []input.Cycle{cyc("test", 3)}, calls: []input.AgentCall{fixCall(1, 0.4), fixCall(1, 0.4), fixCall(1, 0.4)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "test", OutputLen: out, Recorded: Recorded{Attempts: 3, CostUSD: 1.2000000000000002}}},
			meanCyc: 3 - 1.2000000000000002},
		{name: "claims, guarded: no attempt",
			cycles: []input.Cycle{cyc("claims", 2), ended("test", 4, 1, 0.5)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "claims", OutputLen: out, Next: Unknown},
				{Cycle: 2, Check: "test", OutputLen: out, Recorded: Recorded{Attempts: 1, CostUSD: 0.5}}}, meanCyc: 3.5 / 2},
		{name: "counts only: counts carried into claims are no attempts at it",
			cycles: []input.Cycle{ended("build", 2, 3, 0.75), ended("claims", 3, 3, 0.75)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Next: Cleared, Recorded: Recorded{Attempts: 3, CostUSD: 0.75}},
				{Cycle: 2, Check: "claims", OutputLen: out}},
			meanCyc: 2.25 / 2, problems: []string{"cycle 2: fix attempts recorded at claims, which the loop never attempts"}},
		{name: "the budget stopped the last attempt before its re-run: no trial of p, no problem",
			outcome: input.OutcomeBudgetExceeded, cycles: []input.Cycle{ended("build", 3, 1, 0.5)},
			checks: join(attempts(1, "build", 0.25, false, false), []input.CheckEvent{fixEvent(1, kindFixResult, "build", false, 2, 0.5)}),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Recorded: Recorded{Attempts: 2, Reruns: 1, CostUSD: 0.5, BudgetStop: true}}},
			meanCyc: 2.5},
		{name: "an event of the cycle a cut-off run ended in, without its end, is no sign of the loop",
			outcome: input.OutcomeIncomplete, cycles: []input.Cycle{cyc("test", 1)},
			checks: attempts(2, "test", 0.25, false),
			want:   []Failure{{Cycle: 1, Check: "test", OutputLen: out}}, meanCyc: 1},
		{name: "an event after the last cycle of a run that ended there is reported",
			cycles: []input.Cycle{cyc("test", 1)},
			checks: attempts(2, "test", 0.25, false),
			want:   []Failure{{Cycle: 1, Check: "test", OutputLen: out}}, meanCyc: 1,
			problems: []string{"1 filter or fix event(s) or filter_fix call(s) of cycle 2, whose cycle_done was not read"}},
		{name: "a fix's cost carried into a passing cycle, as the seed's loop keeps it, is no problem",
			cycles: []input.Cycle{ended("", 3, 0, 0.25), ended("", 5, 0, 0.25)},
			checks: join([]input.CheckEvent{failed(1, "build")}, attempts(1, "build", 0.25, true)),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: 40, Next: Cleared,
				Recorded: Recorded{Attempts: 1, Reruns: 1, Passed: 1, Fixed: true, CostUSD: 0.25}}}, meanCyc: 4.75 / 2},
		{name: "counts carried over are read by their increase",
			cycles: []input.Cycle{ended("build", 2, 3, 0.75), ended("", 4, 3, 0.75), ended("test", 6, 5, 1.25)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Next: Cleared, Recorded: Recorded{Attempts: 3, CostUSD: 0.75}},
				{Cycle: 3, Check: "test", OutputLen: out, Recorded: Recorded{Attempts: 2, CostUSD: 0.5}}}, meanCyc: 4.75 / 3},
		{name: "a cycle's filter_fix calls are its attempts, whatever its counts say",
			cycles: []input.Cycle{ended("build", 2, 3, 0.75), ended("build", 4, 6, 1.5)},
			calls:  []input.AgentCall{fixCall(1, 0.25), fixCall(1, 0.25), fixCall(1, 0.25), fixCall(2, 0.25), fixCall(2, 0.25), fixCall(2, 0.25)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Next: NotCleared, Recorded: Recorded{Attempts: 3, CostUSD: 0.75}},
				{Cycle: 2, Check: "build", OutputLen: out, Recorded: Recorded{Attempts: 3, CostUSD: 0.75}}}, meanCyc: 2.5 / 2},
		{name: "counts the first cycle's filter_fix calls cannot make are reported",
			cycles: []input.Cycle{ended("build", 2, 3, 0.75)}, calls: []input.AgentCall{fixCall(1, 0.25)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Recorded: Recorded{Attempts: 1, CostUSD: 0.25}}}, meanCyc: 1.75,
			problems: []string{"cycle 1: filter_fix_attempts 3, its filter_fix calls 1; the calls read"}},
		{name: "a cost that falls is no carried figure: counts read per cycle",
			cycles: []input.Cycle{ended("build", 2, 3, 0.75), ended("", 4, 0, 0.75), ended("test", 6, 3, 0.75), ended("", 7, 0, 0)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Next: Cleared, Recorded: Recorded{Attempts: 3, CostUSD: 0.75}},
				{Cycle: 3, Check: "test", OutputLen: out, Next: Cleared, Recorded: Recorded{Attempts: 3, CostUSD: 0.75}}}, meanCyc: 5.5 / 4,
			problems: []string{"cycle 2: fix attempts recorded (filter_fix_attempts 0, filter_fix_cost_usd 0.75, 0 filter_fix calls) but no failed check"}},
		{name: "attempts that would cost nothing read by increase: counts read per cycle",
			cycles: []input.Cycle{ended("build", 2, 3, 0.75), ended("", 4, 0, 0.75), ended("test", 6, 3, 0.75)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Next: Cleared, Recorded: Recorded{Attempts: 3, CostUSD: 0.75}},
				{Cycle: 3, Check: "test", OutputLen: out, Recorded: Recorded{Attempts: 3, CostUSD: 0.75}}}, meanCyc: 4.5 / 3,
			problems: []string{"cycle 2: fix attempts recorded (filter_fix_attempts 0, filter_fix_cost_usd 0.75, 0 filter_fix calls) but no failed check"}},
		{name: "a filter_fix call after the last cycle is reported",
			cycles: []input.Cycle{ended("build", 2, 1, 0.25)}, calls: []input.AgentCall{fixCall(1, 0.25), fixCall(4, 0.25)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Recorded: Recorded{Attempts: 1, CostUSD: 0.25}}}, meanCyc: 1.75,
			problems: []string{"1 filter or fix event(s) or filter_fix call(s) of cycle 4, whose cycle_done was not read"}},
		{name: "fix counts on a passing cycle of a run without the loop are reported, and no sign of it",
			cycles: []input.Cycle{cyc("build", 2), ended("", 4, 0, 0.5)},
			want:   []Failure{{Cycle: 1, Check: "build", OutputLen: out, Next: Cleared}}, meanCyc: 2,
			problems: []string{"cycle 2: fix attempts recorded (filter_fix_attempts 0, filter_fix_cost_usd 0.5, 0 filter_fix calls) but no failed check"}},
		{name: "a stray event of a cycle not read is reported, and no sign of the loop",
			cycles: []input.Cycle{cyc("test", 1)},
			checks: attempts(5, "test", 0.25, false),
			want:   []Failure{{Cycle: 1, Check: "test", OutputLen: out}}, meanCyc: 1,
			problems: []string{"1 filter or fix event(s) or filter_fix call(s) of cycle 5, whose cycle_done was not read"}},
		{name: "a stray event does not take the counts' place",
			cycles: []input.Cycle{ended("test", 3, 3, 0.3)},
			checks: attempts(7, "test", 0.25, false),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "test", OutputLen: out, Recorded: Recorded{Attempts: 3, CostUSD: 0.3}}}, meanCyc: 2.7,
			problems: []string{"1 filter or fix event(s) or filter_fix call(s) of cycle 7, whose cycle_done was not read"}},
		{name: "fix counts on a cycle with no failed check are reported",
			cycles:   []input.Cycle{ended("", 3, 0, 0.5)},
			problems: []string{"cycle 1: fix attempts recorded (filter_fix_attempts 0, filter_fix_cost_usd 0.5, 0 filter_fix calls) but no failed check; not counted"}},
		{name: "two checks met in one cycle, in the order recorded; events of a cycle with no end are reported",
			cycles: []input.Cycle{ended("test", 4, 3, 2)},
			checks: []input.CheckEvent{fixEvent(1, kindFixResult, "build", true, 1, 0.5), failed(1, "test"),
				fixEvent(1, kindFixResult, "test", false, 3, 1.5), fixEvent(3, kindFixAttempt, "vet", true, 1, 0.5)},
			loopOn: true, want: []Failure{
				{Cycle: 1, Check: "build", Recorded: Recorded{Attempts: 1, Reruns: 1, Passed: 1, Fixed: true, CostUSD: 0.5}},
				{Cycle: 1, Check: "test", OutputLen: out, Recorded: Recorded{Attempts: 3, Reruns: 3, CostUSD: 1.5}}},
			meanCyc: 2, problems: []string{"1 filter or fix event(s) or filter_fix call(s) of cycle 3, whose cycle_done was not read"}},
		{name: "events name another check than the counts: the counts are not charged to it",
			cycles: []input.Cycle{ended("test", 3, 3, 0.75)},
			checks: join(attempts(1, "build", 0.25, false, false, false), []input.CheckEvent{fixEvent(1, kindFixResult, "build", false, 3, 0.75)}),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", Recorded: Recorded{Attempts: 3, Reruns: 3, CostUSD: 0.75}}, {Cycle: 1, Check: "test", OutputLen: out}},
			meanCyc: 2.25, problems: []string{
				"filter_fix_result says build not fixed, the cycle's end no longer names it failing",
				"filter_fix_attempts 3, its fix events at test 0"}},
		{name: "counts carried into the next cycle's claims are not its attempts",
			cycles: []input.Cycle{ended("build", 2, 3, 0.75), ended("claims", 3, 3, 0.75)},
			checks: join(attempts(1, "build", 0.25, false, false, false), []input.CheckEvent{fixEvent(1, kindFixResult, "build", false, 3, 0.75)}),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "build", OutputLen: out, Next: Cleared, Recorded: Recorded{Attempts: 3, Reruns: 3, CostUSD: 0.75}},
				{Cycle: 2, Check: "claims", OutputLen: out}},
			meanCyc: 2.25 / 2, problems: []string{"cycle 2: fix attempts recorded at claims, which the loop never attempts"}},
		{name: "an attempt recorded twice counts once",
			cycles: []input.Cycle{cyc("", 3)},
			checks: join(attempts(1, "vet", 0.5, false, true), attempts(1, "vet", 0.5, false, true)),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "vet", Recorded: Recorded{Attempts: 2, Reruns: 2, Passed: 1, Fixed: true, CostUSD: 1}}},
			meanCyc: 2, problems: []string{"attempt 1 at vet recorded twice", "attempt 2 at vet recorded twice"}},
		{name: "a verdict past its recorded attempts: fixed at the last, a pass",
			cycles: []input.Cycle{cyc("", 3)},
			checks: join(attempts(1, "vet", 0.5, false, false), []input.CheckEvent{fixEvent(1, kindFixResult, "vet", true, 3, 1.5)}),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "vet", Recorded: Recorded{Attempts: 3, Reruns: 3, Passed: 1, Fixed: true, CostUSD: 1.5}}},
			meanCyc: 1.5},
		{name: "an attempt passed, the verdict says not fixed: the verdict read",
			cycles: []input.Cycle{ended("vet", 3, 1, 0.5)},
			checks: join(attempts(1, "vet", 0.5, true), []input.CheckEvent{fixEvent(1, kindFixResult, "vet", false, 1, 0.5)}),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "vet", OutputLen: out, Recorded: Recorded{Attempts: 1, Reruns: 1, CostUSD: 0.5}}},
			meanCyc: 2.5, problems: []string{"an attempt at vet passed its re-run, its filter_fix_result says not fixed"}},
		{name: "two verdicts: the last read",
			cycles: []input.Cycle{cyc("", 3)},
			checks: []input.CheckEvent{fixEvent(1, kindFixResult, "vet", false, 1, 0.5), fixEvent(1, kindFixResult, "vet", true, 2, 1)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "vet", Recorded: Recorded{Attempts: 2, Reruns: 2, Passed: 1, Fixed: true, CostUSD: 1}}},
			meanCyc: 2, problems: []string{"more than one filter_fix_result at vet; the last read"}},
		{name: "fixed with no attempt, a negative cost: one attempt, no cost",
			cycles: []input.Cycle{cyc("", 3)},
			checks: []input.CheckEvent{fixEvent(1, kindFixResult, "vet", true, 0, -1)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "vet", Recorded: Recorded{Attempts: 1, Fixed: true}}}, meanCyc: 3,
			problems: []string{"filter_fix_result at vet costs -1; read as 0", "vet fixed with no attempt recorded; read as one"}},
		{name: "attempts past the most a loop makes, costs past a float",
			cycles: []input.Cycle{cyc("test", 3)},
			checks: join(attempts(1, "test", math.MaxFloat64, false, false), []input.CheckEvent{fixEvent(1, kindFixResult, "test", false, 2_000_000_000, 1)}),
			loopOn: true, want: []Failure{{Cycle: 1, Check: "test", OutputLen: out, Recorded: Recorded{Attempts: 2, Reruns: 2, CostUSD: 1}}}, meanCyc: 2,
			problems: []string{"filter_fix_attempt at test costs 1.7976931348623157e+308; read as 0", "filter_fix_attempt at test costs 1.7976931348623157e+308; read as 0",
				"counts 2000000000 attempts, outside 0…100; its count not read"}},
		{name: "a verdict's count out of range, no attempt events: the cycle's counts say how many",
			cycles: []input.Cycle{ended("vet", 3, 3, 0.5)},
			checks: []input.CheckEvent{fixEvent(1, kindFixResult, "vet", false, 2_000_000_000, 0.5)},
			loopOn: true, want: []Failure{{Cycle: 1, Check: "vet", OutputLen: out, Recorded: Recorded{Attempts: 3, CostUSD: 0.5}}}, meanCyc: 2.5,
			problems: []string{"counts 2000000000 attempts, outside 0…100; its count not read"}},
		{name: "a fix event naming no check is reported, and no sign of the loop",
			cycles: []input.Cycle{cyc("test", 3)},
			checks: []input.CheckEvent{fixEvent(1, kindFixResult, "", true, 1, 1)},
			want:   []Failure{{Cycle: 1, Check: "test", OutputLen: out}}, meanCyc: 3,
			problems: []string{"a filter_fix_result of cycle 1 names no check"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := mkRun("r", cmp.Or(tt.outcome, input.OutcomeApproved), tt.cycles...)
			run.Checks = tt.checks
			run.Calls = append(run.Calls, tt.calls...)
			c, probs := Observe(run)
			for i := 0; i < len(probs) && i < len(tt.problems); i++ {
				if !strings.Contains(probs[i].Detail, tt.problems[i]) {
					t.Errorf("problem %q, want %q", probs[i].Detail, tt.problems[i])
				}
			}
			if len(probs) != len(tt.problems) {
				t.Errorf("problems %v, want %v", probs, tt.problems)
			}
			if tt.want == nil {
				if c != nil {
					t.Errorf("a case %+v", c)
				}
				return
			}
			if c == nil {
				t.Fatal("no case")
			}
			if c.LoopOn != tt.loopOn {
				t.Errorf("LoopOn %v, want %v", c.LoopOn, tt.loopOn)
			}
			var got []Failure
			for _, f := range c.Failures {
				got = append(got, Failure{Cycle: f.Cycle, Check: f.Check, OutputLen: f.OutputLen, Next: f.Next, Recorded: f.Recorded})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("failures\n got %+v\nwant %+v", got, tt.want)
			}
			if math.Abs(c.MeanCycleCostUSD-tt.meanCyc) > 1e-12 {
				t.Errorf("mean cycle cost %v, want %v (the run's total less the loop's attempts, over its cycles)", c.MeanCycleCostUSD, tt.meanCyc)
			}
			if c.MeanCoderCostUSD != 3 {
				t.Errorf("mean coder call %v: a filter_fix call is no coder call", c.MeanCoderCostUSD)
			}
		})
	}
}

// TestRecordedRates: recorded fix attempts measure a check's p directly — each attempt's
// re-run passes or not — and replace the outer cycles' estimate for that check; the
// failures a loop-on run leaves to the next cycle are not pooled into that estimate.
func TestRecordedRates(t *testing.T) {
	h := NewHistory()
	off, _ := Observe(mkRun("off", input.OutcomeApproved, cyc("test", 1), cyc("", 2), cyc("build", 3), cyc("", 4)))
	h.Add(off)
	on := mkRun("on", input.OutcomeMaxCycles, cyc("test", 1), cyc("test", 2))
	on.Checks = []input.CheckEvent{fixEvent(1, kindFixAttempt, "test", false, 1, 0.1), fixEvent(1, kindFixAttempt, "test", false, 2, 0.1),
		fixEvent(2, kindFixAttempt, "test", false, 1, 0.1), fixEvent(2, kindFixAttempt, "test", true, 2, 0.1)}
	c, _ := Observe(on)
	h.Add(c)
	rates := h.Rates(nil)
	if r := rates["test"]; r.Source != "recorded" || r.Cleared != 1 || r.Trials != 4 || r.P != 1.5/5 {
		t.Errorf("test: %+v, want recorded 1 of 4", r)
	}
	if r := rates["build"]; r.Source != "history" || r.Cleared != 1 || r.Trials != 1 {
		t.Errorf("build: %+v, want the outer cycles' 1 of 1", r)
	}
	if r := h.Rates(map[string]float64{"test": 0.9})["test"]; r.Source != "given" {
		t.Errorf("a given p gives way to nothing: %+v", r)
	}
}

// TestSimulateRecorded: a run recorded with the loop on is not simulated — its figures
// are what its loop did, the same in every draw, the intervals the figures — and a run
// the loop did not save from its cycle limit does not finish within it.
func TestSimulateRecorded(t *testing.T) {
	run := mkRun("on", input.OutcomeMaxCycles, cyc("", 3), cyc("test", 6), cyc("claims", 8))
	run.Checks = []input.CheckEvent{fixEvent(1, kindFixResult, "build", true, 2, 0.5), fixEvent(2, kindFixResult, "test", false, 3, 1)}
	c, _ := Observe(run)
	if !c.LoopOn || len(c.Failures) != 3 {
		t.Fatalf("case %+v", c)
	}
	meanCycle := (8 - 1.5) / 3.0
	plan := NewPlan(Config{Seed: 1, Draws: 10}, NewHistory().Rates(nil))
	rr, fr, err := plan.Simulate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		attempts, fixed, cost, delta float64
		skipped                      string
	}{{2, 1, 0.5, 0.5 - meanCycle, ""}, {3, 0, 1, 1, ""}, {0, 0, 0, 0, "claims"}}
	for i, w := range want {
		f := fr[i]
		if f.Attempts != exact(w.attempts) || f.PFixed != exact(w.fixed) || f.FixCostUSD != exact(w.cost) || f.CostDeltaUSD != exact(w.delta) || f.Skipped != w.skipped {
			t.Errorf("failure %d (%s): %+v, want %+v", i, f.Failure.Check, f, w)
		}
	}
	if rr.CyclesSaved != exact(1) || rr.FixCostUSD != exact(1.5) || rr.CostDeltaUSD != exact(1.5-meanCycle) {
		t.Errorf("run %+v", rr)
	}
	if rr.PWithinLimit == nil || *rr.PWithinLimit != exact(0) {
		t.Errorf("a limit-stopped run with the loop on finishes within its limit: %+v", rr.PWithinLimit)
	}
	tot := plan.NewTotals()
	tot.Add(rr)
	if tot.RecordedRuns != 1 || tot.RecordedFailures != 3 || tot.CyclesSaved().Mean != 1 || tot.LimitRuns != 0 || tot.LimitRunsFinishing().High != 0 {
		t.Errorf("totals %+v, saved %+v", tot, tot.CyclesSaved())
	}
	// Approved, the run finished within its limit, with or without the loop's help.
	run.Outcome = input.OutcomeApproved
	c, _ = Observe(run)
	if rr, _, _ := plan.Simulate(context.Background(), c); rr.PWithinLimit == nil || rr.PWithinLimit.Mean != 1 {
		t.Errorf("approved: within %+v", rr.PWithinLimit)
	}
}

// TestCheckableWithCountsOnly: loops recorded by their counts alone give no evidence
// of p, but their fixes can still be checked against the outer cycles' p.
func TestCheckableWithCountsOnly(t *testing.T) {
	h := NewHistory()
	off, _ := Observe(mkRun("off", input.OutcomeApproved, cyc("build", 1), cyc("", 2)))
	h.Add(off)
	run := mkRun("on", input.OutcomeApproved, cyc("build", 1), cyc("", 2))
	run.Cycles[0].FilterFixAttempts, run.Cycles[0].FilterFixCostUSD = 3, 0.75
	on, _ := Observe(run)
	h.Add(on)
	if !on.LoopOn || !h.Checkable() || h.Rates(nil)["build"].Source != "history" {
		t.Errorf("loop on %v, checkable %v, build's rate %+v", on.LoopOn, h.Checkable(), h.Rates(nil)["build"])
	}
}

// TestOuterCheck: a plan with an outer check simulates the failures of loop-on runs
// at checks the outer cycles reached, with the outer cycles' p alone, and sums what it
// predicts fixed beside what the loops fixed; the other failures are counted, not
// checked; loop-off runs and the recorded figures are as without the check.
func TestOuterCheck(t *testing.T) {
	h := NewHistory()
	off, _ := Observe(mkRun("off", input.OutcomeApproved, cyc("test", 1), cyc("", 2), cyc("build", 3), cyc("build", 4)))
	h.Add(off)
	if h.Checkable() {
		t.Error("a history without recorded attempts is checkable")
	}
	on := mkRun("on", input.OutcomeApproved, cyc("", 2), cyc("test", 4), cyc("", 6), cyc("", 7))
	on.Checks = []input.CheckEvent{fixEvent(1, kindFixResult, "test", true, 1, 0.1), fixEvent(2, kindFixResult, "test", false, 3, 0.3),
		fixEvent(3, kindFixResult, "build", true, 2, 0.2), fixEvent(4, kindFixResult, "vet", true, 1, 0.1)}
	onCase, _ := Observe(on)
	h.Add(onCase)
	if !h.Checkable() {
		t.Fatal("a history with recorded attempts and outer cycles at one check is not checkable")
	}
	outer := h.OuterRates(map[string]float64{"test": 0.9})
	if r := outer["test"]; r.Source != "given" {
		t.Errorf("outer test rate %+v: a given p is the given p", r)
	}
	outer = h.OuterRates(nil)
	if r := outer["test"]; r.Source != "history" || r.Cleared != 1 || r.Trials != 1 {
		t.Errorf("outer test rate %+v: want the outer cycles' 1 of 1", r)
	}
	if r := h.Rates(nil)["test"]; r.Source != "recorded" || r.Trials != 4 {
		t.Errorf("test rate %+v: want the recorded 4 attempts", r)
	}
	cfg := Config{Seed: 3, Draws: 40, TrialsPerDraw: 10}
	sure := map[string]Rate{"test": {Check: "test", Source: "given", P: 1, Trials: 1}, "build": {Check: "build", Source: "given", P: 0, Trials: 1},
		"vet": {Check: "vet", Source: "given", P: 1}}
	for _, tt := range []struct {
		name      string
		outer     map[string]Rate
		predicted float64
	}{
		{"outer p certain", sure, 2}, // both test failures fixed, the build one never; vet unreached
		{"outer p from the history", outer, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plain := NewPlan(cfg, h.Rates(nil))
			checked := plain.WithOuterCheck(tt.outer)
			var tots [2]*Totals
			var rows [2][][]FailureResult
			var runs [2][]RunResult
			for i, p := range []*Plan{plain, checked} {
				tot, err := p.SimulateAll(context.Background(), []*Case{off, onCase}, 2, func(r RunResult, f []FailureResult) error {
					rows[i], runs[i] = append(rows[i], f), append(runs[i], r)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				tots[i] = tot
			}
			sum := 0.0
			for k, f := range rows[1][1] { // the loop-on run's failures
				if (f.Outer != nil) != (f.Failure.Check != "vet") {
					t.Errorf("failure %d (%s): outer %v", k, f.Failure.Check, f.Outer)
				}
				if f.Outer != nil {
					sum += f.Outer.Mean
				}
				rows[1][1][k].Outer = nil
			}
			if !reflect.DeepEqual(rows[0], rows[1]) {
				t.Errorf("the check changes the failures' results:\n%+v\n%+v", rows[0], rows[1])
			}
			if _, _, _, _, ok := tots[0].OuterCheck(); ok {
				t.Error("a plan without the check checks")
			}
			n, fixed, unchecked, pred, ok := tots[1].OuterCheck()
			if !ok || n != 3 || fixed != 2 || unchecked != 1 {
				t.Fatalf("check: %d failures, %d fixed, %d unchecked, ok %v", n, fixed, unchecked, ok)
			}
			if o := runs[1][1].OuterCyclesSaved; o == nil || math.Abs(o.Mean-sum) > 1e-9 || math.Abs(pred.Mean-sum) > 1e-9 {
				t.Errorf("the run's outer cycles saved %+v, the totals' %+v, its failures' %v", o, pred, sum)
			}
			if runs[1][0].OuterCyclesSaved != nil {
				t.Error("a loop-off run is checked")
			}
			if tt.predicted >= 0 && pred != exact(tt.predicted) {
				t.Errorf("predicted %+v, want %v", pred, tt.predicted)
			}
			if !(pred.Low <= pred.Mean && pred.Mean <= pred.High && pred.High <= 3) {
				t.Errorf("predicted %+v", pred)
			}
			if tots[0].CyclesSaved() != tots[1].CyclesSaved() || tots[0].CostDeltaUSD() != tots[1].CostDeltaUSD() {
				t.Errorf("the check changes the totals")
			}
		})
	}
}

// TestRecordProblemsAtTheirLines: a problem of a run's record of its loop names the
// line of the event or cycle_done it is about, as every reader's problems do.
func TestRecordProblemsAtTheirLines(t *testing.T) {
	line := func(kind, data string) string {
		return `{"ts":"2026-03-01T10:00:00Z","kind":"` + kind + `","epoch":"e","task":"t","data":` + data + "}\n"
	}
	in := line("filter_result", `{"cycle":1,"check":"build","passed":false,"output":"x"}`) + // 1
		line("filter_fix_attempt", `{"cycle":1,"check":"build","attempt":1,"cost_usd":-2,"passed":false}`) + // 2: a negative cost
		line("filter_fix_attempt", `{"cycle":1,"check":"build","attempt":1,"cost_usd":0.1,"passed":false}`) + // 3: attempt 1 again
		line("cycle_done", `{"cycle":1,"total_cost_usd":1,"filter_check_name":"build","findings":[],"filter_fix_attempts":2}`) + // 4: counts against events
		line("filter_fix_attempt", `{"cycle":9,"check":"vet","attempt":1,"cost_usd":0.1,"passed":false}`) + // 5: a cycle not read
		line("task_state", `{"outcome":"max_cycles"}`)
	runs, _ := trace.Read("t.jsonl", strings.NewReader(in))
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	_, probs := Observe(runs[0])
	want := map[int]string{2: "costs -2", 3: "attempt 1 at build recorded twice", 4: "filter_fix_attempts 2, its fix events at build 1", 5: "cycle 9, whose cycle_done was not read"}
	if len(probs) != len(want) {
		t.Fatalf("problems %v", probs)
	}
	for _, p := range probs {
		if w, ok := want[p.Line]; !ok || !strings.Contains(p.Detail, w) || p.File != "t.jsonl" {
			t.Errorf("%s: %s at line %d, want %q there", p.File, p.Detail, p.Line, w)
		}
	}
}
