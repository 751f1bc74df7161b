package htmlreport

import (
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay/input"
)

// Data is everything one report shows. Every section is optional: an empty one is
// rendered as a short "no data" note, so a report always has the same sections in the
// same order. Text anywhere in it may hold any bytes (session ids, problem details):
// it is escaped, invalid UTF-8 and control characters shown as U+FFFD.
type Data struct {
	// Title heads the page; "loopwatch report" when empty.
	Title string
	// Facts describe what was replayed — inputs, labels, configuration, version — as
	// name/value pairs under the title. Nothing is added: a report never shows the
	// time it was made, so the same data gives the same file.
	Facts []Fact
	// Tables are the summary: metrics per detector, baselines side by side, a
	// regression verdict table.
	Tables []Table
	// Curves are PR and ROC curves, one set per detector, several configurations
	// overlaid.
	Curves []CurveSet
	// Sweeps are metrics against a threshold or a tuned parameter.
	Sweeps []Sweep
	// LeadTimes are histograms of how early detections came.
	LeadTimes []Histogram
	// Runs are struggle score trajectories (score per cycle) of selected runs.
	Runs []RunTrajectory
	// Sessions are frustration trajectories (EMA per event) of selected sessions.
	Sessions []SessionTrajectory
	// Problems found in the input; ProblemsTotal is their full number when Problems
	// holds only some of them (0: len(Problems)). At most [MaxProblemRows] are listed.
	Problems      []input.Problem
	ProblemsTotal int
	// Notes are facts worth reading that are not problems, one per line.
	Notes []string
}

// Fact is one name/value pair of the report's header.
type Fact struct {
	Name, Value string
}

// Table is a titled table of preformatted cells.
type Table struct {
	Title   string
	Columns []string
	Rows    []Row
	// Notes are printed under the table (caveats, interval methods, rules).
	Notes []string
}

// Row is one table row. Cells that look like numbers are right-aligned.
type Row struct {
	Cells  []string
	Status Status
}

// Status colours a table row, e.g. a regression verdict.
type Status string

// The statuses. The empty status is plain.
const (
	StatusOK   Status = "ok"
	StatusWarn Status = "warn"
	StatusBad  Status = "bad"
)

// CurveSet is one detector's PR and ROC curves, drawn side by side with one line per
// configuration and a legend giving each line's AP and ROC AUC.
type CurveSet struct {
	Detector string
	Series   []CurveSeries
	// Note is printed under the charts (what the score is, what positive means).
	Note string
}

// CurveSeries is one configuration's curve: "configured", "seed", "shipped today",
// "tuned"…
type CurveSeries struct {
	Name  string
	Curve eval.Curve
	// Dashed draws the line dashed, for baselines.
	Dashed bool
	// Points are operating points marked on the PR chart in the series' colour: a
	// regression's recorded baseline (hollow) beside the point measured now (filled).
	// A point with an undefined coordinate is listed in the legend, not drawn.
	Points []OperatingPoint
}

// OperatingPoint is a detector's precision and recall at its threshold.
type OperatingPoint struct {
	Label             string // "baseline", "now"
	Recall, Precision float64
	// Hollow draws a ring (a recorded figure) instead of a filled dot (a measured one).
	Hollow bool
}

// Sweep is a chart of one or more metrics (y) against a threshold or parameter (x).
type Sweep struct {
	Title  string
	XLabel string
	YLabel string
	Series []Series
	// Marks are labelled vertical lines: the configured value, the chosen one.
	Marks []Mark
	// Note is printed under the chart.
	Note string
}

// Series is one line of a sweep. Points are drawn in the order given; a point with a
// NaN or infinite coordinate (or one beyond ±1e15) breaks the line.
type Series struct {
	Name   string
	Points []XY
	Dashed bool
}

// XY is one point of a series.
type XY struct {
	X, Y float64
}

// Mark is a labelled vertical line at X.
type Mark struct {
	X     float64
	Label string
}

// Histogram is the distribution of Values (NaN, infinite and absurdly large values,
// beyond ±1e15, are counted as left out), binned by the report.
type Histogram struct {
	Title  string
	XLabel string
	Values []float64
	// Integer gives every whole number its own bin (lead in cycles), as long as the
	// range allows a readable chart.
	Integer bool
	Note    string
}

// RunTrajectory is one run's struggle score at each cycle, drawn with its threshold.
type RunTrajectory struct {
	Key string
	// Label is the run's ground truth ("positive", "negative", …), shown beside the
	// key; Caption says anything else (outcome, the first flagged cycle).
	Label   string
	Caption string
	// Threshold is the composite threshold, drawn as a dashed line; ≤ 0 or NaN: none.
	Threshold float64
	Cycles    []CycleScore
}

// CycleScore is the struggle score at the end of one cycle; Triggered marks the
// cycles where struggle detection fired at a decision point (an approved cycle decides
// nothing, whatever its score).
type CycleScore struct {
	Cycle     int
	Score     float64
	Triggered bool
}

// SessionTrajectory is one session's frustration EMA after each event, with the
// breaker's interventions and the labelled friction moments marked.
type SessionTrajectory struct {
	Key     string
	Label   string // the labelled outcome and class, e.g. "failure (positive)"
	Caption string
	// Threshold is the breaker's frustration threshold, drawn as a dashed line; ≤ 0
	// or NaN: none.
	Threshold float64
	// EMA[i] is the frustration EMA after event i+1 (event indices are 1-based, as in
	// the events table).
	EMA []float64
	// Interventions at their event index, labelled with their type.
	Interventions []Marker
	// Friction lists the event indices of the labelled friction moments.
	Friction []int
}

// Marker is a labelled event.
type Marker struct {
	Index int
	Label string
}
