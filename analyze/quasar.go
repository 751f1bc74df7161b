package analyze

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Severity is a review finding's severity as the quasar reviewer reports it.
type Severity string

// The severities the quasar reviewer emits. A finding without a SEVERITY line is major.
const (
	SeverityCritical Severity = "critical"
	SeverityMajor    Severity = "major"
	SeverityMinor    Severity = "minor"
)

// FindingStatus is the verification status the reviewer gives a finding in a later cycle.
type FindingStatus string

// The finding statuses quasar records.
const (
	StatusFound        FindingStatus = "found"
	StatusFixed        FindingStatus = "fixed"
	StatusStillPresent FindingStatus = "still_present"
	StatusRegressed    FindingStatus = "regressed"
)

// ReviewFinding is one issue raised by the quasar reviewer.
type ReviewFinding struct {
	ID          string        // FindingID(Severity, Description)
	Severity    Severity      // critical | major | minor
	Description string        // full description as the reviewer wrote it
	Cycle       int           // 1-based cycle in which the reviewer raised it
	Status      FindingStatus // found | fixed | still_present | regressed
}

// FindingID returns quasar's identifier of a finding: "f-" followed by the hex of the
// first 6 bytes of sha256(severity + ":" + trimmed description).
func FindingID(severity Severity, description string) string {
	sum := sha256.Sum256([]byte(string(severity) + ":" + strings.TrimSpace(description)))
	return "f-" + hex.EncodeToString(sum[:6])
}

// CycleState mirrors quasar's per-task loop state (internal/loop/state.go) at the end of
// a cycle, plus the fields the seeds add (FilterHistory, FilterFixAttempts,
// FilterFixCostUSD).
type CycleState struct {
	TaskBeadID   string
	TaskTitle    string
	Phase        string
	Cycle        int     // 1-based number of the current cycle
	MaxCycles    int     // cycle limit of the run
	TotalCostUSD float64 // cumulative cost of coder, reviewer, lint-fix and filter-fix calls
	MaxBudgetUSD float64 // budget limit of the run

	CoderOutput     string
	LintOutput      string
	FilterOutput    string // output of the failing filter check ("" when the chain passed)
	FilterCheckName string // name of the failing filter check ("" when the chain passed)
	ReviewOutput    string

	Findings    []ReviewFinding // findings raised in the current cycle
	AllFindings []ReviewFinding // findings accumulated over the run, including earlier cycles

	// FilterHistory holds one FilterCheckName per completed cycle (index = cycle-1);
	// "" records a cycle whose filter chain passed. See [CycleState.EndCycle].
	FilterHistory []string
	CycleCommits  []string // commit SHAs, one per cycle

	FilterFixAttempts int     // inner fix attempts in the current cycle
	FilterFixCostUSD  float64 // cost of inner fix attempts in the current cycle
}

// EndCycle performs the per-cycle accumulation that quasar's runLoop does at the end of
// each cycle, alongside its CycleCommits accumulation: it appends FilterCheckName to
// FilterHistory and appends the current cycle's Findings to AllFindings.
//
// Call it exactly once per cycle, after the filter chain and the reviewer have run and
// before the cycle's struggle evaluation. Findings whose Cycle is zero are stamped with
// the current cycle as they are accumulated, so a later evaluation can tell prior-cycle
// findings from current ones.
func (s *CycleState) EndCycle() {
	s.FilterHistory = append(s.FilterHistory, s.FilterCheckName)
	for i := range s.Findings {
		if s.Findings[i].Cycle == 0 {
			s.Findings[i].Cycle = s.Cycle
		}
	}
	s.AllFindings = append(s.AllFindings, s.Findings...)
}
