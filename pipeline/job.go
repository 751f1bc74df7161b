package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"

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
	s        Settings
	in       *Inputs
	labelSet labelSet
	labels   *eval.Labels
	outcomes eval.OutcomeClass
	shard    replay.Shard // the zero Shard: a whole replay to a file
	md       map[string]string
	// configs are the configurations scored: the configured detectors first, then
	// every configuration compared with them (the variants, in order), then the
	// shipped-today baselines when compared.
	configs []configSpec

	out           *reports.Output
	runs          *reports.Table[reports.RunRow]
	cycles        *reports.Table[reports.CycleRow]
	problems      *reports.Table[reports.ProblemRow]
	events        *reports.Table[reports.EventRow]
	checkpoints   *reports.Table[reports.CheckpointRow]
	interventions *reports.Table[reports.InterventionRow]
	predictions   *reports.Table[reports.PredictionRow]
	fixCases      *reports.Table[reports.FixCaseRow]
	inputs        *reports.Table[reports.InputRow] // a folder's: the merge folds them into the input fingerprint
	derived       derivedTables                    // a whole replay to a file only: a folder's are the merge's

	// preds and cases hold what the metrics and the simulation are derived from, of the
	// rows of the predictions and fix-loop cases tables, in scratch files (a replay to a
	// file; a folder's rows are read back by the merge); order checks that units arrive
	// in the order the derivation reads them in.
	preds *predSpill
	cases *caseSpill
	order unitOrder
	tally tally
	// matched marks the labels (by eval.Labels.Index) whose key was replayed: a bit
	// a label.
	matched []uint64
}

// match marks the label at index i (among j.labels; -1 for none) as matched by a
// replayed run or session.
func (j *job) match(i int) {
	if i >= 0 {
		j.matched[i/64] |= 1 << (i % 64)
	}
}

// isMatched reports whether the label at index i was matched.
func (j *job) isMatched(i int) bool { return j.matched[i/64]&(1<<(i%64)) != 0 }

// openTables creates every output table; withDerived: the metrics, curves and
// fix-loop simulation's too.
func (j *job) openTables(withDerived bool) error {
	var err error
	openTable(j.out, "", &j.runs, &err)
	openTable(j.out, "cycles", &j.cycles, &err)
	if withDerived {
		openTable(j.out, "metrics", &j.derived.metrics, &err)
	}
	openTable(j.out, "problems", &j.problems, &err)
	if withDerived {
		openTable(j.out, "fixloop", &j.derived.fixFailures, &err)
		openTable(j.out, "fixloop_runs", &j.derived.fixRuns, &err)
	}
	openTable(j.out, "events", &j.events, &err)
	openTable(j.out, "checkpoints", &j.checkpoints, &err)
	openTable(j.out, "interventions", &j.interventions, &err)
	if withDerived {
		openTable(j.out, "curves", &j.derived.curves, &err)
	}
	openTable(j.out, "predictions", &j.predictions, &err)
	openTable(j.out, "fixloop_cases", &j.fixCases, &err)
	if !withDerived {
		openTable(j.out, tableInputs, &j.inputs, &err)
	}
	return err
}

// openTable opens the table named name into dst unless an earlier table failed.
func openTable[T any](out *reports.Output, name string, dst **reports.Table[T], err *error) {
	if *err == nil {
		*dst, *err = reports.NewTable[T](out, name)
	}
}

// predicted writes rows of the predictions table and spills them for the metrics.
func (j *job) predicted(rows ...reports.PredictionRow) error {
	if j.preds != nil {
		for i := range rows {
			if err := j.preds.write(&rows[i]); err != nil {
				return err
			}
		}
	}
	return j.predictions.Write(rows...)
}

// spill creates the scratch files a replay to a file derives the metrics and the
// simulation from.
func (j *job) spill() error {
	var err error
	if j.preds, err = newPredSpill(j.out, len(j.configs)); err != nil {
		return err
	}
	j.cases, err = newCaseSpill(j.out)
	return err
}

// inOrder checks, in a replay to a file, that a unit comes after the last one.
func (j *job) inOrder(kind, file, key string) error {
	if j.preds == nil {
		return nil
	}
	return j.order.next(kind, file, key)
}

// run takes one replayed quasar run.
func (j *job) run(res *replay.RunResult) error {
	if err := j.inOrder("run", res.Run.File, res.Run.Key); err != nil {
		return err
	}
	rec, index, ok, derived := j.in.runLabel(res.Run)
	j.match(index)
	if derived {
		j.tally.Derived++
	}
	runRow, cycleRows := reports.RunRows(res, rec, ok)
	if err := j.runs.Write(runRow); err != nil {
		return err
	}
	if err := j.cycles.Write(cycleRows...); err != nil {
		return err
	}
	rows := []reports.PredictionRow{runPrediction(res.Run, rec.Label, 0, j.configs[0], res.Struggle)}
	for i, out := range res.Variants {
		if j.in.Variants[i].SameRuns {
			continue // the configured struggle detection under its own name (see Prepare)
		}
		rows = append(rows, runPrediction(res.Run, rec.Label, 1+i, j.configs[1+i], out))
	}
	if sh, isShipped := res.Extra.(*shippedRun); isShipped {
		rows = append(rows, runPrediction(res.Run, rec.Label, len(j.configs)-1, j.configs[len(j.configs)-1], sh.out))
	}
	if err := j.predicted(rows...); err != nil {
		return err
	}
	if res.FixCase != nil {
		cases := reports.FixCaseRows(res.FixCase, res.Run.File)
		if j.cases != nil {
			kept, err := reports.FixCases(cases) // the case the merge reads back from these rows
			if err != nil {
				return err
			}
			for _, c := range kept {
				if err := j.cases.add(c); err != nil {
					return err
				}
			}
		}
		return j.fixCases.Write(cases...)
	}
	return nil
}

// session takes one replayed session.
func (j *job) session(sr *replay.SessionResult) error {
	s := sr.Session
	if err := j.inOrder("session", s.File, s.Key); err != nil {
		return err
	}
	rec, index, ok, moments, missing := j.in.sessionLabel(s)
	j.match(index)
	lab := reports.SessionLabel{Record: rec, Labelled: ok, Moments: moments}
	for _, m := range missing {
		j.tally.momentMissing(fmt.Sprintf("%s in session %s", m, s.Key))
	}
	row, events, cps, ivs := reports.SessionRows(sr, lab, j.outcomes, j.s.FrictionWindow)
	for _, err := range []error{j.runs.Write(row), j.events.Write(events...), j.checkpoints.Write(cps...), j.interventions.Write(ivs...)} {
		if err != nil {
			return err
		}
	}
	predict := func(i int, o replay.SessionOutcome) reports.PredictionRow {
		return sessionPrediction(s, rec, ok, lab.Moments, sr.HumanMessages, i, j.configs[i], o, j.outcomes, j.s.FrictionWindow)
	}
	rows := []reports.PredictionRow{predict(0, sr.Outcome())}
	for i, o := range sr.Variants {
		if j.in.Variants[i].SameSessions {
			continue // the configured assessment under its own name (see Prepare)
		}
		rows = append(rows, predict(1+i, o))
	}
	if sh, isShipped := sr.Extra.(*shippedSession); isShipped {
		if sh.err != nil {
			return fmt.Errorf("session %s: the shipped-today baseline: %w", s.Key, sh.err)
		}
		rows = append(rows, predict(len(j.configs)-1, sh.out))
	}
	return j.predicted(rows...)
}

// finish completes the output — in a file, with the metrics and the simulation; in a
// folder, the shard's tables with its summary in the manifest — commits it and fills
// res.
func (j *job) finish(ctx context.Context, sum *replay.Summary, res *Result) error {
	if err := j.labels.EachKey(func(i int, k string) {
		if !j.isMatched(i) && j.shard.Owns(k) { // a key of another shard is that shard's to match
			j.tally.unmatched(k)
		}
	}); err != nil {
		return fmt.Errorf("--labels: %w", err)
	}
	if j.shard.Count == 0 {
		j.out.SetMetadata("loopwatch.input_fingerprint", sum.Fingerprint)
		d, err := newDerivation(j.md, j.s.Workers)
		if err != nil {
			return err
		}
		if err := j.preds.flush(); err != nil {
			return err
		}
		cases, err := j.cases.source()
		if err != nil {
			return err
		}
		if notes, err := json.Marshal(sum.Notes); err == nil && len(sum.Notes) > 0 {
			j.out.SetMetadata("loopwatch.input_notes", string(notes))
		}
		if err := j.sealReplayed(); err != nil {
			return err
		}
		j.s.phase("seal")
		if err := d.run(ctx, j.preds, cases, sum, &j.derived, res); err != nil {
			return err
		}
		j.s.phase("derive")
	} else {
		// No shard of a split replay knows the fingerprint: the merge folds the inputs
		// tables into it.
		j.out.SetMetadata(InputListingKey, sum.Listing)
		info, err := json.Marshal(newShardSummary(sum, j, j.labelSet))
		if err != nil {
			return err
		}
		j.out.SetInfo(reports.ManifestInfo{Shard: j.shard.String(), Summary: info})
	}
	j.tally.apply(res, j.s.DeriveLabels)
	if err := j.in.Close(); err != nil { // every label the replay read was its file's
		return err
	}
	if err := ctx.Err(); err != nil { // interrupted while deriving: nothing is committed
		return err
	}
	if err := j.out.Commit(); err != nil {
		return err
	}
	j.s.phase("commit")
	res.Tables = tableCounts(j.out.Tables())
	return nil
}

// sealReplayed writes out the tables the replay has completed — all but the derived
// ones — before the derivation, so that what their writers hold is not held beside
// the derivation's observations (the metadata is complete: every table carries it).
// They are sealed side by side.
func (j *job) sealReplayed() error {
	return reports.SealAll(j.runs, j.cycles, j.problems, j.events, j.checkpoints, j.interventions, j.predictions, j.fixCases)
}

// simulateFixLoop runs the inner fix-loop simulation over the runs with recorded
// filter failures, in parallel, and writes its rows in run order as they come: the
// cases are read as they are simulated, a window of them at a time.
func simulateFixLoop(ctx context.Context, cases caseSource, cfg fixsim.Config, given map[string]float64, workers int,
	runs *reports.Table[reports.FixRunRow], failures *reports.Table[reports.FixFailureRow]) (*fixsim.Totals, error) {
	plan := fixsim.NewPlan(cfg, cases.history.Rates(given))
	if cases.history.Checkable() {
		plan = plan.WithOuterCheck(cases.history.OuterRates(nil)) // the outer cycles' p, whatever p is given
	}
	return plan.SimulateSeq(ctx, cases.cases, workers, func(run fixsim.RunResult, fails []fixsim.FailureResult) error {
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
//
// When s.Out is a folder ([reports.IsFolder]), the tables are written in the hive
// layout as shard s.Shard of a replay split in shards (shard 0 of 1 when s.Shard is
// the zero Shard): a shard's Result has no metrics, which [Merge] computes from the
// union of the shards; a replay of one shard is merged at once and its Result is the
// merge's.
func Run(ctx context.Context, s Settings) (*Result, error) {
	in, err := Prepare(s)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	labels := in.labels
	j := &job{s: s, in: in, labelSet: labels, labels: labels.labels, outcomes: in.Outcomes,
		matched: make([]uint64, (labels.labels.Len()+63)/64)}
	cfgJSON, _ := json.Marshal(in.Struggle)
	assessJSON, _ := json.Marshal(in.Assess)
	j.configs = append(j.configs, configSpec{Struggle: in.StruggleName, Assess: in.AssessName,
		StruggleHash: shortHash(cfgJSON), AssessHash: shortHash(assessJSON), Configured: true})
	for _, v := range in.Variants {
		vs, _ := json.Marshal(v.Struggle)
		va, _ := json.Marshal(v.Assess)
		j.configs = append(j.configs, configSpec{Struggle: v.Name, Assess: v.Name, StruggleHash: shortHash(vs), AssessHash: shortHash(va)})
	}
	if in.Shipped {
		j.configs = append(j.configs, configSpec{Struggle: Shipped, Assess: Shipped, StruggleHash: Shipped, AssessHash: Shipped, NoOutcome: true})
	}
	j.md = settingsMetadata(s, in, j.configs)
	folder := reports.IsFolder(s.Out)
	switch {
	case folder:
		j.shard = s.Shard
		if j.shard.Count == 0 {
			j.shard = replay.Shard{Index: 0, Count: 1}
		}
		if err := checkFolderSplit(s.Out, j.shard); err != nil {
			return nil, err
		}
		md := maps.Clone(j.md)
		md[ShardKey] = j.shard.String()
		j.out, err = reports.NewFolderOutput(s.Out, shardPartition(j.shard.Index), shardPartition(j.shard.Index), md)
		if err == nil {
			// The merged files describe the set with the partition this shard
			// replaces: its commit removes them, unless it writes that partition again
			// byte for byte.
			j.out.Supersedes(mergedFiles(s.Out)...)
		}
	case s.Shard.Count > 0:
		return nil, usage("--shard %s: a shard writes into a folder: give --out a folder (ending in /) shared by every shard", s.Shard)
	default:
		j.out, err = reports.NewOutput(s.Out, j.md)
	}
	if err != nil {
		return nil, UsageError{err}
	}
	defer j.out.Abort()
	// The labels' index, kept aside in a scratch file for the replay.
	if err := labels.labels.MoveIndex(func() (eval.IndexScratch, error) { return j.out.Scratch("labels") }); err != nil {
		return nil, fmt.Errorf("--labels: %w", err)
	}
	if err := j.openTables(!folder); err != nil {
		return nil, err
	}
	if j.shard.Count == 0 {
		if err := j.spill(); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Stat(s.In); err == nil && fi.IsDir() {
		in.Exclude = replay.ExcludeWithin(s.In, j.out.Files())
	}
	s.phase("prepare")
	opts := in.ReplayOptions()
	opts.Phase = s.Phase
	opts.Delivered = s.Delivered
	opts.Shard = j.shard
	opts.Scratch = j.out.Scratch // the input's file paths and records, aside
	if j.inputs != nil {
		opts.Digest = func(file, sha string) error { return j.inputs.Write(reports.InputRow{File: file, SHA256: sha}) }
	}
	sum, err := replay.Replay(ctx, in.FS, opts, replay.Sinks{Runs: j.run, Sessions: j.session,
		Problems: func(p input.Problem) error { return j.problems.Write(reports.ProblemRows([]input.Problem{p})...) }})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	res := &Result{Summary: sum, LabelsNote: labels.note, Warnings: labels.warnings, LabelProblems: labels.problems, Out: j.out,
		Struggle: in.Struggle, Assess: in.Assess, Shard: j.shard}
	if n := len(j.out.Cleaned()); n > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("removed %d stale temporary files an interrupted replay left beside %s", n, j.out.Path("")))
	}
	if err := j.finish(ctx, sum, res); err != nil {
		return nil, err
	}
	if !folder || j.shard.Split() {
		return res, nil
	}
	merged, err := Merge(ctx, s.Out, s.Workers)
	if err != nil {
		return nil, &DerivedError{Dir: s.Out, Err: err}
	}
	s.phase("merge")
	// The shard's tables (Out.Path names the one partition) and warnings (the same as
	// the merge's, and its cleaning of stale temporaries).
	merged.Out, merged.Warnings = j.out, res.Warnings
	return merged, nil
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
	// LabelProblems counts the bad rows of the labels files (each one of
	// LabelWarnings): problems under --strict.
	LabelProblems int
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
	Exclude      []string
	stream       bool // the input is one file that is not a regular file: read it once
	labels       labelSet
	deriveLabels bool
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
	in := &Inputs{FS: fsys, Name: name, Workers: s.Workers, stream: isStream(s.In), deriveLabels: s.DeriveLabels}
	if in.Outcomes, err = eval.ParseOutcomeClass(s.PositiveOutcomes); err != nil {
		return nil, usage("--positive-outcomes: %w", err)
	}
	if in.labels, err = loadLabels(s, in.Outcomes); err != nil {
		return nil, UsageError{err}
	}
	in.Labels, in.LabelsNote, in.LabelWarnings = in.labels.labels, in.labels.note, in.labels.warnings
	in.LabelProblems = in.labels.problems
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
	// A preset compared is scored under its name once: not again where it is the
	// configured detector's (both sides: no variant; one side — --assess-config seed
	// beside the default struggle detection, say —: that side is not replayed again
	// nor its rows written, see replay.Variant and job.run), and not twice when named
	// twice.
	compared := map[string]bool{}
	for _, name := range s.Compare {
		if compared[name] {
			continue
		}
		compared[name] = true
		if name == Shipped {
			in.Shipped = true
			continue
		}
		sameRuns, sameSessions := name == in.StruggleName, name == in.AssessName
		if sameRuns && sameSessions {
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
		in.Variants = append(in.Variants, replay.Variant{Name: name, Struggle: sc, Assess: &ac, SameRuns: sameRuns, SameSessions: sameSessions})
	}
	return in, nil
}

// Close closes the files the labels stay in (see eval.Labels): Run closes them,
// another caller of Prepare must once it is done with the labels. It fails when a
// label could not be read again or a --labels file changed after it was read: what
// was computed from the labels must then not stand.
func (in *Inputs) Close() error { return in.labels.close() }

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
	// was replayed. A report's DelaysSeconds is not kept (nil): a replay keeps nothing
	// per caught moment once its delays are summarised (median, mean, P90).
	Moments []reports.MomentResult
	// Outcomes holds the session analysis's outcome accuracy by outcome, the
	// configured configuration's first; empty without sessions.
	Outcomes []reports.OutcomeResult
	// FixTotals is the inner fix-loop simulation over the runs; nil without runs.
	FixTotals *fixsim.Totals
	// UnmatchedCount counts the label keys that match no replayed run or session: a
	// labels file for other input, or keys spelled differently. UnmatchedLabels lists
	// the first [MaxUnmatchedListed] of them in key order — what a Result holds of
	// them does not grow with a labels file that labels far more than the input.
	UnmatchedCount  int
	UnmatchedLabels []string
	// MomentsMissing counts the labelled friction moments that are not events of
	// their session (left out of the scoring; one of Warnings gives examples): a
	// label that scores nothing, so a problem under --strict.
	MomentsMissing int
	// LabelProblems counts the rows of the labels files that are skipped or partly
	// read (each is one of Warnings, with its file and line): problems under --strict.
	LabelProblems int
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
	// Shard is the part of a split replay the Result is of: the zero Shard for a whole
	// replay, or a merge; Count > 1 for one of several shards, whose Result has no
	// metrics.
	Shard replay.Shard
	// Merged lists, for a merge, the shards' tables and their rows over all shards
	// (the run table named ""), and Shards is how many shards were merged.
	Merged []TableCount
	Shards int
	// shards is a merge's set of shards, whose tables hold the replay's rows (Out
	// holds only the merged ones); nil: Out holds every table.
	shards *shardSet
}

// readTable reads the rows keep accepts (nil: all) of one of the replay's tables
// ("runs": the run table): from Out, or for a merge from every shard's part, in
// shard order, each checked against its manifest's SHA-256.
func readTable[T any](res *Result, table string, keep func(*T) bool) ([]T, error) {
	if res.shards == nil {
		if table == "runs" {
			table = ""
		}
		return reports.ReadRows(res.Out.Path(table), keep)
	}
	var rows []T
	for _, m := range res.shards.manifests {
		part, err := readPart(res.shards, m, table, keep)
		if err != nil {
			return nil, err
		}
		rows = append(rows, part...)
	}
	return rows, nil
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

// Problems is the number of problems: input problems, problems in the labels files,
// label keys that match nothing and labelled friction moments that are not events of
// their session (a label that scores nothing is a problem under --strict).
func (r *Result) Problems() int {
	return r.Summary.TotalProblems() + r.LabelProblems + r.UnmatchedCount + r.MomentsMissing
}
