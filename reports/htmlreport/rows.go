package htmlreport

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/loopwatch/loopwatch/reports"
)

// These build report sections from the rows a replay writes, so a command that has
// the rows fills the report without knowing how it draws.

// RunTrajectories are the struggle trajectories of the n quasar runs with the highest
// struggle score (ties by key), from the run and cycle tables' rows. threshold is the
// composite threshold the replay ran with.
func RunTrajectories(runs []reports.RunRow, cycles []reports.CycleRow, threshold float64, n int) []RunTrajectory {
	byRun := map[string][]reports.CycleRow{}
	for _, c := range cycles {
		byRun[c.RunKey] = append(byRun[c.RunKey], c)
	}
	var out []RunTrajectory
	for _, r := range TopRuns(runs, n) {
		if len(byRun[r.RunKey]) == 0 {
			continue
		}
		t := RunTrajectory{Key: r.RunKey, Label: derefString(r.Label, "unlabelled"), Threshold: threshold}
		for _, c := range byRun[r.RunKey] {
			// Detected at a decision point only, as the run's prediction (and tune) count it: a
			// score over the threshold in an approved cycle decides nothing.
			t.Cycles = append(t.Cycles, CycleScore{Cycle: int(c.Cycle), Score: c.Score, Triggered: c.Triggered && c.Decision})
		}
		t.Caption = derefString(r.Outcome, "outcome unknown")
		if r.StruggleFirstCycle != nil {
			t.Caption += fmt.Sprintf(" · flagged at cycle %d", *r.StruggleFirstCycle)
			if r.LeadCycles != nil {
				t.Caption += fmt.Sprintf(", %d cycle%s before the end", *r.LeadCycles, plural(int(*r.LeadCycles)))
			}
		}
		out = append(out, t)
	}
	return out
}

// SessionTrajectories are the frustration trajectories of up to n sessions, from the
// run and event tables' rows: sessions with labelled friction or interventions
// first, then by peak frustration (ties by key). threshold is the breaker's
// frustration threshold.
func SessionTrajectories(runs []reports.RunRow, events []reports.EventRow, threshold float64, n int) []SessionTrajectory {
	byKey := map[string][]reports.EventRow{}
	for _, e := range events {
		byKey[e.SessionKey] = append(byKey[e.SessionKey], e)
	}
	var out []SessionTrajectory
	for _, r := range TopSessions(runs, n) {
		if len(byKey[r.RunKey]) == 0 {
			continue
		}
		label := "unlabelled"
		if r.LabelOutcome != nil {
			label = *r.LabelOutcome
			if r.Label != nil {
				label += " (" + *r.Label + ")"
			}
		}
		t := SessionTrajectory{Key: r.RunKey, Label: label, Threshold: threshold}
		if r.PredictedOutcome != nil {
			t.Caption = "predicted " + *r.PredictedOutcome
		}
		for _, e := range byKey[r.RunKey] {
			t.EMA = append(t.EMA, e.FrustrationEMA)
			if e.Intervention != nil {
				t.Interventions = append(t.Interventions, Marker{Index: int(e.Index), Label: *e.Intervention})
			}
			if e.FrictionLabel != nil && *e.FrictionLabel {
				t.Friction = append(t.Friction, int(e.Index))
			}
		}
		out = append(out, t)
	}
	return out
}

// TopRuns are the n quasar runs with cycles RunTrajectories draws: the highest struggle
// score first, ties by key. A caller that reads the cycle table back needs only
// these runs' cycles.
func TopRuns(runs []reports.RunRow, n int) []reports.RunRow {
	var top []reports.RunRow
	for _, r := range runs {
		if isTopRun(&r) {
			top = append(top, r)
		}
	}
	return firstRuns(top, n)
}

func isTopRun(r *reports.RunRow) bool { return r.Kind == "quasar_run" && deref32(r.Cycles) > 0 }

// firstRuns sorts runs as TopRuns orders them and returns the first n.
func firstRuns(top []reports.RunRow, n int) []reports.RunRow {
	slices.SortStableFunc(top, func(a, b reports.RunRow) int {
		return cmp.Or(cmp.Compare(deref(b.StruggleMaxScore), deref(a.StruggleMaxScore)), cmp.Compare(a.RunKey, b.RunKey))
	})
	return top[:min(n, len(top))]
}

// TopSessions are the n sessions with events SessionTrajectories draws: sessions with
// labelled friction or interventions first, then by peak frustration, ties by key. A
// caller that reads the event table back needs only these sessions' events.
func TopSessions(runs []reports.RunRow, n int) []reports.RunRow {
	var sessions []reports.RunRow
	for _, r := range runs {
		if isTopSession(&r) {
			sessions = append(sessions, r)
		}
	}
	return firstSessions(sessions, n)
}

func isTopSession(r *reports.RunRow) bool { return r.Kind == "session" && deref32(r.Events) > 0 }

// firstSessions sorts sessions as TopSessions orders them and returns the first n.
func firstSessions(sessions []reports.RunRow, n int) []reports.RunRow {
	marked := func(r reports.RunRow) int {
		if deref32(r.FrictionMoments) > 0 || deref32(r.Interventions) > 0 {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(sessions, func(a, b reports.RunRow) int {
		return cmp.Or(cmp.Compare(marked(b), marked(a)), cmp.Compare(deref(b.PeakFrustrationEMA), deref(a.PeakFrustrationEMA)),
			cmp.Compare(a.RunKey, b.RunKey))
	})
	return sessions[:min(n, len(sessions))]
}

// Top keeps the runs and sessions TopRuns and TopSessions would choose from rows given
// one at a time: at most a few times n of each, whatever the number of rows. The
// orders are total (ties by key), so it chooses the same rows as they do.
type Top struct {
	n              int
	runs, sessions []reports.RunRow
}

// NewTop returns a Top of the n first runs and sessions.
func NewTop(n int) *Top { return &Top{n: max(n, 0)} }

// Add considers one row of the run table (a copy is kept where it may be chosen).
func (t *Top) Add(r *reports.RunRow) {
	switch {
	case isTopRun(r):
		if t.runs = append(t.runs, *r); len(t.runs) > 4*t.n+64 {
			t.runs = firstRuns(t.runs, t.n)
		}
	case isTopSession(r):
		if t.sessions = append(t.sessions, *r); len(t.sessions) > 4*t.n+64 {
			t.sessions = firstSessions(t.sessions, t.n)
		}
	}
}

// Runs returns the runs TopRuns would of every row added.
func (t *Top) Runs() []reports.RunRow { return firstRuns(t.runs, t.n) }

// Sessions returns the sessions TopSessions would of every row added.
func (t *Top) Sessions() []reports.RunRow { return firstSessions(t.sessions, t.n) }

// LeadTally gathers the lead times from rows given one at a time — how early struggle
// detection flagged the runs it got right (true positives: cycles, dollars and seconds
// before the run ended) and the delay from a labelled friction moment to the
// intervention after it — keeping the values, not the rows.
type LeadTally struct {
	cycles, cost, secs, delays []float64
}

// AddRun takes one row of the run table.
func (t *LeadTally) AddRun(r *reports.RunRow) {
	if r.Confusion == nil || *r.Confusion != "tp" {
		return
	}
	if r.LeadCycles != nil {
		t.cycles = append(t.cycles, float64(*r.LeadCycles))
	}
	if r.LeadCostUSD != nil {
		t.cost = append(t.cost, *r.LeadCostUSD)
	}
	if r.LeadSeconds != nil {
		t.secs = append(t.secs, *r.LeadSeconds/60)
	}
}

// AddPrediction takes one row of the prediction table: of the configured detectors'
// (config_index 0) labelled sessions, the delay to each caught friction moment — the
// delays the metrics summarise (median, mean, P90), one per caught moment.
func (t *LeadTally) AddPrediction(p *reports.PredictionRow) {
	if p.ConfigIndex == 0 {
		t.delays = append(t.delays, p.DelaySeconds...)
	}
}

// Histograms returns the lead times of the rows taken as histograms, empty
// distributions left out. Each histogram's values are sorted: the same rows in any
// order (a replay split in shards reads them shard by shard) give the same histograms.
func (t *LeadTally) Histograms() []Histogram {
	var hs []Histogram
	add := func(h Histogram) {
		if len(h.Values) > 0 {
			h.Values = slices.Sorted(slices.Values(h.Values))
			hs = append(hs, h)
		}
	}
	add(Histogram{Title: "Struggle lead in cycles (true positives)", XLabel: "cycles from the detection to the run's end", Values: t.cycles, Integer: true})
	add(Histogram{Title: "Struggle lead in cost (true positives)", XLabel: "USD spent after the detection", Values: t.cost})
	add(Histogram{Title: "Struggle lead in time (true positives)", XLabel: "minutes from the detection to the run's end", Values: t.secs})
	add(Histogram{Title: "Intervention delay after labelled friction (each caught moment)", XLabel: "seconds from the moment to the intervention that caught it", Values: t.delays})
	return hs
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

func deref32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func derefString(p *string, none string) string {
	if p == nil {
		return none
	}
	return *p
}
