package nebula

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/loopwatch/loopwatch/replay/clockfault"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/join"
)

// The format names of the files this package reads.
const (
	ManifestFormat = "nebula"
	StateFormat    = "nebula-state"
	PhaseFormat    = "nebula-phase"
	ConfigFormat   = "quasar-config"
)

// The file names quasar gives a nebula's manifest and state.
const (
	ManifestName = "nebula.toml"
	StateName    = "nebula.state.toml"
)

// MaxFile is the largest nebula or configuration file read; they are small.
const MaxFile = 16 << 20

// The phase statuses quasar writes.
var statuses = map[string]bool{"pending": true, "created": true, "in_progress": true, "done": true,
	"failed": true, "skipped": true, "decomposed": true}

var (
	yamlRE  = regexp.MustCompile(`(?m)^(max_review_cycles|max_budget_usd|claude_path|beads_path)\s*:`)
	idRE    = regexp.MustCompile(`(?m)^\s*id\s*=`)
	phaseRE = regexp.MustCompile(`^\s*\[\s*(phases|tasks)\.("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*\]\s*(#.*)?$`)
)

// SniffManifest reports whether a file is a nebula manifest: it is named nebula.toml.
// The name is quasar's own, so a file of that name is read as a manifest even when
// its content does not parse: the reader then reports the TOML error with its line,
// instead of the file passing as unrecognised.
func SniffManifest(name string, head []byte) bool {
	return path.Base(name) == ManifestName
}

// SniffState reports whether a file is a nebula state: it is named nebula.state.toml
// (read, like a manifest, whatever its content, so that a broken one is reported).
func SniffState(name string, head []byte) bool {
	return path.Base(name) == StateName
}

// SniffPhase reports whether a file is a nebula phase file: a .md file that opens with
// a +++ line and has an id in its front matter.
func SniffPhase(name string, head []byte) bool {
	if !strings.EqualFold(path.Ext(name), ".md") {
		return false
	}
	front, _, ok := frontMatter(head)
	return ok && idRE.Match(front)
}

// SniffConfig reports whether a file is quasar's global configuration: a .yaml or .yml
// file with a top-level max_review_cycles, max_budget_usd, claude_path or beads_path key.
func SniffConfig(name string, head []byte) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml":
		return yamlRE.Match(head)
	}
	return false
}

// readAll reads a small file whole, without a leading UTF-8 byte order mark, or
// returns a problem.
func readAll(file string, r io.Reader) ([]byte, *input.Problem) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFile+1))
	if err != nil {
		return nil, &input.Problem{File: file, Kind: input.ProblemRead, Detail: fmt.Sprintf("cannot read: %v; skipped", err)}
	}
	if len(b) > MaxFile {
		return nil, &input.Problem{File: file, Kind: input.ProblemOversize,
			Detail: fmt.Sprintf("larger than %d bytes, too large for a nebula file; skipped", MaxFile)}
	}
	return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), nil
}

// tomlProblem turns a TOML decoding error into a problem at its line.
func tomlProblem(file string, err error, what string) input.Problem {
	p := input.Problem{File: file, Kind: input.ProblemMalformed}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		p.Line, _ = de.Position()
	}
	p.Detail = fmt.Sprintf("not valid TOML (%v); %s", firstLine(err.Error()), what)
	return p
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

type manifest struct {
	Nebula struct {
		Name string `toml:"name"`
	} `toml:"nebula"`
	Execution struct {
		MaxReviewCycles int     `toml:"max_review_cycles"`
		MaxBudgetUSD    float64 `toml:"max_budget_usd"`
	} `toml:"execution"`
}

// ReadManifest reads a nebula.toml into jc: the nebula's name and [execution] limits.
func ReadManifest(file string, r io.Reader, jc *join.Context) []input.Problem {
	n := jc.Nebula(path.Dir(file))
	n.Manifest = file
	b, p := readAll(file, r)
	if p != nil {
		return []input.Problem{*p}
	}
	var m manifest
	if err := toml.Unmarshal(b, &m); err != nil {
		return []input.Problem{tomlProblem(file, err, "the nebula's limits are unknown and its runs fall back to quasar's configuration and defaults (fix the file)")}
	}
	var probs []input.Problem
	if name := strings.TrimSpace(m.Nebula.Name); name != "" {
		n.Name = name
	}
	if v, bad := maxReviewCycles(m.Execution.MaxReviewCycles); bad != "" {
		probs = append(probs, input.Problem{File: file, Line: lineOf(b, "max_review_cycles"), Kind: input.ProblemInvalid,
			Detail: bad + " (limits fall back to quasar's configuration and defaults)"})
	} else if v > 0 {
		n.MaxCycles = v
	}
	if v := m.Execution.MaxBudgetUSD; v > 0 && !isInf(v) {
		n.MaxBudgetUSD = v
	} else if v != 0 {
		probs = append(probs, input.Problem{File: file, Line: lineOf(b, "max_budget_usd"), Kind: input.ProblemInvalid,
			Detail: fmt.Sprintf("max_budget_usd %v is not a positive amount; ignored (the budget falls back to quasar's configuration and defaults)", v)})
	}
	return probs
}

func isInf(v float64) bool { return v > 1e300 || v < -1e300 || v != v }

type state struct {
	Version      int                    `toml:"version"`
	NebulaName   string                 `toml:"nebula_name"`
	TotalCostUSD *float64               `toml:"total_cost_usd"`
	Phases       map[string]*phaseState `toml:"phases"`
	Tasks        map[string]*phaseState `toml:"tasks"`
}

type phaseState struct {
	BeadID    string       `toml:"bead_id"`
	Status    string       `toml:"status"`
	CreatedAt any          `toml:"created_at"`
	UpdatedAt any          `toml:"updated_at"`
	Report    *stateReport `toml:"report"`
}

type stateReport struct {
	Satisfaction     string `toml:"satisfaction"`
	Risk             string `toml:"risk"`
	NeedsHumanReview *bool  `toml:"needs_human_review"`
	Summary          string `toml:"summary"`
}

// ReadState reads a nebula.state.toml into jc: the nebula's total cost and its phases
// with their beads, statuses and reports. Legacy files keep their phases under [tasks].
func ReadState(file string, r io.Reader, jc *join.Context) []input.Problem {
	n := jc.Nebula(path.Dir(file))
	n.State = file
	b, p := readAll(file, r)
	if p != nil {
		return []input.Problem{*p}
	}
	var st state
	if err := toml.Unmarshal(b, &st); err != nil {
		return []input.Problem{tomlProblem(file, err, "the nebula's phases and cost are unknown and join no run (fix the file)")}
	}
	var probs []input.Problem
	report := func(line int, kind input.ProblemKind, format string, args ...any) {
		probs = append(probs, input.Problem{File: file, Line: line, Kind: kind, Detail: fmt.Sprintf(format, args...)})
	}
	if n.Name == "" {
		n.Name = strings.TrimSpace(st.NebulaName)
	}
	if c := st.TotalCostUSD; c != nil {
		if *c >= 0 && !isInf(*c) {
			n.TotalCostUSD, n.HasCost = *c, true
		} else {
			report(lineOf(b, "total_cost_usd"), input.ProblemInvalid, "total_cost_usd %v is not a cost; the nebula's cost is unknown", *c)
		}
	}
	phases := st.Phases
	if len(phases) == 0 {
		phases = st.Tasks
	} else if len(st.Tasks) > 0 {
		report(0, input.ProblemInvalid, "has both [phases] and legacy [tasks]; [tasks] ignored, as quasar does")
	}
	lines := phaseLines(b)
	type stamp struct {
		phase *join.Phase
		field string
	}
	var stamps []stamp // the phases' times, for the check of far-off ones
	var times []time.Time
	for id, ps := range phases {
		line := lines[id]
		if ps == nil {
			continue
		}
		ph := &join.Phase{Nebula: n, ID: id, BeadID: strings.TrimSpace(ps.BeadID), Status: strings.TrimSpace(ps.Status), Line: line}
		if ph.BeadID == "" {
			report(line, input.ProblemInvalid, "phase %q has no bead_id: it joins no run", id)
		}
		if !statuses[ph.Status] {
			report(line, input.ProblemInvalid, "phase %q has status %q, not one of pending, created, in_progress, done, failed, skipped, decomposed; kept as written", id, ph.Status)
		}
		var msg string
		if ph.CreatedAt, msg = toTime(ps.CreatedAt); msg != "" {
			report(line, input.ProblemInvalid, "phase %q created_at %s", id, msg)
		}
		if ph.UpdatedAt, msg = toTime(ps.UpdatedAt); msg != "" {
			report(line, input.ProblemInvalid, "phase %q updated_at %s", id, msg)
		}
		if rp := ps.Report; rp != nil {
			ph.Report = &input.Report{Satisfaction: rp.Satisfaction, Risk: rp.Risk, NeedsHumanReview: rp.NeedsHumanReview,
				Summary: rp.Summary, Source: "nebula_state"}
		}
		n.Phases = append(n.Phases, ph)
		stamps = append(stamps, stamp{ph, "created_at"}, stamp{ph, "updated_at"})
		times = append(times, ph.CreatedAt, ph.UpdatedAt)
	}
	for _, j := range clockfault.Far(times) {
		st := stamps[j]
		report(st.phase.Line, input.ProblemInvalid, "phase %q %s %s is more than a year from the median of the nebula's phase times (a clock fault); kept as written: it only tells apart the phases of a reused bead id",
			st.phase.ID, st.field, times[j].Format(time.RFC3339Nano))
	}
	sortProblems(probs)
	return probs
}

// toTime converts a TOML date-time value; it returns a message when the value is not
// one (the zero time then). A value that is Go's zero time, 0001-01-01T00:00:00Z, is
// reported too: the zero time stands for no time in the join, so it is left unknown
// (the phase's time is only used to tell apart the phases of a bead), said rather than
// lost.
func toTime(v any) (time.Time, string) {
	var tt time.Time
	switch t := v.(type) {
	case nil:
		return time.Time{}, ""
	case time.Time:
		tt = t
	case toml.LocalDateTime:
		tt = t.AsTime(time.UTC)
	case string:
		var err error
		if tt, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return time.Time{}, fmt.Sprintf("%v is not a date-time; left unknown", v)
		}
	default:
		return time.Time{}, fmt.Sprintf("%v is not a date-time; left unknown", v)
	}
	if tt.IsZero() {
		desc := tt.Format(time.RFC3339Nano)
		if s, ok := v.(string); ok {
			desc = strconv.Quote(s)
		}
		return time.Time{}, fmt.Sprintf("%s is Go's zero time, 0001-01-01T00:00:00Z, which stands for no time; left unknown", desc)
	}
	return tt.UTC(), ""
}

// phaseLines maps each phase id to the line of its [phases.<id>] or [tasks.<id>] table.
func phaseLines(b []byte) map[string]int {
	lines := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, MaxFile+1)
	for n := 1; sc.Scan(); n++ {
		m := phaseRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		id := strings.Trim(m[2], `"'`)
		if _, seen := lines[id]; !seen {
			lines[id] = n
		}
	}
	return lines
}

// maxReviewCycles checks a max_review_cycles read from a file: the value when it is a
// limit (0: not set), else a problem's detail ending "ignored" — a negative number, or
// one outside the range of the tables' 32-bit integers.
func maxReviewCycles(v int) (int, string) {
	switch {
	case v > math.MaxInt32:
		return 0, fmt.Sprintf("max_review_cycles %d is outside the range of a 32-bit integer; ignored", v)
	case v < 0:
		return 0, fmt.Sprintf("max_review_cycles %d is negative; ignored", v)
	}
	return v, ""
}

// lineOf returns the first line that sets key, or 0.
func lineOf(b []byte, key string) int {
	re := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*[=:]`)
	for i, l := range strings.Split(string(b), "\n") {
		if re.MatchString(l) {
			return i + 1
		}
	}
	return 0
}

// frontMatter returns the TOML between a file's opening +++ line and the next +++ line
// and the line number of that closing line (0 when it is missing); ok reports whether
// the file opens with a +++ line at all.
func frontMatter(b []byte) (front []byte, end int, ok bool) {
	lines := bytes.Split(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), []byte("\n"))
	if len(lines) == 0 || string(bytes.TrimSpace(lines[0])) != "+++" {
		return nil, 0, false
	}
	for j := 1; j < len(lines); j++ {
		if string(bytes.TrimSpace(lines[j])) == "+++" {
			return bytes.Join(lines[1:j], []byte("\n")), j + 1, true
		}
	}
	return bytes.Join(lines[1:], []byte("\n")), 0, true
}

type phaseSpec struct {
	ID              string  `toml:"id"`
	MaxReviewCycles int     `toml:"max_review_cycles"`
	MaxBudgetUSD    float64 `toml:"max_budget_usd"`
}

// ReadPhase reads a nebula phase file's front matter into jc: the phase's own limits.
func ReadPhase(file string, r io.Reader, jc *join.Context) []input.Problem {
	b, p := readAll(file, r)
	if p != nil {
		return []input.Problem{*p}
	}
	front, end, _ := frontMatter(b)
	if end == 0 {
		return []input.Problem{{File: file, Line: 1, Kind: input.ProblemMalformed,
			Detail: "the front matter opened by +++ is never closed by a +++ line; the phase's limits are unknown (close it)"}}
	}
	var s phaseSpec
	if err := toml.Unmarshal(front, &s); err != nil {
		p := tomlProblem(file, err, "the phase's limits are unknown (fix the front matter)")
		if p.Line > 0 {
			p.Line++ // the front matter starts on line 2
		}
		return []input.Problem{p}
	}
	var probs []input.Problem
	if s.ID = strings.TrimSpace(s.ID); s.ID == "" {
		return []input.Problem{{File: file, Line: 1, Kind: input.ProblemInvalid, Detail: "the front matter has no id: the phase joins no run"}}
	}
	spec := join.PhaseSpec{ID: s.ID, File: file}
	if v, bad := maxReviewCycles(s.MaxReviewCycles); bad != "" {
		probs = append(probs, input.Problem{File: file, Line: 1 + lineOf(front, "max_review_cycles"), Kind: input.ProblemInvalid, Detail: bad})
	} else if v > 0 {
		spec.MaxCycles = v
	}
	if s.MaxBudgetUSD > 0 && !isInf(s.MaxBudgetUSD) {
		spec.MaxBudgetUSD = s.MaxBudgetUSD
	} else if s.MaxBudgetUSD != 0 {
		probs = append(probs, input.Problem{File: file, Line: 1 + lineOf(front, "max_budget_usd"), Kind: input.ProblemInvalid,
			Detail: fmt.Sprintf("max_budget_usd %v is not a positive amount; ignored", s.MaxBudgetUSD)})
	}
	if prev := jc.AddPhaseSpec(path.Dir(file), spec); prev != "" {
		probs = append(probs, input.Problem{File: file, Line: 1, Kind: input.ProblemDuplicate,
			Detail: fmt.Sprintf("phase %q is also defined by %s; this file's limits are used (remove one of them)", s.ID, prev)})
	}
	return probs
}

// ReadConfig reads quasar's global configuration into jc: its top-level
// max_review_cycles and max_budget_usd, the step before the built-in defaults in limit
// resolution. Only the first configuration file of an input is used.
func ReadConfig(file string, r io.Reader, jc *join.Context) []input.Problem {
	b, p := readAll(file, r)
	if p != nil {
		return []input.Problem{*p}
	}
	cfg := join.Config{File: file}
	var probs []input.Problem
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, MaxFile+1)
	for n := 1; sc.Scan(); n++ {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || key != strings.TrimSpace(key) {
			continue // not a top-level key
		}
		if i := strings.Index(val, " #"); i >= 0 {
			val = val[:i]
		}
		val = strings.Trim(strings.TrimSpace(val), `"'`)
		switch key {
		case "max_review_cycles":
			v, err := strconv.Atoi(val)
			if errors.Is(err, strconv.ErrRange) || v > math.MaxInt32 {
				probs = append(probs, input.Problem{File: file, Line: n, Kind: input.ProblemInvalid,
					Detail: fmt.Sprintf("max_review_cycles %s is outside the range of a 32-bit integer; ignored", input.Clip(val))})
				continue
			}
			if err != nil || v <= 0 {
				probs = append(probs, input.Problem{File: file, Line: n, Kind: input.ProblemInvalid,
					Detail: fmt.Sprintf("max_review_cycles %q is not a positive whole number; ignored", val)})
				continue
			}
			cfg.MaxCycles = v
		case "max_budget_usd":
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || !(v > 0) || isInf(v) {
				probs = append(probs, input.Problem{File: file, Line: n, Kind: input.ProblemInvalid,
					Detail: fmt.Sprintf("max_budget_usd %q is not a positive amount; ignored", val)})
				continue
			}
			cfg.MaxBudgetUSD = v
		}
	}
	if !jc.SetConfig(cfg) {
		probs = append(probs, input.Problem{File: file, Kind: input.ProblemDuplicate,
			Detail: fmt.Sprintf("a quasar configuration was already read from %s; this one is ignored (replay one configuration at a time)", jc.Config().File)})
	}
	return probs
}

func sortProblems(p []input.Problem) {
	slices.SortStableFunc(p, func(a, b input.Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Detail, b.Detail))
	})
}
