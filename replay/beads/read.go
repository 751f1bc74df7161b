package beads

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/replay/clockfault"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/join"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// SourceName is the name runs read by this package carry in [input.Run.Source].
const SourceName = "beads"

// MaxLine is the longest bead line read; longer lines are reported and skipped.
const MaxLine = 64 << 20

// FindingLabel is the label quasar gives review-finding child beads.
const FindingLabel = "review-finding"

// beadsKeys are top-level keys only a beads export has together with id and title.
var beadsKeys = []string{"issue_type", "status", "priority", "created_by", "comments", "dependencies", "close_reason", "labels", "description"}

// Sniff reports whether head, the opening bytes of a file, looks like a beads export:
// one of its first JSON object lines ([jsonl.HeadObjects]) is a bead ([SniffRecord]),
// so that a garbage first line does not hide the file's format.
func Sniff(head []byte) bool {
	for obj := range jsonl.HeadObjects(head, 0) {
		if SniffRecord(obj) {
			return true
		}
	}
	return false
}

// SniffRecord reports whether a record's top-level keys (string values, others "")
// are a bead's: a string id, a title, and a key beads writes (issue_type, status,
// priority, created_by, comments, dependencies, close_reason, labels, description).
func SniffRecord(obj map[string]string) bool {
	if obj["id"] == "" {
		return false
	}
	if _, ok := obj["title"]; !ok {
		return false
	}
	for _, k := range beadsKeys {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// issue is one line of a beads export, as far as rebuilding runs needs it.
type issue struct {
	ID           string       `json:"id"`
	Title        string       `json:"title"`
	Description  string       `json:"description"`
	Status       string       `json:"status"`
	CreatedAt    string       `json:"created_at"`
	CloseReason  string       `json:"close_reason"`
	Labels       []string     `json:"labels"`
	Comments     []comment    `json:"comments"`
	Dependencies []dependency `json:"dependencies"`
}

type comment struct {
	ID        json.RawMessage `json:"id"`
	Text      string          `json:"text"`
	CreatedAt string          `json:"created_at"`
}

type dependency struct {
	IssueID     string `json:"issue_id"`
	DependsOnID string `json:"depends_on_id"`
	Type        string `json:"type"`
}

// bead is a parsed line.
type bead struct {
	issue
	line     int
	created  time.Time
	comments []note // in time order
	finding  bool   // a review-finding child
	parent   string // its parent's id, for a finding
	hasCycle bool   // has a coder or reviewer cycle comment
	calls    int    // coder and reviewer comments
	runs     []*runB
	keyBase  string
	phase    *join.Phase
}

// note is a parsed comment.
type note struct {
	kind  kind
	n     int    // cycle number, or N of "Max cycles reached (N)"
	bad   string // why n could not be read (out of range, negative), n then 0
	x, y  float64
	text  string
	at    time.Time
	order int // position in the export
}

// Read reads the runs of one beads export. file is the name used in problems and in
// [input.Run.File]; jc holds the nebula phases and cycle commits to join (nil: none).
// Runs come back sorted by key, problems in line order, notes in a fixed order.
func Read(file string, r io.Reader, jc *join.Context) ([]*input.Run, []input.Problem, []input.Note) {
	if jc == nil {
		jc = join.New()
		jc.Finish()
	}
	rd := &reader{file: file, jc: jc}
	rd.parse(r)
	runs := rd.rebuild()
	slices.SortStableFunc(rd.probs, func(a, b input.Problem) int { return a.Line - b.Line })
	return runs, rd.probs, rd.notes()
}

type reader struct {
	file  string
	jc    *join.Context
	beads []*bead
	byID  map[string][]*bead // by id, in creation order
	probs []input.Problem

	nRead, nNoCycle, nFindings, nJoinedFindings, nCut, nReused, nPhase, nEstimated, nLintKnown, nCommits int
}

func (rd *reader) report(line int, kind input.ProblemKind, format string, args ...any) {
	rd.probs = append(rd.probs, input.Problem{File: rd.file, Line: line, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

func (rd *reader) notes() []input.Note {
	return []input.Note{
		{What: "beads: beads read", Count: rd.nRead},
		{What: "beads: beads without cycle comments (not runs)", Count: rd.nNoCycle},
		{What: "beads: review-finding child beads", Count: rd.nFindings},
		{What: "beads: review findings joined to a cycle", Count: rd.nJoinedFindings},
		{What: "beads: comments cut at 2000 bytes by quasar", Count: rd.nCut},
		{What: "beads: ids held by several beads", Count: rd.nReused},
		{What: "beads: runs joined to a nebula phase", Count: rd.nPhase},
		{What: "beads: runs with estimated cost", Count: rd.nEstimated},
		{What: "beads: runs with lint-fix calls known from cycle commits", Count: rd.nLintKnown},
		{What: "beads: cycle commits joined to a cycle", Count: rd.nCommits},
	}
}

// parseTime reads both of beads' timestamp formats, in UTC; the zero time as a
// far-off time ([clockfault.Recorded]).
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return t.UTC(), err
	}
	return clockfault.Recorded(t), nil
}

// parse reads every line into beads, reporting bad lines and duplicates.
func (rd *reader) parse(r io.Reader) {
	lr := jsonl.NewReader(r, MaxLine)
	seen := map[string]int{} // id + created_at → line
	rd.byID = map[string][]*bead{}
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rd.report(0, input.ProblemRead, "reading stopped after line %d: %v; the beads before it are kept", lr.Line(), err)
			break
		}
		if l.Oversize {
			rd.report(l.Num, input.ProblemOversize, "line of %d bytes exceeds the %d-byte limit; skipped", l.Len, MaxLine)
			continue
		}
		if l.Blank() {
			continue
		}
		if !l.ValidUTF8() {
			rd.report(l.Num, input.ProblemInvalidUTF8, "line is not valid UTF-8; invalid bytes read as U+FFFD")
		}
		rd.line(l, seen)
	}
	for id, bs := range rd.byID {
		if len(bs) > 1 {
			rd.nReused++
			slices.SortStableFunc(bs, func(a, b *bead) int { return a.created.Compare(b.created) })
			layout := "20060102T150405Z"
			for i := 1; i < len(bs); i++ {
				if bs[i].created.Truncate(time.Second).Equal(bs[i-1].created.Truncate(time.Second)) {
					layout = "20060102T150405.999999999Z" // created in one second: the key tells them apart
				}
			}
			for _, b := range bs {
				b.keyBase = id + "@" + b.created.UTC().Format(layout)
			}
		} else {
			bs[0].keyBase = id
		}
	}
}

// line reads one line: a bead, or the beads of a line that holds several.
func (rd *reader) line(l jsonl.Line, seen map[string]int) {
	var is issue
	bad, err := jsonl.DecodeObject(l.Bytes, &is)
	if err != nil {
		if recs, detail, ok := l.Split(); ok {
			rd.report(l.Num, input.ProblemMalformed, "%s", detail)
			for _, rec := range recs {
				rd.line(rec, seen)
			}
			return
		}
		if l.Unterminated {
			rd.report(l.Num, input.ProblemTruncated, "final line is cut off (%v); skipped", err)
		} else {
			rd.report(l.Num, input.ProblemMalformed, "not a JSON bead: %v; skipped", err)
		}
		return
	}
	if len(bad) > 0 {
		rd.report(l.Num, input.ProblemInvalid, "bead %s: %s; read without it", strings.TrimSpace(is.ID), jsonl.Describe(bad))
	}
	rd.nRead++
	if is.ID = strings.TrimSpace(is.ID); is.ID == "" {
		rd.report(l.Num, input.ProblemInvalid, "bead without an id; skipped")
		return
	}
	b := &bead{issue: is, line: l.Num}
	if t, err := parseTime(is.CreatedAt); err == nil {
		b.created = t
	} else {
		rd.report(l.Num, input.ProblemInvalid, "bead %s: created_at %q is not an RFC 3339 time; read as unknown", is.ID, is.CreatedAt)
	}
	dupKey := is.ID + "\x00" + b.created.String()
	if first, dup := seen[dupKey]; dup {
		rd.report(l.Num, input.ProblemDuplicate, "bead %s created at %s repeats line %d; this one is skipped (export each bead once)",
			is.ID, is.CreatedAt, first)
		return
	}
	seen[dupKey] = l.Num
	b.finding = slices.Contains(is.Labels, FindingLabel)
	for _, d := range is.Dependencies {
		if d.Type == "parent-child" && (d.IssueID == is.ID || d.IssueID == "") && d.DependsOnID != "" {
			b.parent = d.DependsOnID
			break
		}
	}
	rd.parseComments(b)
	rd.beads = append(rd.beads, b)
	rd.byID[is.ID] = append(rd.byID[is.ID], b)
}

// parseComments classifies a bead's comments and sorts them by time (ties in export
// order, then by numeric id).
func (rd *reader) parseComments(b *bead) {
	kinds := make([]note, len(b.Comments))
	for i, c := range b.Comments {
		k, n, x, y, bad := classify(c.Text)
		kinds[i] = note{kind: k, n: n, x: x, y: y, bad: bad}
		if k == kindCoder || k == kindReviewer {
			b.hasCycle = true
			b.calls++
		}
	}
	for i, c := range b.Comments {
		nt := kinds[i]
		if b.hasCycle && strings.HasSuffix(c.Text, truncMark) {
			rd.nCut++
		}
		if nt.bad != "" && (nt.kind == kindCoder || nt.kind == kindReviewer) {
			// Its cycle is unknown: the comment joins no cycle.
			rd.report(b.line, input.ProblemInvalid, "bead %s: comment %s (%s): %s; skipped",
				b.ID, commentID(c.ID, i), nt.kind, nt.bad)
			continue
		}
		at, err := parseTime(c.CreatedAt)
		if err != nil {
			if b.hasCycle {
				rd.report(b.line, input.ProblemInvalid, "bead %s: comment %s (%s) has created_at %q, not an RFC 3339 time; skipped",
					b.ID, commentID(c.ID, i), nt.kind, c.CreatedAt)
			}
			continue
		}
		nt.text, nt.at, nt.order = c.Text, at, i
		b.comments = append(b.comments, nt)
	}
	if b.hasCycle {
		rd.dropClockFaults(b)
		rd.checkCreation(b)
	}
	slices.SortStableFunc(b.comments, func(p, q note) int {
		return cmp.Or(p.at.Compare(q.at), cmp.Compare(p.order, q.order))
	})
}

// dropClockFaults drops the comments of a bead whose created_at is more than a year
// from the bead's other comments (a clock fault: a bead's comments span days), and
// reports them. An export's order says nothing of time, so that is all that can be
// told; a time that is merely off by days stays as recorded.
func (rd *reader) dropClockFaults(b *bead) {
	times := make([]time.Time, len(b.comments))
	for i, c := range b.comments {
		times[i] = c.at
	}
	far := clockfault.Far(times)
	for _, i := range far {
		c := b.comments[i]
		rd.report(b.line, input.ProblemInvalid,
			"bead %s: comment %s (%s) has created_at %s, more than a year from the bead's other comments (a clock fault); skipped",
			b.ID, commentID(b.Comments[c.order].ID, c.order), c.kind, c.at.Format(time.RFC3339))
	}
	for k := len(far) - 1; k >= 0; k-- {
		b.comments = slices.Delete(b.comments, far[k], far[k]+1)
	}
}

// checkCreation reports a run's bead whose created_at is more than a year from its
// comments (a clock fault in one or the other). The time is kept as written: it is what
// tells apart the beads of a reused id (their keys, their nebula phases), and the run's
// task_created_at.
func (rd *reader) checkCreation(b *bead) {
	if b.created.IsZero() || len(b.comments) == 0 {
		return // unknown, and reported as such; or nothing to hold it to
	}
	times := make([]time.Time, 0, len(b.comments)+1)
	times = append(times, b.created)
	for _, c := range b.comments {
		times = append(times, c.at)
	}
	if far := clockfault.Far(times); len(far) > 0 && far[0] == 0 {
		rd.report(b.line, input.ProblemInvalid,
			"bead %s: created_at %s is more than a year from the bead's comments (a clock fault in one or the other); kept as written",
			b.ID, b.created.Format(time.RFC3339))
	}
}

func commentID(raw json.RawMessage, i int) string {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return "#" + strconv.Itoa(i+1)
}
