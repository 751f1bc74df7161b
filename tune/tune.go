package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/replay"
)

// Options configure a sweep.
type Options struct {
	// Settings are the replay's: the input, the labels, the base configurations
	// (StruggleConfig, AssessConfig), the friction window, the positive outcomes,
	// the workers and the evaluation's seed, resamples, level and β. Out, Compare,
	// LLM and the fix-loop settings are not read.
	Settings pipeline.Settings
	// Grid holds grid specifications (name=lo:hi:step or name=a,b,c) and GridFiles
	// files of them, one per line. With neither, each target gets DefaultGrid's.
	Grid      []string
	GridFiles []string
	// Targets to tune; empty: struggle when runs are labelled, friction when
	// sessions have labelled friction moments (else breaker when sessions are
	// labelled) — restricted to the families the grid varies, when it varies any.
	Targets []Target
	// Objective chooses among configurations (default f1).
	Objective eval.Objective
	// Folds is k of the k-fold cross-validation (default 5); ignored with Holdout.
	Folds int
	// Ungrouped deals units into folds one by one. By default the folds keep related
	// units together — a quasar task's runs (its epochs, its attempts), a project's
	// sessions, a resumed session with the one it resumed — so that no fold is scored
	// on units whose near twins its choice was made on; see [eval.GroupedStratifiedFolds].
	// Where every unit is a group of its own the two deal alike.
	Ungrouped bool
	// Holdout, when set, lists the keys of the units every choice is scored on; the
	// choice is made on the others. HoldoutName names it in reports.
	Holdout     []string
	HoldoutName string
	// Samples > 0 draws that many distinct configurations of each family's grid
	// (seeded with Settings.Seed) instead of sweeping it whole.
	Samples int
	// MaxConfigs bounds a family's grid without Samples (default 10,000).
	MaxConfigs int
	// Out, when set, is where the sweep will be written ([Write]): its files are left
	// out of the input when they lie inside it.
	Out string
}

// DefaultGrid returns the grid a family is swept over when none is given: the
// thresholds and weights that matter most, around the defaults.
func DefaultGrid(f Family) []string {
	if f == Struggle {
		return []string{
			"struggle.composite_threshold=0.2:0.8:0.1",
			"struggle.budget_burn_threshold=0.3,1,1.5",
			"struggle.weights.budget_burn=0,0.1,0.25",
			"struggle.finding_similarity=0.5,0.8",
		}
	}
	return []string{
		"assess.breaker.frustration_threshold=0.2,0.3,0.45,0.6",
		"assess.detect.ema.alpha=0.5,1",
		"assess.breaker.cooldown=1m,5m",
		"assess.breaker.correction_storm=2,3",
		"assess.breaker.failure_threshold=3,5,8",
	}
}

// Result is a sweep: what it read, what it tried and what it chose, per target.
type Result struct {
	Summary *replay.Summary
	// LabelsNote says where the labels came from; Warnings are facts worth seeing
	// (bad label rows, moments missing from their session, label keys that match
	// nothing, small strata).
	LabelsNote string
	Warnings   []error
	// LabelProblems counts the bad rows of the labels files (each one of Warnings):
	// problems under --strict.
	LabelProblems int
	// UnscoredLabels counts the label keys that match no run or session and the
	// labelled friction moments that are no event of their session (Warnings gives
	// examples): labels that score nothing, problems under --strict as in replay.
	UnscoredLabels int
	// HoldoutProblems counts the holdout's keys that match no run or session and
	// those given more than once (Warnings gives examples): problems under --strict.
	HoldoutProblems int
	// Unmeasured counts the targets whose objective could not be measured on units
	// a choice was to be made on — a fold's training units or those the configuration
	// to ship is chosen on — because they hold one class ([TargetResult.FinalUnmeasured]);
	// each is one of Warnings, and a problem under --strict.
	Unmeasured int
	Space      *Space
	Objective  eval.Objective
	// Scheme says how choices were scored: "5-fold cross-validation …" or
	// "holdout …".
	Scheme  string
	Targets []*TargetResult
	// Settings are the sweep's settings (for the outputs' metadata).
	Settings pipeline.Settings
	data     *dataset
}

// TargetResult is the sweep of one target.
type TargetResult struct {
	Target Target
	// Units is how many units were scored; Positives how many were positive (runs,
	// sessions) or, for friction, how many friction moments they hold.
	Units, Positives int
	// Configs are the family's configurations (the default first, the seed preset
	// last) and Evals their scores, aligned.
	Configs []*Config
	Evals   []evaluation
	// FoldChoice is the configuration chosen on each fold's training units (-1:
	// none met the objective, or the fold is not held out); FoldHeldOut says which
	// folds were scored held out.
	FoldChoice  []int
	FoldHeldOut []bool
	// FoldUnmeasured says, for a fold that chose nothing because its training units
	// cannot measure the objective, what they lack ("no positive run", "no friction
	// moment"); "" otherwise.
	FoldUnmeasured []string
	// Final is the configuration to ship: chosen on every unit (k-fold) or on the
	// training units (holdout); -1 when none met the objective, or when those units
	// cannot measure it — hold one class — and then FinalUnmeasured says what they
	// lack: nothing is chosen over the default on units that cannot tell them apart.
	Final           int
	FinalUnmeasured string
	// Rows compare, on the same units: the seed preset, the shipped-today baseline,
	// the default and the tuned choice scored held out (each unit by the choice made
	// without it). Tuned is missing when nothing was chosen.
	Rows []Row
	// Paired compares tuned with the default on the held-out units, per metric.
	Paired []Paired
	// Verdict says, in a sentence, whether the tuned choice beats the default.
	Verdict string
	// Curves are the PR and ROC curves (struggle and breaker) of the seed preset,
	// the shipped-today baseline, the default and the tuned choice (held out).
	Curves   []NamedCurve
	Warnings []error
	units    *units
}

// Row is one configuration's figures in the side-by-side table.
type Row struct {
	Name string // seed, shipped-today, default, tuned
	Hash string // config_hash ("" for the baseline and the pooled tuned row)
	// Report (struggle, breaker) or Moments (friction).
	Report  *eval.Report
	Moments *eval.MomentReport
}

// Paired is the paired bootstrap difference tuned − default of one metric.
type Paired struct {
	Metric string
	eval.PairedDifference
	// HigherIsBetter gives the metric's direction.
	HigherIsBetter bool
}

// NamedCurve is a curve of a target under a named configuration.
type NamedCurve struct {
	Detector, Config string
	Curve            eval.Curve
}

// Names of the compared rows.
const (
	RowSeed    = "seed"
	RowShipped = pipeline.Shipped
	RowDefault = "default"
	RowTuned   = "tuned"
)

// Run replays the input once, rescores every configuration of the grid on every
// target, chooses a configuration per target without scoring it on the units it was
// chosen on, and compares it with the default. A UsageError means the options are
// wrong (nothing was replayed).
func Run(ctx context.Context, opts Options) (*Result, error) {
	s := opts.Settings
	if opts.Folds == 0 {
		opts.Folds = 5
	}
	if opts.MaxConfigs == 0 {
		opts.MaxConfigs = 10000
	}
	if opts.Objective.Kind == "" {
		opts.Objective = eval.Objective{Kind: eval.ObjectiveFBeta, Beta: 1}
	}
	switch {
	case opts.Holdout == nil && opts.Folds < 2:
		return nil, usage("--folds %d: need at least 2", opts.Folds)
	case opts.Samples < 0:
		return nil, usage("--samples %d: must be ≥ 0", opts.Samples)
	case opts.MaxConfigs < 1:
		return nil, usage("--max-configs %d: must be ≥ 1", opts.MaxConfigs)
	}
	in, err := pipeline.Prepare(s)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if fi, err := os.Stat(s.In); err == nil && fi.IsDir() && opts.Out != "" {
		in.Exclude = replay.ExcludeWithin(s.In, OutputFiles(opts.Out))
	}
	sp, err := NewSpace(in.Struggle, in.Assess)
	if err != nil {
		return nil, err
	}
	if err := sp.addAll(opts.Grid, opts.GridFiles); err != nil {
		return nil, usage("%v", err)
	}
	for _, t := range opts.Targets {
		if t == TargetFriction || !opts.Objective.NeedsTurns() {
			continue
		}
		return nil, usage("objective %s reads false alarms per 100 human turns, which only the friction target has (not %s)", opts.Objective, t)
	}
	// Configurations of every family the sweep may tune, before any replay, so that
	// a grid too large or a value a detector rejects fails first.
	families := []Family{Struggle, Assess}
	if len(sp.Params) > 0 {
		families = nil
		for _, f := range []Family{Struggle, Assess} {
			if sp.Has(f) {
				families = append(families, f)
			}
		}
	}
	if len(opts.Targets) == 0 && opts.Objective.NeedsTurns() && !slices.Contains(families, Assess) {
		return nil, usage("objective %s reads false alarms per 100 human turns, which only the friction target has, and the grid varies only the struggle configuration", opts.Objective)
	}
	if len(opts.Targets) > 0 {
		var asked []Family
		for _, t := range opts.Targets {
			if !slices.Contains(asked, t.Family()) {
				asked = append(asked, t.Family())
			}
		}
		for _, p := range sp.Params {
			if !slices.Contains(asked, p.Family) {
				return nil, usage("--grid %s varies the %s configuration, which no --target tunes", p.Name, p.Family)
			}
		}
		families = asked
	}
	for _, f := range families {
		if !sp.Has(f) {
			for _, g := range DefaultGrid(f) {
				if err := sp.Add(g); err != nil {
					return nil, err
				}
			}
		}
	}
	configs := map[Family][]*Config{}
	var groups []detection
	var caseFold [2]bool
	for _, f := range families {
		cs, gs, err := sp.configs(f, opts.Samples, opts.MaxConfigs, s.Seed)
		if err != nil {
			return nil, usage("%v", err)
		}
		configs[f] = cs
		if f == Assess {
			groups = gs
		}
		for _, c := range cs {
			if f == Struggle {
				caseFold[c.trace] = true
			}
		}
	}
	d, err := load(ctx, in, caseFold, groups)
	if err != nil {
		return nil, err
	}
	if err := in.Close(); err != nil { // every label the replay read was its file's
		return nil, err
	}
	res := &Result{Summary: d.summary, LabelsNote: in.LabelsNote, LabelProblems: in.LabelProblems, UnscoredLabels: d.unscored, Space: sp, Objective: opts.Objective,
		Settings: s, data: d}
	res.Warnings = append(append(res.Warnings, in.LabelWarnings...), d.warnings...)
	if d.derived > 0 {
		res.LabelsNote = fmt.Sprintf("%d runs labelled from their outcomes (label_source=derived); explicit labels: %s", d.derived, res.LabelsNote)
	}
	targets, err := chooseTargets(d, opts.Targets, families)
	if err != nil {
		return nil, err
	}
	if len(opts.Targets) == 0 && opts.Objective.NeedsTurns() {
		// The targets the input chose: the objective measures the friction target only.
		var kept []Target
		for _, t := range targets {
			if t == TargetFriction {
				kept = append(kept, t)
			} else {
				res.Warnings = append(res.Warnings, fmt.Errorf("%s is not tuned: objective %s reads false alarms per 100 human turns, which only the friction target has", t, opts.Objective))
			}
		}
		if len(kept) == 0 {
			return nil, usage("objective %s reads false alarms per 100 human turns, which only the friction target has, and the input has no session with a labelled friction moment", opts.Objective)
		}
		targets = kept
	}
	sc := &scorer{d: d, window: s.FrictionWindow}
	evalOpts := eval.Options{Seed: s.Seed, Resamples: s.Resamples, Level: s.Level, Beta: s.Beta, Context: ctx}
	if s.Resamples == 0 {
		evalOpts.Resamples = -1
	}
	holdout, warns, problems := d.holdout(opts.Holdout, opts.HoldoutName)
	res.Warnings, res.HoldoutProblems = append(res.Warnings, warns...), problems
	var schemes [][2]string // each target's
	for _, t := range targets {
		us, scheme, warns, err := sc.split(t, opts, holdout)
		if err != nil {
			return nil, err
		}
		schemes = append(schemes, [2]string{string(t), scheme})
		tr := &TargetResult{Target: t, Configs: configs[t.Family()], units: us, Units: len(us.idx), Warnings: warns}
		tr.Evals = sc.evaluateAll(us, tr.Configs, s.Workers)
		if err := ctx.Err(); err != nil { // the sweep reads no context: an interrupt during it ends here
			return nil, err
		}
		tr.Positives = sc.positives(us)
		tr.FoldHeldOut = us.heldOut
		tr.FoldChoice, tr.FoldUnmeasured = make([]int, us.folds), make([]string, us.folds)
		for f := range us.folds {
			tr.FoldChoice[f] = -1
			if us.heldOut[f] {
				tr.FoldChoice[f], tr.FoldUnmeasured[f] = choose(opts.Objective, t, tr.Configs, tr.Evals, f)
			}
		}
		if opts.Holdout != nil {
			tr.Final, tr.FinalUnmeasured = tr.FoldChoice[0], tr.FoldUnmeasured[0]
		} else {
			tr.Final, tr.FinalUnmeasured = choose(opts.Objective, t, tr.Configs, tr.Evals, -1)
		}
		if err := tr.unmeasured(opts.Objective); err != nil {
			res.Warnings = append(res.Warnings, err)
			res.Unmeasured++
		}
		if err := sc.compare(tr, opts.Objective, evalOpts); err != nil {
			return nil, err
		}
		res.Targets = append(res.Targets, tr)
	}
	res.Scheme = joinSchemes(schemes)
	return res, nil
}

// unmeasured is the warning that the target's objective could not be measured on
// units a choice was to be made on, nil when it could on all of them.
func (tr *TargetResult) unmeasured(obj eval.Objective) error {
	held, folds, why := tr.unmeasuredFolds()
	switch {
	case tr.FinalUnmeasured != "":
		return fmt.Errorf("%s: objective %s cannot be measured on the %s the configuration to ship is chosen on: they hold %s; nothing is chosen (keep the default)",
			tr.Target, obj, tr.Target.Unit(), tr.FinalUnmeasured)
	case folds > 0:
		return fmt.Errorf("%s: objective %s cannot be measured on the training units of %d of the %d folds: they hold %s; those folds choose nothing",
			tr.Target, obj, folds, held, why)
	}
	return nil
}

// unmeasuredFolds counts the held-out folds and those whose training units cannot
// measure the objective, and says what the last of those lacks.
func (tr *TargetResult) unmeasuredFolds() (held, unmeasured int, why string) {
	for f, w := range tr.FoldUnmeasured {
		if tr.FoldHeldOut[f] {
			held++
			if w != "" {
				unmeasured, why = unmeasured+1, w
			}
		}
	}
	return held, unmeasured, why
}

// usage returns a pipeline.UsageError: the command's exit status 2.
func usage(format string, args ...any) error {
	return pipeline.UsageError{Err: fmt.Errorf(format, args...)}
}

// addAll adds the grid's specifications and files.
func (sp *Space) addAll(grid, files []string) error {
	for _, g := range grid {
		if err := sp.Add(g); err != nil {
			return err
		}
	}
	for _, name := range files {
		if err := sp.addFile(name); err != nil {
			return err
		}
	}
	return nil
}

// chooseTargets returns the targets to tune: those asked for (each must have units),
// or those the data and the families allow.
func chooseTargets(d *dataset, asked []Target, families []Family) ([]Target, error) {
	labelledRuns, labelledSessions, moments, momentSessions := 0, 0, 0, 0
	for _, r := range d.runs {
		if r.label.Scored() {
			labelledRuns++
		}
	}
	for _, s := range d.sessions {
		if s.label.Scored() {
			labelledSessions++
		}
		if s.labelled {
			momentSessions++
			moments += len(s.moments)
		}
	}
	has := map[Target]bool{TargetStruggle: labelledRuns > 0, TargetBreaker: labelledSessions > 0, TargetFriction: moments > 0}
	if len(asked) > 0 {
		for _, t := range asked {
			if !has[t] {
				return nil, fmt.Errorf("target %s: the input has no %s with a label%s", t, t.Unit(),
					map[bool]string{true: " and a friction moment", false: ""}[t == TargetFriction])
			}
		}
		return asked, nil
	}
	var out []Target
	if slices.Contains(families, Struggle) && has[TargetStruggle] {
		out = append(out, TargetStruggle)
	}
	if slices.Contains(families, Assess) {
		switch {
		case has[TargetFriction]:
			out = append(out, TargetFriction)
		case has[TargetBreaker]:
			out = append(out, TargetBreaker)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("nothing to tune: no run or session of the input has a label for the swept detectors (give --labels, or --derive-labels for quasar history)")
	}
	return out, nil
}

// split returns a target's scored units and their folds: stratified k folds, or
// the holdout (fold 0) and the rest (fold 1).
func (s *scorer) split(t Target, opts Options, holdout map[string]bool) (*units, string, []error, error) {
	us := &units{target: t}
	var keys, groups []string
	var strata []int
	add := func(i int, key, group string, stratum bool) {
		us.idx = append(us.idx, i)
		keys, groups = append(keys, key), append(groups, group)
		strata = append(strata, map[bool]int{false: 0, true: 1}[stratum])
	}
	switch t {
	case TargetStruggle:
		for i, r := range s.d.runs {
			if r.label.Scored() {
				add(i, r.key, r.group, r.label == eval.Positive)
			}
		}
	case TargetBreaker:
		for i, su := range s.d.sessions {
			if su.label.Scored() {
				add(i, su.key, su.group, su.label == eval.Positive)
			}
		}
	case TargetFriction:
		for i, su := range s.d.sessions {
			if su.labelled {
				add(i, su.key, su.group, len(su.moments) > 0)
			}
		}
	}
	var warns []error
	if left := s.leftOut(t); left != "" {
		warns = append(warns, errors.New(left))
	}
	distinct := map[string]bool{}
	for _, g := range groups {
		distinct[g] = true
	}
	grouping := map[bool]string{true: "task", false: "project"}[t == TargetStruggle]
	if opts.Holdout != nil {
		us.folds, us.heldOut = 2, []bool{true, false}
		us.fold = make([]int, len(keys))
		n := 0
		for i, k := range keys {
			if holdout[k] {
				n++
			} else {
				us.fold[i] = 1
			}
		}
		if n == 0 || n == len(keys) {
			return nil, "", nil, usage("--holdout %s: %d of the %d %s for %s are held out: both parts must have units", opts.HoldoutName, n, len(keys), t.Unit(), t)
		}
		if split := straddling(groups, us.fold); split > 0 {
			warns = append(warns, fmt.Errorf("--holdout %s: %d %ss of %s have %s on both sides (held out and chosen on): their held-out figures are optimistic",
				opts.HoldoutName, split, grouping, t, t.Unit()))
		}
		return us, fmt.Sprintf("holdout %s: chosen on %d %s, scored on %d", opts.HoldoutName, len(keys)-n, t.Unit(), n), warns, nil
	}
	if len(keys) < 2 {
		return nil, "", nil, usage("%s: %d scored %s: too few to choose on some and score on others", t, len(keys), t.Unit())
	}
	var folds []int
	var err error
	grouped := !opts.Ungrouped && len(distinct) < len(keys) // some group holds more than one unit
	if opts.Ungrouped && len(distinct) < len(keys) {
		warns = append(warns, fmt.Errorf("%s: dealt by %s (--ungrouped), so related %s may fall on both sides of a fold", t,
			strings.TrimSuffix(t.Unit(), "s"), t.Unit()))
	}
	if grouped && len(distinct) < opts.Folds {
		grouped = false
		warns = append(warns, fmt.Errorf("%s: %d %ss for %d folds: dealt by %s, so related %s may fall on both sides of a fold (lower --folds to keep them together)",
			t, len(distinct), grouping, opts.Folds, strings.TrimSuffix(t.Unit(), "s"), t.Unit()))
	}
	var w []error
	if grouped {
		folds, w, err = eval.GroupedStratifiedFolds(keys, groups, strata, opts.Folds, opts.Settings.Seed)
	} else {
		folds, w, err = eval.StratifiedFolds(keys, strata, opts.Folds, opts.Settings.Seed)
	}
	warns = append(warns, w...)
	if err != nil {
		return nil, "", nil, usage("%s: %v (lower --folds)", t, err)
	}
	us.fold, us.folds = folds, opts.Folds
	us.heldOut = make([]bool, opts.Folds)
	for f := range us.heldOut {
		us.heldOut[f] = true
	}
	stratum := "label"
	if t == TargetFriction {
		stratum = "having friction moments"
	}
	by := strings.TrimSuffix(t.Unit(), "s")
	if grouped {
		by = fmt.Sprintf("%s (%d), each %s's %s in one fold", grouping, len(distinct), grouping, t.Unit())
	}
	return us, fmt.Sprintf("%d-fold cross-validation by %s, stratified by %s (seed %d)", opts.Folds, by, stratum, opts.Settings.Seed), warns, nil
}

// leftOut says how many of the input's units a target does not score, and why, as
// the replay's metrics do; "" when it scores them all.
func (s *scorer) leftOut(t Target) string {
	var ambiguous, excluded, unlabelled, all int
	count := func(l eval.Label) {
		all++
		switch l {
		case eval.Ambiguous:
			ambiguous++
		case eval.Excluded:
			excluded++
		case eval.Unlabelled:
			unlabelled++
		}
	}
	switch t {
	case TargetStruggle:
		for _, r := range s.d.runs {
			count(r.label)
		}
	case TargetBreaker:
		for _, su := range s.d.sessions {
			count(su.label)
		}
	case TargetFriction:
		n := 0
		for _, su := range s.d.sessions {
			if !su.labelled {
				n++
			}
		}
		if n == 0 {
			return ""
		}
		return fmt.Sprintf("%s: %d of %d sessions left out of the scores: no labels", t, n, len(s.d.sessions))
	}
	if n := ambiguous + excluded + unlabelled; n > 0 {
		return fmt.Sprintf("%s: %d of %d %s left out of the scores: %d ambiguous, %d excluded, %d unlabelled", t, n, all, t.Unit(),
			ambiguous, excluded, unlabelled)
	}
	return ""
}

// joinSchemes says how the targets' choices were scored: the one scheme when every
// target's is the same, else each target's followed by its name.
func joinSchemes(schemes [][2]string) string {
	var parts []string
	same := true
	for _, s := range schemes {
		same = same && s[1] == schemes[0][1]
		parts = append(parts, s[1]+" for "+s[0])
	}
	if same && len(schemes) > 0 {
		return schemes[0][1]
	}
	return strings.Join(parts, "; ")
}

// straddling counts the groups with units in more than one fold.
func straddling(groups []string, fold []int) int {
	first := map[string]int{}
	split := map[string]bool{}
	for i, g := range groups {
		if f, ok := first[g]; !ok {
			first[g] = fold[i]
		} else if f != fold[i] {
			split[g] = true
		}
	}
	return len(split)
}

// positives counts a target's positive units, or its friction moments.
func (s *scorer) positives(us *units) int {
	n := 0
	for _, u := range us.idx {
		switch us.target {
		case TargetStruggle:
			if s.d.runs[u].label == eval.Positive {
				n++
			}
		case TargetBreaker:
			if s.d.sessions[u].label == eval.Positive {
				n++
			}
		case TargetFriction:
			n += len(s.d.sessions[u].moments)
		}
	}
	return n
}

// seedConfig returns the target's seed preset configuration.
func (tr *TargetResult) seedConfig() *Config {
	for _, c := range tr.Configs {
		if c.Role == RoleSeed {
			return c
		}
	}
	return nil
}

// isNaN reports whether v is NaN.
func isNaN(v float64) bool { return math.IsNaN(v) }
