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
			t.Cycles = append(t.Cycles, CycleScore{Cycle: int(c.Cycle), Score: c.Score, Triggered: c.Triggered})
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
		if r.Kind == "quasar_run" && deref32(r.Cycles) > 0 {
			top = append(top, r)
		}
	}
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
		if r.Kind == "session" && deref32(r.Events) > 0 {
			sessions = append(sessions, r)
		}
	}
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

// LeadTimes are the histograms of how early struggle detection flagged the runs it
// got right (true positives: cycles, dollars and seconds before the run ended) and
// of the delay from a labelled friction moment to the intervention after it. Empty
// distributions are left out. Each histogram's values are sorted: the same rows in any
// order (a replay split in shards reads them shard by shard) give the same histograms.
func LeadTimes(runs []reports.RunRow, interventions []reports.InterventionRow) []Histogram {
	var cycles, cost, secs, delays []float64
	for _, r := range runs {
		if r.Confusion == nil || *r.Confusion != "tp" {
			continue
		}
		if r.LeadCycles != nil {
			cycles = append(cycles, float64(*r.LeadCycles))
		}
		if r.LeadCostUSD != nil {
			cost = append(cost, *r.LeadCostUSD)
		}
		if r.LeadSeconds != nil {
			secs = append(secs, *r.LeadSeconds/60)
		}
	}
	for _, iv := range interventions {
		if iv.DelaySeconds != nil {
			delays = append(delays, *iv.DelaySeconds)
		}
	}
	var hs []Histogram
	add := func(h Histogram) {
		if len(h.Values) > 0 {
			slices.Sort(h.Values) // a distribution: the same whatever the order of the rows read
			hs = append(hs, h)
		}
	}
	add(Histogram{Title: "Struggle lead in cycles (true positives)", XLabel: "cycles from the detection to the run's end", Values: cycles, Integer: true})
	add(Histogram{Title: "Struggle lead in cost (true positives)", XLabel: "USD spent after the detection", Values: cost})
	add(Histogram{Title: "Struggle lead in time (true positives)", XLabel: "minutes from the detection to the run's end", Values: secs})
	add(Histogram{Title: "Intervention delay after labelled friction", XLabel: "seconds from the moment to the intervention", Values: delays})
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
