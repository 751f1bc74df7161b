package beads

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/replay/input"
)

// kind is the convention a comment follows.
type kind int

const (
	kindOther     kind = iota // none of quasar's
	kindCoder                 // [coder cycle N]
	kindReviewer              // [reviewer cycle N]
	kindReport                // [reviewer report]
	kindMaxCycles             // Max cycles reached (N). …
	kindBudget                // Budget exceeded: $X / $Y
)

func (k kind) String() string {
	return [...]string{"free text", "coder cycle", "reviewer cycle", "reviewer report", "max cycles", "budget exceeded"}[k]
}

// truncMark ends a comment quasar cut at 2000 bytes.
const truncMark = "... [truncated]"

var (
	cycleRE  = regexp.MustCompile(`^\[(coder|reviewer) cycle ([-+]?[0-9]+)\][ \t]*(\r?\n|$)`)
	reportRE = regexp.MustCompile(`^\[reviewer report\][ \t]*(\r?\n|$)`)
	maxRE    = regexp.MustCompile(`^Max cycles reached \(([-+]?[0-9]+)\)`)
	budgetRE = regexp.MustCompile(`^Budget exceeded: \$([0-9]+(?:\.[0-9]+)?) / \$([0-9]+(?:\.[0-9]+)?)`)
)

// classify returns the convention a comment follows and its numbers: the cycle of a
// cycle comment, N of a max-cycles comment, X and Y of a budget comment. bad says why
// the comment's number cannot be read ("" when it can): a cycle or N outside the range
// of a 32-bit integer (the output tables' columns, where it would wrap) or negative, n
// then 0.
func classify(text string) (k kind, n int, x, y float64, bad string) {
	if m := cycleRE.FindStringSubmatch(text); m != nil {
		k = kindReviewer
		if m[1] == "coder" {
			k = kindCoder
		}
		n, bad = count("cycle", m[2])
		return k, n, 0, 0, bad
	}
	if reportRE.MatchString(text) {
		return kindReport, 0, 0, 0, ""
	}
	if m := maxRE.FindStringSubmatch(text); m != nil {
		n, bad = count("max cycles", m[1])
		return kindMaxCycles, n, 0, 0, bad
	}
	if m := budgetRE.FindStringSubmatch(text); m != nil {
		x, _ = strconv.ParseFloat(m[1], 64)
		y, _ = strconv.ParseFloat(m[2], 64)
		return kindBudget, 0, x, y, ""
	}
	return kindOther, 0, 0, 0, ""
}

// count reads the digits of a comment's number, signed or not; a number outside the
// range of a 32-bit integer, or below 0 (a count), is read as 0 and described.
func count(what, digits string) (int, string) {
	n, err := strconv.Atoi(digits)
	switch {
	case err != nil || n > math.MaxInt32 || n < math.MinInt32:
		return 0, fmt.Sprintf("%s %s is outside the range of a 32-bit integer", what, input.Clip(digits))
	case n < 0:
		return 0, fmt.Sprintf("%s %s is negative", what, input.Clip(digits))
	}
	return n, ""
}

// parseReport reads a [reviewer report] comment: `Key: value` lines for Satisfaction,
// Risk, Needs human review (yes/no) and Summary (which runs to the end).
func parseReport(text string) *input.Report {
	rep := &input.Report{Source: "comment"}
	_, body, _ := strings.Cut(text, "\n")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		key, val, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "satisfaction":
			rep.Satisfaction = val
		case "risk":
			rep.Risk = val
		case "needs human review":
			switch strings.ToLower(val) {
			case "yes", "true":
				rep.NeedsHumanReview = new(true)
			case "no", "false":
				rep.NeedsHumanReview = new(false)
			}
		case "summary":
			rep.Summary = strings.TrimSpace(strings.TrimSuffix(strings.Join(append([]string{val}, lines[i+1:]...), "\n"), truncMark))
			return rep
		}
	}
	return rep
}
