package eval

import "regexp"

// The rules of derived quasar labels, as stable names: each derived label says which
// rule produced it (LabelRecord.Rule, the label_rule column). The positive class is
// "struggled".
const (
	RuleExcludedPermissionBug = "excluded_permission_bug"     // excluded: closed for a permission bug (infrastructure, not code)
	RuleMaxCycles             = "max_cycles_reached"          // positive: hit its cycle limit
	RuleBudgetExceeded        = "budget_exceeded"             // positive: hit its budget
	RuleApprovedAfter3Plus    = "approved_after_3plus_cycles" // positive: approved only after ≥ 3 cycles
	RuleIncompleteAfter2Plus  = "incomplete_after_2plus_cycles"
	RuleApprovedIn1           = "approved_in_1_cycle"      // negative
	RuleApprovedIn2           = "approved_in_2_cycles"     // ambiguous
	RuleIncompleteAfter1      = "incomplete_after_1_cycle" // ambiguous
	RuleOtherOutcome          = "other_outcome"            // ambiguous: decomposed, error or unknown outcomes
	RuleCyclesDropped         = "cycles_dropped"           // ambiguous: approved or incomplete, but its cycles are not all known
)

// QuasarRun is what deriving a label needs to know about one quasar run: plain values,
// so that eval does not depend on how runs were read.
type QuasarRun struct {
	Key         string
	Outcome     string // approved | max_cycles | budget_exceeded | decomposed | error | incomplete
	Cycles      int    // cycles the run went through
	CloseReason string // the task's close reason, if any
	// CyclesDropped: the source's cycles skip a number and the rest were dropped, so
	// Cycles counts fewer cycles than the run went through.
	CyclesDropped bool
}

// permissionBugRE matches a close reason that blames a permission bug: "permission"
// with "bug", "blocked" or "denied" nearby (either order), case-insensitive.
var permissionBugRE = regexp.MustCompile(`(?i)permission.{0,40}\b(bug|blocked|denied)|\b(bug|blocked|denied)\b.{0,40}permission`)

// MentionsPermissionBug reports whether a close reason says the task was stopped by a
// permission bug.
func MentionsPermissionBug(reason string) bool { return permissionBugRE.MatchString(reason) }

// DeriveQuasar derives a label for a quasar run from its recorded outcome (the rules of
// formats/quasar.md), with the positive class "struggled":
//
//	excluded   closed with a reason mentioning a permission bug  (excluded_permission_bug)
//	positive   max cycles reached                                (max_cycles_reached)
//	positive   budget exceeded                                   (budget_exceeded)
//	positive   approved only after ≥ 3 cycles                    (approved_after_3plus_cycles)
//	positive   left incomplete after ≥ 2 cycles                  (incomplete_after_2plus_cycles)
//	negative   approved in 1 cycle                               (approved_in_1_cycle)
//	ambiguous  approved in 2 cycles                              (approved_in_2_cycles)
//	ambiguous  left incomplete after 1 cycle                     (incomplete_after_1_cycle)
//	ambiguous  approved or left incomplete, with cycles dropped  (cycles_dropped)
//	ambiguous  any other outcome (decomposed, error, …)          (other_outcome)
//
// A run whose cycles were dropped after a gap in their numbering (CyclesDropped) went
// through more cycles than it holds: the rules that count cycles cannot be read.
// The exclusion is checked first. The record says Source derived, the rule and the
// outcome.
func DeriveQuasar(r QuasarRun) LabelRecord {
	rec := LabelRecord{Key: r.Key, Outcome: r.Outcome, Source: SourceDerived}
	set := func(l Label, rule string) LabelRecord {
		rec.Label, rec.Rule = l, rule
		return rec
	}
	switch {
	case MentionsPermissionBug(r.CloseReason):
		return set(Excluded, RuleExcludedPermissionBug)
	case r.Outcome == "max_cycles":
		return set(Positive, RuleMaxCycles)
	case r.Outcome == "budget_exceeded":
		return set(Positive, RuleBudgetExceeded)
	case r.CyclesDropped && (r.Outcome == "approved" || r.Outcome == "incomplete"):
		// How many cycles it took is what these rules read, and it is not known.
		return set(Ambiguous, RuleCyclesDropped)
	case r.Outcome == "approved" && r.Cycles >= 3:
		return set(Positive, RuleApprovedAfter3Plus)
	case r.Outcome == "approved" && r.Cycles == 2:
		return set(Ambiguous, RuleApprovedIn2)
	case r.Outcome == "approved" && r.Cycles == 1:
		return set(Negative, RuleApprovedIn1)
	case r.Outcome == "incomplete" && r.Cycles >= 2:
		return set(Positive, RuleIncompleteAfter2Plus)
	case r.Outcome == "incomplete" && r.Cycles == 1:
		return set(Ambiguous, RuleIncompleteAfter1)
	}
	return set(Ambiguous, RuleOtherOutcome)
}
