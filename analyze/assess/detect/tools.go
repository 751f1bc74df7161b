package detect

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/loopwatch/loopwatch/analyze"
)

// TextMatch is a condition on a text: it holds when every AllOf substring occurs,
// at least one AnyOf substring occurs (when AnyOf is non-empty), and Regexp matches
// (when set). Substrings are matched case-sensitively with [strings.Contains]; a
// TextMatch needs at least one condition.
type TextMatch struct {
	AnyOf  []string `json:"any_of,omitempty"`
	AllOf  []string `json:"all_of,omitempty"`
	Regexp string   `json:"regexp,omitempty"`
}

// CompiledMatch is a compiled [TextMatch]; it is immutable and safe for concurrent use.
type CompiledMatch struct {
	anyOf, allOf []string
	re           *regexp.Regexp
}

// Compile checks and compiles m.
func (m TextMatch) Compile() (*CompiledMatch, error) {
	if len(m.AnyOf) == 0 && len(m.AllOf) == 0 && m.Regexp == "" {
		return nil, errors.New("detect: text match has no condition")
	}
	for _, s := range append(append([]string(nil), m.AnyOf...), m.AllOf...) {
		if s == "" {
			return nil, errors.New("detect: text match has an empty substring")
		}
	}
	c := &CompiledMatch{anyOf: m.AnyOf, allOf: m.AllOf}
	if m.Regexp != "" {
		re, err := regexp.Compile(m.Regexp)
		if err != nil {
			return nil, fmt.Errorf("detect: text match regexp: %w", err)
		}
		c.re = re
	}
	return c, nil
}

// Match reports whether s satisfies the condition. It does not allocate.
func (c *CompiledMatch) Match(s string) bool {
	for _, sub := range c.allOf {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	if len(c.anyOf) > 0 {
		found := false
		for _, sub := range c.anyOf {
			if strings.Contains(s, sub) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return c.re == nil || c.re.MatchString(s)
}

// ToolRule emits Signal when a tool output satisfies its [TextMatch].
type ToolRule struct {
	// Name identifies the rule; it becomes the signal's Source.
	Name string `json:"name"`
	// Signal is the kind emitted: one of BuildFailure, TestFailure, LintError,
	// BuildSuccess, TestSuccess.
	Signal Kind `json:"signal"`
	TextMatch
}

// SeedToolRules returns the seed's literal tool-output rules (detect_tool_signals in
// assessment-logic.md). They are Rust/cargo-centric:
//
//	build failure: "error:" or "FAILED"
//	test failure:  "test result: FAILED" or "failures:"
//	lint error:    "warning:" and "error:"
//	build success: "Finished" and "release"
//	test success:  "test result: ok"
func SeedToolRules() []ToolRule {
	return []ToolRule{
		{Name: "seed.build_failure", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"error:", "FAILED"}}},
		{Name: "seed.test_failure", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"test result: FAILED", "failures:"}}},
		{Name: "seed.lint_error", Signal: LintError, TextMatch: TextMatch{AllOf: []string{"warning:", "error:"}}},
		{Name: "seed.build_success", Signal: BuildSuccess, TextMatch: TextMatch{AllOf: []string{"Finished", "release"}}},
		{Name: "seed.test_success", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"test result: ok"}}},
	}
}

// GoToolRules returns loopwatch's extension rules for the Go toolchain, kept apart from
// [SeedToolRules]:
//
//	test failure:  "--- FAIL:" or "FAIL\t" (go test)
//	test success:  "ok  \t" (go test's per-package pass line)
//	build failure: "go: build failed" or "[build failed]"
//	build failure: a compiler position "file.go:12:3: " (regexp `\.go:\d+:\d+: `)
func GoToolRules() []ToolRule {
	return []ToolRule{
		{Name: "go.test_failure", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"--- FAIL:", "FAIL\t"}}},
		{Name: "go.test_success", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"ok  \t"}}},
		{Name: "go.build_failure", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"go: build failed", "[build failed]"}}},
		{Name: "go.compile_error", Signal: BuildFailure, TextMatch: TextMatch{Regexp: `\.go:\d+:\d+: `}},
	}
}

// ToolClassifier reads tool outputs with compiled [ToolRule]s. It is immutable and
// safe for concurrent use.
type ToolClassifier struct {
	rules []compiledRule
}

type compiledRule struct {
	name   string
	signal Kind
	match  *CompiledMatch
}

// NewToolClassifier compiles rules.
func NewToolClassifier(rules []ToolRule) (*ToolClassifier, error) {
	c := &ToolClassifier{rules: make([]compiledRule, 0, len(rules))}
	for _, r := range rules {
		if !r.Signal.IsToolFailure() && !r.Signal.IsToolSuccess() || r.Signal == ToolFailure {
			return nil, fmt.Errorf("detect: tool rule %q: signal %v is not a build, test or lint signal", r.Name, r.Signal)
		}
		m, err := r.TextMatch.Compile()
		if err != nil {
			return nil, fmt.Errorf("detect: tool rule %q: %w", r.Name, err)
		}
		c.rules = append(c.rules, compiledRule{name: r.Name, signal: r.Signal, match: m})
	}
	return c, nil
}

// Classify appends the signals of one tool output and returns the extended slice.
// The explicit status is authoritative for failure versus not; the textual rules
// classify the failure and detect successes:
//
//   - ToolStatusOK: failure rules are not consulted (a Read of a source file that
//     contains "error:" is not a build failure); success rules apply.
//   - ToolStatusError: success rules are not consulted; failure rules classify the
//     failure; when none of them names a build or test failure, a ToolFailure with
//     Source "is_error" is added, so every flagged error yields a failure signal.
//   - ToolStatusUnknown: every rule applies, as in the seed; if any failure fires,
//     the successes of the same output are dropped (a cargo workspace run that
//     prints both "test result: ok" and "test result: FAILED" failed).
//
// Each kind appears at most once per output (the first rule that fires names it).
func (c *ToolClassifier) Classify(dst []Signal, output string, status analyze.ToolStatus) []Signal {
	start := len(dst)
	var failed bool
	for i := range c.rules {
		r := &c.rules[i]
		fail := r.signal.IsToolFailure()
		if fail && status == analyze.ToolStatusOK || !fail && status == analyze.ToolStatusError {
			continue
		}
		if Has(dst[start:], r.signal) || !r.match.Match(output) {
			continue
		}
		dst = append(dst, Signal{Kind: r.signal, Source: r.name})
		failed = failed || fail
	}
	if status == analyze.ToolStatusError && !Has(dst[start:], BuildFailure) && !Has(dst[start:], TestFailure) {
		dst = append(dst, Signal{Kind: ToolFailure, Source: "is_error"})
	}
	if failed && status == analyze.ToolStatusUnknown {
		kept := dst[:start]
		for _, s := range dst[start:] {
			if !s.Kind.IsToolSuccess() {
				kept = append(kept, s)
			}
		}
		dst = kept
	}
	return dst
}
