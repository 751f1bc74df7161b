package synth_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/reports"
)

var printHardCases = flag.Bool("hardcases", false, "print the hard-cases table (README: Built-in sample)")

// Sizes of the hard-cases replay: runs of each scenario, sessions of each session
// scenario (each replayed on its own, for its friction moments), and vibes logs of
// two sessions each. Session scenarios are scripted (the same
// conversation with fresh ids and times), so a few sessions show what a detector does.
const (
	hardRuns     = 40
	hardSessions = 6
	hardVibes    = 3
	hardSeed     = 7
)

// TestHardCases replays every synthetic scenario on its own through the pipeline,
// each detector at its defaults, and checks that the table it gives is the one the
// README quotes (Built-in sample, "What each detector is expected to miss"): per
// scenario, its ground truth and what each detector made of it. Print the table with
//
//	go test ./datasets/synth -run TestHardCases -hardcases
func TestHardCases(t *testing.T) {
	got := hardCases(t)
	if *printHardCases {
		fmt.Print(got)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```\nDETECTOR  SCENARIO")
	if !ok {
		t.Fatal("README has no hard-cases block (a fenced block starting DETECTOR  SCENARIO)")
	}
	block = "DETECTOR  SCENARIO" + block[:strings.Index(block, "```")]
	if strings.TrimSpace(block) != strings.TrimSpace(got) {
		t.Errorf("README's hard-cases table is stale; go test ./datasets/synth -run TestHardCases -hardcases prints:\n%s", got)
	}
}

// hardCases replays the scenarios and renders the table.
func hardCases(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DETECTOR\tSCENARIO\tTRUTH\tN\tFLAGGED\tLABELLED MOMENTS\tCAUGHT\tINTERVENTIONS\tFALSE ALARMS")

	// The run scenarios in one replay, each run told by its key.
	var plan []synth.Scenario
	for _, sc := range synth.Scenarios {
		plan = append(plan, slices.Repeat([]synth.Scenario{sc}, hardRuns)...)
	}
	runs := synth.Generate(synth.Config{Seed: hardSeed, Plan: plan})
	scenario := map[string]synth.Scenario{}
	for _, r := range runs {
		scenario[r.Key] = r.Scenario
	}
	rows, res := replay(t, synth.Layout(runs, nil, nil))
	for _, sc := range synth.Scenarios {
		n, flagged := 0, 0
		for _, r := range rows {
			if scenario[r.RunKey] == sc {
				n++
				if r.StrugglePredicted != nil && *r.StrugglePredicted {
					flagged++
				}
			}
		}
		truth := "negative"
		if sc.Struggling() {
			truth = "positive"
		}
		fmt.Fprintf(tw, "struggle\t%s\t%s\t%d\t%s\t\t\t\t\n", sc, truth, n, share(flagged, n))
	}

	type sessionCase struct {
		name, truth string
		rows        []reports.RunRow
		moments     *reports.MomentResult
	}
	var cases []sessionCase
	for _, sc := range synth.SessionScenarios {
		sessions := synth.GenerateSessions(synth.SessionConfig{Seed: hardSeed, Plan: slices.Repeat([]synth.SessionScenario{sc}, hardSessions)})
		rows, res := replay(t, synth.Layout(nil, sessions, nil))
		c := sessionCase{name: string(sc), truth: sc.Outcome(), rows: rows}
		if len(res.Moments) > 0 {
			c.moments = &res.Moments[0]
		}
		cases = append(cases, c)
	}
	files := synth.DatasetFiles(synth.DatasetConfig{VibesLogs: hardVibes, Seed: hardSeed})
	rows, res = replay(t, files)
	c := sessionCase{name: "vibes (a smooth and a bumpy session a log)", truth: "success", rows: rows}
	if len(res.Moments) > 0 {
		c.moments = &res.Moments[0]
	}
	cases = append(cases, c)

	for _, det := range []string{"breaker", "outcome", "friction"} {
		for _, c := range cases {
			flagged := 0
			for _, r := range c.rows {
				p := r.BreakerPredicted
				if det == "outcome" {
					p = r.OutcomePredictedBad
				}
				if p != nil && *p {
					flagged++
				}
			}
			truth := c.truth
			if truth == "failure" || truth == "abandoned" {
				truth += " (positive)"
			} else {
				truth += " (negative)"
			}
			if det != "friction" {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t\t\t\t\n", det, c.name, truth, len(c.rows), share(flagged, len(c.rows)))
				continue
			}
			m := c.moments
			if m == nil {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t\t0\t—\t—\t—\n", det, c.name, truth, len(c.rows))
				continue
			}
			r := m.Report
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t\t%d\t%s\t%d\t%d\n", det, c.name, truth, r.Sessions, r.Moments, share(r.Caught, r.Moments), r.Interventions, r.FalseAlarms)
		}
	}
	tw.Flush()
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// replay writes a generated dataset into a temporary folder and replays it with its
// labels through the pipeline (the defaults, nothing compared, no bootstrap), and
// returns the run table's rows in key order.
func replay(t *testing.T, files map[string][]byte) ([]reports.RunRow, *pipeline.Result) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := pipeline.DefaultSettings()
	s.In, s.Out = filepath.Join(dir, synth.InputsDir), filepath.Join(dir, "results.parquet")
	for _, l := range []string{synth.RunLabelsFile, synth.SessionLabelsFile} {
		if _, ok := files[l]; ok {
			s.Labels = append(s.Labels, filepath.Join(dir, filepath.FromSlash(l)))
		}
	}
	s.Compare, s.Resamples = nil, 0
	s.Fix.Draws, s.Fix.Trials = 1, 1 // the fix-loop simulation is not what this measures
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := pipeline.Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Problems(); n > 0 {
		t.Fatalf("%d problems replaying generated data", n)
	}
	rows, err := reports.ReadRows[reports.RunRow](s.Out, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rows, res
}

// share is "12 (30%)".
func share(k, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%d (%d%%)", k, (100*k+n/2)/n)
}
