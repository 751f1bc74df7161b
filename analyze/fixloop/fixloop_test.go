package fixloop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/fixloop/checkparse"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/analyze/fixloop/fixprompt"
)

const buildOutput = "# example.com/m\n./m.go:3:2: undefined: x\n./m.go:9:1: missing return"

// fakeCoder returns cost per call and can fail or cancel the context on a given call.
type fakeCoder struct {
	cost     float64
	errAt    int // 1-based call that fails
	cancelAt int // 1-based call during which the context is cancelled (the call still succeeds)
	cancel   context.CancelFunc
	reqs     []FixRequest
}

func (c *fakeCoder) Fix(_ context.Context, req FixRequest) (FixResult, error) {
	c.reqs = append(c.reqs, req)
	n := len(c.reqs)
	if n == c.errAt {
		return FixResult{}, errors.New("agent crashed")
	}
	if n == c.cancelAt {
		c.cancel()
	}
	return FixResult{Summary: fmt.Sprintf("fixed %d", n), CostUSD: c.cost}, nil
}

// fakeRunner is a simulated single-check runner: re-run passAt passes, the others fail
// with an output naming the run. It satisfies filter.Filter, but Run must not be used.
type fakeRunner struct {
	passAt int // 1-based re-run that passes; 0 never
	errAt  int // 1-based re-run that errors
	names  []string
	dirs   []string
	runs   int // calls of Run
}

func (r *fakeRunner) RunCheck(_ context.Context, workDir, name string) (*filter.CheckResult, error) {
	r.names = append(r.names, name)
	r.dirs = append(r.dirs, workDir)
	n := len(r.names)
	if n == r.errAt {
		return nil, errors.New("runner broke")
	}
	if n == r.passAt {
		return &filter.CheckResult{Name: name, Passed: true, Elapsed: time.Second}, nil
	}
	return &filter.CheckResult{Name: name, Output: fmt.Sprintf("./m.go:%d:2: still broken after fix %d", 10+n, n), Elapsed: time.Second}, nil
}

func (r *fakeRunner) Run(context.Context, string) (*filter.Result, error) {
	r.runs++
	return nil, errors.New("Run must not be called by the fix loop")
}

// plainFilter is a Filter that cannot re-run a single check.
type plainFilter struct{}

func (plainFilter) Run(context.Context, string) (*filter.Result, error) { return &filter.Result{}, nil }

type commit struct {
	label   string
	cycle   int
	summary string
}

type fakeCommitter struct {
	calls []commit
	err   error
}

func (c *fakeCommitter) CommitCycle(_ context.Context, label string, cycle int, summary string) (string, error) {
	c.calls = append(c.calls, commit{label, cycle, summary})
	if c.err != nil {
		return "", c.err
	}
	return fmt.Sprintf("sha%d", len(c.calls)), nil
}

func newState() *analyze.CycleState {
	return &analyze.CycleState{
		TaskBeadID: "quasar-4f2a", TaskTitle: "Add shapes helpers", Cycle: 2, MaxCycles: 5,
		TotalCostUSD: 1.0, MaxBudgetUSD: 10, FilterCheckName: "build", FilterOutput: buildOutput,
	}
}

func TestRunFilterFixLoop(t *testing.T) {
	errCustomBudget := errors.New("nebula budget exhausted")
	tests := []struct {
		name      string
		check     string // default "build"
		filter    string // "runner" (default), "nil", "plain"
		noCoder   bool
		max       int
		budget    BudgetChecker
		total     float64 // initial TotalCostUSD; default 1.0
		maxBudget float64 // default 10; -1 means none
		coder     fakeCoder
		runner    fakeRunner
		cancelled bool // context cancelled before the call

		wantOutcome  Outcome
		wantErr      error
		wantCalls    int
		wantRuns     int
		wantFFA      int // state.FilterFixAttempts after
		wantCommits  int
		wantLastDiff bool // LastOutput differs from the input output
	}{
		{name: "successful fix on the first attempt", coder: fakeCoder{cost: 0.1}, runner: fakeRunner{passAt: 1},
			wantOutcome: OutcomeFixed, wantCalls: 1, wantRuns: 1, wantFFA: 0, wantCommits: 1, wantLastDiff: true},
		{name: "successful fix on the third attempt", coder: fakeCoder{cost: 0.1}, runner: fakeRunner{passAt: 3},
			wantOutcome: OutcomeFixed, wantCalls: 3, wantRuns: 3, wantFFA: 2, wantCommits: 3, wantLastDiff: true},
		{name: "exhausted retries", coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeExhausted, wantCalls: 3, wantRuns: 3, wantFFA: 3, wantCommits: 3, wantLastDiff: true},
		{name: "MaxFilterFixes 0 uses the default", max: 0, coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeExhausted, wantCalls: DefaultMaxFilterFixes, wantRuns: 3, wantFFA: 3, wantCommits: 3, wantLastDiff: true},
		{name: "negative MaxFilterFixes uses the default", max: -2, coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeExhausted, wantCalls: 3, wantRuns: 3, wantFFA: 3, wantCommits: 3, wantLastDiff: true},
		{name: "MaxFilterFixes 5", max: 5, coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeExhausted, wantCalls: 5, wantRuns: 5, wantFFA: 5, wantCommits: 5, wantLastDiff: true},
		{name: "MaxFilterFixes 1 fixed", max: 1, coder: fakeCoder{cost: 0.1}, runner: fakeRunner{passAt: 1},
			wantOutcome: OutcomeFixed, wantCalls: 1, wantRuns: 1, wantCommits: 1, wantLastDiff: true},
		{name: "claims guard", check: "claims", coder: fakeCoder{cost: 0.1}, runner: fakeRunner{passAt: 1},
			wantOutcome: OutcomeSkippedClaims},
		{name: "nil filter falls through", filter: "nil", coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeSkippedNoFilter},
		{name: "non-runner filter falls through", filter: "plain", coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeSkippedNotRunner},
		{name: "budget exceeded on the first attempt: cost added, no commit, no re-run", total: 9.95, coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeBudgetExceeded, wantErr: ErrBudgetExceeded, wantCalls: 1},
		{name: "budget exceeded on the second attempt", total: 9.85, coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeBudgetExceeded, wantErr: ErrBudgetExceeded, wantCalls: 2, wantRuns: 1, wantFFA: 1, wantCommits: 1, wantLastDiff: true},
		{name: "budget reached exactly stops", total: 9.5, coder: fakeCoder{cost: 0.5},
			wantOutcome: OutcomeBudgetExceeded, wantErr: ErrBudgetExceeded, wantCalls: 1},
		{name: "no budget limit never stops", total: 1000, maxBudget: -1, coder: fakeCoder{cost: 50},
			wantOutcome: OutcomeExhausted, wantCalls: 3, wantRuns: 3, wantFFA: 3, wantCommits: 3, wantLastDiff: true},
		{name: "custom budget checker stops with its error",
			budget: BudgetFunc(func(context.Context, *analyze.CycleState) error { return errCustomBudget }),
			coder:  fakeCoder{cost: 0.1}, wantOutcome: OutcomeBudgetExceeded, wantErr: errCustomBudget, wantCalls: 1},
		{name: "coder error", coder: fakeCoder{cost: 0.1, errAt: 2},
			wantOutcome: OutcomeError, wantErr: errAny, wantCalls: 2, wantRuns: 1, wantFFA: 1, wantCommits: 1, wantLastDiff: true},
		{name: "runner error", coder: fakeCoder{cost: 0.1}, runner: fakeRunner{errAt: 1},
			wantOutcome: OutcomeError, wantErr: errAny, wantCalls: 1, wantRuns: 1, wantCommits: 1},
		{name: "context cancelled before the loop", cancelled: true, coder: fakeCoder{cost: 0.1},
			wantOutcome: OutcomeCancelled, wantErr: context.Canceled},
		{name: "context cancelled during the second coder call", coder: fakeCoder{cost: 0.1, cancelAt: 2},
			wantOutcome: OutcomeCancelled, wantErr: context.Canceled, wantCalls: 2, wantRuns: 2, wantFFA: 2, wantCommits: 2, wantLastDiff: true},
		{name: "nil coder", noCoder: true, wantOutcome: OutcomeError, wantErr: errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelled {
				cancel()
			}
			coder, runner, committer := tt.coder, tt.runner, &fakeCommitter{}
			coder.cancel = cancel
			l := &FixLoop{Coder: &coder, Committer: committer, Budget: tt.budget, MaxFilterFixes: tt.max, WorkDir: "/work/m"}
			switch tt.filter {
			case "nil":
			case "plain":
				l.Filter = plainFilter{}
			default:
				l.Filter = &runner
			}
			if tt.noCoder {
				l.Coder = nil
			}
			state := newState()
			if tt.total != 0 {
				state.TotalCostUSD = tt.total
			}
			switch tt.maxBudget {
			case -1:
				state.MaxBudgetUSD = 0
			case 0:
			default:
				state.MaxBudgetUSD = tt.maxBudget
			}
			before := *state
			check := tt.check
			if check == "" {
				check = "build"
			}

			res, err := l.RunFilterFixLoop(ctx, state, check, buildOutput)

			switch {
			case tt.wantErr == nil && err != nil, tt.wantErr != nil && err == nil:
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			case tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if res.Outcome != tt.wantOutcome || res.Fixed() != (tt.wantOutcome == OutcomeFixed) {
				t.Errorf("Outcome = %q (Fixed %v), want %q", res.Outcome, res.Fixed(), tt.wantOutcome)
			}
			if len(coder.reqs) != tt.wantCalls || res.CoderCalls() != tt.wantCalls {
				t.Errorf("coder calls = %d (CoderCalls %d), want %d", len(coder.reqs), res.CoderCalls(), tt.wantCalls)
			}
			if len(runner.names) != tt.wantRuns {
				t.Errorf("re-runs = %d, want %d", len(runner.names), tt.wantRuns)
			}
			for i := range runner.names {
				if runner.names[i] != check || runner.dirs[i] != "/work/m" {
					t.Errorf("re-run %d = RunCheck(%q, %q), want only the failing check %q in the work dir", i, runner.dirs[i], runner.names[i], check)
				}
			}
			if runner.runs != 0 {
				t.Errorf("the whole chain was run %d times", runner.runs)
			}
			if len(committer.calls) != tt.wantCommits {
				t.Errorf("commits = %d, want %d", len(committer.calls), tt.wantCommits)
			}
			if state.FilterFixAttempts != tt.wantFFA || res.FailedAttempts() != tt.wantFFA {
				t.Errorf("FilterFixAttempts = %d (FailedAttempts %d), want %d", state.FilterFixAttempts, res.FailedAttempts(), tt.wantFFA)
			}
			var wantCost float64
			for range coder.reqs {
				wantCost += coder.cost
			}
			if tt.coder.errAt > 0 {
				wantCost -= coder.cost // the failed call reported nothing
			}
			if !near(state.TotalCostUSD, before.TotalCostUSD+wantCost) || !near(state.FilterFixCostUSD, wantCost) || !near(res.CostUSD(), wantCost) {
				t.Errorf("TotalCostUSD %v FilterFixCostUSD %v CostUSD() %v; want +%v", state.TotalCostUSD, state.FilterFixCostUSD, res.CostUSD(), wantCost)
			}
			if (res.LastOutput != buildOutput) != tt.wantLastDiff {
				t.Errorf("LastOutput = %q", res.LastOutput)
			}
			// The loop never touches the outer cycle's filter state.
			if state.FilterCheckName != before.FilterCheckName || state.FilterOutput != before.FilterOutput || state.Cycle != before.Cycle {
				t.Error("the loop changed FilterCheckName, FilterOutput or Cycle")
			}
			for i, a := range res.Attempts {
				if a.N != i+1 {
					t.Errorf("attempt %d numbered %d", i, a.N)
				}
			}
		})
	}
}

// errAny stands for "some error".
var errAny = errors.New("any error")

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCommitMessages(t *testing.T) {
	tests := []struct {
		name, title, summary string
		want                 string
	}{
		{"task title", "Add shapes helpers", "", "Add shapes helpers (filter fix)"},
		{"commit summary wins", "Add shapes helpers", "shapes", "shapes (filter fix)"},
		{"first line of the title, trimmed", "  Fix loop  \n\nLong body", "", "Fix loop (filter fix)"},
		{"title cut at 72 bytes on a rune boundary", strings.Repeat("ab", 30) + "ééééééééé", "", strings.Repeat("ab", 30) + "éééééé (filter fix)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			committer := &fakeCommitter{}
			l := &FixLoop{Filter: &fakeRunner{passAt: 2}, Coder: &fakeCoder{cost: 0.1}, Committer: committer, CommitSummary: tt.summary}
			state := newState()
			state.TaskTitle = tt.title
			res, err := l.RunFilterFixLoop(context.Background(), state, "vet", "x.go:1:1: bad")
			if err != nil {
				t.Fatal(err)
			}
			want := []commit{{"quasar-4f2a", 2, tt.want}, {"quasar-4f2a", 2, tt.want}}
			if !slices.Equal(committer.calls, want) {
				t.Errorf("commits = %+v, want %+v", committer.calls, want)
			}
			if !strings.HasSuffix(committer.calls[0].summary, CommitSuffix) || CommitSuffix != " (filter fix)" {
				t.Errorf("suffix not exact")
			}
			if res.LastCommitSHA() != "sha2" || res.Attempts[0].CommitSHA != "sha1" {
				t.Errorf("commit SHAs not recorded: %+v", res.Attempts)
			}
		})
	}
	t.Run("commit failure is recorded and the loop goes on", func(t *testing.T) {
		committer := &fakeCommitter{err: errors.New("nothing to commit")}
		l := &FixLoop{Filter: &fakeRunner{passAt: 2}, Coder: &fakeCoder{cost: 0.1}, Committer: committer}
		res, err := l.RunFilterFixLoop(context.Background(), newState(), "vet", "x.go:1:1: bad")
		if err != nil || !res.Fixed() || res.CoderCalls() != 2 {
			t.Fatalf("got %v, %v after %d calls", res.Outcome, err, res.CoderCalls())
		}
		if res.Attempts[0].CommitErr == nil || res.LastCommitSHA() != "" {
			t.Errorf("commit error not recorded: %+v", res.Attempts[0])
		}
	})
	t.Run("no committer, no commit", func(t *testing.T) {
		l := &FixLoop{Filter: &fakeRunner{passAt: 1}, Coder: &fakeCoder{cost: 0.1}}
		res, err := l.RunFilterFixLoop(context.Background(), newState(), "vet", "x.go:1:1: bad")
		if err != nil || res.LastCommitSHA() != "" || res.Attempts[0].CommitSHA != "" {
			t.Errorf("unexpected commit: %+v %v", res.Attempts, err)
		}
	})
}

func TestToolSet(t *testing.T) {
	want := []string{"Read", "Edit", "Write", "Glob"}
	if got := FixTools(); !slices.Equal(got, want) {
		t.Fatalf("FixTools() = %q, want %q", got, want)
	}
	tools := FixTools()
	tools[0] = "Bash"
	if FixTools()[0] != "Read" {
		t.Fatal("FixTools shares its slice")
	}
	coder := &fakeCoder{cost: 0.1}
	l := &FixLoop{Filter: &fakeRunner{}, Coder: coder}
	if _, err := l.RunFilterFixLoop(context.Background(), newState(), "test", "a_test.go:3: x"); err != nil {
		t.Fatal(err)
	}
	for i, req := range coder.reqs {
		if !slices.Equal(req.Tools, want) {
			t.Errorf("call %d tools = %q, want exactly %q", i+1, req.Tools, want)
		}
		for _, tool := range req.Tools {
			if strings.Contains(strings.ToLower(tool), "bash") {
				t.Errorf("call %d allows %q", i+1, tool)
			}
		}
		if !strings.Contains(req.Prompt, "Tools you can use: Read, Edit, Write, Glob.") {
			t.Errorf("call %d prompt does not state the tool set", i+1)
		}
	}
}

func TestFixBudget(t *testing.T) {
	tests := []struct {
		name      string
		override  float64
		maxBudget float64
		maxCycles int
		want      float64
	}{
		{"quarter of the per-agent cap", 0, 10, 5, 0.25},
		{"quasar defaults 5.0 / 3 cycles", 0, 5, 3, 5.0 / 6 / 4},
		{"no budget, no cap", 0, 0, 5, 0},
		{"zero cycles count as one", 0, 8, 0, 1},
		{"override", 0.07, 10, 5, 0.07},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			coder := &fakeCoder{cost: 0.01}
			l := &FixLoop{Filter: &fakeRunner{passAt: 1}, Coder: coder, FixBudgetUSD: tt.override}
			state := newState()
			state.MaxBudgetUSD, state.MaxCycles = tt.maxBudget, tt.maxCycles
			res, err := l.RunFilterFixLoop(context.Background(), state, "build", buildOutput)
			if err != nil {
				t.Fatal(err)
			}
			if !near(res.FixBudgetUSD, tt.want) || !near(coder.reqs[0].BudgetUSD, tt.want) || !near(l.FixBudget(state), tt.want) {
				t.Errorf("budget = %v (request %v), want %v", res.FixBudgetUSD, coder.reqs[0].BudgetUSD, tt.want)
			}
		})
	}
}

func TestPromptsFollowTheFailingOutput(t *testing.T) {
	coder := &fakeCoder{cost: 0.1}
	var inputs []fixprompt.Input
	var parsed []filter.CheckResult
	l := &FixLoop{Filter: &fakeRunner{passAt: 3}, Coder: coder}
	state := newState()
	if _, err := l.RunFilterFixLoop(context.Background(), state, "build", buildOutput); err != nil {
		t.Fatal(err)
	}
	wantInPrompt := [][]string{
		{"Task (bead quasar-4f2a): Add shapes helpers", "Fix the failing build check (fix attempt 1 of 3)", "3:2: undefined: x", "9:1: missing return", "$0.25"},
		{"(fix attempt 2 of 3)", "11:2: still broken after fix 1"},
		{"(fix attempt 3 of 3)", "12:2: still broken after fix 2"},
	}
	for i, req := range coder.reqs {
		for _, s := range wantInPrompt[i] {
			if !strings.Contains(req.Prompt, s) {
				t.Errorf("prompt %d lacks %q:\n%s", i+1, s, req.Prompt)
			}
		}
		if req.CheckName != "build" || req.Attempt != i+1 || req.WorkDir != "" {
			t.Errorf("request %d = %+v", i+1, req)
		}
	}
	if coder.reqs[0].Errors != 2 || coder.reqs[1].Errors != 1 || strings.Contains(coder.reqs[1].Prompt, "undefined: x") {
		t.Errorf("later prompts must be built from the re-run's output only")
	}

	// Parse and BuildPrompt hooks replace the defaults.
	coder = &fakeCoder{cost: 0.1}
	l = &FixLoop{Filter: &fakeRunner{passAt: 2}, Coder: coder,
		Parse: func(cr filter.CheckResult) checkparse.ParseResult {
			parsed = append(parsed, cr)
			return checkparse.ParseResult{CheckName: cr.Name, RawOutput: cr.Output}
		},
		BuildPrompt: func(in fixprompt.Input) string {
			inputs = append(inputs, in)
			return "fix " + in.Parsed.RawOutput
		},
	}
	if _, err := l.RunFilterFixLoop(context.Background(), newState(), "build", buildOutput); err != nil {
		t.Fatal(err)
	}
	if len(parsed) != 2 || parsed[0].Output != buildOutput || parsed[1].Name != "build" || len(inputs) != 2 || coder.reqs[1].Prompt != "fix ./m.go:11:2: still broken after fix 1" {
		t.Errorf("hooks not used as expected: parsed %d, inputs %d, prompt %q", len(parsed), len(inputs), coder.reqs[1].Prompt)
	}
	if inputs[0].BeadID != "quasar-4f2a" || inputs[0].MaxAttempts != 3 || !slices.Equal(inputs[0].Tools, FixTools()) {
		t.Errorf("prompt input = %+v", inputs[0])
	}
}

func TestChainAsRunner(t *testing.T) {
	var calls []string
	sim := func(name string, passAt int) filter.Check {
		n := 0
		return filter.Check{Name: name, Fn: func(_ context.Context, workDir string) (string, error) {
			calls = append(calls, name+"@"+workDir)
			n++
			if n >= passAt {
				return "", nil
			}
			return "x_test.go:4: still failing", errors.New("exit status 1")
		}}
	}
	chain := &filter.Chain{
		Checks: []filter.Check{sim("build", 1), sim("vet", 1), sim("test", 2), sim("claims", 1)},
		Now:    func() time.Time { return time.Unix(0, 0) },
	}
	l := &FixLoop{Filter: chain, Coder: &fakeCoder{cost: 0.2}}
	res, err := l.RunFilterFixLoop(context.Background(), newState(), "test", "x_test.go:4: failing")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Fixed() || res.CoderCalls() != 2 || !slices.Equal(calls, []string{"test@", "test@"}) {
		t.Errorf("outcome %s after %d calls; checks run %q, want only test twice", res.Outcome, res.CoderCalls(), calls)
	}

	t.Run("unknown check name from RunCheck", func(t *testing.T) {
		coder := &fakeCoder{cost: 0.2}
		l := &FixLoop{Filter: chain, Coder: coder}
		state := newState()
		res, err := l.RunFilterFixLoop(context.Background(), state, "lint", "a.go:1:1: x (errcheck)")
		if !errors.Is(err, filter.ErrUnknownCheck) || res.Outcome != OutcomeError {
			t.Fatalf("err = %v, outcome %s; want ErrUnknownCheck", err, res.Outcome)
		}
		if len(coder.reqs) != 1 || !near(state.FilterFixCostUSD, 0.2) || state.FilterFixAttempts != 0 {
			t.Errorf("calls %d, cost %v, attempts %d", len(coder.reqs), state.FilterFixCostUSD, state.FilterFixAttempts)
		}
	})
}

func TestOnAttempt(t *testing.T) {
	var seen []Attempt
	l := &FixLoop{Filter: &fakeRunner{passAt: 2}, Coder: &fakeCoder{cost: 0.1}, OnAttempt: func(a Attempt) { seen = append(seen, a) }}
	res, err := l.RunFilterFixLoop(context.Background(), newState(), "build", buildOutput)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(seen, res.Attempts, func(a, b Attempt) bool { return a == b }) || len(seen) != 2 {
		t.Fatalf("OnAttempt saw %+v, result has %+v", seen, res.Attempts)
	}
	want := Attempt{N: 2, Errors: 1, PromptBytes: seen[1].PromptBytes, CostUSD: 0.1, Summary: "fixed 2", Rerun: true, Passed: true, Elapsed: time.Second}
	if seen[1] != want || seen[1].PromptBytes == 0 {
		t.Errorf("attempt 2 = %+v, want %+v", seen[1], want)
	}
}

func TestBudgetError(t *testing.T) {
	err := StateBudget{}.CheckBudget(context.Background(), &analyze.CycleState{TotalCostUSD: 5.25, MaxBudgetUSD: 5})
	if !errors.Is(err, ErrBudgetExceeded) || err.Error() != "Budget exceeded: $5.2500 / $5.00" {
		t.Errorf("err = %v", err)
	}
	if err := (StateBudget{}).CheckBudget(context.Background(), &analyze.CycleState{TotalCostUSD: 4.99, MaxBudgetUSD: 5}); err != nil {
		t.Errorf("under budget: %v", err)
	}
}

// simCheck is a simulated single check for the example: the n-th re-run passes.
type simCheck struct{ passOn, runs int }

func (s *simCheck) RunCheck(_ context.Context, _, name string) (*filter.CheckResult, error) {
	s.runs++
	if s.runs >= s.passOn {
		return &filter.CheckResult{Name: name, Passed: true}, nil
	}
	return &filter.CheckResult{Name: name, Output: "calc_test.go:7: Add(1, 2) = 4, want 3"}, nil
}

// Run makes simCheck a filter.Filter; the fix loop never calls it.
func (s *simCheck) Run(context.Context, string) (*filter.Result, error) {
	return nil, errors.New("simulated: single checks only")
}

type printCommitter struct{}

func (printCommitter) CommitCycle(_ context.Context, label string, cycle int, summary string) (string, error) {
	fmt.Printf("commit %s/cycle-%d: %s\n", label, cycle, summary)
	return "", nil
}

func ExampleFixLoop_RunFilterFixLoop() {
	loop := &FixLoop{
		Filter: &simCheck{passOn: 2},
		Coder: CoderFunc(func(_ context.Context, req FixRequest) (FixResult, error) {
			return FixResult{Summary: "fixed Add", CostUSD: 0.05}, nil
		}),
		Committer: printCommitter{},
	}
	state := &analyze.CycleState{TaskBeadID: "quasar-4f2a", TaskTitle: "Add calc helpers", Cycle: 1,
		MaxCycles: 5, MaxBudgetUSD: 10, TotalCostUSD: 1}

	res, err := loop.RunFilterFixLoop(context.Background(), state, "test",
		"--- FAIL: TestAdd (0.00s)\n    calc_test.go:7: Add(1, 2) = 5, want 3\nFAIL")
	fmt.Println(res.Outcome, res.Fixed(), err)
	fmt.Println("coder calls:", res.CoderCalls(), "FilterFixAttempts:", state.FilterFixAttempts)
	fmt.Printf("cost $%.2f, total $%.2f, fix budget $%.2f\n", state.FilterFixCostUSD, state.TotalCostUSD, res.FixBudgetUSD)
	// Output:
	// commit quasar-4f2a/cycle-1: Add calc helpers (filter fix)
	// commit quasar-4f2a/cycle-1: Add calc helpers (filter fix)
	// fixed true <nil>
	// coder calls: 2 FilterFixAttempts: 1
	// cost $0.10, total $1.10, fix budget $0.25
}

// mutatingCoder changes the tool list it is given, as a coder that appends what it
// needs would; it records the list each call received.
type mutatingCoder struct {
	got [][]string
}

func (c *mutatingCoder) Fix(_ context.Context, req FixRequest) (FixResult, error) {
	c.got = append(c.got, slices.Clone(req.Tools))
	req.Tools[0] = "Bash"
	return FixResult{Summary: "tried", CostUSD: 0.01}, nil
}

// TestToolsNotSharedAcrossAttempts: a coder that changes its tool list cannot widen
// the next attempt's tools.
func TestToolsNotSharedAcrossAttempts(t *testing.T) {
	coder := &mutatingCoder{}
	var prompts []string
	l := &FixLoop{Filter: &fakeRunner{}, Coder: coder, BuildPrompt: func(in fixprompt.Input) string {
		p := fixprompt.Build(in)
		prompts = append(prompts, p)
		return p
	}}
	if _, err := l.RunFilterFixLoop(context.Background(), newState(), "test", "a_test.go:3: x"); err != nil {
		t.Fatal(err)
	}
	if len(coder.got) != DefaultMaxFilterFixes {
		t.Fatalf("%d attempts", len(coder.got))
	}
	for i, tools := range coder.got {
		if !slices.Equal(tools, FixTools()) {
			t.Errorf("attempt %d was given %q", i+1, tools)
		}
		if !strings.Contains(prompts[i], "Tools you can use: Read, Edit, Write, Glob.") {
			t.Errorf("attempt %d prompt: tool set changed", i+1)
		}
	}
}

// TestLoopRefusals: a nil *filter.Chain given as the Filter is no filter (it used to
// panic after a paid coder call); a coder that reports a negative or infinite cost
// stops the loop with an error, before the cost can lower the spend the budget check
// reads; a limit set very high allocates only as attempts are made.
func TestLoopRefusals(t *testing.T) {
	var chain *filter.Chain
	coder := &fakeCoder{cost: 0.5}
	res, err := (&FixLoop{Filter: chain, Coder: coder}).RunFilterFixLoop(context.Background(), newState(), "build", buildOutput)
	if err != nil || res.Outcome != OutcomeSkippedNoFilter || len(coder.reqs) != 0 {
		t.Errorf("a nil chain: %v %v, %d coder calls", res.Outcome, err, len(coder.reqs))
	}
	for _, cost := range []float64{-50, math.Inf(1), math.NaN()} {
		state := newState()
		before := state.TotalCostUSD
		res, err := (&FixLoop{Filter: &fakeRunner{}, Coder: &fakeCoder{cost: cost}}).RunFilterFixLoop(context.Background(), state, "build", buildOutput)
		if err == nil || res.Outcome != OutcomeError || state.TotalCostUSD != before || len(res.Attempts) != 1 || res.CostUSD() != 0 {
			t.Errorf("cost %v: %v %v, total %v, %d attempts", cost, res.Outcome, err, state.TotalCostUSD, len(res.Attempts))
		}
	}
	res, err = (&FixLoop{Filter: &fakeRunner{passAt: 2}, Coder: &fakeCoder{cost: 0.01}, MaxFilterFixes: 1 << 40}).
		RunFilterFixLoop(context.Background(), newState(), "build", buildOutput)
	if err != nil || res.Outcome != OutcomeFixed || len(res.Attempts) != 2 {
		t.Errorf("a limit of 2⁴⁰: %v %v, %d attempts", res.Outcome, err, len(res.Attempts))
	}
}
