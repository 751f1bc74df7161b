package htmlreport

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch"
)

// MaxProblemRows bounds the problems listed one by one; all of them are counted by
// kind.
const MaxProblemRows = 200

// Render writes the report as one self-contained HTML file: inline CSS and SVG, no
// script, no font, image or style sheet from anywhere else (its Content-Security-
// Policy forbids them), readable in any browser without JavaScript. The same data
// gives the same bytes.
func Render(w io.Writer, d *Data) error {
	if d == nil {
		d = &Data{}
	}
	p := &page{}
	p.document(d)
	_, err := io.WriteString(w, p.b.String())
	return err
}

type page struct {
	b strings.Builder
}

func (p *page) printf(format string, args ...any) { fmt.Fprintf(&p.b, format, args...) }

// section is one part of the report, in page order.
type section struct {
	id, title string
	empty     bool
	none      string // the note when empty
	render    func(p *page)
}

func sections(d *Data) []section {
	return []section{
		{"summary", "Summary", len(d.Tables) == 0, "No metrics in this report.", func(p *page) { p.tables(d.Tables) }},
		{"curves", "Precision–recall and ROC curves", len(d.Curves) == 0, "No curves: no detector's ranking was scored against labels.", func(p *page) { p.curves(d.Curves) }},
		{"sweeps", "Threshold sweeps", len(d.Sweeps) == 0, "No sweeps in this report.", func(p *page) { p.sweeps(d.Sweeps) }},
		{"lead", "Lead times", len(d.LeadTimes) == 0, "No lead times: no detection to measure.", func(p *page) { p.histograms(d.LeadTimes) }},
		{"runs", "Struggle score trajectories", len(d.Runs) == 0, "No run trajectories in this report.", func(p *page) { p.runs(d.Runs) }},
		{"sessions", "Frustration trajectories", len(d.Sessions) == 0, "No session trajectories in this report.", func(p *page) { p.sessions(d.Sessions) }},
		{"problems", "Problems", len(d.Problems) == 0 && d.ProblemsTotal == 0, "No problems in the input.", func(p *page) { p.problems(d) }},
		{"notes", "Notes", len(d.Notes) == 0, "No notes.", func(p *page) { p.list("notes", d.Notes) }},
	}
}

func (p *page) document(d *Data) {
	title := d.Title
	if title == "" {
		title = "loopwatch report"
	}
	p.printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	p.printf("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n")
	p.printf("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	p.printf("<meta name=\"generator\" content=\"loopwatch %s\"/>\n", esc(loopwatch.Version))
	p.printf("<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>%s</h1>\n", esc(title), css(), esc(title))
	if len(d.Facts) > 0 {
		p.printf("<dl class=\"facts\">\n")
		for _, f := range d.Facts {
			p.printf("<dt>%s</dt><dd>%s</dd>\n", esc(f.Name), esc(f.Value))
		}
		p.printf("</dl>\n")
	}
	secs := sections(d)
	p.printf("<nav>")
	for i, s := range secs {
		if i > 0 {
			p.printf(" · ")
		}
		p.printf("<a href=\"#%s\">%s</a>", s.id, esc(s.title))
	}
	p.printf("</nav>\n</header>\n<main>\n")
	for _, s := range secs {
		p.printf("<section id=\"%s\">\n<h2>%s</h2>\n", s.id, esc(s.title))
		if s.empty {
			p.printf("<p class=\"none\">%s</p>\n", esc(s.none))
		} else {
			s.render(p)
		}
		p.printf("</section>\n")
	}
	p.printf("</main>\n<footer>loopwatch %s · a self-contained file: no script, no network</footer>\n</body>\n</html>\n", esc(loopwatch.Version))
}

func (p *page) tables(ts []Table) {
	for _, t := range ts {
		p.printf("<div class=\"block\">\n")
		if t.Title != "" {
			p.printf("<h3>%s</h3>\n", esc(t.Title))
		}
		cols := len(t.Columns)
		for _, r := range t.Rows {
			cols = max(cols, len(r.Cells))
		}
		if len(t.Rows) == 0 {
			p.printf("<p class=\"none\">No rows.</p>\n")
		} else {
			p.printf("<div class=\"scroll\"><table>\n<thead><tr>")
			for i := range cols {
				p.printf("<th>%s</th>", esc(at(t.Columns, i)))
			}
			p.printf("</tr></thead>\n<tbody>\n")
			for _, r := range t.Rows {
				if r.Status != "" {
					p.printf("<tr class=\"%s\">", statusClass(r.Status))
				} else {
					p.printf("<tr>")
				}
				for i := range cols {
					c := at(r.Cells, i)
					if numeric(c) {
						p.printf("<td class=\"num\">%s</td>", esc(c))
					} else {
						p.printf("<td>%s</td>", esc(c))
					}
				}
				p.printf("</tr>\n")
			}
			p.printf("</tbody>\n</table></div>\n")
		}
		p.list("tnotes", t.Notes)
		p.printf("</div>\n")
	}
}

// statusClass maps a status to its CSS class; an unknown status is plain.
func statusClass(s Status) string {
	switch s {
	case StatusOK, StatusWarn, StatusBad:
		return string(s)
	}
	return "plain"
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// numeric reports whether a cell reads as a number ("0.833 [0.50, 1.00]", "$1.74",
// "−0.05", "—"), to right-align it.
func numeric(s string) bool {
	if s == "—" {
		return true
	}
	s = strings.TrimLeft(s, "+-−$")
	r, _ := utf8.DecodeRuneInString(s)
	return r >= '0' && r <= '9'
}

func (p *page) list(class string, items []string) {
	if len(items) == 0 {
		return
	}
	p.printf("<ul class=\"%s\">\n", class)
	for _, s := range items {
		p.printf("<li>%s</li>\n", esc(s))
	}
	p.printf("</ul>\n")
}

func (p *page) note(s string) {
	if s != "" {
		p.printf("<p class=\"note\">%s</p>\n", esc(s))
	}
}

func (p *page) problems(d *Data) {
	total := max(d.ProblemsTotal, len(d.Problems))
	type kindCount struct {
		kind string
		n    int
	}
	var counts []kindCount
	for _, pr := range d.Problems {
		i := slices.IndexFunc(counts, func(k kindCount) bool { return k.kind == string(pr.Kind) })
		if i < 0 {
			counts = append(counts, kindCount{string(pr.Kind), 0})
			i = len(counts) - 1
		}
		counts[i].n++
	}
	slices.SortFunc(counts, func(a, b kindCount) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.kind, b.kind))
	})
	listed := min(len(d.Problems), MaxProblemRows)
	p.printf("<p>%d problem%s in the input", total, plural(total))
	switch {
	case listed == 0:
		p.printf("; none is listed here, all are in the problems table")
	case listed < total:
		p.printf("; the first %d are listed here, all are in the problems table", listed)
	}
	p.printf(". Each was counted and the rest of its file read on.</p>\n")
	if len(counts) > 0 {
		p.printf("<p class=\"kinds\">By kind")
		if len(d.Problems) < total {
			p.printf(" (of the first %d)", len(d.Problems))
		}
		p.printf(": ")
		for i, k := range counts {
			if i > 0 {
				p.printf(" · ")
			}
			p.printf("<b>%s</b> %d", esc(k.kind), k.n)
		}
		p.printf("</p>\n")
	}
	if len(d.Problems) == 0 {
		return
	}
	p.printf("<div class=\"scroll\"><table class=\"problems\">\n<thead><tr><th>file</th><th>line</th><th>kind</th><th>detail</th></tr></thead>\n<tbody>\n")
	for i, pr := range d.Problems {
		if i == MaxProblemRows {
			break
		}
		line := ""
		if pr.Line > 0 {
			line = fmt.Sprint(pr.Line)
		}
		p.printf("<tr><td class=\"file\">%s</td><td class=\"num\">%s</td><td>%s</td><td>%s</td></tr>\n",
			esc(pr.File), line, esc(string(pr.Kind)), esc(pr.Detail))
	}
	p.printf("</tbody>\n</table></div>\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// clean makes text safe to show: invalid UTF-8, control characters (but tab and
// newlines) and the bidirectional overrides that could reorder what a reader sees
// become U+FFFD.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case unicode.IsControl(r), r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0xFFFE, r == 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}

// esc is clean, then HTML-escaped for text and quoted attribute values.
func esc(s string) string { return html.EscapeString(clean(s)) }

func css() string {
	var b strings.Builder
	b.WriteString(`
*{box-sizing:border-box}
body{margin:0;background:#fff;color:#1f2328;font:14px/1.45 "DejaVu Sans","Liberation Sans",Arial,Helvetica,sans-serif}
header{padding:18px 28px 10px;border-bottom:1px solid #d0d7de;background:#f6f8fa}
h1{font-size:22px;margin:0 0 8px}
h2{font-size:18px;margin:26px 0 10px;padding-bottom:4px;border-bottom:1px solid #d8dee4}
h3{font-size:15px;margin:16px 0 6px}
main{padding:0 28px 28px;max-width:1240px}
nav{margin-top:10px;font-size:13px}
nav a{color:#0550ae;text-decoration:none}
footer{padding:10px 28px;color:#57606a;font-size:12px;border-top:1px solid #d0d7de}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:0;font-size:13px}
dl.facts dt{color:#57606a}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:13px;margin:4px 0}
th,td{padding:3px 7px;border-bottom:1px solid #e4e7eb;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600;white-space:nowrap}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.file{overflow-wrap:anywhere;max-width:360px}
tr.ok td{background:#e9f7ef}
tr.warn td{background:#fff6dc}
tr.bad td{background:#fde8e6;font-weight:600}
.none{color:#57606a;font-style:italic}
.note,.tnotes{color:#444c56;font-size:13px}
.charts{display:flex;flex-wrap:wrap;gap:14px 22px;align-items:flex-start}
figure{margin:6px 0}
figcaption{font-size:13px;color:#24292f;margin-top:2px;overflow-wrap:anywhere}
figcaption b{font-weight:600}
svg.chart{max-width:100%;height:auto;display:block}
.plot{fill:#fff;stroke:#8c959f;stroke-width:1}
.grid{stroke:#eaeef2;stroke-width:1}
.tick{font-size:11px;fill:#57606a}
.axis{font-size:12px;fill:#24292f}
.ref{font-size:11px;fill:#57606a}
.line{fill:none;stroke-width:2.2;stroke-linejoin:round;stroke-linecap:round}
.dash{stroke-dasharray:7 4}
.refline{stroke:#8c959f;stroke-width:1.2;stroke-dasharray:4 4}
.threshold{stroke:#a40e26;stroke-width:1.4;stroke-dasharray:6 4}
.mark{stroke:#24292f;stroke-width:1.2;stroke-dasharray:2 3}
.pt{stroke:#fff;stroke-width:1}
.op{stroke:#24292f;stroke-width:1.2}
.op.ring{fill:#fff;stroke-width:2.6}
.trig{fill:#a40e26;stroke:#fff;stroke-width:1}
.bar{fill:#0072B2;fill-opacity:.85;stroke:#fff;stroke-width:1}
.iv{stroke:#D55E00;stroke-width:1.6}
.ivmark{fill:#D55E00}
.fline{stroke:#009E73;stroke-width:1.2;stroke-opacity:.55}
.friction{fill:#009E73}
ul.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:4px 18px;font-size:13px}
ul.legend li{display:flex;align-items:center;gap:6px}
ul.legend .stat{color:#57606a}
.kinds{font-size:13px}
.block{margin-bottom:10px}
`)
	for i, c := range palette {
		fmt.Fprintf(&b, ".s%d{stroke:%s}.f%d{fill:%s}\n", i, c, i, c)
	}
	return b.String()
}
