package reports

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
)

// EventRow is one row of the event table (results.events.parquet): one event of a
// replayed session and the assessment's state after it.
type EventRow struct {
	SessionKey string     `parquet:"run_key"`     // the session's key, as in the run table
	Index      int32      `parquet:"event_index"` // 1-based position in the session
	At         *time.Time `parquet:"at,optional,timestamp(millisecond:utc)"`
	Kind       string     `parquet:"kind"`
	Sidechain  bool       `parquet:"sidechain"`
	RecordID   *string    `parquet:"record_id,optional"`
	ToolName   *string    `parquet:"tool_name,optional"`
	ToolStatus *string    `parquet:"tool_status,optional"`
	HookName   *string    `parquet:"hook_name,optional"`
	Subtype    *string    `parquet:"subtype,optional"`
	TextBytes  int32      `parquet:"text_bytes"`
	Signals    []string   `parquet:"signals,list"`

	FrustrationEMA      float64 `parquet:"frustration_ema"`
	SuccessEMA          float64 `parquet:"success_ema"`
	ConsecutiveFailures int32   `parquet:"consecutive_failures"`
	CorrectionsInWindow int32   `parquet:"corrections_in_window"`
	CooldownActive      bool    `parquet:"cooldown_active"`
	InterventionCount   int32   `parquet:"intervention_count"`
	Intervention        *string `parquet:"intervention,optional"`
	Checkpoint          *string `parquet:"checkpoint,optional"`
	SessionEnd          *string `parquet:"session_end,optional"`
	// FrictionLabel: the labeller marked this event as friction; null when the session
	// has no label.
	FrictionLabel *bool `parquet:"friction_label,optional"`
}

// CheckpointRow is one row of the checkpoint table (results.checkpoints.parquet).
type CheckpointRow struct {
	SessionKey string     `parquet:"run_key"`
	Seq        int32      `parquet:"seq"` // 1-based checkpoint number in the session
	EventIndex int32      `parquet:"event_index"`
	At         *time.Time `parquet:"at,optional,timestamp(millisecond:utc)"`
	Trigger    string     `parquet:"trigger"`
	FromIndex  int32      `parquet:"from_index"` // the segment's first and last events (processor indices)
	ToIndex    int32      `parquet:"to_index"`
	Summary    string     `parquet:"summary"`
	Error      *string    `parquet:"error,optional"`
}

// InterventionRow is one row of the intervention table (results.interventions.parquet).
type InterventionRow struct {
	SessionKey          string     `parquet:"run_key"`
	EventIndex          int32      `parquet:"event_index"`
	At                  *time.Time `parquet:"at,optional,timestamp(millisecond:utc)"`
	Type                string     `parquet:"type"`
	Content             string     `parquet:"content"`
	FrustrationEMA      float64    `parquet:"frustration_ema"`
	ConsecutiveFailures int32      `parquet:"consecutive_failures"`
	CorrectionsInWindow int32      `parquet:"corrections_in_window"`
	// AfterFriction: a labelled friction moment precedes it within the window; null
	// when the session has no label.
	AfterFriction *bool `parquet:"after_friction,optional"`
	// DelaySeconds from the latest labelled moment within the window before it.
	DelaySeconds *float64 `parquet:"delay_seconds,optional"`
	// Catches is how many labelled moments this intervention was the first to catch,
	// and TruePositive whether it caught any (the event-level scoring of
	// eval.ScoreSession: every other intervention is a false alarm); null when the
	// session has no label.
	Catches      *int32 `parquet:"catches,optional"`
	TruePositive *bool  `parquet:"true_positive,optional"`
}

// SessionLabel is what the labels say of a session: its record, and the event
// indices (0-based) of its friction moments that were found in the session.
type SessionLabel struct {
	Record   eval.LabelRecord
	Labelled bool
	Moments  []int
}

// SessionRows converts a replayed session into its run-table row and its event,
// checkpoint and intervention rows. outcomes decides which predicted outcomes count as
// the positive class; window is the tolerance for matching interventions to moments.
func SessionRows(sr *replay.SessionResult, lab SessionLabel, outcomes eval.OutcomeClass, window time.Duration) (RunRow, []EventRow, []CheckpointRow, []InterventionRow) {
	s := sr.Session
	final := sr.Final()
	stats := final.Stats
	row := RunRow{RunKey: s.Key, Kind: "session", Source: s.Source, File: s.File, TaskID: s.Key, Title: s.Title,
		StartedAt: timePtr(s.Start), EndedAt: timePtr(s.End), Project: strPtr(s.Project), AgentVersion: strPtr(s.Version),
		Events: ptr(int32(len(s.Events))), HumanMessages: ptr(int32(sr.HumanMessages)), ToolFailures: ptr(int32(sr.ToolFailures)),
		Subagents: ptr(int32(s.Subagents)), Interventions: ptr(int32(sr.Interventions)),
		PeakFrustrationEMA: ptr(sr.PeakFrustration), SessionEnds: ptr(int32(len(sr.Ends)))}
	var score eval.SessionScore
	if lab.Labelled {
		score = eval.ScoreSession(MomentSession(sr, lab.Moments), window)
	}
	var assistant, tools, toolErrors, interrupts, sidechain, checkpoints int32
	for i, ev := range s.Events {
		switch ev.Kind {
		case analyze.KindAssistantMessage:
			assistant++
		case analyze.KindToolResult:
			tools++
			if ev.ToolStatus == analyze.ToolStatusError {
				toolErrors++
			}
		case analyze.KindInterrupt:
			interrupts++
		}
		if ev.Sidechain {
			sidechain++
		}
		if sr.Steps[i].Checkpoint != nil {
			checkpoints++
		}
	}
	row.AssistantMessages, row.ToolResults, row.ToolErrors = &assistant, &tools, &toolErrors
	row.Interrupts, row.SidechainEvents, row.Checkpoints = &interrupts, &sidechain, &checkpoints
	if n := len(sr.Steps); n > 0 {
		row.FinalFrustrationEMA, row.FinalSuccessEMA = ptr(sr.Steps[n-1].FrustrationEMA), ptr(sr.Steps[n-1].SuccessEMA)
	} else {
		row.FinalFrustrationEMA, row.FinalSuccessEMA = ptr(stats.FrustrationEMA), ptr(stats.SuccessEMA)
	}
	if i := sr.FirstIntervention; i >= 0 {
		row.FirstInterventionAt, row.FirstInterventionIx = timePtr(s.Events[i].Time), ptr(int32(i+1))
		row.FirstInterventionTy = ptr(sr.Steps[i].Intervention.Type.String())
	}
	if final.Reason != "" {
		row.EndReason = ptr(string(final.Reason))
	}
	predictedBad := false
	if a := final.Analysis; a != nil {
		row.PredictedOutcome, row.PredictedConfidence, row.AnalysisSummary = ptr(string(a.Outcome)), ptr(a.Confidence), strPtr(a.Summary)
		predictedBad = outcomes.Label(string(a.Outcome)) == eval.Positive
		row.OutcomePredictedBad = &predictedBad
	}
	row.AnalysisError = strPtr(final.Err)
	if len(s.Records) > 0 {
		row.RecordCounts = ptr(recordCounts(s.Records))
	}
	breakerPredicted := sr.Interventions > 0
	row.BreakerPredicted = &breakerPredicted

	friction := map[int]bool{}
	if lab.Labelled {
		rec := lab.Record
		row.Label, row.LabelSource = ptr(string(rec.Label)), ptr(string(rec.Source))
		row.LabelRule, row.LabelOutcome, row.LabelConfidence = strPtr(rec.Rule), strPtr(rec.Outcome), strPtr(rec.Confidence)
		row.FrictionMoments = ptr(int32(len(lab.Moments)))
		for _, m := range lab.Moments {
			friction[m] = true
		}
		if rec.Label.Scored() {
			actual := rec.Label == eval.Positive
			row.Actual = &actual
			row.BreakerConfusion = ptr(confusionCell(actual, breakerPredicted))
			if final.Analysis != nil {
				row.OutcomeConfusion = ptr(confusionCell(actual, predictedBad))
			}
		}
	}

	events := make([]EventRow, len(s.Events))
	var cps []CheckpointRow
	var ivs []InterventionRow
	for i, ev := range s.Events {
		st := sr.Steps[i]
		e := EventRow{SessionKey: s.Key, Index: int32(i + 1), At: timePtr(ev.Time), Kind: string(ev.Kind), Sidechain: ev.Sidechain,
			RecordID: strPtr(ev.ID), ToolName: strPtr(ev.ToolName), HookName: strPtr(ev.HookName), Subtype: strPtr(ev.Subtype),
			TextBytes:      int32(len(ev.UserContent) + len(ev.AssistantText) + len(ev.ToolOutput)),
			FrustrationEMA: st.FrustrationEMA, SuccessEMA: st.SuccessEMA,
			ConsecutiveFailures: int32(st.Breaker.ConsecutiveFailures), CorrectionsInWindow: int32(st.Breaker.CorrectionsInWindow),
			CooldownActive: st.Breaker.CooldownActive, InterventionCount: int32(st.Breaker.InterventionCount)}
		if ev.Kind == analyze.KindToolResult {
			e.ToolStatus = ptr(ev.ToolStatus.String())
		}
		e.Signals = make([]string, len(st.Signals))
		for k, sig := range st.Signals {
			e.Signals[k] = sig.Kind.String()
		}
		if lab.Labelled {
			e.FrictionLabel = ptr(friction[i])
		}
		if cp := st.Checkpoint; cp != nil {
			e.Checkpoint = ptr(cp.Trigger.String())
			cps = append(cps, CheckpointRow{SessionKey: s.Key, Seq: int32(len(cps) + 1), EventIndex: int32(i + 1), At: timePtr(ev.Time),
				Trigger: cp.Trigger.String(), FromIndex: int32(cp.From), ToIndex: int32(cp.To), Summary: cp.Summary.Text, Error: strPtr(cp.Err)})
		}
		if st.End != nil {
			e.SessionEnd = ptr(string(st.End.Reason))
		}
		if iv := st.Intervention; iv != nil {
			e.Intervention = ptr(iv.Type.String())
			r := InterventionRow{SessionKey: s.Key, EventIndex: int32(i + 1), At: timePtr(ev.Time), Type: iv.Type.String(),
				Content: iv.Content, FrustrationEMA: st.FrustrationEMA, ConsecutiveFailures: int32(st.Breaker.ConsecutiveFailures),
				CorrectionsInWindow: int32(st.Breaker.CorrectionsInWindow)}
			if lab.Labelled {
				c := score.Catches[len(ivs)]
				r.Catches, r.TruePositive = ptr(int32(c)), ptr(c > 0)
				after := false
				for _, m := range lab.Moments {
					if d := ev.Time.Sub(s.Events[m].Time); m <= i && d >= 0 && d <= window {
						if !after || d.Seconds() < *r.DelaySeconds {
							r.DelaySeconds = ptr(d.Seconds())
						}
						after = true
					}
				}
				r.AfterFriction = &after
			}
			ivs = append(ivs, r)
		}
		events[i] = e
	}
	return row, events, cps, ivs
}

// MomentSession returns the session's friction moments and interventions for
// event-level scoring.
func MomentSession(sr *replay.SessionResult, moments []int) eval.MomentSession {
	ms := eval.MomentSession{Key: sr.Session.Key, HumanTurns: sr.HumanMessages}
	for _, m := range moments {
		ms.Moments = append(ms.Moments, eval.Point{Time: sr.Session.Events[m].Time, Index: m})
	}
	for i, st := range sr.Steps {
		if st.Intervention != nil {
			ms.Interventions = append(ms.Interventions, eval.Point{Time: sr.Session.Events[i].Time, Index: i})
		}
	}
	return ms
}

// MomentMetricRows converts an event-level evaluation into metric rows (target
// "friction_moment").
func MomentMetricRows(detector, config, configHash string, rep *eval.MomentReport, opts eval.Options) []MetricRow {
	b := metricRows{base: MetricRow{Detector: detector, Config: config, Target: "friction_moment", PositiveClass: "friction within " + rep.Window.String(),
		CILevel: opts.Level, Resamples: int32(max(opts.Resamples, 0)), Seed: int64(opts.Seed), Runs: int32(rep.Sessions),
		Scored: int32(rep.Sessions), ConfigHash: configHash}}
	b.value("moments", float64(rep.Moments))
	b.value("interventions", float64(rep.Interventions))
	b.value("human_turns", float64(rep.HumanTurns))
	b.value("moments_caught", float64(rep.Caught))
	b.value("true_positives", float64(rep.TruePositives))
	b.value("false_alarms", float64(rep.FalseAlarms))
	b.estimate("precision", rep.Precision)
	b.estimate("recall", rep.Recall)
	b.estimate("false_alarms_per_100_turns", rep.FalseAlarmsPer100)
	b.value("median_delay_seconds", rep.MedianDelaySeconds)
	b.value("mean_delay_seconds", rep.MeanDelaySeconds)
	b.value("p90_delay_seconds", rep.P90DelaySeconds)
	b.value("median_delay_events", rep.MedianDelayEvents)
	return b.rows
}

// recordCounts is counts as JSON, byte for byte what json.Marshal writes — keys sorted,
// escaped as it escapes them — without its reflection: a session's row takes it.
func recordCounts(counts map[string]int) string {
	keys := slices.Sorted(maps.Keys(counts))
	b := make([]byte, 0, 16*len(keys)+2)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if plainJSON(k) {
			b = append(append(append(b, '"'), k...), '"')
		} else {
			q, _ := json.Marshal(k) // a string always marshals
			b = append(b, q...)
		}
		b = strconv.AppendInt(append(b, ':'), int64(counts[k]), 10)
	}
	return string(append(b, '}'))
}

// plainJSON reports whether json.Marshal writes s as it is, between quotes: printable
// ASCII but the characters it escapes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
