package screens

import (
	"cmp"
	"slices"
	"time"

	"github.com/loopwatch/loopwatch/reports"
)

// Status builds the status screen: the breaker's state in the newest session, that
// session, and the replay. It reads the newest session's row and every session's key.
func (r *Results) Status() (Status, error) {
	st := Status{Results: r.Path, Enabled: r.Sessions > 0,
		Breaker: Breaker{State: "none", Thresholds: thresholds(r.Meta.AssessConfig)},
		Replay: Replay{Sessions: r.Sessions, OtherRuns: r.OtherRuns, Events: r.Events, InputFingerprint: r.Meta.InputFingerprint,
			Analyzer: r.Meta.LLM, Labels: r.Meta.Labels, Version: r.Meta.Version}}
	if n := r.Shards(); n > 1 {
		st.Replay.Shards = n
	}
	if r.newest == nil {
		return st, nil
	}
	sessions, err := r.sessions([]entry{*r.newest})
	if err != nil {
		return Status{}, err
	}
	s := sessions[0]
	st.ActiveSession = &s
	st.Breaker.State = "ok"
	if s.Interventions > 0 {
		st.Breaker.State = "tripped"
	}
	st.Breaker.Interventions = s.Interventions
	st.Breaker.FrustrationEMA = &s.FinalFrustrationEMA
	return st, nil
}

// sessions reads the rows of the entries and their short ids, and returns them as the
// screens show them, in the entries' order.
func (r *Results) sessions(es []entry) ([]Session, error) {
	keys := make([]string, len(es))
	for i := range es {
		keys[i] = es[i].key
	}
	short, err := r.shortIDs(keys...)
	if err != nil {
		return nil, err
	}
	out := make([]Session, len(es))
	err = r.rows(es, func(i int, row *reports.RunRow) { out[i] = session(row, short[row.RunKey]) })
	return out, err
}

// HistoryOptions choose the sessions of the history screen.
type HistoryOptions struct {
	// Days keeps the sessions that started at most this many days before the newest
	// session of the file (never the wall clock); 0 keeps all, undated ones included.
	Days int
	// Limit caps the number of sessions listed, newest first; 0 lists all.
	Limit int
}

// History builds the session list: newest first (start time descending, then id). It
// reads every session's key and start, and the rows it lists.
func (r *Results) History(opts HistoryOptions) (History, error) {
	h := History{Results: r.Path, Days: max(opts.Days, 0), Limit: max(opts.Limit, 0), TotalSessions: r.Sessions,
		Sessions: []Session{}}
	var since time.Time
	if h.Days > 0 && r.newest != nil && r.newest.dated {
		until := r.newest.started.UTC()
		since = until.Add(-time.Duration(h.Days) * 24 * time.Hour)
		h.Since, h.Until = &since, &until
	}
	var listed []entry // the first h.Limit in display order, once sorted and cut
	cut := func() {
		slices.SortFunc(listed, func(a, b entry) int { return compareEntries(&a, &b) })
		if h.Limit > 0 && len(listed) > h.Limit {
			listed = listed[:h.Limit]
		}
	}
	err := r.scan(func(e *entry, row *keyRow) error {
		if row.Kind != "session" {
			return nil
		}
		if !e.dated {
			h.Undated++
			if h.Days > 0 {
				return nil
			}
		} else if h.Days > 0 && e.started.Before(since) {
			return nil
		}
		h.InWindow++
		listed = append(listed, *e)
		if h.Limit > 0 && len(listed) >= 2*h.Limit+scanBatch {
			cut()
		}
		return nil
	})
	if err != nil {
		return History{}, err
	}
	cut()
	if len(listed) > 0 {
		if h.Sessions, err = r.sessions(listed); err != nil {
			return History{}, err
		}
	}
	return h, nil
}

// TrajectoryWidth is the number of cells of the frustration sparkline (fewer when the
// session has fewer events).
const TrajectoryWidth = 30

// Detail builds the screen of the session id names (its id or a unique prefix),
// reading its rows from the events, checkpoints and interventions tables beside the
// run table.
func (r *Results) Detail(id string) (Detail, error) {
	e, row, err := r.find(id)
	if err != nil {
		return Detail{}, err
	}
	p := &r.parts[e.part]
	events, err := readSession(p, "events", e.key, func(e *reports.EventRow) string { return e.SessionKey })
	if err != nil {
		return Detail{}, err
	}
	cps, err := readSession(p, "checkpoints", e.key, func(c *reports.CheckpointRow) string { return c.SessionKey })
	if err != nil {
		return Detail{}, err
	}
	ivs, err := readSession(p, "interventions", e.key, func(i *reports.InterventionRow) string { return i.SessionKey })
	if err != nil {
		return Detail{}, err
	}
	short, err := r.shortIDs(e.key)
	if err != nil {
		return Detail{}, err
	}
	return r.detail(row, short[e.key], events, cps, ivs), nil
}

func (r *Results) detail(row *reports.RunRow, shortID string, events []reports.EventRow, cps []reports.CheckpointRow, ivs []reports.InterventionRow) Detail {
	slices.SortStableFunc(events, func(a, b reports.EventRow) int { return cmp.Compare(a.Index, b.Index) })
	slices.SortStableFunc(cps, func(a, b reports.CheckpointRow) int { return cmp.Compare(a.Seq, b.Seq) })
	slices.SortStableFunc(ivs, func(a, b reports.InterventionRow) int { return cmp.Compare(a.EventIndex, b.EventIndex) })
	d := Detail{Results: r.Path, Session: session(row, shortID),
		Analysis: Analysis{Outcome: row.PredictedOutcome, Confidence: row.PredictedConfidence, Summary: row.AnalysisSummary,
			Error: row.AnalysisError, EndReason: row.EndReason},
		Checkpoints: []Checkpoint{}, Signals: []Signal{}, Interventions: []Intervention{}}

	ema := make([]float64, len(events))
	for i, e := range events {
		ema[i] = e.FrustrationEMA
	}
	d.Trajectory = trajectory(ema, TrajectoryWidth)
	if d.Trajectory.PeakEvent != nil {
		ix := int(events[*d.Trajectory.PeakEvent].Index)
		d.Trajectory.PeakEvent = &ix
	}

	// Signals, by kind in order of first appearance.
	byKind := map[string]int{}
	labelled := false
	var friction []int
	for _, e := range events {
		for _, k := range e.Signals {
			i, ok := byKind[k]
			if !ok {
				i = len(d.Signals)
				byKind[k] = i
				d.Signals = append(d.Signals, Signal{Kind: k})
			}
			d.Signals[i].Count++
			d.Signals[i].Events = append(d.Signals[i].Events, int(e.Index))
		}
		if e.FrictionLabel != nil {
			labelled = true
			if *e.FrictionLabel {
				friction = append(friction, int(e.Index))
			}
		}
	}
	if labelled || row.FrictionMoments != nil {
		d.LabelledFriction = append([]int{}, friction...)
	}

	for _, c := range cps {
		// The checkpoint's segment is in processor indices, which count from the
		// session's first processed event; the event it fired at is its last.
		first := int(c.EventIndex) - int(c.ToIndex-c.FromIndex)
		d.Checkpoints = append(d.Checkpoints, Checkpoint{Seq: int(c.Seq), Trigger: c.Trigger, EventIndex: int(c.EventIndex),
			FirstEvent: min(first, int(c.EventIndex)), LastEvent: int(c.EventIndex), At: utc(c.At), Summary: c.Summary, Error: c.Error})
	}
	for _, iv := range ivs {
		d.Interventions = append(d.Interventions, Intervention{Type: iv.Type, EventIndex: int(iv.EventIndex), At: utc(iv.At),
			FrustrationEMA: iv.FrustrationEMA, ConsecutiveFailures: int(iv.ConsecutiveFailures),
			CorrectionsInWindow: int(iv.CorrectionsInWindow), Content: iv.Content, AfterFriction: iv.AfterFriction})
	}
	return d
}

// trajectory buckets values into at most width cells, each the highest value of the
// values it covers; PeakEvent is the position (into values) of the first maximum.
func trajectory(values []float64, width int) Trajectory {
	t := Trajectory{Values: []float64{}}
	n := len(values)
	if n == 0 || width <= 0 {
		return t
	}
	cells := min(width, n)
	t.Cells = cells
	for c := range cells {
		lo, hi := c*n/cells, (c+1)*n/cells
		m := values[lo]
		for _, v := range values[lo+1 : hi] {
			m = max(m, v)
		}
		t.Values = append(t.Values, m)
	}
	t.Sparkline = sparkline(t.Values)
	peak, at := values[0], 0
	for i, v := range values {
		if v > peak {
			peak, at = v, i
		}
	}
	final := values[n-1]
	t.Peak, t.PeakEvent, t.Final = &peak, &at, &final
	return t
}

// sparkBlocks are the sparkline's eight levels, lowest first.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values on the fixed scale 0.0–1.0: level ⌊8v⌋, clamped to the
// eight blocks (NaN and negatives draw the lowest).
func sparkline(values []float64) string {
	out := make([]rune, len(values))
	for i, v := range values {
		level := 0
		if v > 0 {
			level = min(int(v*float64(len(sparkBlocks))), len(sparkBlocks)-1)
		}
		out[i] = sparkBlocks[level]
	}
	return string(out)
}
