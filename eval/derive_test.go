package eval

import "testing"

func TestDeriveQuasar(t *testing.T) {
	tests := []struct {
		outcome string
		cycles  int
		reason  string
		label   Label
		rule    string
		dropped bool // cycles dropped after a gap
	}{
		{"approved", 1, "Approved by reviewer", Negative, RuleApprovedIn1, false},
		{"approved", 2, "", Ambiguous, RuleApprovedIn2, false},
		{"approved", 3, "", Positive, RuleApprovedAfter3Plus, false},
		{"approved", 7, "", Positive, RuleApprovedAfter3Plus, false},
		{"max_cycles", 5, "", Positive, RuleMaxCycles, false},
		{"max_cycles", 1, "", Positive, RuleMaxCycles, false},
		{"budget_exceeded", 1, "", Positive, RuleBudgetExceeded, false},
		{"incomplete", 1, "", Ambiguous, RuleIncompleteAfter1, false},
		{"incomplete", 2, "", Positive, RuleIncompleteAfter2Plus, false},
		{"incomplete", 4, "", Positive, RuleIncompleteAfter2Plus, false},
		{"decomposed", 2, "", Ambiguous, RuleOtherOutcome, false},
		{"error", 1, "", Ambiguous, RuleOtherOutcome, false},
		{"max_cycles", 5, "Blocked by the Claude Code permission bug", Excluded, RuleExcludedPermissionBug, false},
		{"approved", 1, "permission denied on git push", Excluded, RuleExcludedPermissionBug, false},
		{"incomplete", 1, "bug: sandbox permissions", Excluded, RuleExcludedPermissionBug, false},
		{"approved", 1, "Fixed file permissions handling", Negative, RuleApprovedIn1, false},
		// A run whose cycles were dropped after a gap went through more cycles than it
		// holds: the counting rules cannot be read; the others can.
		{"approved", 1, "", Ambiguous, RuleCyclesDropped, true},
		{"incomplete", 2, "", Ambiguous, RuleCyclesDropped, true},
		{"max_cycles", 1, "", Positive, RuleMaxCycles, true},
		{"approved", 1, "permission denied on git push", Excluded, RuleExcludedPermissionBug, true},
	}
	for _, tt := range tests {
		r := DeriveQuasar(QuasarRun{Key: "q#1", Outcome: tt.outcome, Cycles: tt.cycles, CloseReason: tt.reason, CyclesDropped: tt.dropped})
		if r.Label != tt.label || r.Rule != tt.rule || r.Source != SourceDerived || r.Key != "q#1" || r.Outcome != tt.outcome {
			t.Errorf("%s after %d cycles (%q): %+v, want %s by %s", tt.outcome, tt.cycles, tt.reason, r, tt.label, tt.rule)
		}
	}
}
