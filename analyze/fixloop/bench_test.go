package fixloop

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/fixloop/checkparse"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/analyze/fixloop/fixprompt"
)

// simulation is a Monte Carlo stand-in for both the coder and the re-run check: each
// fix attempt passes with probability pPass and costs costUSD. It keeps its own
// xorshift generator (no global rand), and returns a pointer to a reused result, so it
// allocates nothing.
type simulation struct {
	rng     uint64
	pPass   float64
	costUSD float64
	output  string
	cr      filter.CheckResult
}

func (s *simulation) next() float64 {
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	return float64(s.rng>>11) / (1 << 53)
}

func (s *simulation) Fix(context.Context, FixRequest) (FixResult, error) {
	return FixResult{CostUSD: s.costUSD}, nil
}

func (s *simulation) RunCheck(_ context.Context, _, name string) (*filter.CheckResult, error) {
	s.cr = filter.CheckResult{Name: name, Passed: s.next() < s.pPass}
	if !s.cr.Passed {
		s.cr.Output = s.output
	}
	return &s.cr, nil
}

func (s *simulation) Run(context.Context, string) (*filter.Result, error) { return nil, nil }

func captured(b *testing.B, name string) string {
	raw, err := os.ReadFile(filepath.Join("checkparse", "testdata", "captured", name))
	if err != nil {
		b.Fatal(err)
	}
	return string(raw)
}

// BenchmarkRunFilterFixLoop runs the real loop against the simulation: a 50% chance
// per attempt, real go test output (2 KB, 6 errors) re-parsed and re-prompted after
// every failure. "stubbed" replaces the parser and prompt builder by constants — the
// loop's own overhead, for replays that do not need the prompt text.
func BenchmarkRunFilterFixLoop(b *testing.B) {
	output := captured(b, "test-testfail.txt")
	stubParse := func(cr filter.CheckResult) checkparse.ParseResult {
		return checkparse.ParseResult{CheckName: cr.Name, RawOutput: cr.Output}
	}
	stubPrompt := func(fixprompt.Input) string { return "fix it" }
	for _, bm := range []struct {
		name   string
		parse  func(filter.CheckResult) checkparse.ParseResult
		prompt func(fixprompt.Input) string
	}{
		{"real-parse-and-prompt", nil, nil},
		{"stubbed", stubParse, stubPrompt},
	} {
		b.Run(bm.name, func(b *testing.B) {
			sim := &simulation{rng: 0x9e3779b97f4a7c15, pPass: 0.5, costUSD: 0.03, output: output}
			loop := &FixLoop{Filter: sim, Coder: sim, Parse: bm.parse, BuildPrompt: bm.prompt}
			ctx := context.Background()
			state := &analyze.CycleState{TaskBeadID: "quasar-4f2a", TaskTitle: "Add calc helpers", MaxCycles: 5}
			calls := 0
			b.ReportAllocs()
			for b.Loop() {
				state.FilterFixAttempts, state.FilterFixCostUSD, state.TotalCostUSD = 0, 0, 0
				res, err := loop.RunFilterFixLoop(ctx, state, "test", output)
				if err != nil {
					b.Fatal(err)
				}
				calls += res.CoderCalls()
			}
			b.ReportMetric(float64(calls)/float64(b.N), "coder-calls/op")
		})
	}
}
