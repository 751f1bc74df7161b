package reports

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/fixsim"
)

// DetectorReport names one detector's evaluation under one configuration.
type DetectorReport struct {
	Detector string
	Config   string // the configuration's label ("loopwatch", "seed", a baseline, …)
	Report   *eval.Report
}

// MomentResult names one event-level evaluation of a detector's interventions
// against labelled friction moments under one configuration.
type MomentResult struct {
	Detector string
	Config   string
	Report   *eval.MomentReport
}

// WriteSummary prints the replay's short summary: what was read, then one line per
// detector with runs, labelled, scored, precision, recall and F1 (each with its
// bootstrap interval; "—" where undefined).
func WriteSummary(w io.Writer, sum *replay.Summary, labelsNote string, reports []DetectorReport) error {
	WriteInput(w, sum, labelsNote)
	if len(reports) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return writeDetectors(w, reports)
}

// FilesRead says how many files were read, by format: "22 files (claude_code 6,
// trace 14, …)", or "0 files".
func FilesRead(sum *replay.Summary) string {
	var fmts []string
	for _, name := range slices.Sorted(maps.Keys(sum.FilesByFmt)) {
		fmts = append(fmts, fmt.Sprintf("%s %d", name, sum.FilesByFmt[name]))
	}
	if len(fmts) == 0 {
		return plural.Count(sum.Files, "file")
	}
	return fmt.Sprintf("%s (%s)", plural.Count(sum.Files, "file"), strings.Join(fmts, ", "))
}

// WriteInput prints the summary's lines on what was read: the files and units, the
// notes, the labels.
func WriteInput(w io.Writer, sum *replay.Summary, labelsNote string) {
	units := ""
	if sum.Runs > 0 || sum.Sessions == 0 {
		units += plural.Count(sum.Runs, "run") + ", "
	}
	if sum.Sessions > 0 {
		units += fmt.Sprintf("%s (%s), ", plural.Count(sum.Sessions, "session"), plural.Count(sum.Events, "event"))
	}
	fmt.Fprintf(w, "input:    %s, %s%s\n", FilesRead(sum), units, plural.Count(sum.TotalProblems(), "problem"))
	for i, what := range slices.Sorted(maps.Keys(sum.Notes)) {
		head := "          "
		if i == 0 {
			head = "notes:    "
		}
		fmt.Fprintf(w, "%s%s: %d\n", head, what, sum.Notes[what])
	}
	if labelsNote != "" {
		fmt.Fprintf(w, "labels:   %s\n", labelsNote)
	}
}

// writeDetectors prints one line per detector and configuration, and the notes of
// the configured detectors.
func writeDetectors(w io.Writer, reports []DetectorReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DETECTOR\tCONFIG\tOF\tN\tSCORED\tTP\tFP\tFN\tTN\tPRECISION\tRECALL\tF1\tAP\tROC AUC")
	for _, d := range ByDetector(reports) {
		r := d.Report
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", d.Detector, d.Config, r.Options.Unit, r.Runs, r.Scored,
			r.TP, r.FP, r.FN, r.TN, FormatEstimate(r.Precision), FormatEstimate(r.Recall), FormatEstimate(r.F1), FormatValue(r.AP.Value), FormatValue(r.AUC.Value))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	notes := DetectorNotes(reports)
	seen := map[string]bool{}
	for _, d := range reports {
		if seen[d.Detector] { // the intervals of the configured detector (the first of its name) only
			continue
		}
		seen[d.Detector] = true
		r := d.Report
		if r.Scored > 0 && r.Scored < 30 {
			fmt.Fprintf(w, "%s: Jeffreys %.0f%% intervals: precision %s, recall %s\n", d.Detector, 100*r.Options.Level,
				interval(r.Precision.JeffreysLow, r.Precision.JeffreysHigh), interval(r.Recall.JeffreysLow, r.Recall.JeffreysHigh))
		}
		for _, n := range notes {
			if n.Detector == d.Detector {
				fmt.Fprintf(w, "note: %s\n", n)
			}
		}
	}
	return nil
}

// A DetectorNote is one of an evaluation's warnings: of the configured detector (the
// first of its name; Config "") or of another configuration.
type DetectorNote struct {
	Detector, Config, Text string
}

func (n DetectorNote) String() string {
	if n.Config == "" {
		return n.Detector + ": " + n.Text
	}
	return fmt.Sprintf("%s (%s): %s", n.Detector, n.Config, n.Text)
}

// DetectorNotes are the evaluations' warnings, by detector: the configured detector's,
// then each other configuration's that the configured one does not give — a compared
// preset can leave out what the configured detector scores (sessions without a final
// analysis, say), and its figures are read beside the others.
func DetectorNotes(reports []DetectorReport) []DetectorNote {
	var out []DetectorNote
	first := map[string]map[string]bool{} // detector → the configured one's warnings
	for _, d := range ByDetector(reports) {
		own, ok := first[d.Detector]
		if !ok {
			own = map[string]bool{}
			first[d.Detector] = own
			for _, w := range d.Report.Warnings {
				own[w.Error()] = true
				out = append(out, DetectorNote{Detector: d.Detector, Text: w.Error()})
			}
			continue
		}
		for _, w := range d.Report.Warnings {
			if !own[w.Error()] {
				out = append(out, DetectorNote{Detector: d.Detector, Config: d.Config, Text: w.Error()})
			}
		}
	}
	return out
}

// ByDetector orders reports by detector, in the order detectors first appear, keeping
// the order of configurations within a detector.
func ByDetector(reports []DetectorReport) []DetectorReport {
	first := map[string]int{}
	for i, d := range reports {
		if _, ok := first[d.Detector]; !ok {
			first[d.Detector] = i
		}
	}
	out := slices.Clone(reports)
	slices.SortStableFunc(out, func(a, b DetectorReport) int { return first[a.Detector] - first[b.Detector] })
	return out
}

// FormatValue formats a metric without an interval; "—" when undefined.
func FormatValue(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.3f", v)
}

// FormatEstimate formats a value with its bootstrap interval, e.g. "0.750 [0.52, 0.93]";
// "—" when undefined.
func FormatEstimate(e eval.Estimate) string {
	if math.IsNaN(e.Value) {
		return "—"
	}
	if math.IsNaN(e.Low) {
		return fmt.Sprintf("%.3f", e.Value)
	}
	return fmt.Sprintf("%.3f [%.2f, %.2f]", e.Value, e.Low, e.High)
}

func interval(lo, hi float64) string {
	if math.IsNaN(lo) {
		return "—"
	}
	return fmt.Sprintf("[%.2f, %.2f]", lo, hi)
}

// WriteProblems prints up to limit problems, one per line as file:line: kind: detail,
// and a line saying how many more there are.
func WriteProblems(w io.Writer, sum *replay.Summary, limit int, more string) {
	for i, p := range sum.Problems {
		if i == limit {
			break
		}
		fmt.Fprintln(w, p.String())
	}
	if n := sum.TotalProblems() - min(limit, len(sum.Problems)); n > 0 {
		fmt.Fprintf(w, "… and %d more problems%s\n", n, more)
	}
}

// WriteFixSummary prints the line with the inner fix loop's totals: simulated, and
// for runs recorded with the loop on, what the loop did.
func WriteFixSummary(w io.Writer, t *fixsim.Totals) {
	if t.Failures == 0 {
		fmt.Fprintln(w, "fixloop (simulated): no recorded filter failure to simulate")
		return
	}
	saved, spent, delta := t.CyclesSaved(), t.FixCostUSD(), t.CostDeltaUSD()
	switch {
	case t.RecordedFailures == 0:
		fmt.Fprintf(w, "fixloop (simulated): %s in %s", plural.Count(t.Failures, "filter failure"), plural.Count(t.Runs, "run"))
	case t.RecordedFailures == t.Failures:
		fmt.Fprintf(w, "fixloop (recorded with the loop on, not simulated): %s in %s", plural.Count(t.Failures, "filter failure"), plural.Count(t.Runs, "run"))
	default:
		fmt.Fprintf(w, "fixloop: %s in %s, %d of them in %s recorded with the loop on (what it did), %d simulated",
			plural.Count(t.Failures, "filter failure"), plural.Count(t.Runs, "run"), t.RecordedFailures, plural.Count(t.RecordedRuns, "run"), t.Failures-t.RecordedFailures)
	}
	fmt.Fprintf(w, ": %.1f [%.1f, %.1f] outer cycles saved, net cost %s [%s, %s] after $%.2f of fix attempts",
		saved.Mean, saved.Low, saved.High, usd(delta.Mean), usd(delta.Low), usd(delta.High), spent.Mean)
	if t.LimitRuns > 0 {
		fin := t.LimitRunsFinishing()
		fmt.Fprintf(w, "; %.1f [%.0f, %.0f] of %s stopped by the cycle limit would finish (optimistic)", fin.Mean, fin.Low, fin.High, plural.Count(t.LimitRuns, "run"))
	}
	if n, fixed, unchecked, pred, ok := t.OuterCheck(); ok {
		fmt.Fprintf(w, "; checked on the loops that ran: of %s they met they fixed %d, the simulation with the outer cycles' pass probability predicts %.1f [%.1f, %.1f]",
			plural.Count(n, "failure"), fixed, pred.Mean, pred.Low, pred.High)
		if unchecked > 0 {
			fmt.Fprintf(w, " (%d more at checks no outer cycle reached, not checked)", unchecked)
		}
	}
	if recorded, simulated := t.AttemptLimits(); recorded > simulated {
		fmt.Fprintf(w, "; the loops that ran made up to %d attempts at a failure, the simulation %d (--max-filter-fixes)", recorded, simulated)
	}
	fmt.Fprintln(w)
}

func usd(v float64) string {
	if v < 0 {
		return fmt.Sprintf("−$%.2f", -v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// WriteMomentSummary prints the event-level table: each configuration's
// interventions against the labelled friction moments, scored as eval.ScoreSession
// defines (only the first intervention to catch a moment is a true positive).
func WriteMomentSummary(w io.Writer, results []MomentResult) error {
	if len(results) == 0 {
		return nil
	}
	first := results[0].Report
	fmt.Fprintf(w, "\n%s at friction moments (window %s): %d sessions, %d moments, %d human turns\n",
		results[0].Detector, first.Window, first.Sessions, first.Moments, first.HumanTurns)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONFIG\tINTERVENTIONS\tRECALL\tPRECISION\tFALSE ALARMS /100 TURNS\tMEDIAN DELAY")
	for _, m := range results {
		rep := m.Report
		delay := "—"
		if !math.IsNaN(rep.MedianDelaySeconds) {
			delay = fmt.Sprintf("%.0f s (%.1f events)", rep.MedianDelaySeconds, rep.MedianDelayEvents)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", m.Config, rep.Interventions, FormatEstimate(rep.Recall),
			FormatEstimate(rep.Precision), FormatRate(rep.FalseAlarmsPer100), delay)
	}
	return tw.Flush()
}

// FormatRate formats a non-proportion estimate (a rate) with one decimal.
func FormatRate(e eval.Estimate) string {
	if math.IsNaN(e.Value) {
		return "—"
	}
	if math.IsNaN(e.Low) {
		return fmt.Sprintf("%.1f", e.Value)
	}
	return fmt.Sprintf("%.1f [%.1f, %.1f]", e.Value, e.Low, e.High)
}

// OutcomeResult names the outcome evaluation, by outcome, of one configuration's
// session analysis.
type OutcomeResult struct {
	Config string
	Report *eval.OutcomeReport
}

// WriteOutcomeSummary prints the session analysis's outcome accuracy when some
// session is labelled with an outcome: one line per configuration (accuracy with its
// interval, correct of scored, the majority baseline, balanced accuracy, macro F1,
// sessions left out for having no final analysis), then the first configuration's
// confusion by outcome, rows labelled, columns predicted. Sessions labelled none and
// sessions without a final analysis are not scored; the matrix shows them in its row
// and column "none".
func WriteOutcomeSummary(w io.Writer, results []OutcomeResult) error {
	if len(results) == 0 || results[0].Report.Sessions == results[0].Report.Unlabelled {
		return nil
	}
	first := results[0].Report
	fmt.Fprintf(w, "\noutcome by class (the final analysis's outcome against the labelled one): %d of %d sessions labelled success, partial, failure or abandoned (%d labelled none, %d without an outcome label: not scored)\n",
		first.Scored+first.Unpredicted, first.Sessions, first.Excluded, first.Unlabelled)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONFIG\tACCURACY\tCORRECT\tMAJORITY\tBALANCED\tMACRO F1\tNO ANALYSIS")
	for _, o := range results {
		r := o.Report
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\t%d\n", o.Config, FormatEstimate(r.Accuracy), r.Correct, r.Scored, FormatValue(r.Majority),
			FormatValue(r.BalancedAccuracy), FormatValue(r.MacroF1), r.Unpredicted)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s by outcome (rows labelled, columns predicted; predicted none: no final analysis):\n", results[0].Config)
	order := eval.OutcomeOrder()
	fmt.Fprint(tw, "LABELLED")
	for _, o := range order {
		fmt.Fprintf(tw, "\t%s", strings.ToUpper(o))
	}
	fmt.Fprintln(tw)
	for i, label := range order {
		fmt.Fprint(tw, label)
		for j := range order {
			fmt.Fprintf(tw, "\t%d", first.Matrix[i][j])
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
