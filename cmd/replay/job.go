package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/reports"
)

// job is one replay: its settings, its output tables and what it accumulates for
// the metrics while results stream through.
type job struct {
	o          options
	labels     *eval.Labels
	outcomes   eval.OutcomeClass
	cfgHash    string // struggle configuration
	assessHash string // assessment configuration
	evalOpts   eval.Options
	fixGiven   map[string]float64 // --fix-pass-prob, parsed

	out                            *reports.Output
	runs                           *reports.Table[reports.RunRow]
	cycles                         *reports.Table[reports.CycleRow]
	metrics                        *reports.Table[reports.MetricRow]
	problems                       *reports.Table[reports.ProblemRow]
	fixFailures                    *reports.Table[reports.FixFailureRow]
	fixRuns                        *reports.Table[reports.FixRunRow]
	events                         *reports.Table[reports.EventRow]
	checkpoints                    *reports.Table[reports.CheckpointRow]
	interventions                  *reports.Table[reports.InterventionRow]
	runObs, breakerObs, outcomeObs []eval.Observation
	moments                        []eval.MomentSession
	fixCases                       []*fixsim.Case
	derived, momentsMissing        int
	momentsMissingDetail           []string
}

// openTables creates every output table.
func (j *job) openTables() error {
	var err error
	openTable(j.out, "", &j.runs, &err)
	openTable(j.out, "cycles", &j.cycles, &err)
	openTable(j.out, "metrics", &j.metrics, &err)
	openTable(j.out, "problems", &j.problems, &err)
	openTable(j.out, "fixloop", &j.fixFailures, &err)
	openTable(j.out, "fixloop_runs", &j.fixRuns, &err)
	openTable(j.out, "events", &j.events, &err)
	openTable(j.out, "checkpoints", &j.checkpoints, &err)
	openTable(j.out, "interventions", &j.interventions, &err)
	return err
}

// openTable opens the table named name into dst unless an earlier table failed.
func openTable[T any](out *reports.Output, name string, dst **reports.Table[T], err *error) {
	if *err == nil {
		*dst, *err = reports.NewTable[T](out, name)
	}
}

// run takes one replayed quasar run.
func (j *job) run(res *replay.RunResult) error {
	rec, ok := j.labels.Get(res.Run.Key)
	if !ok && j.o.deriveLabels {
		r := res.Run
		rec, ok = eval.DeriveQuasar(eval.QuasarRun{Key: r.Key, Outcome: string(r.Outcome), Cycles: len(r.Cycles), CloseReason: r.CloseReason}), true
		j.derived++
	}
	runRow, cycleRows := reports.RunRows(res, rec, ok)
	if err := j.runs.Write(runRow); err != nil {
		return err
	}
	if err := j.cycles.Write(cycleRows...); err != nil {
		return err
	}
	j.runObs = append(j.runObs, eval.Observation{Key: res.Run.Key, Label: rec.Label, Predicted: res.Struggle.Triggered,
		Score: res.Struggle.MaxScore})
	if res.FixCase != nil {
		j.fixCases = append(j.fixCases, res.FixCase)
	}
	return nil
}

// session takes one replayed session.
func (j *job) session(sr *replay.SessionResult) error {
	s := sr.Session
	rec, ok := j.labels.Get(s.Key)
	lab := reports.SessionLabel{Record: rec, Labelled: ok}
	if ok {
		for _, m := range rec.Moments {
			if i := m.Find(s.Events); i >= 0 {
				lab.Moments = append(lab.Moments, i)
			} else {
				j.momentsMissing++
				if len(j.momentsMissingDetail) < 5 {
					j.momentsMissingDetail = append(j.momentsMissingDetail, fmt.Sprintf("%s in session %s", m, s.Key))
				}
			}
		}
		j.moments = append(j.moments, reports.MomentSession(sr, lab.Moments))
	}
	row, events, cps, ivs := reports.SessionRows(sr, lab, j.outcomes, j.o.frictionWindow)
	for _, err := range []error{j.runs.Write(row), j.events.Write(events...), j.checkpoints.Write(cps...), j.interventions.Write(ivs...)} {
		if err != nil {
			return err
		}
	}
	j.breakerObs = append(j.breakerObs, eval.Observation{Key: s.Key, Label: rec.Label, Predicted: sr.Interventions > 0,
		Score: sr.PeakFrustration})
	obs := eval.Observation{Key: s.Key, Label: rec.Label, Score: math.NaN()}
	if a := sr.Final().Analysis; a != nil {
		obs.Predicted = j.outcomes.Label(string(a.Outcome)) == eval.Positive
		obs.Score = a.Confidence
		if !obs.Predicted {
			obs.Score = 1 - a.Confidence
		}
	}
	j.outcomeObs = append(j.outcomeObs, obs)
	return nil
}

// finish writes the metrics and the simulation, commits the output and prints the
// summary.
func (j *job) finish(ctx context.Context, sum *replay.Summary, labelsNote string, stdout, stderr io.Writer) error {
	var detectors []reports.DetectorReport
	badOutcome := "bad outcome (" + strings.Join(j.outcomes.Positive(), ", ") + ")"
	if sum.Runs > 0 || sum.Sessions == 0 {
		rep := eval.Evaluate(j.runObs, j.evalOpts)
		detectors = append(detectors, reports.DetectorReport{Detector: "struggle", Report: rep})
		if err := j.metrics.Write(reports.MetricRows("struggle", "run", "struggled", j.cfgHash, rep)...); err != nil {
			return err
		}
	}
	var momentRep *eval.MomentReport
	if sum.Sessions > 0 {
		sessionOpts := j.evalOpts
		sessionOpts.Unit = "sessions"
		breaker := eval.Evaluate(j.breakerObs, sessionOpts)
		outcome := eval.Evaluate(j.outcomeObs, sessionOpts)
		detectors = append(detectors, reports.DetectorReport{Detector: "breaker", Report: breaker},
			reports.DetectorReport{Detector: "outcome", Report: outcome})
		rows := append(reports.MetricRows("breaker", "session", badOutcome, j.assessHash, breaker),
			reports.MetricRows("outcome", "session", badOutcome, j.assessHash, outcome)...)
		if len(j.moments) > 0 {
			momentRep = eval.EvaluateMoments(j.moments, j.o.frictionWindow, j.evalOpts)
			rows = append(rows, reports.MomentMetricRows("breaker", j.assessHash, momentRep, j.evalOpts)...)
		}
		if err := j.metrics.Write(rows...); err != nil {
			return err
		}
	}
	if err := j.problems.Write(reports.ProblemRows(sum.Problems)...); err != nil {
		return err
	}
	fixCfg := fixsim.Config{Draws: j.o.fixDraws, TrialsPerDraw: j.o.fixTrials, Seed: j.o.seed, CostFraction: j.o.fixCostFraction,
		MaxFilterFixes: j.o.maxFixes, Level: j.o.level}
	fixTotals, err := simulateFixLoop(ctx, j.fixCases, fixCfg, j.fixGiven, j.o.workers, j.fixRuns, j.fixFailures)
	if err != nil {
		return err
	}
	j.out.SetMetadata("loopwatch.input_fingerprint", sum.Fingerprint)
	if notes, err := json.Marshal(sum.Notes); err == nil && len(sum.Notes) > 0 {
		j.out.SetMetadata("loopwatch.input_notes", string(notes))
	}
	if j.o.deriveLabels {
		labelsNote = fmt.Sprintf("%d runs labelled from their outcomes (label_source=derived); explicit labels: %s", j.derived, labelsNote)
	}
	if err := j.out.Commit(); err != nil {
		return err
	}

	if sum.Files == 0 {
		fmt.Fprintf(stderr, "replay: no input file is in a recognised format (%s)\n", strings.Join(replay.FormatNames(), ", "))
	}
	reports.WriteProblems(stderr, sum, j.o.showProblems, " (all are in "+j.out.Path("problems")+")")
	if j.momentsMissing > 0 {
		fmt.Fprintf(stderr, "replay: %d labelled friction moments are not events of their session and were left out (e.g. %s)\n",
			j.momentsMissing, strings.Join(j.momentsMissingDetail, "; "))
	}
	if err := reports.WriteSummary(stdout, sum, labelsNote, detectors); err != nil {
		return err
	}
	if momentRep != nil {
		reports.WriteMomentSummary(stdout, "breaker", momentRep)
	}
	if sum.Runs > 0 {
		reports.WriteFixSummary(stdout, fixTotals)
	}
	fmt.Fprintf(stdout, "\nwrote %s (%d runs and sessions) and beside it: cycles (%d), metrics (%d), fixloop (%d), fixloop_runs (%d), events (%d), checkpoints (%d), interventions (%d), problems (%d)\n",
		j.out.Path(""), j.runs.Rows(), j.cycles.Rows(), j.metrics.Rows(), j.fixFailures.Rows(), j.fixRuns.Rows(),
		j.events.Rows(), j.checkpoints.Rows(), j.interventions.Rows(), j.problems.Rows())
	return nil
}

// simulateFixLoop runs the inner fix-loop simulation over the runs with recorded
// filter failures, in parallel, and writes its rows in run order.
func simulateFixLoop(ctx context.Context, cases []*fixsim.Case, cfg fixsim.Config, given map[string]float64, workers int,
	runs *reports.Table[reports.FixRunRow], failures *reports.Table[reports.FixFailureRow]) (*fixsim.Totals, error) {
	history := fixsim.NewHistory()
	for _, c := range cases {
		history.Add(c)
	}
	plan := fixsim.NewPlan(cfg, history.Rates(given))
	totals := plan.NewTotals()
	type result struct {
		run      fixsim.RunResult
		failures []fixsim.FailureResult
		err      error
	}
	results := make([]result, len(cases))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := &results[i]
				r.run, r.failures, r.err = plan.Simulate(ctx, cases[i])
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		totals.Add(r.run)
		runRow, failureRows := reports.FixRows(r.run, r.failures)
		if err := runs.Write(runRow); err != nil {
			return nil, err
		}
		if err := failures.Write(failureRows...); err != nil {
			return nil, err
		}
	}
	return totals, nil
}

// replayJob runs the replay command's job.
func replayJob(ctx context.Context, o options, stdout, stderr io.Writer) error {
	fsys, inputName, err := openInput(o.in)
	if err != nil {
		return usageError{err}
	}
	outcomes, err := eval.ParseOutcomeClass(o.positiveOutcomes)
	if err != nil {
		return usageError{fmt.Errorf("--positive-outcomes: %w", err)}
	}
	labels, labelsNote, labelsID, err := loadLabels(o, outcomes, stderr)
	if err != nil {
		return usageError{err}
	}
	cfg, err := loadStruggleConfig(o.struggleConfig)
	if err != nil {
		return usageError{err}
	}
	assessCfg, err := loadAssessConfig(o.assessConfig)
	if err != nil {
		return usageError{err}
	}
	analyzer, err := sessionLLM(o)
	if err != nil {
		return usageError{err}
	}
	fixGiven, err := parsePassProb(o.fixPassProb)
	if err != nil {
		return usageError{err}
	}
	if !(o.frictionWindow > 0) {
		return usageError{fmt.Errorf("--friction-window %v: must be positive", o.frictionWindow)}
	}
	cfgJSON, _ := json.Marshal(cfg)
	assessJSON, _ := json.Marshal(assessCfg)
	fixJSON, _ := json.Marshal(map[string]any{"pass_prob": o.fixPassProb, "cost_fraction": o.fixCostFraction,
		"draws": o.fixDraws, "trials_per_draw": o.fixTrials, "max_filter_fixes": o.maxFixes, "seed": o.seed})
	evalJSON, _ := json.Marshal(map[string]any{"seed": o.seed, "resamples": max(o.resamples, 0), "ci_level": o.level, "beta": o.beta,
		"positive_outcomes": outcomes.Positive(), "friction_window": o.frictionWindow.String()})
	if o.deriveLabels {
		labelsID = "derived (quasar outcome rules); explicit: " + labelsID
	}
	j := &job{o: o, labels: labels, outcomes: outcomes, cfgHash: shortHash(cfgJSON), assessHash: shortHash(assessJSON),
		evalOpts: eval.Options{Seed: o.seed, Resamples: o.resamples, Level: o.level, Beta: o.beta}, fixGiven: fixGiven}
	j.out, err = reports.NewOutput(o.out, map[string]string{
		"loopwatch.struggle_config": string(cfgJSON),
		"loopwatch.config_hash":     j.cfgHash,
		"loopwatch.assess_config":   string(assessJSON),
		"loopwatch.assess_hash":     j.assessHash,
		"loopwatch.llm":             o.llm,
		"loopwatch.labels":          labelsID,
		"loopwatch.eval":            string(evalJSON),
		"loopwatch.fixsim":          string(fixJSON),
	})
	if err != nil {
		return usageError{err}
	}
	defer j.out.Abort()
	if err := j.openTables(); err != nil {
		return err
	}
	sum, err := replay.Replay(ctx, fsys, replay.Options{Workers: o.workers, Struggle: cfg,
		Sessions: replay.SessionOptions{Assess: &assessCfg, LLM: analyzer}}, replay.Sinks{Runs: j.run, Sessions: j.session})
	if err != nil {
		return fmt.Errorf("%s: %w", inputName, err)
	}
	if err := j.finish(ctx, sum, labelsNote, stdout, stderr); err != nil {
		return err
	}
	if o.strict && sum.TotalProblems() > 0 {
		return fmt.Errorf("%d problems in the input and --strict is set (fix them or drop --strict)", sum.TotalProblems())
	}
	return nil
}
