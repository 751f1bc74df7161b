package replay

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/replay/input"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func mkRun(cycles ...input.Cycle) *input.Run {
	for i := range cycles {
		cycles[i].Cycle = i + 1
		cycles[i].Time = t0.Add(time.Duration(i+1) * 10 * time.Minute)
	}
	return &input.Run{Key: "r", MaxCycles: 5, MaxBudgetUSD: 10, Cycles: cycles, FilterKnown: true,
		End: t0.Add(time.Duration(len(cycles))*10*time.Minute + time.Minute)}
}

func f(desc string) []analyze.ReviewFinding {
	return []analyze.ReviewFinding{{Severity: analyze.SeverityMajor, Description: desc}}
}

const same = "the handler does not close the response body on the error path of the request"

func TestReplayRun(t *testing.T) {
	def := struggle.DefaultStruggleConfig()
	tests := []struct {
		name      string
		run       *input.Run
		triggered bool
		first     int
		lead      int
		leadCost  float64
		leadSecs  float64
	}{
		{name: "approved in one cycle: no decision point",
			run: mkRun(input.Cycle{TotalCostUSD: 1, Approved: true})},
		{name: "repeated findings trigger at cycle 2 with three cycles to go",
			run: mkRun(input.Cycle{TotalCostUSD: 1, Findings: f(same)}, input.Cycle{TotalCostUSD: 2, Findings: f(same)},
				input.Cycle{TotalCostUSD: 3, Findings: f(same)}, input.Cycle{TotalCostUSD: 4, Findings: f(same)},
				input.Cycle{TotalCostUSD: 5.5, Findings: f(same)}),
			triggered: true, first: 2, lead: 3, leadCost: 3.5, leadSecs: 31 * 60},
		{name: "a trigger on the approving cycle is not a decision",
			run: mkRun(input.Cycle{TotalCostUSD: 1, FilterCheckName: "test", Findings: f(same)},
				input.Cycle{TotalCostUSD: 2, FilterCheckName: "test", Findings: f(same), Approved: true})},
		{name: "the same check failing twice triggers on the last cycle with no lead",
			run:       mkRun(input.Cycle{TotalCostUSD: 1, FilterCheckName: "test"}, input.Cycle{TotalCostUSD: 2, FilterCheckName: "test"}),
			triggered: true, first: 2, lead: 0, leadCost: 0, leadSecs: 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ReplayRun(tt.run, def)
			s := res.Struggle
			if s.Triggered != tt.triggered || s.FirstCycle != tt.first || s.LeadCycles != tt.lead ||
				s.LeadCostUSD != tt.leadCost || s.LeadSeconds != tt.leadSecs {
				t.Errorf("got %+v", s)
			}
			if len(res.Cycles) != len(tt.run.Cycles) {
				t.Errorf("%d cycle results for %d cycles", len(res.Cycles), len(tt.run.Cycles))
			}
			for _, c := range tt.run.Cycles {
				for _, fd := range c.Findings {
					if fd.Cycle != 0 {
						t.Fatal("ReplayRun mutated the run's findings")
					}
				}
			}
		})
	}
}

// TestMaxScoreRanksLikeTheThreshold checks the property the evaluation relies on: a run
// is predicted exactly when its MaxScore reaches the composite threshold, so sweeping a
// threshold over MaxScore equals replaying with that threshold.
func TestMaxScoreRanksLikeTheThreshold(t *testing.T) {
	runs := synth.Generate(synth.Config{Runs: 300, Seed: 3})
	var all []*input.Run
	for name, b := range synth.Files(runs) {
		rs, probs := readTrace(name, b)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		all = append(all, rs...)
	}
	for _, th := range []float64{0.2, 0.25, 0.4, 0.6, 0.65, 0.75, 0.9} {
		cfg := struggle.DefaultStruggleConfig()
		cfg.CompositeThreshold = th
		base := struggle.DefaultStruggleConfig()
		for _, r := range all {
			got := ReplayRun(r, cfg).Struggle.Triggered
			want := ReplayRun(r, base).Struggle.MaxScore >= th
			if got != want {
				t.Fatalf("threshold %v, run %s: triggered %v but MaxScore says %v", th, r.Key, got, want)
			}
		}
	}
}

func TestReplayOrderDuplicatesAndUnknownFiles(t *testing.T) {
	line := func(task string, cycle int) string {
		return fmt.Sprintf(`{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":%q,"data":{"cycle":%d,"total_cost_usd":1}}`+"\n", task, cycle)
	}
	fsys := fstest.MapFS{
		"b/two.jsonl":     {Data: []byte(line("z", 1) + line("a", 1))},
		"a/one.jsonl":     {Data: []byte(line("m", 1))},
		"c/dup.jsonl":     {Data: []byte(line("a", 1))},
		"c/data.bin":      {Data: []byte{0, 1, 2}},
		"LICENSE":         {Data: []byte("MIT")},
		".git/config":     {Data: []byte("[core]")},
		"docs/README.md":  {Data: []byte("# hi")},
		"empty.jsonl":     {Data: nil},
		"only-bad.jsonl":  {Data: []byte(`{"ts":"2026-03-01T10:00:00Z","kind":"agent_done","task":"q","data":{"role":"coder"}}` + "\n")},
		"nested/x/y.json": {Data: []byte(line("y", 1))},
	}
	for _, workers := range []int{1, 4} {
		var keys []string
		sum, err := Replay(context.Background(), fsys, Options{Workers: workers, Struggle: struggle.DefaultStruggleConfig()},
			SinkFunc(func(r *RunResult) error { keys = append(keys, r.Run.File+":"+r.Run.Key); return nil }))
		if err != nil {
			t.Fatal(err)
		}
		if want := "[a/one.jsonl:m b/two.jsonl:a b/two.jsonl:z nested/x/y.json:y]"; fmt.Sprint(keys) != want {
			t.Errorf("workers %d: order %v, want %s", workers, keys, want)
		}
		var probs []string
		for _, p := range sum.Problems {
			probs = append(probs, p.File+":"+string(p.Kind))
		}
		if want := "[c/data.bin:unknown_file c/dup.jsonl:duplicate_run empty.jsonl:unknown_file only-bad.jsonl:unusable_run]"; fmt.Sprint(probs) != want {
			t.Errorf("workers %d: problems %v, want %s", workers, probs, want)
		}
		if sum.Files != 5 || sum.Ignored != 2 || sum.Runs != 4 || sum.TotalProblems() != 4 || len(sum.Fingerprint) != 64 {
			t.Errorf("summary %+v", sum)
		}
	}
}

func TestReplayFingerprint(t *testing.T) {
	fp := func(fsys fs.FS) string {
		sum, err := Replay(context.Background(), fsys, Options{Struggle: struggle.DefaultStruggleConfig()}, SinkFunc(func(*RunResult) error { return nil }))
		if err != nil {
			t.Fatal(err)
		}
		return sum.Fingerprint
	}
	a := fp(datasets.Sample())
	if a != fp(datasets.Sample()) {
		t.Error("fingerprint not stable")
	}
	changed := fstest.MapFS{}
	fs.WalkDir(datasets.Sample(), ".", func(p string, d fs.DirEntry, err error) error {
		if !d.IsDir() {
			b, _ := fs.ReadFile(datasets.Sample(), p)
			changed[p] = &fstest.MapFile{Data: b}
		}
		return nil
	})
	if fp(changed) != a {
		t.Error("same files, different fingerprint")
	}
	changed["runs/synth-0001.jsonl"].Data = []byte(strings.Replace(string(changed["runs/synth-0001.jsonl"].Data), "0.", "1.", 1))
	if fp(changed) == a {
		t.Error("changed content, same fingerprint")
	}
}

func TestReplaySinkErrorStops(t *testing.T) {
	boom := errors.New("disk full")
	n := 0
	_, err := Replay(context.Background(), datasets.Sample(), Options{Workers: 2, Struggle: struggle.DefaultStruggleConfig()},
		SinkFunc(func(*RunResult) error { n++; return boom }))
	if !errors.Is(err, boom) || n != 1 {
		t.Errorf("err %v after %d runs", err, n)
	}
}

func TestReplayEmptyInput(t *testing.T) {
	_, err := Replay(context.Background(), fstest.MapFS{}, Options{}, SinkFunc(func(*RunResult) error { return nil }))
	if err != nil {
		t.Errorf("empty input: %v", err)
	}
}

// TestReplayNamesAside: a replay that keeps its files' names and records in scratch
// files delivers the same results, problems and fingerprint as one that holds them;
// one whose files cannot be read back fails with that, whatever failed after it.
func TestReplayNamesAside(t *testing.T) {
	replayed := func(scratch func(string) (*os.File, error)) (string, error) {
		var b strings.Builder
		sum, err := Replay(context.Background(), datasets.Sample(), Options{Workers: 2, Struggle: struggle.DefaultStruggleConfig(), Scratch: scratch},
			Sinks{Runs: func(r *RunResult) error { fmt.Fprintln(&b, r.Run.File, r.Run.Key, r.Struggle.Triggered); return nil },
				Sessions: func(s *SessionResult) error { fmt.Fprintln(&b, s.Session.File, s.Session.Key); return nil }})
		if err != nil {
			return "", err
		}
		fmt.Fprintln(&b, sum.Fingerprint, sum.Files, sum.Runs, sum.Sessions, sum.TotalProblems())
		return b.String(), nil
	}
	held, err := replayed(nil)
	if err != nil {
		t.Fatal(err)
	}
	aside, err := replayed(tempScratch(t, os.O_RDWR))
	if err != nil || aside != held {
		t.Errorf("names aside: %v\n%s\nwant\n%s", err, aside, held)
	}
	if _, err := replayed(tempScratch(t, os.O_WRONLY)); err == nil || !strings.Contains(err.Error(), "reading back the file records") {
		t.Errorf("files that cannot be read back: %v", err)
	}
}

// TestReplayDelivered: Options.Delivered hears once, before the replay phase ends, how
// long the delivery was busy — at least what the sink took — and changes nothing.
func TestReplayDelivered(t *testing.T) {
	line := func(task string) string {
		return fmt.Sprintf(`{"ts":"2026-03-01T10:00:00Z","kind":"cycle_done","task":%q,"data":{"cycle":1,"total_cost_usd":1}}`+"\n", task)
	}
	fsys := fstest.MapFS{}
	for i := range 20 {
		fsys[fmt.Sprintf("r/%02d.jsonl", i)] = &fstest.MapFile{Data: []byte(line(fmt.Sprint("t", i)))}
	}
	var inFileOrder []string
	for i := range 20 {
		inFileOrder = append(inFileOrder, fmt.Sprint("t", i))
	}
	const pause = 2 * time.Millisecond
	for _, workers := range []int{1, 3} {
		var calls []time.Duration
		var phases []string
		var keys []string
		opts := Options{Workers: workers, Struggle: struggle.DefaultStruggleConfig(),
			Delivered: func(busy time.Duration) { calls = append(calls, busy); phases = append(phases, "delivered") },
			Phase:     func(name string) { phases = append(phases, name) }}
		_, err := Replay(context.Background(), fsys, opts, SinkFunc(func(r *RunResult) error {
			time.Sleep(pause)
			keys = append(keys, r.Run.Key)
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 1 || calls[0] < 20*pause {
			t.Errorf("workers %d: Delivered heard %v, want once, at least the sink's 20 × %v", workers, calls, pause)
		}
		if want := "[walk recognise context delivered replay]"; fmt.Sprint(phases) != want {
			t.Errorf("workers %d: phases %v, want %s", workers, phases, want)
		}
		if want := fmt.Sprint(inFileOrder); fmt.Sprint(keys) != want {
			t.Errorf("workers %d: keys %v, want %s", workers, keys, want)
		}
	}
}
