package reports

import (
	"math"
	"time"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

// RunRow is one row of the run table (results.parquet): one replayed run, its label
// and the struggle detector's prediction.
type RunRow struct {
	RunKey       string     `parquet:"run_key"`
	Kind         string     `parquet:"kind"` // "quasar_run"
	Source       string     `parquet:"source"`
	File         string     `parquet:"file"`
	TaskID       string     `parquet:"task_id"`
	Title        string     `parquet:"title"`
	Phase        string     `parquet:"phase"`
	Epoch        string     `parquet:"epoch"`
	StartedAt    *time.Time `parquet:"started_at,optional,timestamp(millisecond:utc)"`
	EndedAt      *time.Time `parquet:"ended_at,optional,timestamp(millisecond:utc)"`
	Cycles       *int32     `parquet:"cycles,optional"`
	MaxCycles    *int32     `parquet:"max_cycles,optional"`
	MaxBudgetUSD *float64   `parquet:"max_budget_usd,optional"`
	TotalCostUSD *float64   `parquet:"total_cost_usd,optional"`
	CostSource   *string    `parquet:"cost_source,optional"`
	Outcome      *string    `parquet:"outcome,optional"`
	OutcomeNote  *string    `parquet:"outcome_reason,optional"`
	FilterKnown  *bool      `parquet:"filter_known,optional"`
	Findings     *int32     `parquet:"findings,optional"`
	LintFixCalls *int32     `parquet:"lint_fix_calls,optional"`
	LintFixKnown *bool      `parquet:"lint_fix_known,optional"`

	// What quasar's history records around the run (beads and nebula sources); null
	// where the source does not know.
	TaskCreatedAt          *time.Time `parquet:"task_created_at,optional,timestamp(millisecond:utc)"`
	TaskStatus             *string    `parquet:"task_status,optional"`
	CloseReason            *string    `parquet:"close_reason,optional"`
	Attempt                *int32     `parquet:"attempt,optional"`
	Attempts               *int32     `parquet:"attempts,optional"`
	Nebula                 *string    `parquet:"nebula,optional"`
	PhaseStatus            *string    `parquet:"phase_status,optional"`
	MaxCyclesSource        *string    `parquet:"max_cycles_source,optional"`
	MaxBudgetSource        *string    `parquet:"max_budget_source,optional"`
	ReportSatisfaction     *string    `parquet:"report_satisfaction,optional"`
	ReportRisk             *string    `parquet:"report_risk,optional"`
	ReportNeedsHumanReview *bool      `parquet:"report_needs_human_review,optional"`
	ReportSummary          *string    `parquet:"report_summary,optional"`
	ReportSource           *string    `parquet:"report_source,optional"`

	Label       *string `parquet:"label,optional"`
	LabelSource *string `parquet:"label_source,optional"`
	LabelRule   *string `parquet:"label_rule,optional"`
	Actual      *bool   `parquet:"actual,optional"`

	StrugglePredicted  *bool      `parquet:"struggle_predicted,optional"`
	StruggleFirstCycle *int32     `parquet:"struggle_first_cycle,optional"`
	StruggleFirstAt    *time.Time `parquet:"struggle_first_at,optional,timestamp(millisecond:utc)"`
	StruggleMaxScore   *float64   `parquet:"struggle_max_score,optional"`
	LeadCycles         *int32     `parquet:"lead_cycles,optional"`
	LeadCostUSD        *float64   `parquet:"lead_cost_usd,optional"`
	LeadSeconds        *float64   `parquet:"lead_seconds,optional"`
	Confusion          *string    `parquet:"struggle_confusion,optional"`

	// Session columns (kind "session"); null on quasar runs.
	Project             *string    `parquet:"project,optional"`
	AgentVersion        *string    `parquet:"agent_version,optional"`
	Events              *int32     `parquet:"events,optional"`
	HumanMessages       *int32     `parquet:"human_messages,optional"`
	AssistantMessages   *int32     `parquet:"assistant_messages,optional"`
	ToolResults         *int32     `parquet:"tool_results,optional"`
	ToolErrors          *int32     `parquet:"tool_errors,optional"`
	ToolFailures        *int32     `parquet:"tool_failures,optional"`
	Interrupts          *int32     `parquet:"interrupts,optional"`
	SidechainEvents     *int32     `parquet:"sidechain_events,optional"`
	Subagents           *int32     `parquet:"subagents,optional"`
	Checkpoints         *int32     `parquet:"checkpoints,optional"`
	Interventions       *int32     `parquet:"interventions,optional"`
	FirstInterventionAt *time.Time `parquet:"first_intervention_at,optional,timestamp(millisecond:utc)"`
	FirstInterventionIx *int32     `parquet:"first_intervention_index,optional"`
	FirstInterventionTy *string    `parquet:"first_intervention_type,optional"`
	PeakFrustrationEMA  *float64   `parquet:"peak_frustration_ema,optional"`
	FinalFrustrationEMA *float64   `parquet:"final_frustration_ema,optional"`
	FinalSuccessEMA     *float64   `parquet:"final_success_ema,optional"`
	SessionEnds         *int32     `parquet:"session_ends,optional"`
	EndReason           *string    `parquet:"end_reason,optional"`
	PredictedOutcome    *string    `parquet:"predicted_outcome,optional"`
	PredictedConfidence *float64   `parquet:"predicted_confidence,optional"`
	AnalysisSummary     *string    `parquet:"analysis_summary,optional"`
	AnalysisError       *string    `parquet:"analysis_error,optional"`
	LabelOutcome        *string    `parquet:"label_outcome,optional"`
	LabelConfidence     *string    `parquet:"label_confidence,optional"`
	FrictionMoments     *int32     `parquet:"friction_moments,optional"`
	BreakerPredicted    *bool      `parquet:"breaker_predicted,optional"`
	BreakerConfusion    *string    `parquet:"breaker_confusion,optional"`
	OutcomePredictedBad *bool      `parquet:"outcome_predicted_bad,optional"`
	OutcomeConfusion    *string    `parquet:"outcome_confusion,optional"`
	// RecordCounts is the source's complete accounting of the records it read, by type
	// and what became of them, as a JSON object (keys sorted).
	RecordCounts *string `parquet:"record_counts,optional"`
}

// CycleRow is one row of the cycle table (results.cycles.parquet): struggle detection's
// verdict at the end of one cycle of one run.
type CycleRow struct {
	RunKey          string     `parquet:"run_key"`
	Cycle           int32      `parquet:"cycle"`
	EndedAt         *time.Time `parquet:"ended_at,optional,timestamp(millisecond:utc)"`
	TotalCostUSD    float64    `parquet:"total_cost_usd"`
	CostSource      string     `parquet:"cost_source"`
	FilterCheckName *string    `parquet:"filter_check_name,optional"`
	Findings        int32      `parquet:"findings"`
	PriorFindings   int32      `parquet:"prior_findings"`
	LintFixCalls    int32      `parquet:"lint_fix_calls"`
	Approved        bool       `parquet:"approved"`
	FilterRepeat    int32      `parquet:"filter_repeat"`
	FindingOverlap  float64    `parquet:"finding_overlap"`
	BudgetBurnRate  float64    `parquet:"budget_burn_rate"`
	Score           float64    `parquet:"score"`
	Triggered       bool       `parquet:"triggered"`
	Decision        bool       `parquet:"decision_point"`
	Reason          string     `parquet:"reason"`

	// Rebuilt from history (beads source); null or empty where the source does not record them.
	CoderAt         *time.Time `parquet:"coder_at,optional,timestamp(millisecond:utc)"`
	ReviewerAt      *time.Time `parquet:"reviewer_at,optional,timestamp(millisecond:utc)"`
	ReviewTruncated bool       `parquet:"review_truncated"`
	CommitSHAs      []string   `parquet:"commit_shas,list"`
}

// MetricRow is one row of the metrics table (results.metrics.parquet), in long form:
// one metric of one detector. Undefined values are null.
type MetricRow struct {
	Detector string `parquet:"detector"`
	// Config names the configuration scored: the configured one's preset name (or
	// "configured"), a preset compared with it ("seed"), or a shipped-today baseline.
	Config        string   `parquet:"config"`
	Target        string   `parquet:"target"`         // what is predicted: "run"
	PositiveClass string   `parquet:"positive_class"` // what a positive label means
	Metric        string   `parquet:"metric"`
	Value         *float64 `parquet:"value,optional"`
	CILow         *float64 `parquet:"ci_low,optional"`
	CIHigh        *float64 `parquet:"ci_high,optional"`
	JeffreysLow   *float64 `parquet:"jeffreys_low,optional"`
	JeffreysHigh  *float64 `parquet:"jeffreys_high,optional"`
	CILevel       float64  `parquet:"ci_level"`
	Resamples     int32    `parquet:"resamples"`
	Seed          int64    `parquet:"seed"`
	Runs          int32    `parquet:"runs"`
	Scored        int32    `parquet:"scored"`
	Ambiguous     int32    `parquet:"ambiguous"`
	Excluded      int32    `parquet:"excluded"`
	Unlabelled    int32    `parquet:"unlabelled"`
	ConfigHash    string   `parquet:"config_hash"`
}

// InputRow is one row of a shard's inputs table (DIR/inputs/shard=i/…, a folder
// output's): an input file the shard reports on, and the SHA-256 of its content. The
// shards' rows, one per file read, fold into the input fingerprint that no shard of
// a split replay knows whole, as the merge computes it.
type InputRow struct {
	File   string `parquet:"file"`
	SHA256 string `parquet:"sha256"`
}

// ProblemRow is one row of the problem table (results.problems.parquet): something
// wrong with the input, with the file and line where it was found.
type ProblemRow struct {
	File   string `parquet:"file"`
	Line   int32  `parquet:"line"`
	Kind   string `parquet:"kind"`
	Detail string `parquet:"detail"`
}

// RunRows converts one replayed run and its label (ok false: unlabelled) into its run
// row and cycle rows.
func RunRows(res *replay.RunResult, label eval.LabelRecord, labelled bool) (RunRow, []CycleRow) {
	r := res.Run
	last := r.LastCycle()
	row := RunRow{
		RunKey: r.Key, Kind: "quasar_run", Source: r.Source, File: r.File, TaskID: r.TaskID, Title: r.Title,
		Phase: r.Phase, Epoch: r.Epoch, StartedAt: timePtr(r.Start), EndedAt: timePtr(r.End),
		Cycles: ptr(int32(len(r.Cycles))), MaxCycles: ptr(int32(r.MaxCycles)), MaxBudgetUSD: ptr(r.MaxBudgetUSD),
		TotalCostUSD: ptr(last.TotalCostUSD), CostSource: ptr(string(r.CostSource)), Outcome: ptr(string(r.Outcome)),
		OutcomeNote: ptr(r.Reason), FilterKnown: ptr(r.FilterKnown), LintFixKnown: ptr(r.LintFixKnown),
	}
	var findings, lintFixes int32
	for _, c := range r.Cycles {
		findings += int32(len(c.Findings))
		lintFixes += int32(c.LintFixCalls)
	}
	row.Findings, row.LintFixCalls = &findings, &lintFixes
	row.TaskCreatedAt, row.TaskStatus, row.CloseReason = timePtr(r.TaskCreatedAt), strPtr(r.TaskStatus), strPtr(r.CloseReason)
	if r.Attempt > 0 {
		row.Attempt, row.Attempts = ptr(int32(r.Attempt)), ptr(int32(r.Attempts))
	}
	row.Nebula, row.PhaseStatus = strPtr(r.Nebula), strPtr(r.PhaseStatus)
	row.MaxCyclesSource, row.MaxBudgetSource = strPtr(r.MaxCyclesSource), strPtr(r.MaxBudgetSource)
	if rep := r.Report; rep != nil {
		row.ReportSatisfaction, row.ReportRisk, row.ReportSummary = strPtr(rep.Satisfaction), strPtr(rep.Risk), strPtr(rep.Summary)
		row.ReportNeedsHumanReview, row.ReportSource = rep.NeedsHumanReview, strPtr(rep.Source)
	}
	s := res.Struggle
	row.StrugglePredicted, row.StruggleMaxScore = ptr(s.Triggered), ptr(s.MaxScore)
	if s.Triggered {
		row.StruggleFirstCycle = ptr(int32(s.FirstCycle))
		row.StruggleFirstAt = timePtr(s.FirstTime)
		row.LeadCycles, row.LeadCostUSD, row.LeadSeconds = ptr(int32(s.LeadCycles)), ptr(s.LeadCostUSD), ptr(s.LeadSeconds)
	}
	if labelled {
		row.Label, row.LabelSource = ptr(string(label.Label)), ptr(string(label.Source))
		if label.Rule != "" {
			row.LabelRule = ptr(label.Rule)
		}
		if label.Label.Scored() {
			actual := label.Label == eval.Positive
			row.Actual = &actual
			row.Confusion = ptr(confusionCell(actual, s.Triggered))
		}
	}
	cycles := make([]CycleRow, len(res.Cycles))
	for i, cr := range res.Cycles {
		c := r.Cycles[i]
		cycles[i] = CycleRow{
			RunKey: r.Key, Cycle: int32(c.Cycle), EndedAt: timePtr(c.Time), TotalCostUSD: c.TotalCostUSD,
			CostSource: string(r.CostSource), Findings: int32(len(c.Findings)), PriorFindings: int32(cr.PriorFindings),
			LintFixCalls: int32(c.LintFixCalls), Approved: c.Approved, FilterRepeat: int32(cr.Signal.FilterRepeat),
			FindingOverlap: cr.Signal.FindingOverlap, BudgetBurnRate: cr.Signal.BudgetBurnRate, Score: cr.Signal.Score,
			Triggered: cr.Signal.Triggered, Decision: cr.Decision, Reason: cr.Signal.Reason,
			CoderAt: timePtr(c.CoderTime), ReviewerAt: timePtr(c.ReviewerTime), ReviewTruncated: c.ReviewTruncated,
			CommitSHAs: c.Commits,
		}
		if r.FilterKnown {
			cycles[i].FilterCheckName = ptr(c.FilterCheckName)
		}
	}
	return row, cycles
}

// MetricRows converts an evaluation report into metric rows.
func MetricRows(detector, config, target, positiveClass, configHash string, rep *eval.Report) []MetricRow {
	b := metricRows{base: MetricRow{Detector: detector, Config: config, Target: target, PositiveClass: positiveClass,
		CILevel: rep.Options.Level, Resamples: int32(max(rep.Options.Resamples, 0)), Seed: int64(rep.Options.Seed),
		Runs: int32(rep.Runs), Scored: int32(rep.Scored), Ambiguous: int32(rep.Ambiguous),
		Excluded: int32(rep.Excluded), Unlabelled: int32(rep.Unlabelled), ConfigHash: configHash}}
	b.value("tp", float64(rep.TP))
	b.value("fp", float64(rep.FP))
	b.value("fn", float64(rep.FN))
	b.value("tn", float64(rep.TN))
	b.estimate("precision", rep.Precision)
	b.estimate("recall", rep.Recall)
	b.estimate("f1", rep.F1)
	if rep.Options.Beta != 1 {
		b.estimate("f_beta", rep.FBeta)
	}
	b.estimate("average_precision", rep.AP)
	b.estimate("roc_auc", rep.AUC)
	return b.rows
}

// metricRows builds metric rows that share everything but the metric.
type metricRows struct {
	base MetricRow
	rows []MetricRow
}

// value adds a metric without intervals; a NaN or infinite value is null.
func (b *metricRows) value(name string, v float64) {
	r := b.base
	r.Metric, r.Value = name, finite(v)
	b.rows = append(b.rows, r)
}

// estimate adds a metric with its intervals.
func (b *metricRows) estimate(name string, e eval.Estimate) {
	r := b.base
	r.Metric = name
	r.Value, r.CILow, r.CIHigh = finite(e.Value), finite(e.Low), finite(e.High)
	r.JeffreysLow, r.JeffreysHigh = finite(e.JeffreysLow), finite(e.JeffreysHigh)
	b.rows = append(b.rows, r)
}

// ProblemRows converts input problems into rows.
func ProblemRows(problems []input.Problem) []ProblemRow {
	rows := make([]ProblemRow, len(problems))
	for i, p := range problems {
		rows[i] = ProblemRow{File: p.File, Line: int32(p.Line), Kind: string(p.Kind), Detail: p.Detail}
	}
	return rows
}

func confusionCell(actual, predicted bool) string {
	switch {
	case actual && predicted:
		return "tp"
	case actual:
		return "fn"
	case predicted:
		return "fp"
	}
	return "tn"
}

func ptr[T any](v T) *T { return &v }

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
