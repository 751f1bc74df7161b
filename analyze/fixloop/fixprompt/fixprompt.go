package fixprompt

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze/fixloop/checkparse"
)

// Size limits of the prompt.
const (
	DefaultMaxErrorBytes = 6000 // default cap of the error section
	DefaultMaxRawBytes   = 2000 // default tail kept of unparsed output
	MinErrorBytes        = 256  // smaller caps are raised to this
	maxTitleBytes        = 200
	maxMessageBytes      = 500
)

// Input is what a fix prompt is built from.
type Input struct {
	BeadID      string                 // task bead, e.g. "quasar-4f2a"
	Title       string                 // task title; only its first line is used
	Parsed      checkparse.ParseResult // the failing check's parsed output (names the check)
	Tools       []string               // tools the coder may use, listed verbatim
	BudgetUSD   float64                // spend hint; 0 leaves the hint out
	Attempt     int                    // 1-based fix attempt; 0 leaves attempts out
	MaxAttempts int                    // attempts allowed, shown with Attempt
}

// Builder builds fix prompts with configurable size caps. The zero value uses the
// defaults.
type Builder struct {
	MaxErrorBytes int // cap of the error section; 0 means DefaultMaxErrorBytes
	MaxRawBytes   int // tail of unparsed output kept; 0 means DefaultMaxRawBytes
}

// Build builds a prompt with the default caps.
func Build(in Input) string { return Builder{}.Build(in) }

// Build builds the fix prompt for in.
func (b Builder) Build(in Input) string {
	check := in.Parsed.CheckName
	var section string
	if len(in.Parsed.Errors) > 0 {
		section, _ = b.Errors(in.Parsed.Errors)
	} else {
		section = b.Raw(check, in.Parsed.RawOutput)
	}
	var sb strings.Builder
	sb.Grow(768 + len(in.BeadID) + len(in.Title) + 3*len(check) + len(section) + 8*len(in.Tools))

	sb.WriteString("Task (bead ")
	sb.WriteString(in.BeadID)
	sb.WriteString("): ")
	sb.WriteString(firstLine(in.Title, maxTitleBytes))
	sb.WriteString("\nFix the failing ")
	sb.WriteString(check)
	sb.WriteString(" check")
	if in.Attempt > 0 {
		sb.WriteString(" (fix attempt ")
		sb.WriteString(strconv.Itoa(in.Attempt))
		if in.MaxAttempts > 0 {
			sb.WriteString(" of ")
			sb.WriteString(strconv.Itoa(in.MaxAttempts))
		}
		sb.WriteString(")")
	}
	sb.WriteString(".\n\nYour change fails the ")
	sb.WriteString(check)
	sb.WriteString(" filter check. Fix ONLY the errors listed below.\n")
	sb.WriteString("Do not refactor, do not add features, do not change anything unrelated to these errors.\n\n")

	sb.WriteString(section)

	sb.WriteString("\n")
	if len(in.Tools) > 0 {
		sb.WriteString("Tools you can use: ")
		sb.WriteString(strings.Join(in.Tools, ", "))
		sb.WriteString(". ")
	}
	sb.WriteString("You have no shell: you cannot run the build, vet, linters or tests yourself; the ")
	sb.WriteString(check)
	sb.WriteString(" check is re-run automatically when you stop.\n")
	sb.WriteString("Read each affected file, make the smallest change that fixes each listed error, and stop.\n")
	if in.BudgetUSD > 0 {
		sb.WriteString("This is a targeted fix pass: keep your spend under $")
		sb.WriteString(dollars(in.BudgetUSD))
		sb.WriteString(".\n")
	}
	return sb.String()
}

func (b Builder) errorCap() int {
	c := b.MaxErrorBytes
	if c == 0 {
		c = DefaultMaxErrorBytes
	}
	return max(c, MinErrorBytes)
}

type group struct {
	header string
	first  int // index of its first error in the input
	errs   []checkparse.Diagnostic
}

// Errors renders the error section for errs — `ERRORS (N in M files):`, the groups,
// and `… K more errors omitted` when not all fit — in at most MaxErrorBytes bytes
// (never less than MinErrorBytes). It returns the section and the number of errors
// left out.
func (b Builder) Errors(errs []checkparse.Diagnostic) (section string, omitted int) {
	limit := b.errorCap()
	groups := groupByFile(errs)
	msgCap := min(maxMessageBytes, limit/4)

	size := 64
	for _, g := range groups {
		size += len(g.header)
		for _, d := range g.errs {
			size += 24 + min(len(d.Test), maxTestBytes) + min(len(d.Message), msgCap) + len(d.Linter)
		}
	}
	var sb strings.Builder
	sb.Grow(min(size, limit))
	sb.WriteString("ERRORS (")
	sb.WriteString(plural(len(errs), "error"))
	sb.WriteString(" in ")
	sb.WriteString(plural(len(groups), "file"))
	sb.WriteString("):\n")
	// Room kept for the omission line, sized for the largest count it could show.
	reserve := len(omittedLine(len(errs)))

	shown := 0
	var line []byte
	for _, g := range groups {
		for j, d := range g.errs {
			line = appendError(line[:0], d, msgCap)
			need := len(line)
			if j == 0 {
				need += len(g.header)
			}
			if shown+1 < len(errs) {
				need += reserve
			}
			if sb.Len()+need > limit {
				omitted = len(errs) - shown
				sb.WriteString(omittedLine(omitted))
				return sb.String(), omitted
			}
			if j == 0 {
				sb.WriteString(g.header)
			}
			sb.Write(line)
			shown++
		}
	}
	return sb.String(), 0
}

func omittedLine(n int) string {
	if n == 1 {
		return "… 1 more error omitted\n"
	}
	return "… " + strconv.Itoa(n) + " more errors omitted\n"
}

// groupByFile groups errors by file (and package, for bare file names such as go
// test's), orders groups by size, then first appearance, and errors by line.
func groupByFile(errs []checkparse.Diagnostic) []group {
	type fileKey struct{ file, pkg string }
	keyOf := func(d checkparse.Diagnostic) fileKey {
		if strings.ContainsAny(d.File, `/\`) {
			return fileKey{file: d.File}
		}
		return fileKey{d.File, d.Package}
	}
	var groups []group
	var index map[fileKey]int // built once there are many files; a scan is cheaper before
	for i, d := range errs {
		gi := -1
		if index != nil {
			if j, ok := index[keyOf(d)]; ok {
				gi = j
			}
		} else {
			gi = slices.IndexFunc(groups, func(g group) bool { return keyOf(g.errs[0]) == keyOf(d) })
		}
		if gi < 0 {
			gi = len(groups)
			groups = append(groups, group{first: i})
			if index != nil {
				index[keyOf(d)] = gi
			} else if len(groups) > 16 {
				index = make(map[fileKey]int, 2*len(groups))
				for j := range groups[:gi] {
					index[keyOf(groups[j].errs[0])] = j
				}
				index[keyOf(d)] = gi
			}
		}
		groups[gi].errs = append(groups[gi].errs, d)
	}
	for i := range groups {
		g := &groups[i]
		slices.SortStableFunc(g.errs, func(a, b checkparse.Diagnostic) int { return cmp.Compare(a.Line, b.Line) })
		d := g.errs[0]
		name := d.File
		if name == "" {
			name = "(no file)"
		}
		if d.Package != "" && !strings.ContainsAny(d.File, `/\`) && d.File != "" {
			name += " in package " + d.Package
		}
		g.header = name + " (" + plural(len(g.errs), "error") + "):\n"
	}
	slices.SortStableFunc(groups, func(a, b group) int {
		if c := cmp.Compare(len(b.errs), len(a.errs)); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	return groups
}

// appendError renders one error line: `  12:5: [TestX] message (linter)`, with
// further message lines indented.
func appendError(dst []byte, d checkparse.Diagnostic, msgCap int) []byte {
	dst = append(dst, "  "...)
	switch {
	case d.Line > 0:
		dst = strconv.AppendInt(dst, int64(d.Line), 10)
		if d.Column > 0 {
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(d.Column), 10)
		}
	default:
		dst = append(dst, '-')
	}
	dst = append(dst, ": "...)
	if d.Test != "" {
		dst = append(dst, '[')
		dst = append(dst, cut(d.Test, maxTestBytes)...) // a table test's name can run to pages
		dst = append(dst, "] "...)
	}
	msg := cut(d.Message, msgCap)
	for {
		l, rest, more := strings.Cut(msg, "\n")
		dst = append(dst, l...)
		if !more {
			break
		}
		dst = append(dst, "\n      "...)
		msg = rest
	}
	if d.Linter != "" {
		dst = append(dst, " ("...)
		dst = append(dst, d.Linter...)
		dst = append(dst, ')')
	}
	return append(dst, '\n')
}

// Raw renders the fallback section for output that parsed into no errors: the last
// MaxRawBytes bytes of it, starting at a line boundary when one lies within the first
// fifth of the kept part.
func (b Builder) Raw(check, raw string) string {
	limit := b.MaxRawBytes
	if limit <= 0 {
		limit = DefaultMaxRawBytes
	}
	raw = strings.TrimRight(raw, " \t\r\n")
	if raw == "" {
		return "The " + check + " check failed without printing anything.\n"
	}
	intro := "The " + check + " check's output could not be parsed into errors. RAW OUTPUT:\n"
	if len(raw) <= limit {
		return intro + raw + "\n"
	}
	start := len(raw) - limit
	for start < len(raw) && !utf8.RuneStart(raw[start]) {
		start++
	}
	if nl := strings.IndexByte(raw[start:], '\n'); raw[start-1] != '\n' && nl >= 0 && nl < limit/5 {
		start += nl + 1
	}
	return "The " + check + " check's output could not be parsed into errors. RAW OUTPUT (last " +
		strconv.Itoa(len(raw)-start) + " of " + strconv.Itoa(len(raw)) + " bytes):\n" + raw[start:] + "\n"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// firstLine returns the first non-blank line of s, trimmed and cut to n bytes.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return cut(s, n)
}

// maxTestBytes bounds a test's name in an error line: the name of a subtest built from
// its table's inputs can be longer than the whole error section.
const maxTestBytes = 200

// cut shortens s to at most n bytes on a rune boundary, marking the cut with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…"
	k := max(n-len(ellipsis), 0)
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + ellipsis
}

// dollars formats an amount with two to four decimals: 0.1 → "0.10", 0.125 → "0.125".
func dollars(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	for strings.HasSuffix(s, "0") && len(s)-strings.IndexByte(s, '.') > 3 {
		s = s[:len(s)-1]
	}
	return s
}
