package tune

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/arrowipc"
)

// sampleOptions tunes the built-in sample with few resamples.
func sampleOptions() Options {
	s := pipeline.DefaultSettings()
	s.Resamples = 200
	return Options{Settings: s}
}

// smallGrid is a grid of two configurations for each target, for the tests whose
// point is not the choice.
var smallGrid = map[Target]string{TargetStruggle: "struggle.composite_threshold=0.4,0.6",
	TargetBreaker: "assess.breaker.frustration_threshold=0.2,0.4", TargetFriction: "assess.breaker.frustration_threshold=0.2,0.4"}

func runSample(t *testing.T, opts Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func target(t *testing.T, res *Result, tg Target) *TargetResult {
	t.Helper()
	for _, tr := range res.Targets {
		if tr.Target == tg {
			return tr
		}
	}
	t.Fatalf("no %s target in %v", tg, res.Targets)
	return nil
}

func row(t *testing.T, tr *TargetResult, name string) Row {
	t.Helper()
	for _, r := range tr.Rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no row %s", name)
	return Row{}
}

func same(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12
}

// TestDefaultMatchesReplay checks that tune scores the default, the seed preset and
// the shipped-today baseline exactly as the replay's metrics do, on the sample (where
// every fold chooses, so the rows cover every unit).
func TestDefaultMatchesReplay(t *testing.T) {
	res := runSample(t, sampleOptions())
	s := pipeline.DefaultSettings()
	s.Resamples = 200
	s.Out = filepath.Join(t.TempDir(), "r.parquet")
	rep, err := pipeline.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{RowDefault: "loopwatch", RowSeed: "seed", RowShipped: pipeline.Shipped}
	st := target(t, res, TargetStruggle)
	for _, d := range rep.Detectors {
		if d.Detector != "struggle" {
			continue
		}
		for mine, theirs := range names {
			if d.Config != theirs {
				continue
			}
			r := row(t, st, mine).Report
			if r.Confusion != d.Report.Confusion || !same(r.AP.Value, d.Report.AP.Value) || !same(r.AUC.Value, d.Report.AUC.Value) {
				t.Errorf("struggle %s: tune %+v AP %v, replay %+v AP %v", mine, r.Confusion, r.AP.Value, d.Report.Confusion, d.Report.AP.Value)
			}
		}
	}
	fr := target(t, res, TargetFriction)
	matched := 0
	for _, m := range rep.Moments {
		for mine, theirs := range names {
			if m.Config != theirs {
				continue
			}
			matched++
			r := row(t, fr, mine).Moments
			if r.Caught != m.Report.Caught || r.Interventions != m.Report.Interventions || r.TruePositives != m.Report.TruePositives ||
				r.HumanTurns != m.Report.HumanTurns || !same(r.Recall.Value, m.Report.Recall.Value) || !same(r.Precision.Value, m.Report.Precision.Value) {
				t.Errorf("friction %s: tune %+v, replay %+v", mine, r, m.Report)
			}
		}
	}
	if matched != 3 {
		t.Errorf("%d friction rows compared, want 3", matched)
	}
	// The friction target's breaker curves (peak frustration against the outcome) are
	// the replay's, the shipped-today baseline's included.
	curves := 0
	for _, c := range rep.Curves {
		for mine, theirs := range names {
			if c.Detector != "breaker" || c.Config != theirs {
				continue
			}
			for _, tc := range fr.Curves {
				if tc.Detector == "breaker" && tc.Config == mine {
					curves++
					if !reflect.DeepEqual(tc.Curve, c.Curve) {
						t.Errorf("breaker curve %s: tune %+v, replay %+v", mine, tc.Curve, c.Curve)
					}
				}
			}
		}
	}
	if curves != 3 {
		t.Errorf("%d breaker curves compared, want 3", curves)
	}
}

// TestChoicesNeverSeeTheirFold recomputes each fold's choice from per-unit outcomes
// on the other folds' units only, and each held-out figure from the fold's own units,
// independently of the tallies' arithmetic.
func TestChoicesNeverSeeTheirFold(t *testing.T) {
	opts := sampleOptions()
	opts.Grid = []string{"composite_threshold=0.2:0.8:0.2", "weights.budget_burn=0,0.25", "frustration_threshold=0.2,0.45", "cooldown=1m,5m"}
	res := runSample(t, opts)
	sc := &scorer{d: res.data, window: opts.Settings.FrictionWindow}
	for _, tr := range res.Targets {
		us := tr.units
		dec := &assess.Decision{}
		per := make([][]tally, len(tr.Configs)) // config × unit position
		for ci, c := range tr.Configs {
			for _, u := range us.idx {
				per[ci] = append(per[ci], sc.outcome(tr.Target, c, u, dec, false).tally)
			}
		}
		for f := range us.folds {
			best := -1
			var bestScore eval.Score
			for ci, c := range tr.Configs {
				if !c.Candidate() {
					continue
				}
				var train, held tally
				for i := range us.idx {
					if us.fold[i] == f {
						held.add(per[ci][i])
					} else {
						train.add(per[ci][i])
					}
				}
				if fmt.Sprint(held) != fmt.Sprint(tr.Evals[ci].fold[f]) {
					t.Errorf("%s fold %d config %d: held-out tally %+v, evaluation %+v", tr.Target, f, ci, held, tr.Evals[ci].fold[f])
				}
				if s := train.score(tr.Target); best < 0 || res.Objective.Compare(s, bestScore) < 0 {
					best, bestScore = ci, s
				}
			}
			if tr.FoldChoice[f] != best {
				t.Errorf("%s fold %d: chose %d, the training units prefer %d", tr.Target, f, tr.FoldChoice[f], best)
			}
		}
	}
}

func TestDeterministicWhateverTheWorkers(t *testing.T) {
	var outs []string
	for _, w := range []int{1, 3} {
		opts := sampleOptions()
		opts.Settings.Workers = w
		res := runSample(t, opts)
		var b strings.Builder
		for _, r := range res.SweepRows() {
			fmt.Fprintln(&b, r...)
		}
		for _, tr := range res.Targets {
			fmt.Fprintln(&b, tr.FoldChoice, tr.Final, tr.Verdict, tr.Paired)
		}
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] {
		t.Error("one and three workers give different sweeps")
	}
}

func TestNothingMeetsTheObjective(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	// A threshold of 0.05 flags nearly every run: no precision of 0.95 is in reach.
	if err := os.WriteFile(base, []byte(`{"composite_threshold": 0.05, "min_cycles_before_check": 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := sampleOptions()
	opts.Settings.StruggleConfig = base
	opts.Grid = []string{"composite_threshold=0,0.05"}
	opts.Objective, _ = eval.ParseObjective("recall@precision>=0.95")
	res := runSample(t, opts)
	tr := target(t, res, TargetStruggle)
	if tr.Final != -1 || slices.ContainsFunc(tr.FoldChoice, func(c int) bool { return c >= 0 }) {
		t.Fatalf("chose %d (folds %v) although nothing reaches precision 0.95", tr.Final, tr.FoldChoice)
	}
	if !strings.Contains(tr.Verdict, "nothing is chosen") || len(tr.Paired) != 0 || slices.ContainsFunc(tr.Rows, func(r Row) bool { return r.Name == RowTuned }) {
		t.Errorf("verdict %q, %d paired rows, rows %v", tr.Verdict, len(tr.Paired), tr.Rows)
	}
	w, err := Write(res, filepath.Join(dir, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Configs[TargetStruggle]; ok {
		t.Error("a configuration file was written although nothing was chosen")
	}
}

func TestHoldout(t *testing.T) {
	opts := sampleOptions()
	opts.Targets = []Target{TargetStruggle}
	opts.Holdout = []string{"synth-0001@e1", "synth-0003@e1", "synth-0005@e1", "synth-0007@e2", "synth-0011@e1", "synth-0014@e1"}
	opts.HoldoutName = "test"
	res := runSample(t, opts)
	tr := target(t, res, TargetStruggle)
	if len(tr.FoldChoice) != 2 || tr.FoldChoice[1] != -1 || tr.Final != tr.FoldChoice[0] || tr.Final < 0 {
		t.Fatalf("holdout choices %v, final %d", tr.FoldChoice, tr.Final)
	}
	held := 0
	for i, f := range tr.units.fold {
		if f == 0 {
			held++
			if !slices.Contains(opts.Holdout, res.data.runs[tr.units.idx[i]].key) {
				t.Errorf("run %s held out but not in the holdout", res.data.runs[tr.units.idx[i]].key)
			}
		}
	}
	if held != len(opts.Holdout) || row(t, tr, RowDefault).Report.Scored != held {
		t.Errorf("%d held-out runs, rows scored on %d; want %d", held, row(t, tr, RowDefault).Report.Scored, len(opts.Holdout))
	}
	if !strings.HasPrefix(res.Scheme, "holdout test: chosen on 10 runs, scored on 6") {
		t.Errorf("scheme %q", res.Scheme)
	}
	opts.Holdout = append(opts.Holdout, "synth-0008@e1")
	res = runSample(t, opts)
	if !slices.ContainsFunc(res.Warnings, func(e error) bool {
		return strings.Contains(e.Error(), "1 key matches no run or session (e.g. synth-0008@e1)")
	}) {
		t.Errorf("a holdout key that matches nothing is not reported: %v", res.Warnings)
	}
	opts.Holdout = []string{"no-such-run"}
	if _, err := Run(context.Background(), opts); !pipeline.IsUsage(err) || !strings.Contains(err.Error(), "0 of the 16") {
		t.Errorf("a holdout matching nothing: %v", err)
	}
}

func TestRunRefuses(t *testing.T) {
	recallAtFA, _ := eval.ParseObjective("recall@false_alarms<=5")
	tests := []struct {
		name string
		edit func(*Options)
		err  string
	}{
		{"one fold", func(o *Options) { o.Folds = 1 }, "--folds 1"},
		{"negative samples", func(o *Options) { o.Samples = -1 }, "--samples"},
		{"unknown parameter", func(o *Options) { o.Grid = []string{"nope=1"} }, "unknown parameter"},
		{"grid too large", func(o *Options) {
			o.Grid = []string{"composite_threshold=0:1:0.01", "budget_burn_threshold=0:10:0.1"}
		}, "--max-configs"},
		{"false alarms of runs", func(o *Options) { o.Targets = []Target{TargetStruggle}; o.Objective = recallAtFA }, "only the friction target"},
		{"false alarms of runs, the target chosen by the grid", func(o *Options) {
			o.Grid = []string{"composite_threshold=0.2,0.4"}
			o.Objective = recallAtFA
		}, "only the friction target has, and the grid varies only the struggle configuration"},
		{"too many folds", func(o *Options) { o.Folds = 30 }, "lower --folds"},
		{"missing grid file", func(o *Options) { o.GridFiles = []string{"/no/such/grid.txt"} }, "--grid-file"},
	}
	for _, tt := range tests {
		opts := sampleOptions()
		tt.edit(&opts)
		_, err := Run(context.Background(), opts)
		if !pipeline.IsUsage(err) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, want a usage error with %q", tt.name, err, tt.err)
		}
	}
}

// TestObjectiveChoosesTargets: with no --target, an objective that reads false alarms
// tunes the friction target alone and says why the others are not tuned.
func TestObjectiveChoosesTargets(t *testing.T) {
	opts := sampleOptions()
	opts.Objective, _ = eval.ParseObjective("recall@false_alarms<=5")
	res := runSample(t, opts)
	var got []Target
	for _, tr := range res.Targets {
		got = append(got, tr.Target)
	}
	if !slices.Equal(got, []Target{TargetFriction}) {
		t.Errorf("targets %v, want friction alone", got)
	}
	if !slices.ContainsFunc(res.Warnings, func(e error) bool { return strings.Contains(e.Error(), "struggle is not tuned") }) {
		t.Errorf("no warning for the struggle target: %v", res.Warnings)
	}
}

func TestWrite(t *testing.T) {
	opts := sampleOptions()
	opts.Grid = []string{"composite_threshold=0.3:0.7:0.2", "case_fold=true,false", "cooldown=1m,5m", "friction=seed,loopwatch"}
	res := runSample(t, opts)
	dir := t.TempDir()
	w, err := Write(res, filepath.Join(dir, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, tr := range res.Targets {
		want += len(tr.Configs) * (len(tr.FoldChoice) + 1)
	}
	if w.Rows != int64(want) {
		t.Errorf("%d sweep rows, want %d", w.Rows, want)
	}
	m, err := reports.ReadManifest(w.Sweep)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, mt := range m.Tables {
		files = append(files, mt.File)
	}
	slices.Sort(files)
	if strings.Join(files, " ") != "sweep.arrow sweep.curves.parquet sweep.friction.json sweep.parquet sweep.struggle.json" {
		t.Errorf("manifest lists %v", files)
	}
	f, err := os.Open(w.Arrow)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cols, rows, md, err := arrowipc.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cols) != fmt.Sprint(res.SweepColumns()) || len(rows) != want || md[reports.ReplayIDKey] != m.ReplayID {
		t.Errorf("the Arrow file: %d columns, %d rows, replay id %q (manifest %q)", len(cols), len(rows), md[reports.ReplayIDKey], m.ReplayID)
	}
	for _, name := range []string{"composite_threshold", "case_fold", "breaker_cooldown_seconds", "detect_friction"} {
		if !slices.ContainsFunc(cols, func(c reports.Column) bool { return c.Name == name }) {
			t.Errorf("no column %s", name)
		}
	}
	// A replay of the folder the sweep was written into reads none of it as input: its
	// manifest lists every file (replay's listedOutputs, which names the manifests as
	// package reports writes them).
	sum, err := replay.Replay(context.Background(), os.DirFS(dir), replay.Options{}, replay.Sinks{})
	if err != nil || sum.TotalProblems() != 0 || sum.Ignored != len(files)+1 || sum.Files != 0 {
		t.Errorf("replaying the sweep's folder: %v, %d problems, %d files, %d ignored (want the %d files and the manifest)", err,
			sum.TotalProblems(), sum.Files, sum.Ignored, len(files))
	}
	// The chosen configurations are files replay accepts as they are.
	st, err := pipeline.LoadStruggleConfig(w.Configs[TargetStruggle])
	if err != nil || st != target(t, res, TargetStruggle).Configs[target(t, res, TargetStruggle).Final].Struggle {
		t.Errorf("the struggle configuration file: %+v, %v", st, err)
	}
	fr := target(t, res, TargetFriction)
	as, err := pipeline.LoadAssessConfig(w.Configs[TargetFriction])
	if err != nil || pipeline.ConfigHash(as) != fr.Configs[fr.Final].Hash {
		t.Errorf("the assessment configuration file: %v", err)
	}
	curves, err := reports.ReadRows[reports.CurveRow](w.Curves, nil)
	if err != nil || len(curves) == 0 {
		t.Fatalf("%d curve rows, %v", len(curves), err)
	}
	configs := map[string]bool{}
	for _, c := range curves {
		configs[c.Config] = true
	}
	for _, name := range []string{RowDefault, RowTuned, RowSeed, RowShipped} {
		if !configs[name] {
			t.Errorf("no curve of %s", name)
		}
	}
}

func TestBreakerTarget(t *testing.T) {
	opts := sampleOptions()
	opts.Targets = []Target{TargetBreaker}
	opts.Grid = []string{"frustration_threshold=0.2,0.45", "cooldown=1m,5m"}
	opts.Folds = 4
	res := runSample(t, opts)
	if len(res.Targets) != 1 {
		t.Fatalf("targets %v", res.Targets)
	}
	tr := res.Targets[0]
	if tr.Target != TargetBreaker || tr.Units != 8 || len(tr.Rows) < 3 || tr.Rows[0].Report == nil {
		t.Fatalf("breaker: %d units, rows %v", tr.Units, tr.Rows)
	}
	if len(tr.Curves) == 0 || tr.Curves[0].Detector != "breaker" {
		t.Errorf("curves %v", tr.Curves)
	}
}

// TestFoldsKeepGroups: a task's runs fall in one fold; with fewer groups than folds,
// or Ungrouped, runs are dealt one by one (with a warning in the first case); a
// holdout that splits a task says so.
func TestFoldsKeepGroups(t *testing.T) {
	d := &dataset{}
	for i := range 40 {
		label := eval.Negative
		if i%4 == 0 {
			label = eval.Positive
		}
		d.runs = append(d.runs, runUnit{key: fmt.Sprintf("r%02d", i), group: fmt.Sprintf("task-%d", i/3), label: label})
	}
	sc := &scorer{d: d}
	opts := Options{Folds: 5}
	us, scheme, warns, err := sc.split(TargetStruggle, opts, nil)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	if !strings.Contains(scheme, "by task (14), each task's runs in one fold") {
		t.Errorf("scheme %q", scheme)
	}
	if n := straddling(groupsOf(d, us), us.fold); n != 0 {
		t.Errorf("%d tasks split over folds", n)
	}
	opts.Ungrouped = true
	us, scheme, warns, _ = sc.split(TargetStruggle, opts, nil)
	if strings.Contains(scheme, "task") || straddling(groupsOf(d, us), us.fold) == 0 {
		t.Errorf("ungrouped: scheme %q, no task split", scheme)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), "dealt by run (--ungrouped)") {
		t.Errorf("ungrouped: warnings %v", warns)
	}
	opts = Options{Folds: 20}
	if _, _, warns, err := sc.split(TargetStruggle, opts, nil); err != nil || len(warns) == 0 || !strings.Contains(warns[0].Error(), "14 tasks for 20 folds") {
		t.Errorf("fewer tasks than folds: %v, %v", warns, err)
	}
	opts = Options{Holdout: []string{"r00"}, HoldoutName: "h"}
	if _, _, warns, err := sc.split(TargetStruggle, opts, map[string]bool{"r00": true}); err != nil || len(warns) != 1 ||
		!strings.Contains(warns[0].Error(), "1 tasks of struggle have runs on both sides") {
		t.Errorf("a holdout splitting a task: %v, %v", warns, err)
	}
}

func groupsOf(d *dataset, us *units) []string {
	var g []string
	for _, i := range us.idx {
		g = append(g, d.runs[i].group)
	}
	return g
}

// TestSessionGroups: a resumed session joins the group of the one it resumed.
func TestSessionGroups(t *testing.T) {
	s := []sessionUnit{{key: "a", group: "p1"}, {key: "b", group: "p2"}, {key: "c", group: "p3"}, {key: "d", group: "p4"}}
	sessionGroups(s, map[string][]string{"b": {"a"}, "c": {"gone"}, "d": {"b"}})
	var got []string
	for _, u := range s {
		got = append(got, u.group)
	}
	if want := []string{"p1", "p1", "p3", "p1"}; !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}

// TestVerdictCountsDroppedUnits: with a constrained objective some folds choose
// nothing, and the verdict says the rows are on the other folds' units only.
func TestVerdictCountsDroppedUnits(t *testing.T) {
	opts := sampleOptions()
	opts.Targets = []Target{TargetBreaker}
	opts.Objective, _ = eval.ParseObjective("recall@precision>=0.9")
	res := runSample(t, opts)
	if v := res.Targets[0].Verdict; !strings.Contains(v, "the rows are on 2 of the 8 held-out sessions: the folds of the other 6 chose nothing") {
		t.Errorf("verdict %q", v)
	}
}

// TestVerdictReadsDefinedIntervals: the verdict reads the paired interval only when
// nearly every resample defined the difference.
func TestVerdictReadsDefinedIntervals(t *testing.T) {
	tr := &TargetResult{FoldChoice: []int{3}, FoldHeldOut: []bool{true}}
	f1, _ := eval.ParseObjective("f1")
	sure := eval.Score{Precision: 1, Recall: 1}
	for _, tt := range []struct {
		name      string
		d         eval.PairedDifference
		resamples int
		want      string
	}{
		{"every resample", eval.PairedDifference{Diff: 0.3, Low: 0.1, High: 0.5, Resamples: 2000}, 2000, "tuned beats the default"},
		{"95% of them", eval.PairedDifference{Diff: 0.3, Low: 0.1, High: 0.5, Resamples: 1900}, 2000, "tuned beats the default"},
		{"one held-out positive", eval.PairedDifference{Diff: 1, Low: 1, High: 1, Resamples: 1502}, 2000, "undefined in 498 of 2000 resamples (too few held-out positives to tell)"},
		{"no bootstrap", eval.PairedDifference{Diff: 0.3, Low: math.NaN(), High: math.NaN()}, -1, "without the bootstrap (--resamples 0)"},
		{"interval across 0", eval.PairedDifference{Diff: 0.1, Low: -0.1, High: 0.3, Resamples: 2000}, 2000, "includes 0"},
		{"undefined", eval.PairedDifference{Diff: math.NaN(), Low: math.NaN(), High: math.NaN()}, 2000, "Δf1 is undefined on the held-out units"},
	} {
		got := verdict(tr, f1, Paired{Metric: "f1", PairedDifference: tt.d, HigherIsBetter: true}, sure, tt.resamples)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLeftOut: what a target does not score is said, with why; joinSchemes names each
// target's scheme only when they differ.
func TestLeftOut(t *testing.T) {
	d := &dataset{runs: []runUnit{{label: eval.Positive}, {label: eval.Ambiguous}, {label: eval.Excluded}, {label: eval.Unlabelled}, {label: eval.Negative}},
		sessions: []sessionUnit{{labelled: true, label: eval.Negative}, {labelled: false, label: eval.Positive}}}
	sc := &scorer{d: d}
	for _, tt := range []struct {
		t    Target
		want string
	}{
		{TargetStruggle, "struggle: 3 of 5 runs left out of the scores: 1 ambiguous, 1 excluded, 1 unlabelled"},
		{TargetBreaker, ""},
		{TargetFriction, "friction: 1 of 2 sessions left out of the scores: no labels"},
	} {
		if got := sc.leftOut(tt.t); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.t, got, tt.want)
		}
	}
	if got := joinSchemes([][2]string{{"struggle", "A"}, {"friction", "A"}}); got != "A" {
		t.Errorf("one scheme: %q", got)
	}
	if got := joinSchemes([][2]string{{"struggle", "A"}, {"friction", "B"}}); got != "A for struggle; B for friction" {
		t.Errorf("two schemes: %q", got)
	}
}

// TestOneClassChoosesNothing: units to choose on that hold one class cannot measure
// the objective — with no positive, F1 is undefined for every configuration and a cost
// counts false positives only — so nothing is chosen over the default: every fold and
// the configuration to ship choose nothing, the verdict, the warnings and the count
// under --strict say why, and no configuration file is written.
func TestOneClassChoosesNothing(t *testing.T) {
	sample := filepath.Join("..", "datasets", "sample")
	runLabels, sessionLabels := filepath.Join(sample, "labels", "runs.csv"), filepath.Join(sample, "labels", "sessions.csv")
	dir := t.TempDir()
	// filtered writes the rows of a labels file that keep returns true for (given the
	// row's fields), each edited, under the header.
	filtered := func(name, from string, keep func([]string) bool, edit func([]string)) string {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{strings.SplitN(string(b), "\n", 2)[0]}
		for _, f := range readRows(t, from) {
			if keep(f) {
				if edit != nil {
					edit(f)
				}
				out = append(out, strings.Join(f, ","))
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	label := func(l string) func([]string) bool { return func(f []string) bool { return f[1] == l } }
	all := func([]string) bool { return true }
	var positiveRuns, momentSessions []string
	for _, f := range readRows(t, runLabels) {
		if f[1] == "positive" {
			positiveRuns = append(positiveRuns, f[0])
		}
	}
	for _, f := range readRows(t, sessionLabels) {
		if f[5] != "" {
			momentSessions = append(momentSessions, f[0])
		}
	}
	tests := []struct {
		name      string
		in        string
		labels    string
		target    Target
		objective string
		folds     int
		holdout   []string
		why       string // what the units chosen on lack
	}{
		{"runs, no positive", "runs", filtered("neg.csv", runLabels, label("negative"), nil), TargetStruggle, "f1", 0, nil, "no positive run"},
		{"runs, no positive, cost", "runs", filtered("neg.csv", runLabels, label("negative"), nil), TargetStruggle, "cost=1:5", 0, nil, "no positive run"},
		{"runs, no negative", "runs", filtered("pos.csv", runLabels, label("positive"), nil), TargetStruggle, "f1", 2, nil, "no negative run"},
		{"sessions, every one a success", "", filtered("success.csv", sessionLabels, all, func(f []string) { f[2] = "success" }),
			TargetBreaker, "f1", 2, nil, "no positive session"},
		{"a holdout of every positive run", "runs", runLabels, TargetStruggle, "f1", 0, positiveRuns, "no positive run"},
		{"a holdout of every session with moments", "", sessionLabels, TargetFriction, "recall@false_alarms<=50", 0, momentSessions, "no friction moment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := sampleOptions()
			opts.Settings.Resamples = 20
			opts.Settings.In = filepath.Join(sample, "inputs", tt.in)
			opts.Settings.Labels = []string{tt.labels}
			opts.Targets = []Target{tt.target}
			opts.Grid = []string{smallGrid[tt.target]} // two configurations: what is chosen is not the point
			opts.Objective, _ = eval.ParseObjective(tt.objective)
			if tt.folds > 0 {
				opts.Folds = tt.folds
			}
			opts.Holdout, opts.HoldoutName = tt.holdout, "held"
			res := runSample(t, opts)
			tr := target(t, res, tt.target)
			if tr.Final != -1 || tr.FinalUnmeasured != tt.why || slices.ContainsFunc(tr.FoldChoice, func(c int) bool { return c >= 0 }) {
				t.Fatalf("chose %d (%q), folds %v; want nothing, %q", tr.Final, tr.FinalUnmeasured, tr.FoldChoice, tt.why)
			}
			if !strings.Contains(tr.Verdict, "cannot be measured on the training units of any fold (they hold "+tt.why+"): nothing is chosen, keep the default") ||
				len(tr.Paired) != 0 || slices.ContainsFunc(tr.Rows, func(r Row) bool { return r.Name == RowTuned }) {
				t.Errorf("verdict %q, %d paired rows, rows %v", tr.Verdict, len(tr.Paired), tr.Rows)
			}
			if res.Unmeasured != 1 || !slices.ContainsFunc(res.Warnings, func(e error) bool {
				return strings.Contains(e.Error(), "cannot be measured on the "+tt.target.Unit()+" the configuration to ship is chosen on: they hold "+tt.why)
			}) {
				t.Errorf("%d unmeasured, warnings %v", res.Unmeasured, res.Warnings)
			}
			w, err := Write(res, filepath.Join(t.TempDir(), "sweep.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Configs) != 0 {
				t.Errorf("configuration files written: %v", w.Configs)
			}
		})
	}
}

// TestOneClassFold: a fold whose training units hold one class chooses nothing and
// says so; the others choose, and the configuration to ship is chosen on every unit.
func TestOneClassFold(t *testing.T) {
	opts := sampleOptions()
	opts.Settings.Resamples = 20
	opts.Targets = []Target{TargetBreaker}
	opts.Folds = 2
	res := runSample(t, opts)
	tr := target(t, res, TargetBreaker)
	held, unmeasured, why := tr.unmeasuredFolds()
	if held != 2 || unmeasured != 0 || why != "" || tr.Final < 0 {
		t.Fatalf("the sample: %d of %d folds unmeasured (%q), final %d", unmeasured, held, why, tr.Final)
	}
	// One positive session: the fold that holds it has none to choose on.
	positives := 0
	for i := range res.data.sessions {
		if su := &res.data.sessions[i]; su.label == eval.Positive {
			if positives++; positives > 1 {
				su.label = eval.Negative
			}
		}
	}
	sc := &scorer{d: res.data}
	tr.Evals = sc.evaluateAll(tr.units, tr.Configs, 1)
	for f := range tr.FoldChoice {
		tr.FoldChoice[f], tr.FoldUnmeasured[f] = choose(res.Objective, TargetBreaker, tr.Configs, tr.Evals, f)
	}
	tr.Final, tr.FinalUnmeasured = choose(res.Objective, TargetBreaker, tr.Configs, tr.Evals, -1)
	if !slices.Equal(tr.FoldUnmeasured, []string{"", "no positive session"}) && !slices.Equal(tr.FoldUnmeasured, []string{"no positive session", ""}) {
		t.Errorf("folds unmeasured: %q", tr.FoldUnmeasured)
	}
	if err := tr.unmeasured(res.Objective); tr.FinalUnmeasured != "" || err == nil ||
		!strings.Contains(err.Error(), "cannot be measured on the training units of 1 of the 2 folds: they hold no positive session; those folds choose nothing") {
		t.Errorf("final unmeasured %q, warning %v", tr.FinalUnmeasured, err)
	}
}

// readRows reads a CSV file's rows after the header, split at commas (the sample's
// labels quote no comma before the columns read).
func readRows(t *testing.T, name string) [][]string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows
}

// TestWriteRetiresThePrevious: a sweep written where another was removes the files
// of the previous set (as its manifest lists them) that it does not write — a chosen
// configuration of a target it does not tune would look current —, and nothing else.
func TestWriteRetiresThePrevious(t *testing.T) {
	sweep := func(targets ...Target) *Result {
		opts := sampleOptions()
		opts.Settings.Resamples = 20
		opts.Targets = targets
		for _, tg := range targets {
			opts.Grid = append(opts.Grid, smallGrid[tg])
		}
		return runSample(t, opts)
	}
	both, struggle := sweep(TargetStruggle, TargetFriction), sweep(TargetStruggle)
	tests := []struct {
		name          string
		before, after *Result
		foreign       bool // a sweep.friction.json the previous manifest does not list
		edited        bool // the previous sweep's sweep.friction.json edited since
		left          string
		removed, kept []string
	}{
		{"a target no longer tuned", both, struggle, false, false, "sweep.arrow sweep.curves.parquet sweep.manifest.json sweep.parquet sweep.struggle.json",
			[]string{"sweep.friction.json"}, nil},
		{"the same targets", both, both, false, false, "sweep.arrow sweep.curves.parquet sweep.friction.json sweep.manifest.json sweep.parquet sweep.struggle.json", nil, nil},
		{"a file no manifest lists", struggle, struggle, true, false, "sweep.arrow sweep.curves.parquet sweep.friction.json sweep.manifest.json sweep.parquet sweep.struggle.json", nil, nil},
		{"a target no longer tuned, its configuration edited since", both, struggle, false, true,
			"sweep.arrow sweep.curves.parquet sweep.friction.json sweep.manifest.json sweep.parquet sweep.struggle.json", nil, []string{"sweep.friction.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "sweep.parquet")
			if _, err := Write(tt.before, out); err != nil {
				t.Fatal(err)
			}
			if tt.foreign {
				if err := os.WriteFile(filepath.Join(dir, "sweep.friction.json"), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.edited { // by hand: the same size, another character
				p := filepath.Join(dir, "sweep.friction.json")
				b, err := os.ReadFile(p)
				if err != nil || len(b) < 2 {
					t.Fatal(err)
				}
				b[len(b)-2] = ' '
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w, err := Write(tt.after, out)
			if err != nil {
				t.Fatal(err)
			}
			var removed, kept []string
			for _, p := range w.Removed {
				removed = append(removed, filepath.Base(p))
			}
			for _, p := range w.Kept {
				kept = append(kept, filepath.Base(p))
			}
			if !slices.Equal(removed, tt.removed) || !slices.Equal(kept, tt.kept) {
				t.Errorf("removed %v, kept %v; want %v, %v", removed, kept, tt.removed, tt.kept)
			}
			entries, _ := os.ReadDir(dir)
			var left []string
			for _, e := range entries {
				left = append(left, e.Name())
			}
			if got := strings.Join(left, " "); got != tt.left {
				t.Errorf("left %s, want %s", got, tt.left)
			}
		})
	}
}

// TestHoldoutKeys: a holdout's keys that match no run or session, and those given more
// than once, are reported and counted (problems under --strict).
func TestHoldoutKeys(t *testing.T) {
	d := &dataset{runs: []runUnit{{key: "r1"}, {key: "r2"}}, sessions: []sessionUnit{{key: "s1"}}}
	for _, tt := range []struct {
		name     string
		keys     []string
		warnings []string
		problems int
	}{
		{"every key matches once", []string{"r1", "s1"}, nil, 0},
		{"a key that matches nothing", []string{"r1", "x"}, []string{"--holdout h: 1 key matches no run or session (e.g. x)"}, 1},
		{"one that matches nothing, twice", []string{"x", "r1", "x"}, []string{"--holdout h: 1 key matches no run or session (e.g. x)",
			"--holdout h: 1 key given more than once (e.g. x)"}, 2},
		{"keys given more than once", []string{"r1", "r2", "r1", "s1", "r2", "r1"}, []string{"--holdout h: 2 keys given more than once (e.g. r1, r2)"}, 2},
	} {
		set, warns, problems := d.holdout(tt.keys, "h")
		var got []string
		for _, w := range warns {
			got = append(got, w.Error())
		}
		if !slices.Equal(got, tt.warnings) || problems != tt.problems {
			t.Errorf("%s: warnings %q, %d problems; want %q, %d", tt.name, got, problems, tt.warnings, tt.problems)
		}
		for _, k := range tt.keys {
			if !set[k] {
				t.Errorf("%s: %s is not in the holdout", tt.name, k)
			}
		}
	}
}
