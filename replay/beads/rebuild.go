package beads

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/replay/clockfault"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/join"
)

// CommitWindow is how far from its cycle's comment a cycle commit may be and still join
// that cycle. quasar commits about half a minute before posting the coder comment, and
// lint-fix commits follow it by up to several minutes.
const CommitWindow = time.Hour

// cycleB is a cycle being rebuilt.
type cycleB struct {
	n         int
	coder     time.Time
	reviewer  time.Time
	last      time.Time
	calls     int // coder and reviewer comments of the cycle
	truncated bool
	findings  []finding
	commits   []join.Commit
}

type finding struct {
	f     analyze.ReviewFinding
	at    time.Time
	child string
}

// anchor is the time a cycle commit is compared with.
func (c *cycleB) anchor() time.Time {
	if !c.coder.IsZero() {
		return c.coder
	}
	return c.last
}

// runB is a run being rebuilt.
type runB struct {
	b        *bead
	cycles   []*cycleB
	start    time.Time
	end      time.Time
	outcome  input.Outcome
	reason   string
	report   *input.Report
	maxN     int     // from a max-cycles comment
	budget   float64 // from a budget comment
	broken   bool    // cycles were dropped from here on
	unusable bool    // does not start at cycle 1
	attempt  int
	problem  string // why it is unusable
}

func (r *runB) cur() *cycleB {
	if len(r.cycles) == 0 {
		return nil
	}
	return r.cycles[len(r.cycles)-1]
}

// reviewAt is one reviewer comment, with the cycle it ended (nil when that cycle was
// dropped), for joining children.
type reviewAt struct {
	at time.Time
	c  *cycleB
	r  *runB
}

// rebuild turns the parsed beads into runs.
func (rd *reader) rebuild() []*input.Run {
	reviews := map[*bead][]reviewAt{}
	for _, b := range rd.beads {
		switch {
		case b.hasCycle:
			reviews[b] = rd.splitRuns(b)
		case b.finding:
		default:
			rd.nNoCycle++
		}
	}
	rd.joinFindings(reviews)
	rd.joinPhases()
	perCall := rd.costPerCall()
	rd.joinCommits()

	var runs []*input.Run
	for _, b := range rd.beads {
		usable := 0
		for _, r := range b.runs {
			if !r.unusable {
				usable++
			}
		}
		attempt := 0
		for _, r := range b.runs {
			if r.unusable {
				rd.report(b.line, input.ProblemUnusable, "bead %s: %s; run skipped", b.ID, r.problem)
				continue
			}
			attempt++
			r.attempt = attempt
			runs = append(runs, rd.finish(r, usable, perCall))
		}
	}
	slices.SortFunc(runs, func(a, b *input.Run) int { return cmp.Compare(a.Key, b.Key) })
	return runs
}

// splitRuns rebuilds the runs of one bead from its comments and returns its reviewer
// comments in time order.
func (rd *reader) splitRuns(b *bead) []reviewAt {
	var reviews []reviewAt
	var r *runB
	bad := func(n note, format string, args ...any) {
		rd.report(b.line, input.ProblemInvalid, "bead %s: %s comment at %s: %s", b.ID, n.kind, n.at.Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
	unknown := func(n note) {
		rd.report(b.line, input.ProblemUnknownKind, "bead %s: comment at %s follows none of quasar's comment conventions (%q); ignored",
			b.ID, n.at.Format(time.RFC3339), input.Clip(firstLine(n.text)))
	}
	for _, n := range b.comments {
		if n.kind == kindCoder && n.n == 1 || r == nil && n.kind == kindReviewer && n.n == 1 {
			r = &runB{b: b, start: n.at}
			b.runs = append(b.runs, r)
		}
		if r == nil {
			if n.kind == kindOther {
				unknown(n)
				continue
			}
			r = &runB{b: b, start: n.at, unusable: true,
				problem: fmt.Sprintf("the first run's first comment is a %s comment (cycle %d) at %s, not [coder cycle 1]: its earlier cycles are missing", n.kind, n.n, n.at.Format(time.RFC3339))}
			b.runs = append(b.runs, r)
		}
		if r.unusable {
			continue
		}
		if n.at.After(r.end) {
			r.end = n.at
		}
		if r.outcome != "" {
			bad(n, "after the run's outcome (%s); ignored", r.outcome)
			continue
		}
		c := r.cur()
		if r.broken && (n.kind == kindCoder || n.kind == kindReviewer) {
			if n.kind == kindReviewer {
				reviews = append(reviews, reviewAt{at: n.at, r: r})
			}
			continue
		}
		switch n.kind {
		case kindCoder:
			switch {
			case c == nil && n.n == 1, c != nil && n.n == c.n+1:
				r.cycles = append(r.cycles, &cycleB{n: n.n, coder: n.at, last: n.at, calls: 1})
			case c != nil && n.n == c.n:
				bad(n, "cycle %d already has a coder comment; ignored", n.n)
			case c != nil && n.n > c.n+1:
				bad(n, "cycle %d follows cycle %d: cycles from %d on are dropped", n.n, c.n, c.n+1)
				r.broken = true
			default:
				bad(n, "cycle %d is out of sequence (the run is at cycle %d); ignored", n.n, cycleNo(c))
			}
		case kindReviewer:
			switch {
			case c != nil && n.n == c.n && c.reviewer.IsZero():
				c.reviewer, c.last, c.truncated = n.at, n.at, strings.HasSuffix(n.text, truncMark)
				c.calls++
				reviews = append(reviews, reviewAt{at: n.at, c: c, r: r})
			case c == nil && n.n == 1, c != nil && n.n == c.n+1:
				bad(n, "cycle %d has no coder comment; the cycle is kept", n.n)
				r.cycles = append(r.cycles, &cycleB{n: n.n, reviewer: n.at, last: n.at, calls: 1, truncated: strings.HasSuffix(n.text, truncMark)})
				reviews = append(reviews, reviewAt{at: n.at, c: r.cur(), r: r})
			case c != nil && n.n == c.n:
				bad(n, "cycle %d already has a reviewer comment; ignored", n.n)
			case c != nil && n.n > c.n+1:
				bad(n, "cycle %d follows cycle %d: cycles from %d on are dropped", n.n, c.n, c.n+1)
				r.broken = true
				reviews = append(reviews, reviewAt{at: n.at, r: r})
			default:
				bad(n, "cycle %d is out of sequence (the run is at cycle %d); ignored", n.n, cycleNo(c))
			}
		case kindReport:
			if c == nil {
				bad(n, "no cycle before it; ignored")
				continue
			}
			if c.reviewer.IsZero() {
				bad(n, "cycle %d has no reviewer comment (it is missing from the export); the report approves cycle %d all the same", c.n, c.n)
				c.last = n.at // the report is the cycle's last comment
			}
			r.outcome, r.report = input.OutcomeApproved, parseReport(n.text)
			r.reason = fmt.Sprintf("reviewer report at cycle %d", c.n)
		case kindMaxCycles:
			r.outcome, r.maxN, r.reason = input.OutcomeMaxCycles, n.n, firstLine(n.text)
			if n.bad != "" {
				bad(n, "%s; the run reached its limit, but MaxCycles is not taken from the comment", n.bad)
			} else if c == nil || c.n != n.n {
				bad(n, "says %d cycles but the run has %d; MaxCycles is taken from the comment", n.n, cycleNo(c))
			}
		case kindBudget:
			r.outcome, r.budget, r.reason = input.OutcomeBudgetExceeded, n.y, firstLine(n.text)
		default:
			unknown(n)
		}
	}
	for _, r := range b.runs {
		if !r.unusable && len(r.cycles) == 0 {
			r.unusable, r.problem = true, "a run has no cycle"
		}
	}
	return reviews
}

func cycleNo(c *cycleB) int {
	if c == nil {
		return 0
	}
	return c.n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

var severityRE = regexp.MustCompile(`^\s*\[([A-Za-z]+)\]\s*`)

// joinFindings assigns every review-finding child to the cycle of the latest reviewer
// comment of its parent at or before the child's creation. A child created more than
// a year after the last one is reported, and joins it.
func (rd *reader) joinFindings(reviews map[*bead][]reviewAt) {
	for _, ch := range rd.beads {
		if !ch.finding {
			continue
		}
		rd.nFindings++
		if ch.parent == "" {
			rd.report(ch.line, input.ProblemUnmatched, "review-finding bead %s has no parent-child dependency: its finding joins no run (export the dependency)", ch.ID)
			continue
		}
		parent := rd.beadAt(ch.parent, ch.created)
		if parent == nil {
			rd.report(ch.line, input.ProblemUnmatched, "review-finding bead %s: its parent %s is not in this export; finding dropped (export the parent with it)", ch.ID, ch.parent)
			continue
		}
		revs := reviews[parent]
		i := len(revs) - 1
		for i >= 0 && revs[i].at.After(ch.created) {
			i--
		}
		switch {
		case len(revs) == 0:
			rd.report(ch.line, input.ProblemUnmatched, "review-finding bead %s: its parent %s has no reviewer comment; finding dropped", ch.ID, parent.ID)
			continue
		case i < 0:
			rd.report(ch.line, input.ProblemUnmatched, "review-finding bead %s was created at %s, before any reviewer comment of its parent %s; finding dropped",
				ch.ID, ch.created.Format(time.RFC3339), parent.ID)
			continue
		case revs[i].c == nil || revs[i].r.unusable:
			rd.report(ch.line, input.ProblemUnmatched, "review-finding bead %s belongs to a cycle of %s that was dropped; finding dropped", ch.ID, parent.ID)
			continue
		}
		f, msg := ch.reviewFinding()
		if msg != "" {
			rd.report(ch.line, input.ProblemInvalid, "review-finding bead %s: %s", ch.ID, msg)
		}
		c := revs[i].c
		if i == len(revs)-1 && ch.created.Sub(revs[i].at) > clockfault.MaxSpread {
			// Findings are filed during their review: a child created a year after
			// the parent's last review is a clock fault in one or the other (or the
			// child of a later bead of a reused id not in the export).
			rd.report(ch.line, input.ProblemInvalid, "review-finding bead %s was created at %s, more than a year after the last reviewer comment of its parent %s (a clock fault); joins that comment's cycle %d, kept",
				ch.ID, ch.created.Format(time.RFC3339), parent.ID, c.n)
		}
		f.Cycle = c.n
		c.findings = append(c.findings, finding{f: f, at: ch.created, child: ch.ID})
		rd.nJoinedFindings++
		if r := revs[i].r; r.outcome == input.OutcomeApproved && c == r.cur() {
			rd.report(ch.line, input.ProblemInvalid, "review-finding bead %s joins cycle %d of %s, which the reviewer approved; kept", ch.ID, c.n, parent.ID)
		}
	}
	for _, b := range rd.beads {
		for _, r := range b.runs {
			for _, c := range r.cycles {
				slices.SortStableFunc(c.findings, func(x, y finding) int {
					return cmp.Or(x.at.Compare(y.at), cmp.Compare(x.child, y.child))
				})
			}
		}
	}
}

// beadAt returns the bead with this id that existed at t: the latest created at or
// before t, or the earliest when all were created later.
func (rd *reader) beadAt(id string, t time.Time) *bead {
	bs := rd.byID[id]
	if len(bs) == 0 {
		return nil
	}
	best := bs[0]
	for _, b := range bs {
		if !b.created.After(t) {
			best = b
		}
	}
	return best
}

// reviewFinding is the finding a review-finding child records: severity from the
// title's [severity], description from the description (else the title).
func (b *bead) reviewFinding() (analyze.ReviewFinding, string) {
	var msgs []string
	sev := analyze.SeverityMajor
	title := b.Title
	if m := severityRE.FindStringSubmatch(title); m != nil {
		title = title[len(m[0]):]
		switch s := analyze.Severity(strings.ToLower(m[1])); s {
		case analyze.SeverityCritical, analyze.SeverityMajor, analyze.SeverityMinor:
			sev = s
		default:
			msgs = append(msgs, fmt.Sprintf("severity %q is not critical, major or minor; read as major", m[1]))
		}
	} else {
		msgs = append(msgs, "title has no [severity]; read as major")
	}
	desc := strings.TrimSpace(b.Description)
	if desc == "" {
		desc = strings.TrimSpace(strings.TrimSuffix(title, truncMark))
		msgs = append(msgs, "no description; the title (cut at 80 characters) is used")
	}
	return analyze.ReviewFinding{ID: analyze.FindingID(sev, desc), Severity: sev, Description: desc, Status: analyze.StatusFound},
		strings.Join(msgs, "; ")
}

// joinPhases finds the nebula phase of every bead with runs.
func (rd *reader) joinPhases() {
	for _, b := range rd.beads {
		if len(b.runs) > 0 {
			b.phase = rd.jc.PhaseFor(b.ID, b.created)
		}
	}
}

// costPerCall estimates, per nebula, the cost of one agent call: the nebula's recorded
// total over the coder and reviewer comments of its phase beads in this export.
func (rd *reader) costPerCall() map[*join.Nebula]float64 {
	calls := map[*join.Nebula]int{}
	for _, b := range rd.beads {
		if b.phase != nil && b.phase.Nebula != nil && b.phase.Nebula.HasCost {
			calls[b.phase.Nebula] += b.calls
		}
	}
	per := map[*join.Nebula]float64{}
	for n, k := range calls {
		if k > 0 {
			per[n] = n.TotalCostUSD / float64(k)
		}
	}
	return per
}

// joinCommits assigns every cycle commit of a bead in this export to the cycle it was
// made in.
func (rd *reader) joinCommits() {
	for _, id := range slices.Sorted(maps.Keys(rd.byID)) {
		bs := rd.byID[id]
		for _, cm := range rd.jc.CommitsFor(id) {
			b := bs[0]
			if len(bs) > 1 {
				b = rd.beadAt(id, cm.Time)
			}
			var best *cycleB
			var dist time.Duration
			for _, r := range b.runs {
				if r.unusable || cm.Cycle > len(r.cycles) {
					continue
				}
				c := r.cycles[cm.Cycle-1]
				d := distance(cm.Time, c.anchor())
				if best == nil || d < dist {
					best, dist = c, d
				}
			}
			switch {
			case best == nil:
				rd.report(b.line, input.ProblemUnmatched, "cycle commit %s (%s:%d) is for cycle %d of bead %s, which no run of the bead reached; ignored",
					cm.SHA[:min(12, len(cm.SHA))], cm.File, cm.Line, cm.Cycle, b.ID)
			case dist > CommitWindow:
				rd.report(b.line, input.ProblemUnmatched, "cycle commit %s (%s:%d) is %s away from cycle %d of bead %s, more than %s; ignored",
					cm.SHA[:min(12, len(cm.SHA))], cm.File, cm.Line, clockfault.Span(dist), cm.Cycle, b.ID, CommitWindow)
			default:
				best.commits = append(best.commits, cm)
				rd.nCommits++
			}
		}
	}
}

// distance is how far apart two times are. time.Time.Sub saturates at the Duration's
// range (about 292 years) and its negative bound has no positive counterpart, so the
// later time is taken first: a commit stamped centuries from its cycle (year 1) is the
// longest distance, not a negative one that would join within [CommitWindow].
func distance(a, b time.Time) time.Duration {
	if a.Before(b) {
		a, b = b, a
	}
	return a.Sub(b)
}

// finish assembles one rebuilt run.
func (rd *reader) finish(r *runB, attempts int, perCall map[*join.Nebula]float64) *input.Run {
	b := r.b
	run := &input.Run{
		Key: fmt.Sprintf("%s#%d", b.keyBase, r.attempt), Source: SourceName, File: rd.file, Line: b.line,
		TaskID: b.ID, Title: b.Title, Start: r.start, End: r.end, Outcome: r.outcome, Reason: r.reason,
		FilterKnown: false, CostSource: input.CostUnknown,
		TaskCreatedAt: b.created, TaskStatus: b.Status, CloseReason: strings.TrimSpace(b.CloseReason),
		Attempt: r.attempt, Attempts: attempts, Report: r.report, CyclesDropped: r.broken,
	}
	if run.Outcome == "" {
		run.Outcome = input.OutcomeIncomplete
		run.Reason = fmt.Sprintf("no outcome comment after cycle %d (bead %s)", r.cur().n, b.Status)
	}
	lim := rd.jc.Limits(b.phase)
	if p := b.phase; p != nil {
		rd.nPhase++
		run.Phase, run.PhaseStatus = p.ID, p.Status
		if p.Nebula != nil {
			run.Nebula = p.Nebula.Name
		}
		if run.Report == nil && p.Report != nil && r.attempt == attempts {
			rep := *p.Report
			run.Report = &rep
		}
	}
	if r.maxN > 0 {
		lim.MaxCycles, lim.MaxCyclesSource = r.maxN, input.LimitComment
	}
	if r.budget > 0 {
		lim.MaxBudgetUSD, lim.MaxBudgetSource = r.budget, input.LimitComment
	}
	run.MaxCycles, run.MaxBudgetUSD, run.MaxCyclesSource, run.MaxBudgetSource = lim.MaxCycles, lim.MaxBudgetUSD, lim.MaxCyclesSource, lim.MaxBudgetSource
	if len(r.cycles) > run.MaxCycles {
		rd.report(b.line, input.ProblemInvalid, "run %s has %d cycles, more than its MaxCycles %d (from %s); kept as recorded",
			run.Key, len(r.cycles), run.MaxCycles, run.MaxCyclesSource)
	}
	per, estimated := 0.0, false
	if p := b.phase; p != nil && p.Nebula != nil {
		per, estimated = perCall[p.Nebula]
	}
	if estimated {
		run.CostSource = input.CostEstimated
		rd.nEstimated++
	}
	hasCommits := false
	calls := 0
	for _, c := range r.cycles {
		calls += c.calls
		cyc := input.Cycle{Cycle: c.n, Time: c.last, CoderTime: c.coder, ReviewerTime: c.reviewer, ReviewTruncated: c.truncated}
		if estimated {
			cyc.TotalCostUSD = per * float64(calls)
		}
		for _, f := range c.findings {
			cyc.Findings = append(cyc.Findings, f.f)
		}
		for _, cm := range c.commits {
			hasCommits = true
			cyc.Commits = append(cyc.Commits, cm.SHA)
			if cm.LintFix {
				cyc.LintFixCalls++
			}
		}
		run.Cycles = append(run.Cycles, cyc)
	}
	if r.outcome == input.OutcomeApproved {
		run.Cycles[len(run.Cycles)-1].Approved = true
	}
	run.LintFixKnown = hasCommits
	if hasCommits {
		rd.nLintKnown++
	}
	return run
}
