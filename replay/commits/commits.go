// Package commits reads lists of quasar's cycle commits into the replay's join
// context ([join.Context]), so that the beads source can tell which cycles made
// lint-fix calls.
//
// quasar commits once per cycle with the subject `<bead>/cycle-N: <summary>` (older
// versions: `quasar: <bead> cycle-N`), and once more, with the suffix " (lint fix)",
// for every lint-fix coder call of the cycle. Two shapes of list are read, each
// recognised by its content:
//
//   - a TSV of sha, time and subject, one commit a line (`git log --format='%H%x09%cI%x09%s'`,
//     the corpus's cycle-commits.tsv); a header line naming the columns is allowed;
//   - plain `git log` output: `commit <sha>` blocks with Date (or AuthorDate/CommitDate,
//     any of git's --date=default, iso, iso-strict or rfc formats) and an indented
//     message whose first line is the subject.
//
// Commits whose subject is not a cycle commit are counted, not reported: a full git log
// holds other commits too. A line that is not a commit (bad sha, bad time, wrong number
// of fields) is reported as an [input.Problem] with its line and skipped; so is a cycle
// commit whose cycle is 0 or outside the range of a 32-bit integer (the tables' columns).
// A time that parses to Go's zero time, 0001-01-01T00:00:00Z, is a far-off time like any
// other. The package
// does not decide which run a commit belongs to: the beads source joins them.
package commits

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/replay/clockfault"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/join"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// SourceName is the format name of commit lists.
const SourceName = "cycle-commits"

// MaxLine is the longest line read; longer lines are reported and skipped.
const MaxLine = 1 << 20

// LintFixSuffix ends the subject of a lint-fix commit.
const LintFixSuffix = "(lint fix)"

var (
	shaRE      = regexp.MustCompile(`^[0-9a-f]{40}$`)
	gitHeadRE  = regexp.MustCompile(`^commit ([0-9a-f]{40})(\s.*)?$`)
	subjectRE  = regexp.MustCompile(`^(\S+)/cycle-([0-9]+):\s*(.*)$`)
	subjectRE2 = regexp.MustCompile(`^quasar: (\S+) cycle-([0-9]+)\b\s*:?\s*(.*)$`)
)

// ParseSubject reads a cycle commit's subject: the bead, the cycle, and whether it is a
// lint-fix commit. ok is false for any other subject, and for a cycle commit's subject
// whose cycle is 0 or outside the range of a 32-bit integer.
func ParseSubject(s string) (bead string, cycle int, lintFix, ok bool) {
	bead, cycle, lintFix, ok, _ = parseSubject(s)
	return bead, cycle, lintFix, ok
}

// parseSubject is ParseSubject that also says why a subject of a cycle commit's shape
// is not read: its cycle is 0 (quasar counts cycles from 1) or outside the range of a
// 32-bit integer (the tables hold cycles as 32-bit integers, where it would wrap). ok
// is then false and bad the reason.
func parseSubject(s string) (bead string, cycle int, lintFix, ok bool, bad string) {
	s = strings.TrimSpace(s)
	m := subjectRE.FindStringSubmatch(s)
	if m == nil {
		m = subjectRE2.FindStringSubmatch(s)
	}
	if m == nil {
		return "", 0, false, false, ""
	}
	n, err := strconv.Atoi(m[2])
	switch {
	case err != nil || n > math.MaxInt32:
		return "", 0, false, false, fmt.Sprintf("cycle %s is outside the range of a 32-bit integer", input.Clip(m[2]))
	case n < 1:
		return "", 0, false, false, fmt.Sprintf("cycle %s is not a cycle (quasar counts cycles from 1)", m[2])
	}
	return m[1], n, strings.HasSuffix(s, LintFixSuffix), true, ""
}

// Sniff reports whether head, the opening bytes of a file, is a commit list: its first
// non-blank line (after an optional header) is a TSV line of a 40-hex sha, an RFC 3339
// time and a subject, or a `commit <sha>` line of git log.
func Sniff(head []byte) bool {
	lines := bytes.SplitN(head, []byte("\n"), 4)
	for i, l := range lines {
		if i == len(lines)-1 && len(lines) == 4 {
			break // possibly cut
		}
		s := strings.TrimRight(string(l), "\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		if gitHeadRE.MatchString(s) {
			return true
		}
		f := strings.Split(s, "\t")
		if len(f) == 3 && shaRE.MatchString(f[0]) {
			_, err := time.Parse(time.RFC3339, f[1])
			return err == nil
		}
		if i == 0 && isHeader(f) {
			continue
		}
		return false
	}
	return false
}

func isHeader(f []string) bool {
	return len(f) == 3 && strings.EqualFold(strings.TrimSpace(f[0]), "sha") || len(f) == 3 && strings.EqualFold(strings.TrimSpace(f[0]), "commit")
}

// Stats counts what a list held besides the cycle commits it recorded.
type Stats struct {
	Commits      int // commits read
	CycleCommits int // of those, cycle commits (recorded in the context)
	LintFix      int // of those, lint-fix commits
	Skipped      int // of the others, cycle commits whose subject is reported as a problem
}

// Notes returns the stats as notes for the replay summary.
func (s Stats) Notes() []input.Note {
	return []input.Note{
		{What: "cycle-commits: commits read", Count: s.Commits},
		{What: "cycle-commits: not cycle commits (ignored)", Count: s.Commits - s.CycleCommits - s.Skipped},
		{What: "cycle-commits: lint-fix commits", Count: s.LintFix},
	}
}

// Read reads a commit list, TSV or git log, into jc and returns its problems in line
// order and what it counted.
func Read(file string, r io.Reader, jc *join.Context) ([]input.Problem, Stats) {
	rd := jsonl.NewReader(r, MaxLine)
	var probs []input.Problem
	var st Stats
	report := func(line int, kind input.ProblemKind, format string, args ...any) {
		probs = append(probs, input.Problem{File: file, Line: line, Kind: kind, Detail: fmt.Sprintf(format, args...)})
	}
	add := func(sha string, t time.Time, subject string, line int) {
		st.Commits++
		bead, cycle, lint, ok, bad := parseSubject(subject)
		if bad != "" {
			report(line, input.ProblemInvalid, "commit %s: subject %q: %s; skipped", sha[:12], input.Clip(strings.TrimSpace(subject)), bad)
		}
		if !ok {
			if bad != "" {
				st.Skipped++ // a problem, not a commit of something else
			}
			return
		}
		st.CycleCommits++
		if lint {
			st.LintFix++
		}
		jc.AddCommit(join.Commit{SHA: sha, Time: clockfault.Recorded(t), BeadID: bead, Cycle: cycle, LintFix: lint,
			Subject: strings.TrimSpace(subject), File: file, Line: line})
	}
	var g *gitCommit // the git log commit being read
	flush := func() {
		if g == nil {
			return
		}
		switch {
		case g.time.IsZero():
			report(g.line, input.ProblemInvalid, "commit %s has no readable Date line; skipped", g.sha)
		case !g.hasSubject:
			report(g.line, input.ProblemInvalid, "commit %s has no message; skipped", g.sha)
		default:
			add(g.sha, g.time, g.subject, g.line)
		}
		g = nil
	}
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			report(0, input.ProblemRead, "reading stopped after line %d: %v; the commits before it are kept", rd.Line(), err)
			break
		}
		if l.Oversize {
			report(l.Num, input.ProblemOversize, "line of %d bytes exceeds the %d-byte limit; skipped", l.Len, MaxLine)
			continue
		}
		s := strings.TrimRight(string(l.Bytes), "\r")
		if m := gitHeadRE.FindStringSubmatch(s); m != nil {
			flush()
			g = &gitCommit{sha: m[1], line: l.Num}
			continue
		}
		if g != nil {
			if msg := g.add(s); msg != "" {
				report(l.Num, input.ProblemInvalid, "%s", msg)
			}
			continue
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		f := strings.Split(s, "\t")
		if l.Num == 1 && isHeader(f) {
			continue
		}
		if len(f) != 3 {
			report(l.Num, input.ProblemMalformed, "%d tab-separated fields, not 3 (sha, time, subject); skipped", len(f))
			continue
		}
		if !shaRE.MatchString(f[0]) {
			report(l.Num, input.ProblemMalformed, "%q is not a 40-hex commit sha; skipped", input.Clip(f[0]))
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, f[1])
		if err != nil {
			report(l.Num, input.ProblemMalformed, "time %q is not RFC 3339 (git's %%cI); skipped", input.Clip(f[1]))
			continue
		}
		add(f[0], t, f[2], l.Num)
	}
	flush()
	slices.SortStableFunc(probs, func(a, b input.Problem) int { return a.Line - b.Line })
	return probs, st
}

// gitCommit is one `commit <sha>` block of git log output being read.
type gitCommit struct {
	sha        string
	line       int
	time       time.Time
	commitTime bool // time is the CommitDate (preferred over Date/AuthorDate)
	inMessage  bool
	hasSubject bool
	subject    string
}

// gitDateLayouts are the layouts of git log's --date=default, rfc, iso and iso-strict.
var gitDateLayouts = []string{
	"Mon Jan 2 15:04:05 2006 -0700",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"2006-01-02 15:04:05 -0700",
	time.RFC3339,
}

// add reads one line of a commit block; it returns a description of what is wrong, or "".
func (g *gitCommit) add(s string) string {
	if g.inMessage || strings.HasPrefix(s, "    ") || s == "" {
		g.inMessage = true // headers end at the first blank or indented line
		if !g.hasSubject && strings.TrimSpace(s) != "" {
			g.subject, g.hasSubject = strings.TrimSpace(s), true
		}
		return ""
	}
	key, val, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Sprintf("commit %s: header line %q is not `Key: value`; ignored", g.sha, input.Clip(s))
	}
	switch key {
	case "Date", "AuthorDate", "CommitDate":
		val = strings.TrimSpace(val)
		for _, layout := range gitDateLayouts {
			t, err := time.Parse(layout, val)
			if err != nil {
				continue
			}
			if key == "CommitDate" || !g.commitTime {
				g.time, g.commitTime = clockfault.Recorded(t), key == "CommitDate"
			}
			return ""
		}
		return fmt.Sprintf("commit %s: %s %q is in none of git's date formats (default, rfc, iso, iso-strict); ignored", g.sha, key, input.Clip(val))
	}
	return "" // Author, Merge, Commit, …
}
