package tune

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/claudecode"
	"github.com/loopwatch/loopwatch/replay/input"
)

// runUnit is one replayed run: its label, its traces and quasar's shipped outcome.
type runUnit struct {
	key     string
	group   string // its task: the folds keep a task's runs together
	label   eval.Label
	traces  [2]*replay.RunTrace // measured without and with case folding (nil when not needed)
	shipped replay.StruggleOutcome
}

// sessionUnit is one replayed session: its label, friction moments, human turns, its
// traces (one per detection group) and vibes' shipped outcome.
type sessionUnit struct {
	key        string
	group      string // its project, and a resumed session's (see sessionGroups)
	label      eval.Label
	labelled   bool
	moments    []eval.Point
	humanTurns int
	traces     []*assess.Trace
	// shippedAt are the shipped baseline's interventions as moments-scoring points,
	// and shippedPeak its peak frustration.
	shippedAt   []eval.Point
	shippedPeak float64
}

// dataset is what a sweep rescores: every run and session of the input, read once.
type dataset struct {
	runs     []runUnit
	sessions []sessionUnit
	summary  *replay.Summary
	// warnings: friction moments that are not events of their session, label keys
	// matching nothing; unscored counts both, each moment and key one.
	warnings []error
	unscored int
	derived  int
}

// traced is what a replay worker computes for a unit, carried to the sink in Extra.
type traced struct {
	runs     [2]*replay.RunTrace
	run      replay.StruggleOutcome
	sessions []*assess.Trace
	session  replay.SessionOutcome
	err      error
}

// load replays the input once and keeps, per unit, what rescoring needs: run traces
// for the case foldings asked for, and session traces for every detection group.
func load(ctx context.Context, in *pipeline.Inputs, caseFold [2]bool, groups []detection) (*dataset, error) {
	opts := in.ReplayOptions()
	opts.Variants = nil
	opts.RunHook = func(rr *replay.RunResult) {
		t := &traced{run: pipeline.ShippedRun(rr.Run)}
		for i, want := range caseFold {
			if want {
				t.runs[i] = replay.TraceRun(rr.Run, i == 1)
			}
		}
		rr.Extra = t
	}
	opts.SessionHook = func(sr *replay.SessionResult) {
		t := &traced{}
		t.session, t.err = pipeline.ShippedSession(sr.Session)
		for _, g := range groups {
			if t.err != nil {
				break
			}
			var tr *assess.Trace
			tr, t.err = assess.TraceSession(sr.Session.Events, g.cfg, g.rules)
			t.sessions = append(t.sessions, tr)
		}
		sr.Extra = t
	}
	d := &dataset{}
	keys := map[string]bool{}
	missing := 0
	resumed := map[string][]string{} // the sessions each session resumed, by its key
	var missingExample string
	sum, err := replay.Replay(ctx, in.FS, opts, replay.Sinks{
		Runs: func(rr *replay.RunResult) error {
			keys[rr.Run.Key] = true
			rec, ok, derived := in.RunLabel(rr.Run)
			if derived {
				d.derived++
			}
			t := rr.Extra.(*traced)
			u := runUnit{key: rr.Run.Key, group: cmp.Or(rr.Run.TaskID, rr.Run.Key), label: eval.Unlabelled, traces: t.runs, shipped: t.run}
			if ok {
				u.label = rec.Label
			}
			d.runs = append(d.runs, u)
			return nil
		},
		Sessions: func(sr *replay.SessionResult) error {
			s := sr.Session
			keys[s.Key] = true
			t := sr.Extra.(*traced)
			if t.err != nil {
				return fmt.Errorf("session %s: %w", s.Key, t.err)
			}
			rec, ok, moments, miss := in.SessionLabel(s)
			if len(miss) > 0 && missingExample == "" {
				missingExample = fmt.Sprintf("%s in session %s", miss[0], s.Key)
			}
			missing += len(miss)
			if len(s.ContinuedFrom) > 0 {
				resumed[s.Key] = s.ContinuedFrom
			}
			u := sessionUnit{key: s.Key, group: sessionGroup(s), label: eval.Unlabelled,
				labelled: ok, humanTurns: sr.HumanMessages, traces: t.sessions, shippedPeak: t.session.PeakFrustration}
			for _, i := range t.session.Interventions {
				u.shippedAt = append(u.shippedAt, eval.Point{Time: s.Events[i].Time, Index: i})
			}
			if ok {
				u.label = rec.Label
				for _, m := range moments {
					u.moments = append(u.moments, eval.Point{Time: s.Events[m].Time, Index: m})
				}
			}
			d.sessions = append(d.sessions, u)
			return nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	d.summary = sum
	sessionGroups(d.sessions, resumed)
	if missing > 0 {
		d.unscored += missing
		d.warnings = append(d.warnings, fmt.Errorf("%s left out: no event of their session (e.g. %s)", plural.Count(missing, "labelled friction moment"), missingExample))
	}
	var unmatched []string
	for _, k := range in.Labels.Keys() {
		if !keys[k] {
			unmatched = append(unmatched, k)
		}
	}
	if len(unmatched) > 0 {
		d.unscored += len(unmatched)
		ex := unmatched
		if len(ex) > 3 {
			ex = ex[:3]
		}
		d.warnings = append(d.warnings, fmt.Errorf("%s %s no run or session (e.g. %s)", plural.Count(len(unmatched), "label key"), plural.Form(len(unmatched), "matches", "match"), strings.Join(ex, ", ")))
	}
	return d, nil
}

// sessionGroup is the project a session belongs to: its recorded working directory,
// else, for a Claude Code transcript, its folder (Claude Code keeps a project's
// transcripts in one), else its file (one event log's sessions).
func sessionGroup(s *input.Session) string {
	switch {
	case s.Project != "":
		return s.Project
	case s.Source == claudecode.SourceName:
		return path.Dir(s.File)
	}
	return s.File
}

// sessionGroups joins the group of a session that resumed another (resumed: the
// sessions each resumed, by key) to the group of the session it resumed (one project
// as a rule; a resumed session's opening records are its parent's), so that folds
// keep both on one side.
func sessionGroups(sessions []sessionUnit, resumed map[string][]string) {
	parent := map[string]string{} // union-find over groups
	var find func(g string) string
	find = func(g string) string {
		for parent[g] != "" && parent[g] != g {
			g = parent[g]
		}
		return g
	}
	byKey := map[string]int{}
	for i, s := range sessions {
		byKey[s.key] = i
	}
	for _, s := range sessions {
		for _, r := range resumed[s.key] {
			if j, ok := byKey[r]; ok {
				a, b := find(s.group), find(sessions[j].group)
				if a != b {
					parent[max(a, b)] = min(a, b) // the lesser name stands for both
				}
			}
		}
	}
	for i := range sessions {
		sessions[i].group = find(sessions[i].group)
	}
}

// interventionPoints returns a decision's interventions as moments-scoring points.
func interventionPoints(d *assess.Decision, dst []eval.Point) []eval.Point {
	dst = dst[:0]
	for k, i := range d.Interventions {
		dst = append(dst, eval.Point{Time: d.Times[k], Index: i})
	}
	return dst
}

// unknownKeys returns the keys that are no run's or session's, in the order given.
func (d *dataset) unknownKeys(keys []string) []string {
	known := map[string]bool{}
	for _, r := range d.runs {
		known[r.key] = true
	}
	for _, s := range d.sessions {
		known[s.key] = true
	}
	var out []string
	for _, k := range keys {
		if !known[k] {
			out = append(out, k)
		}
	}
	return out
}

// holdout returns the set of a holdout's keys, a warning for its keys that match no
// run or session and one for those given more than once (name names the holdout), and
// how many keys the warnings count.
func (d *dataset) holdout(keys []string, name string) (map[string]bool, []error, int) {
	set, times := map[string]bool{}, map[string]int{}
	var distinct, repeated []string
	for _, k := range keys {
		set[k] = true
		switch times[k]++; times[k] {
		case 1:
			distinct = append(distinct, k)
		case 2:
			repeated = append(repeated, k)
		}
	}
	var warns []error
	some := func(ks []string) string { return strings.Join(ks[:min(3, len(ks))], ", ") }
	unknown := d.unknownKeys(distinct)
	if len(unknown) > 0 {
		warns = append(warns, fmt.Errorf("--holdout %s: %s %s no run or session (e.g. %s)", name, plural.Count(len(unknown), "key"), plural.Form(len(unknown), "matches", "match"), some(unknown)))
	}
	if len(repeated) > 0 {
		warns = append(warns, fmt.Errorf("--holdout %s: %s given more than once (e.g. %s)", name, plural.Count(len(repeated), "key"), some(repeated)))
	}
	return set, warns, len(unknown) + len(repeated)
}
