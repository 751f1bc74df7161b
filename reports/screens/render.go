package screens

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/internal/printable"
)

// dateLayout is how the screens print a time (always UTC).
const dateLayout = "2006-01-02 15:04"

// The JSON forms. Each screen's JSON is its struct, indented, so keys come in a
// fixed order and every key is present.

// WriteJSON writes the status screen as JSON.
func (s Status) WriteJSON(w io.Writer) error { return writeJSON(w, s) }

// WriteJSON writes the history screen as JSON.
func (h History) WriteJSON(w io.Writer) error { return writeJSON(w, h) }

// WriteJSON writes the session screen as JSON.
func (d Detail) WriteJSON(w io.Writer) error { return writeJSON(w, d) }

// WriteText writes the status screen.
func (s Status) WriteText(w io.Writer) error {
	p := newPrinter(w)
	p.heading("Assessment Status")
	p.line("Enabled: %t", s.Enabled)
	b := s.Breaker
	threshold := "unknown"
	if b.Thresholds != nil {
		threshold = fmt.Sprintf("%.2f", b.Thresholds.Frustration)
	}
	switch b.State {
	case "none":
		p.line("Circuit Breaker: no session (threshold: %s)", threshold)
	case "tripped":
		p.line("Circuit Breaker: TRIPPED (%s; frustration: %.2f, threshold: %s)", plural.Count(b.Interventions, "intervention"), deref(b.FrustrationEMA), threshold)
	default:
		p.line("Circuit Breaker: OK (frustration: %.2f, threshold: %s)", deref(b.FrustrationEMA), threshold)
	}
	if t := b.Thresholds; t != nil {
		p.line("Thresholds: frustration %.2f, %s, %d corrections in %s, cooldown %s",
			t.Frustration, plural.Count(t.ConsecutiveFailures, "consecutive failure"), t.CorrectionStorm, t.CorrectionWindow, t.Cooldown)
	}
	if a := s.ActiveSession; a != nil {
		p.blank()
		p.heading("Active Session")
		p.line("Session: %s", a.ID)
		p.line("Date: %s", dateUTC(a.StartedAt))
		p.line("Messages: %d", a.HumanMessages)
		p.line("Frustration EMA: %.2f (peak %.2f)", a.FinalFrustrationEMA, a.PeakFrustrationEMA)
		p.line("Success EMA: %.2f", a.FinalSuccessEMA)
		p.line("Checkpoints: %d", a.Checkpoints)
		if fi := a.FirstIntervention; fi != nil && a.Interventions > 0 {
			p.line("Interventions: %d (first: %s%s)", a.Interventions, fi.Type, atMsg(fi.EventIndex))
		} else {
			p.line("Interventions: %d", a.Interventions)
		}
	}
	p.blank()
	p.heading("Replay")
	p.line("Results: %s", s.Results)
	r := s.Replay
	sessions := fmt.Sprintf("%d (%s)", r.Sessions, plural.Count(r.Events, "event"))
	if r.OtherRuns > 0 {
		sessions += fmt.Sprintf("; %s besides", plural.Count(r.OtherRuns, "quasar run"))
	}
	p.line("Sessions: %s", sessions)
	if r.Shards > 1 {
		p.line("Shards: %d", r.Shards)
	}
	p.line("Input fingerprint: %s", orDash(r.InputFingerprint))
	p.line("Analyzer: %s", orDash(r.Analyzer))
	if r.Labels != "" {
		p.line("Labels: %s", r.Labels)
	}
	p.line("Loopwatch: %s", orDash(r.Version))
	return p.err()
}

// WriteText writes the history screen.
func (h History) WriteText(w io.Writer) error {
	p := newPrinter(w)
	switch {
	case h.Days == 0:
		p.heading(fmt.Sprintf("Session History (all %s)", plural.Count(h.TotalSessions, "session")))
	case h.Until != nil:
		p.heading(fmt.Sprintf("Session History (last %s to %s)", plural.Count(h.Days, "day"), h.Until.Format(dateLayout)))
	default:
		p.heading(fmt.Sprintf("Session History (last %s)", plural.Count(h.Days, "day")))
	}
	if len(h.Sessions) == 0 {
		if h.TotalSessions == 0 {
			p.line("No sessions in %s.", h.Results)
		} else {
			p.line("No sessions in the window.")
		}
	} else {
		labels := false
		for _, s := range h.Sessions {
			labels = labels || s.Label != nil
		}
		tw := tabwriter.NewWriter(p.w, 0, 0, 2, ' ', 0)
		head := "SESSION\tOUTCOME\t"
		if labels {
			head += "LABEL\t"
		}
		fmt.Fprintln(tw, head+"MSGS\tFRUST\tINTERV\tDATE (UTC)")
		for _, s := range h.Sessions {
			line := printable.Line(s.ShortID) + "\t" + printable.Line(orDash(deref(s.Outcome))) + "\t"
			if labels {
				l := ""
				if s.Label != nil {
					l = deref(s.Label.Outcome)
				}
				line += printable.Line(orDash(l)) + "\t"
			}
			fmt.Fprintf(tw, "%s%d\t%.2f\t%d\t%s\n", line, s.HumanMessages, s.PeakFrustrationEMA, s.Interventions, date(s.StartedAt))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	p.blank()
	if n := h.InWindow - len(h.Sessions); n > 0 {
		p.line("Showing the newest %d of %d sessions (--limit %d).", len(h.Sessions), h.InWindow, h.Limit)
	}
	if n := h.TotalSessions - h.InWindow; n > 0 {
		what := plural.Count(n, "older session")
		if h.Undated == n {
			what = plural.Count(n, "session") + " without a date"
		} else if h.Undated > 0 {
			what += fmt.Sprintf(" (%d without a date)", h.Undated)
		}
		p.line("%s not shown (--days 0 shows all).", what)
	}
	if len(h.Sessions) > 0 {
		with := ""
		if h.Results != "results.parquet" { // the command's default
			with = " --results " + printable.Line(h.Results)
		}
		p.line("Use `assess%s history <session-id>` for details.", with)
	}
	return p.err()
}

// WriteText writes the session screen.
func (d Detail) WriteText(w io.Writer) error {
	p := newPrinter(w)
	s := d.Session
	p.heading("Session: " + s.ID)
	if s.Title != "" {
		p.line("Title: %s", oneLine(s.Title))
	}
	if s.Project != "" {
		p.line("Project: %s", s.Project)
	}
	p.line("Date: %s", dateUTC(s.StartedAt))
	p.line("Duration: %s", duration(s.DurationSeconds))
	p.line("Messages: %d (%s in all)", s.HumanMessages, plural.Count(s.Events, "event"))
	if a := d.Analysis; a.Outcome != nil {
		p.line("Outcome: %s (confidence: %.2f)", *a.Outcome, deref(a.Confidence))
	} else {
		p.line("Outcome: — (not analysed)")
	}
	if l := s.Label; l != nil {
		conf := ""
		if l.Confidence != nil {
			conf = " (confidence: " + *l.Confidence + ")"
		}
		p.line("Label: %s%s", orDash(deref(l.Outcome)), conf)
	}

	p.blank()
	p.heading("Frustration Trajectory")
	t := d.Trajectory
	if t.Cells == 0 {
		p.line("No events.")
	} else {
		p.line("0.0 %s 1.0", t.Sparkline)
		p.line("    %s", startEnd(t.Cells))
		p.line("Peak %.2f at msg %d; final %.2f.", *t.Peak, *t.PeakEvent, *t.Final)
	}

	p.blank()
	if len(d.Checkpoints) == 0 {
		p.line("Checkpoints: None")
	} else {
		p.heading("Checkpoints")
		for _, c := range d.Checkpoints {
			text := strconv.Quote(clip(oneLine(c.Summary), summaryWidth))
			if c.Error != nil {
				text = "(no summary: " + clip(oneLine(*c.Error), summaryWidth) + ")"
			}
			p.line("%d. %s (msgs %d-%d, %s)", c.Seq, text, c.FirstEvent, c.LastEvent, c.Trigger)
		}
	}

	p.blank()
	if len(d.Signals) == 0 {
		p.line("Signals Detected: None")
	} else {
		p.heading("Signals Detected")
		for _, sg := range d.Signals {
			p.line("• %dx %s (%s)", sg.Count, sg.Kind, msgList(sg.Events))
		}
	}
	if d.LabelledFriction != nil {
		if len(d.LabelledFriction) == 0 {
			p.line("Labelled friction: None")
		} else {
			p.line("Labelled friction: %s", msgList(d.LabelledFriction))
		}
	}

	p.blank()
	if len(d.Interventions) == 0 {
		p.line("Interventions: None")
	} else {
		p.heading("Interventions")
		for i, iv := range d.Interventions {
			p.line("%d. %s at %s (msg %d; %s)", i+1, iv.Type, timeOf(iv.At), iv.EventIndex, why(iv))
		}
	}

	p.blank()
	a := d.Analysis
	switch {
	case a.Summary != nil:
		p.heading("Analysis")
		p.line("%s", oneLine(*a.Summary))
	case a.Error != nil:
		p.line("Analysis: failed: %s", oneLine(*a.Error))
	default:
		p.line("Analysis: None")
	}
	return p.err()
}

// summaryWidth caps a checkpoint summary in the text screen (the JSON has it whole).
const summaryWidth = 100

// msgListMax caps the indices listed for one signal kind in the text screen.
const msgListMax = 12

// msgList renders event indices as "msg 7" or "msgs 15, 22", eliding past
// msgListMax; repeated indices are shown once with their multiplicity ("120×2").
func msgList(ix []int) string {
	var parts []string
	for i := 0; i < len(ix); {
		j := i
		for j < len(ix) && ix[j] == ix[i] {
			j++
		}
		s := strconv.Itoa(ix[i])
		if j-i > 1 {
			s += "×" + strconv.Itoa(j-i)
		}
		parts = append(parts, s)
		i = j
	}
	word := "msgs "
	if len(parts) == 1 {
		word = "msg "
	}
	if len(parts) > msgListMax {
		rest := len(parts) - msgListMax
		parts = append(parts[:msgListMax], fmt.Sprintf("… %d more", rest))
	}
	return word + strings.Join(parts, ", ")
}

// why says what tripped the breaker for an intervention.
func why(iv Intervention) string {
	switch iv.Type {
	case "approach_pivot":
		return plural.Count(iv.ConsecutiveFailures, "consecutive failure")
	case "clarification_pause":
		return plural.Count(iv.CorrectionsInWindow, "correction") + " in the window"
	}
	return fmt.Sprintf("frustration %.2f", iv.FrustrationEMA)
}

// startEnd is the caption under a sparkline of n cells: "Start" and "End" at its ends.
func startEnd(n int) string {
	const start, end = "Start", "End"
	if pad := n - len(start) - len(end); pad > 0 {
		return start + strings.Repeat(" ", pad) + end
	}
	return start + " " + end
}

func date(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return t.UTC().Format(dateLayout)
}

func dateUTC(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return date(t) + " UTC"
}

func timeOf(t *time.Time) string {
	if t == nil {
		return "an unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

func atMsg(ix *int) string {
	if ix == nil {
		return ""
	}
	return fmt.Sprintf(" at msg %d", *ix)
}

// duration renders seconds as the seed does ("23 minutes"), rounded to the minute;
// under a minute in seconds, from an hour in hours and minutes.
func duration(sec *float64) string {
	if sec == nil {
		return "—"
	}
	d := time.Duration(*sec * float64(time.Second)).Round(time.Second)
	if d < time.Minute {
		return plural.Count(int(d/time.Second), "second")
	}
	m := int(d.Round(time.Minute) / time.Minute)
	if m < 60 {
		return plural.Count(m, "minute")
	}
	h, m := m/60, m%60
	if m == 0 {
		return plural.Count(h, "hour")
	}
	return plural.Count(h, "hour") + " " + plural.Count(m, "minute")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// clip cuts s to at most n runes, marking a cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// printer writes lines and remembers the first error.
type printer struct {
	w *bufio.Writer
	e error
}

func newPrinter(w io.Writer) *printer { return &printer{w: bufio.NewWriter(w)} }

// line prints a line; its string arguments — ids, names and text from the input —
// are shown on one line and safe for a terminal ([printable.Line]).
func (p *printer) line(format string, args ...any) {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = printable.Line(s)
		}
	}
	if p.e == nil {
		_, p.e = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) blank() { p.line("") }

// heading writes a title underlined with ─ as wide as it.
func (p *printer) heading(title string) {
	p.line("%s", title)
	p.line("%s", strings.Repeat("─", utf8.RuneCountInString(title)))
}

func (p *printer) err() error {
	if p.e != nil {
		return p.e
	}
	return p.w.Flush()
}
