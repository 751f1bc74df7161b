package eval

import "testing"

func TestDeriveQuasar(t *testing.T) {
	tests := []struct {
		outcome string
		cycles  int
		reason  string
		label   Label
		rule    string
	}{
		{"approved", 1, "Approved by reviewer", Negative, RuleApprovedIn1},
		{"approved", 2, "", Ambiguous, RuleApprovedIn2},
		{"approved", 3, "", Positive, RuleApprovedAfter3Plus},
		{"approved", 7, "", Positive, RuleApprovedAfter3Plus},
		{"max_cycles", 5, "", Positive, RuleMaxCycles},
		{"max_cycles", 1, "", Positive, RuleMaxCycles},
		{"budget_exceeded", 1, "", Positive, RuleBudgetExceeded},
		{"incomplete", 1, "", Ambiguous, RuleIncompleteAfter1},
		{"incomplete", 2, "", Positive, RuleIncompleteAfter2Plus},
		{"incomplete", 4, "", Positive, RuleIncompleteAfter2Plus},
		{"decomposed", 2, "", Ambiguous, RuleOtherOutcome},
		{"error", 1, "", Ambiguous, RuleOtherOutcome},
		{"max_cycles", 5, "Blocked by the Claude Code permission bug", Excluded, RuleExcludedPermissionBug},
		{"approved", 1, "permission denied on git push", Excluded, RuleExcludedPermissionBug},
		{"incomplete", 1, "bug: sandbox permissions", Excluded, RuleExcludedPermissionBug},
		{"approved", 1, "Fixed file permissions handling", Negative, RuleApprovedIn1},
	}
	for _, tt := range tests {
		r := DeriveQuasar(QuasarRun{Key: "q#1", Outcome: tt.outcome, Cycles: tt.cycles, CloseReason: tt.reason})
		if r.Label != tt.label || r.Rule != tt.rule || r.Source != SourceDerived || r.Key != "q#1" || r.Outcome != tt.outcome {
			t.Errorf("%s after %d cycles (%q): %+v, want %s by %s", tt.outcome, tt.cycles, tt.reason, r, tt.label, tt.rule)
		}
	}
}
