package pipeline

import (
	"io/fs"
	"os"

	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/struggle"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/reports"
)

// job is one replay: its settings, its output tables and what it accumulates for
// the metrics while results stream through.
type job struct {
	s          Settings
	labels     *eval.Labels
	outcomes   eval.OutcomeClass
	cfgHash    string // struggle configuration
	assessHash string // assessment configuration
	evalOpts   eval.Options
	fixGiven   map[string]float64 // --fix-pass-prob, parsed

	out           *reports.Output
	runs          *reports.Table[reports.RunRow]
	cycles        *reports.Table[reports.CycleRow]
	metrics       *reports.Table[reports.MetricRow]
	problems      *reports.Table[reports.ProblemRow]
	fixFailures   *reports.Table[reports.FixFailureRow]
	fixRuns       *reports.Table[reports.FixRunRow]
	events        *reports.Table[reports.EventRow]
	checkpoints   *reports.Table[reports.CheckpointRow]
	interventions *reports.Table[reports.InterventionRow]
	curves        *reports.Table[reports.CurveRow]
	// scorings holds the configured detectors' predictions first, then those of every
	// configuration compared with them (the variants, in order).
	scorings                []*scoring
	shipped                 *scoring // the baselines' scoring, also in scorings; nil when not compared
	fixCases                []*fixsim.Case
	derived, momentsMissing int
	momentsMissingDetail    []string
	keys                    map[string]bool // run and session keys replayed
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
	openTable(j.out, "curves", &j.curves, &err)
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
	j.keys[res.Run.Key] = true
	rec, ok := j.labels.Get(res.Run.Key)
	if !ok && j.s.DeriveLabels {
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
	j.scorings[0].addRun(res.Run.Key, rec.Label, res.Struggle)
	for i, out := range res.Variants {
		j.scorings[1+i].addRun(res.Run.Key, rec.Label, out)
	}
	if sh, ok := res.Extra.(*shippedRun); ok {
		j.shipped.addRun(res.Run.Key, rec.Label, sh.out)
	}
	if res.FixCase != nil {
		j.fixCases = append(j.fixCases, res.FixCase)
	}
	return nil
}

// session takes one replayed session.
func (j *job) session(sr *replay.SessionResult) error {
	s := sr.Session
	j.keys[s.Key] = true
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
	}
	row, events, cps, ivs := reports.SessionRows(sr, lab, j.outcomes, j.s.FrictionWindow)
	for _, err := range []error{j.runs.Write(row), j.events.Write(events...), j.checkpoints.Write(cps...), j.interventions.Write(ivs...)} {
		if err != nil {
			return err
		}
	}
	j.scorings[0].addSession(s, rec.Label, ok, lab.Moments, sr.HumanMessages, sr.Outcome(), j.outcomes)
	for i, o := range sr.Variants {
		j.scorings[1+i].addSession(s, rec.Label, ok, lab.Moments, sr.HumanMessages, o, j.outcomes)
	}
	if sh, isShipped := sr.Extra.(*shippedSession); isShipped {
		if sh.err != nil {
			return fmt.Errorf("session %s: the shipped-today baseline: %w", s.Key, sh.err)
		}
		j.shipped.addSession(s, rec.Label, ok, lab.Moments, sr.HumanMessages, sh.out, j.outcomes)
	}
	return nil
}

// finish writes the metrics and the simulation and commits the output.
func (j *job) finish(ctx context.Context, sum *replay.Summary, res *Result) error {
	badOutcome := "bad outcome (" + strings.Join(j.outcomes.Positive(), ", ") + ")"
	writeMetrics := func() error {
		for _, c := range j.scorings {
			metrics, curves := c.evaluate(res, j.evalOpts, j.s.FrictionWindow, badOutcome, sum.Runs > 0 || sum.Sessions == 0)
			if err := j.metrics.Write(metrics...); err != nil {
				return err
			}
			if err := j.curves.Write(curves...); err != nil {
				return err
			}
		}
		return nil
	}
	// The metrics and the simulation need nothing of each other: with more than one
	// worker the metrics are computed while the simulation runs, not before it.
	metricsErr := make(chan error, 1)
	if workers := j.s.Workers; workers > 1 || workers <= 0 && runtime.GOMAXPROCS(0) > 1 {
		go func() { metricsErr <- writeMetrics() }()
	} else {
		metricsErr <- writeMetrics()
	}
	fixCfg := fixsim.Config{Draws: j.s.Fix.Draws, TrialsPerDraw: j.s.Fix.Trials, Seed: j.s.Seed, CostFraction: j.s.Fix.CostFraction,
		MaxFilterFixes: j.s.Fix.MaxFixes, Level: j.s.Level}
	totals, err := simulateFixLoop(ctx, j.fixCases, fixCfg, j.fixGiven, j.s.Workers, j.fixRuns, j.fixFailures)
	if merr := <-metricsErr; merr != nil {
		return merr
	}
	if err != nil {
		return err
	}
	if sum.Runs > 0 {
		res.FixTotals = totals
	}
	j.out.SetMetadata("loopwatch.input_fingerprint", sum.Fingerprint)
	if notes, err := json.Marshal(sum.Notes); err == nil && len(sum.Notes) > 0 {
		j.out.SetMetadata("loopwatch.input_notes", string(notes))
	}
	if j.s.DeriveLabels {
		res.LabelsNote = fmt.Sprintf("%d runs labelled from their outcomes (label_source=derived); explicit labels: %s", j.derived, res.LabelsNote)
	}
	if j.momentsMissing > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%d labelled friction moments are not events of their session and were left out (e.g. %s)",
			j.momentsMissing, strings.Join(j.momentsMissingDetail, "; ")))
	}
	for _, k := range j.labels.Keys() {
		if !j.keys[k] {
			res.UnmatchedLabels = append(res.UnmatchedLabels, k)
		}
	}
	if err := j.out.Commit(); err != nil {
		return err
	}
	res.Tables = []TableCount{{"", j.runs.Rows()}, {"cycles", j.cycles.Rows()}, {"metrics", j.metrics.Rows()},
		{"fixloop", j.fixFailures.Rows()}, {"fixloop_runs", j.fixRuns.Rows()}, {"events", j.events.Rows()},
		{"checkpoints", j.checkpoints.Rows()}, {"interventions", j.interventions.Rows()}, {"curves", j.curves.Rows()},
		{"problems", j.problems.Rows()}}
	return nil
}

// simulateFixLoop runs the inner fix-loop simulation over the runs with recorded
// filter failures, in parallel, and writes its rows in run order as they come.
func simulateFixLoop(ctx context.Context, cases []*fixsim.Case, cfg fixsim.Config, given map[string]float64, workers int,
	runs *reports.Table[reports.FixRunRow], failures *reports.Table[reports.FixFailureRow]) (*fixsim.Totals, error) {
	history := fixsim.NewHistory()
	for _, c := range cases {
		history.Add(c)
	}
	plan := fixsim.NewPlan(cfg, history.Rates(given))
	return plan.SimulateAll(ctx, cases, workers, func(run fixsim.RunResult, fails []fixsim.FailureResult) error {
		runRow, failureRows := reports.FixRows(run, fails)
		if err := runs.Write(runRow); err != nil {
			return err
		}
		return failures.Write(failureRows...)
	})
}

// Run replays s.In through the detectors, writes every table beside s.Out, scores
// the detectors against the labels and commits the output as a set. A UsageError
// means the settings or the files they name are wrong and nothing was written; any
// other error means the replay or the writing failed and nothing was committed.
// Problems in the input are not errors: they are in the Result.
func Run(ctx context.Context, s Settings) (*Result, error) {
	in, err := Prepare(s)
	if err != nil {
		return nil, err
	}
	cfg, assessCfg, outcomes, labels := in.Struggle, in.Assess, in.Outcomes, in.labels
	cfgJSON, _ := json.Marshal(cfg)
	assessJSON, _ := json.Marshal(assessCfg)
	fixJSON, _ := json.Marshal(map[string]any{"pass_prob": s.Fix.PassProb, "cost_fraction": s.Fix.CostFraction,
		"draws": s.Fix.Draws, "trials_per_draw": s.Fix.Trials, "max_filter_fixes": s.Fix.MaxFixes, "seed": s.Seed})
	evalJSON, _ := json.Marshal(map[string]any{"seed": s.Seed, "resamples": s.Resamples, "ci_level": s.Level, "beta": s.Beta,
		"positive_outcomes": outcomes.Positive(), "friction_window": s.FrictionWindow.String()})
	labelsID := labels.id
	if s.DeriveLabels {
		labelsID = "derived (quasar outcome rules); explicit: " + labelsID
	}
	resamples := s.Resamples
	if resamples == 0 {
		resamples = -1 // eval: < 0 disables; 0 would mean its default
	}
	j := &job{s: s, labels: labels.labels, outcomes: outcomes, cfgHash: shortHash(cfgJSON), assessHash: shortHash(assessJSON),
		evalOpts: eval.Options{Seed: s.Seed, Resamples: resamples, Level: s.Level, Beta: s.Beta}, fixGiven: in.FixPassProb,
		keys: map[string]bool{}}
	j.scorings = append(j.scorings, &scoring{struggleName: in.StruggleName, assessName: in.AssessName,
		struggleHash: j.cfgHash, assessHash: j.assessHash, configured: true})
	for _, v := range in.Variants {
		vs, _ := json.Marshal(v.Struggle)
		va, _ := json.Marshal(v.Assess)
		j.scorings = append(j.scorings, &scoring{struggleName: v.Name, assessName: v.Name, struggleHash: shortHash(vs), assessHash: shortHash(va)})
	}
	if in.Shipped {
		j.shipped = &scoring{struggleName: Shipped, assessName: Shipped, struggleHash: Shipped, assessHash: Shipped, noOutcome: true}
		j.scorings = append(j.scorings, j.shipped)
	}
	j.out, err = reports.NewOutput(s.Out, map[string]string{
		"loopwatch.struggle_config": string(cfgJSON),
		"loopwatch.config_hash":     j.cfgHash,
		"loopwatch.assess_config":   string(assessJSON),
		"loopwatch.assess_hash":     j.assessHash,
		"loopwatch.llm":             s.LLM,
		"loopwatch.labels":          labelsID,
		"loopwatch.eval":            string(evalJSON),
		"loopwatch.fixsim":          string(fixJSON),
	})
	if err != nil {
		return nil, UsageError{err}
	}
	defer j.out.Abort()
	if err := j.openTables(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(s.In); err == nil && fi.IsDir() {
		in.Exclude = replay.ExcludeWithin(s.In, j.out.Files())
	}
	sum, err := replay.Replay(ctx, in.FS, in.ReplayOptions(), replay.Sinks{Runs: j.run, Sessions: j.session,
		Problems: func(p input.Problem) error { return j.problems.Write(reports.ProblemRows([]input.Problem{p})...) }})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	res := &Result{Summary: sum, LabelsNote: labels.note, Warnings: labels.warnings, Out: j.out, Struggle: cfg, Assess: assessCfg}
	if n := len(j.out.Cleaned()); n > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("removed %d stale temporary files an interrupted replay left beside %s", n, j.out.Path("")))
	}
	if err := j.finish(ctx, sum, res); err != nil {
		return nil, err
	}
	return res, nil
}

// Inputs is what a replay reads and how, resolved from Settings: the input file
// system, the labels, the detector configurations and the session analyzer.
type Inputs struct {
	FS   fs.FS
	Name string // the input, for messages
	// Labels holds the merged labels (LabelsNote says where from; LabelWarnings are bad
	// rows and keys labelled twice).
	Labels        *eval.Labels
	LabelsNote    string
	LabelWarnings []error
	Outcomes      eval.OutcomeClass
	Struggle      struggle.StruggleConfig
	Assess        assess.Config
	LLM           llm.AssessmentLLM // nil: the offline analyzer
	FixPassProb   map[string]float64
	Workers       int
	// StruggleName and AssessName label the configured detectors in tables and
	// summaries: the preset's name, or "configured" for a configuration file.
	StruggleName, AssessName string
	// Variants are the configurations compared with the configured one (the presets
	// Settings.Compare names, unless equal to the configured one).
	Variants []replay.Variant
	// Shipped: the shipped-today baselines are scored too (Settings.Compare names them).
	Shipped bool
	// Exclude lists output files inside the input, left out of the walk.
	Exclude []string
	stream  bool // the input is one file that is not a regular file: read it once
	labels  labelSet
}

// Prepare validates s and resolves what it names: the input, the labels, the
// configuration files, the session analyzer. Every failure is a UsageError.
func Prepare(s Settings) (*Inputs, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	fsys, name, err := openInput(s.In)
	if err != nil {
		return nil, UsageError{err}
	}
	in := &Inputs{FS: fsys, Name: name, Workers: s.Workers, stream: isStream(s.In)}
	if in.Outcomes, err = eval.ParseOutcomeClass(s.PositiveOutcomes); err != nil {
		return nil, usage("--positive-outcomes: %w", err)
	}
	if in.labels, err = loadLabels(s, in.Outcomes); err != nil {
		return nil, UsageError{err}
	}
	in.Labels, in.LabelsNote, in.LabelWarnings = in.labels.labels, in.labels.note, in.labels.warnings
	if in.Struggle, err = LoadStruggleConfig(s.StruggleConfig); err != nil {
		return nil, UsageError{err}
	}
	if in.Assess, err = LoadAssessConfig(s.AssessConfig); err != nil {
		return nil, UsageError{err}
	}
	if in.LLM, err = sessionLLM(s); err != nil {
		return nil, UsageError{err}
	}
	if in.FixPassProb, err = parsePassProb(s.Fix.PassProb); err != nil {
		return nil, UsageError{err}
	}
	in.StruggleName, in.AssessName = configName(s.StruggleConfig), configName(s.AssessConfig)
	for _, name := range s.Compare {
		if name == Shipped {
			in.Shipped = true
			continue
		}
		if name == in.StruggleName && name == in.AssessName {
			continue
		}
		sc, err := struggle.Preset(name)
		if err != nil {
			return nil, usage("--compare %s: %w", name, err)
		}
		ac, err := assess.Preset(name)
		if err != nil {
			return nil, usage("--compare %s: %w", name, err)
		}
		in.Variants = append(in.Variants, replay.Variant{Name: name, Struggle: sc, Assess: &ac})
	}
	return in, nil
}

// configName labels a configuration value: the preset it names ("loopwatch" when
// empty), else "configured".
func configName(value string) string {
	switch {
	case value == "":
		return assess.PresetLoopwatch
	case assess.IsPreset(value):
		return value
	}
	return "configured"
}

// ReplayOptions returns the replay's options for these inputs.
func (in *Inputs) ReplayOptions() replay.Options {
	assessCfg := in.Assess
	opts := replay.Options{Workers: in.Workers, Struggle: in.Struggle,
		Sessions: replay.SessionOptions{Assess: &assessCfg, LLM: in.LLM}, Variants: in.Variants,
		Exclude: in.Exclude, ReadSpecialFiles: in.stream}
	if in.Shipped {
		opts.RunHook, opts.SessionHook = scoreShippedRun, scoreShippedSession
	}
	return opts
}

// Result is what one replay produced: what it read, the detectors' evaluations and
// the tables it wrote.
type Result struct {
	Summary *replay.Summary
	// LabelsNote says where the labels came from and how many there were.
	LabelsNote string
	// Detectors holds the per-run and per-session evaluations: the configured
	// detectors' first, then each compared configuration's (Config names it).
	Detectors []reports.DetectorReport
	// Moments holds the event-level evaluations of interventions against labelled
	// friction moments, the configured breaker's first; empty when no labelled session
	// was replayed.
	Moments []reports.MomentResult
	// FixTotals is the inner fix-loop simulation over the runs; nil without runs.
	FixTotals *fixsim.Totals
	// UnmatchedLabels are label keys that match no replayed run or session, in key
	// order: a labels file for other input, or keys spelled differently.
	UnmatchedLabels []string
	// Warnings are facts the user should see that are not input problems (bad label
	// rows, keys labelled twice, friction moments missing from their session).
	Warnings []error
	// Curves holds each detector's PR/ROC curve under each configuration, in the
	// order of Detectors.
	Curves []CurveResult
	// Struggle and Assess are the configured detectors' configurations.
	Struggle struggle.StruggleConfig
	Assess   assess.Config
	// Tables counts the rows of every table written, in the order they are listed.
	Tables []TableCount
	// Out is the committed output (Out.Path(table) names each table's file).
	Out *reports.Output
}

// CurveResult is one detector's curve under one configuration.
type CurveResult struct {
	Detector, Config string
	Curve            eval.Curve
}

// TableCount is one output table and its rows ("" is the run table).
type TableCount struct {
	Table string
	Rows  int64
}

// Problems is the number of problems: input problems and label keys that match
// nothing (a label that scores nothing is a problem under --strict).
func (r *Result) Problems() int { return r.Summary.TotalProblems() + len(r.UnmatchedLabels) }
