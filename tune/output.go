package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/reports"
	"github.com/loopwatch/loopwatch/reports/arrowipc"
)

// Output names what Write wrote.
type Output struct {
	Sweep  string // the sweep table (Parquet)
	Arrow  string // the same table as an Arrow IPC file
	Curves string // the curves table
	// Configs holds the chosen configuration files, by target.
	Configs  map[Target]string
	Manifest string
	Rows     int64 // rows of the sweep table
	// Removed lists the files of the previous sweep at this output (as its manifest
	// lists them) that this one does not write — a chosen configuration of a target
	// that chose nothing now, or was not tuned —, removed with the commit.
	Removed []string
	// Kept lists the files of the previous sweep this one does not write that were
	// left in place: changed since that sweep wrote them (edited by hand), they are
	// no longer only tune's to delete.
	Kept []string
}

// sweep's fixed columns, before the parameters and after them.
var sweepHead = reports.Columns{
	{Name: "target", Type: reports.String},
	{Name: "config_id", Type: reports.Int64},
	{Name: "role", Type: reports.String},
	{Name: "config_hash", Type: reports.String},
	{Name: "fold", Type: reports.Int64},
	{Name: "held_out", Type: reports.Bool},
	{Name: "chosen", Type: reports.Bool},
}

var sweepMetrics = reports.Columns{
	{Name: "units", Type: reports.Int64},
	{Name: "positives", Type: reports.Int64},
	{Name: "tp", Type: reports.Int64},
	{Name: "fp", Type: reports.Int64},
	{Name: "fn", Type: reports.Int64},
	{Name: "tn", Type: reports.Int64},
	{Name: "moments", Type: reports.Int64},
	{Name: "caught", Type: reports.Int64},
	{Name: "interventions", Type: reports.Int64},
	{Name: "true_positives", Type: reports.Int64},
	{Name: "false_alarms", Type: reports.Int64},
	{Name: "human_turns", Type: reports.Int64},
	{Name: "precision", Type: reports.Float64},
	{Name: "recall", Type: reports.Float64},
	{Name: "f1", Type: reports.Float64},
	{Name: "fbeta", Type: reports.Float64},
	{Name: "false_alarms_per_100_turns", Type: reports.Float64},
	{Name: "mean_delay_seconds", Type: reports.Float64},
	{Name: "average_precision", Type: reports.Float64},
	{Name: "roc_auc", Type: reports.Float64},
	{Name: "objective", Type: reports.Float64},
	{Name: "feasible", Type: reports.Bool},
	{Name: "train_units", Type: reports.Int64},
	{Name: "train_precision", Type: reports.Float64},
	{Name: "train_recall", Type: reports.Float64},
	{Name: "train_objective", Type: reports.Float64},
	{Name: "train_feasible", Type: reports.Bool},
}

// SweepColumns are the sweep table's columns: the configuration and fold, one column
// per swept parameter (named by Param.Column; the other family's are null), then the
// figures.
func (r *Result) SweepColumns() reports.Columns {
	cols := slices.Clone(sweepHead)
	for _, p := range r.Space.Params {
		cols = append(cols, reports.Column{Name: p.Column(), Type: p.columnType()})
	}
	return append(cols, sweepMetrics...)
}

func (p *Param) columnType() reports.ColumnType {
	switch p.Kind {
	case Number, Duration:
		return reports.Float64
	case Integer:
		return reports.Int64
	case Bool:
		return reports.Bool
	}
	return reports.String
}

// SweepRows are the sweep table's rows: per target, per configuration, one row per
// fold (the fold's own units; training figures on the others) and one for every unit
// (fold −1).
func (r *Result) SweepRows() [][]any {
	var rows [][]any
	beta := r.Settings.Beta
	for _, tr := range r.Targets {
		us := tr.units
		foldUnits := make([]int, us.folds)
		for _, f := range us.fold {
			foldUnits[f]++
		}
		for ci, c := range tr.Configs {
			params := r.Space.Values(c)
			ev := tr.Evals[ci]
			for f := -1; f < us.folds; f++ {
				row := []any{string(tr.Target), int64(c.ID), string(c.Role), c.Hash, int64(f), nil, nil}
				t, n, ap, auc := ev.all, len(us.idx), ev.ap, ev.auc
				if f >= 0 {
					t, n, ap, auc = ev.fold[f], foldUnits[f], nan(ev.foldAP, f), nan(ev.foldAUC, f)
					row[5] = us.heldOut[f]
					row[6] = tr.FoldChoice[f] == ci
				} else {
					row[6] = tr.Final == ci
				}
				row = append(row, params...)
				row = append(row, r.metricValues(tr.Target, t, n, ap, auc, beta)...)
				if f >= 0 {
					train := ev.all.minus(ev.fold[f])
					sc := train.score(tr.Target)
					row = append(row, int64(len(us.idx)-n), sc.Precision, sc.Recall, r.Objective.Value(sc), r.Objective.Feasible(sc))
				} else {
					row = append(row, nil, nil, nil, nil, nil)
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

func nan(xs []float64, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return math.NaN()
}

// metricValues are the figures of a tally on n units.
func (r *Result) metricValues(target Target, t tally, n int, ap, auc, beta float64) []any {
	sc := t.score(target)
	out := []any{int64(n), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}
	if target == TargetFriction {
		a := t.alarms
		out[1] = int64(a.SessionsWithMoments)
		out[6], out[7], out[8], out[9], out[10], out[11] = int64(a.Moments), int64(a.Caught), int64(a.Interventions),
			int64(a.TruePositives), int64(a.FalseAlarms), int64(a.HumanTurns)
	} else {
		c := t.conf
		out[1] = int64(c.TP + c.FN)
		out[2], out[3], out[4], out[5] = int64(c.TP), int64(c.FP), int64(c.FN), int64(c.TN)
	}
	var delay any
	if target == TargetFriction {
		delay = t.alarms.MeanDelaySeconds()
	}
	var apv, aucv any
	if target != TargetFriction {
		apv, aucv = ap, auc
	}
	return append(out, sc.Precision, sc.Recall, sc.FBeta(1), sc.FBeta(beta), sc.FalseAlarmsPer100, delay, apv, aucv,
		r.Objective.Value(sc), r.Objective.Feasible(sc))
}

// Values are a configuration's values of every swept parameter, in the order of
// Params: its own family's read from the configuration, the other family's nil.
func (sp *Space) Values(c *Config) []any {
	var tree any
	if c.Family == Struggle {
		tree, _ = toTree(c.Struggle)
	} else {
		tree, _ = toTree(c.Assess)
	}
	out := make([]any, len(sp.Params))
	for i, p := range sp.Params {
		if p.Family != c.Family {
			continue
		}
		v := tree
		for _, k := range p.path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		out[i] = p.columnValue(v, sp)
	}
	return out
}

// Differences lists, as name=value, the swept parameters whose value in c differs
// from the default's.
func (tr *TargetResult) Differences(sp *Space, c *Config) []string {
	def, mine := sp.Values(tr.Configs[0]), sp.Values(c)
	var out []string
	for i, p := range sp.Params {
		if p.Family == c.Family && fmt.Sprint(def[i]) != fmt.Sprint(mine[i]) {
			v := fmt.Sprint(mine[i])
			if secs, ok := mine[i].(float64); ok && p.Kind == Duration {
				v = time.Duration(secs * float64(time.Second)).String()
			}
			out = append(out, fmt.Sprintf("%s=%s", strings.TrimPrefix(p.Name, string(p.Family)+"."), v))
		}
	}
	return out
}

// Candidates is how many configurations were candidates (the default and the grid's).
func (tr *TargetResult) Candidates() int {
	n := 0
	for _, c := range tr.Configs {
		if c.Candidate() {
			n++
		}
	}
	return n
}

// columnValue converts a configuration's value at the parameter's path for the sweep
// table; a section is named by the preset it equals ("custom" otherwise).
func (p *Param) columnValue(v any, sp *Space) any {
	switch p.Kind {
	case Number:
		if n, ok := v.(json.Number); ok {
			f, _ := n.Float64()
			return f
		}
	case Integer:
		if n, ok := v.(json.Number); ok {
			i, _ := n.Int64()
			return i
		}
	case Bool:
		if b, ok := v.(bool); ok {
			return b
		}
	case Duration:
		if s, ok := v.(string); ok {
			if d, err := time.ParseDuration(s); err == nil {
				return d.Seconds()
			}
		}
	case String:
		if s, ok := v.(string); ok {
			return s
		}
	case Section:
		b, _ := json.Marshal(v)
		for _, name := range presetNames {
			if pv, ok, _ := sp.presetValue(sp.params[p.Name], name); ok && string(pv.JSON) == string(b) {
				return name
			}
		}
		return "custom"
	}
	return nil
}

// Write writes the sweep beside out (a path ending in .parquet) as a set: the sweep
// table at out, the same table as an Arrow IPC file (<stem>.arrow), the curves
// (<stem>.curves.parquet), each target's chosen configuration (<stem>.<target>.json,
// a file --struggle-config or --assess-config accepts as it is) and the manifest,
// committed together, and the previous sweep's files this one does not write removed
// with them but those changed since (see [previousFiles]; [Output.Kept]). Nothing is
// written, nor removed, when a part fails.
func Write(res *Result, out string) (*Output, error) {
	md := res.metadata()
	o, err := reports.NewOutput(out, md)
	if err != nil {
		return nil, pipeline.UsageError{Err: err}
	}
	defer o.Abort()
	cols, rows := res.SweepColumns(), res.SweepRows()
	sweep, err := reports.NewDynTable(o, "", cols)
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		if err := sweep.Write(row); err != nil {
			return nil, err
		}
	}
	arrowFile, err := o.AddFile("sweep_arrow", "arrow", func(w io.Writer, md map[string]string) error {
		return arrowipc.Write(w, cols, rows, md)
	})
	if err != nil {
		return nil, err
	}
	curves, err := reports.NewTable[reports.CurveRow](o, "curves")
	if err != nil {
		return nil, err
	}
	for _, tr := range res.Targets {
		for _, c := range tr.Curves {
			if err := curves.Write(reports.CurveRows(c.Detector, c.Config, c.Curve)...); err != nil {
				return nil, err
			}
		}
	}
	written := &Output{Sweep: out, Arrow: arrowFile.Path(), Curves: o.Path("curves"), Configs: map[Target]string{}, Manifest: o.ManifestPath()}
	for _, tr := range res.Targets {
		if tr.Final < 0 {
			continue
		}
		c := tr.Configs[tr.Final]
		f, err := o.AddFile("config_"+string(tr.Target), string(tr.Target)+".json", func(w io.Writer, _ map[string]string) error {
			b, err := c.JSON()
			if err == nil {
				_, err = w.Write(b)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		written.Configs[tr.Target] = f.Path()
	}
	o.Retire(previousFiles(out)...)
	if err := o.Commit(); err != nil {
		return nil, err
	}
	written.Rows, written.Removed, written.Kept = sweep.Rows(), o.Retired(), o.Kept()
	return written, nil
}

// previousFiles are the files of the sweep committed at out before, as its manifest
// lists them (with their size and SHA-256), that are of the files tune writes there
// ([OutputFiles]): those the new sweep does not write are retired with its commit
// ([reports.Output.Retire]), so that no chosen configuration of an earlier sweep
// stands beside the new set as if it were of it — unless changed since that sweep
// wrote it (edited by hand), which is left. None without a readable manifest.
func previousFiles(out string) []reports.PreviousFile {
	m, err := reports.ReadManifest(out)
	if err != nil {
		return nil
	}
	ours := OutputFiles(out)
	for i := range ours {
		ours[i] = filepath.Clean(ours[i])
	}
	var files []reports.PreviousFile
	for _, t := range m.Tables {
		if p := filepath.Join(filepath.Dir(out), t.File); slices.Contains(ours, p) {
			files = append(files, reports.PreviousFile{Path: p, Bytes: t.Bytes, SHA256: t.SHA256})
		}
	}
	return files
}

// metadata is what every file of the sweep's output records.
func (r *Result) metadata() map[string]string {
	s := r.Settings
	var grid []string
	for _, p := range r.Space.Params {
		grid = append(grid, p.Name+"="+p.Spec)
	}
	var targets []string
	for _, t := range r.Targets {
		targets = append(targets, string(t.Target))
	}
	tuneJSON, _ := json.Marshal(map[string]any{"grid": grid, "objective": r.Objective.String(), "scheme": r.Scheme,
		"targets": targets, "seed": s.Seed, "resamples": s.Resamples, "ci_level": s.Level, "beta": s.Beta,
		"friction_window": s.FrictionWindow.String(), "positive_outcomes": s.PositiveOutcomes})
	structJSON, _ := json.Marshal(r.Space.BaseStruggle)
	assessJSON, _ := json.Marshal(r.Space.BaseAssess)
	md := map[string]string{
		"loopwatch.tune":              string(tuneJSON),
		"loopwatch.struggle_config":   string(structJSON),
		"loopwatch.config_hash":       pipeline.ConfigHash(r.Space.BaseStruggle),
		"loopwatch.assess_config":     string(assessJSON),
		"loopwatch.assess_hash":       pipeline.ConfigHash(r.Space.BaseAssess),
		"loopwatch.labels":            r.LabelsNote,
		"loopwatch.input_fingerprint": r.Summary.Fingerprint,
	}
	return md
}

// CheckOut rejects an output path before any work: it must end in .parquet, and its
// folder must exist.
func CheckOut(out string) error {
	if !strings.HasSuffix(out, ".parquet") {
		return pipeline.UsageError{Err: fmt.Errorf("--out %s: must end in .parquet (the sweep table; the other files share its stem)", out)}
	}
	if path.Base(out) == ".parquet" {
		return pipeline.UsageError{Err: fmt.Errorf("--out %s: the sweep table's name before .parquet is empty (give one, sweep.parquet say)", out)}
	}
	dir := out[:strings.LastIndex(out, "/")+1]
	if dir == "" {
		return nil
	}
	switch err := reports.Folder(dir); {
	case errors.Is(err, reports.ErrNoSuchFolder):
		return pipeline.UsageError{Err: fmt.Errorf("--out %s: no such folder %s", out, dir)}
	case errors.Is(err, reports.ErrNotAFolder):
		return pipeline.UsageError{Err: fmt.Errorf("--out %s: %s is not a folder", out, dir)}
	case err != nil:
		return pipeline.UsageError{Err: fmt.Errorf("--out %s: %w", out, err)}
	}
	return nil
}

// OutputFiles lists every file Write may write for out: what a sweep whose output
// lies inside its input leaves out of the walk.
func OutputFiles(out string) []string {
	stem := strings.TrimSuffix(out, ".parquet")
	files := []string{out, stem + ".arrow", stem + ".curves.parquet", reports.ManifestPath(out)}
	for _, t := range []Target{TargetStruggle, TargetBreaker, TargetFriction} {
		files = append(files, stem+"."+string(t)+".json")
	}
	return files
}
