package detect

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

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

// CompiledMatch is a compiled [TextMatch]; it is safe for concurrent use. Its
// pattern's automaton is built once, on first use, or, for a [ToolClassifier]'s
// rules, when the classifier is made.
type CompiledMatch struct {
	anyOf, allOf []string
	re           *regexp.Regexp
	lines        *lineStarts // re, tried at the line starts it can match at only (nil: everywhere)
	// need are literal sets derived from re (see requiredSets): every match of re
	// holds a literal of each, so re is not run on a text that lacks one. Sets that
	// anyOf or allOf already imply, and sets with a one-byte literal, are left out.
	need [][]string
	// auto is re's automaton (see matcher), built once (prepare); nil beyond its
	// bounds.
	auto     *matcher
	autoOnce sync.Once
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
		c.re, c.lines = re, newLineStarts(m.Regexp)
		for _, set := range requiredSets(m.Regexp, true) {
			if minLen(set) >= 2 && !c.implies(set) { // a single byte is in most outputs
				c.need = append(c.need, set)
			}
		}
	}
	return c, nil
}

// implies reports whether a text that meets anyOf and allOf holds one of set's
// literals: an allOf literal, or every anyOf literal, contains one.
func (c *CompiledMatch) implies(set []string) bool {
	holds := func(s string) bool {
		return slices.ContainsFunc(set, func(l string) bool { return strings.Contains(s, l) })
	}
	return slices.ContainsFunc(c.allOf, holds) || len(c.anyOf) > 0 && !slices.ContainsFunc(c.anyOf, func(s string) bool { return !holds(s) })
}

// Match reports whether s satisfies the condition. It does not allocate.
func (c *CompiledMatch) Match(s string) bool {
	return literalsHold(c.allOf, c.anyOf, c.need, func(l string) bool { return strings.Contains(s, l) }) && c.matchPattern(s)
}

// literalsHold reports whether every allOf literal, one of anyOf (when there are
// any) and one of each need set are present.
func literalsHold[L any](allOf, anyOf []L, need [][]L, present func(L) bool) bool {
	for _, l := range allOf {
		if !present(l) {
			return false
		}
	}
	if len(anyOf) > 0 && !slices.ContainsFunc(anyOf, present) {
		return false
	}
	for _, set := range need {
		if !slices.ContainsFunc(set, present) {
			return false
		}
	}
	return true
}

// prepare builds the pattern's automaton, once.
func (c *CompiledMatch) prepare() {
	if c.re != nil {
		c.autoOnce.Do(func() { c.auto = newMatcher(c.re.String()) })
	}
}

// matchPattern reports whether the regexp, if any, matches s: by its automaton, or,
// when it has none, from its line starts or by regexp.
func (c *CompiledMatch) matchPattern(s string) bool {
	if c.re == nil {
		return true
	}
	c.prepare()
	switch {
	case c.auto != nil:
		return c.auto.match(s)
	case c.lines != nil:
		return c.lines.match(s)
	}
	return c.re.MatchString(s)
}

// ToolRule emits Signal when a tool output satisfies its [TextMatch].
type ToolRule struct {
	// Name identifies the rule; it becomes the signal's Source.
	Name string `json:"name"`
	// Toolchain names the toolchain the rule reads ("go", "cargo", "node"); with the
	// signal's step it makes the signal's Target when no command is known ("go
	// test"). Empty for the seed's rules.
	Toolchain string `json:"toolchain,omitempty"`
	// Signal is the kind emitted: one of BuildFailure, TestFailure, LintError,
	// BuildSuccess, TestSuccess, LintSuccess, ToolRejected.
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
//	build failure: "go: build failed", "[build failed]" or "[setup failed]"
//	build failure: a compiler position "file.go:12:3: " (regexp `\.go:\d+:\d+: `)
func GoToolRules() []ToolRule {
	return []ToolRule{
		{Name: "go.test_failure", Toolchain: "go", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"--- FAIL:", "FAIL\t"}}},
		{Name: "go.test_success", Toolchain: "go", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"ok  \t"}}},
		{Name: "go.build_failure", Toolchain: "go", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"go: build failed", "[build failed]", "[setup failed]"}}},
		// A compiler's error, not golangci-lint's issue in the same form, which ends
		// with its linter's name: "x.go:12:2: ineffectual assignment to err (ineffassign)".
		{Name: "go.compile_error", Toolchain: "go", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{".go:"},
			Regexp: `(?m)\.go:\d+:\d+: [^\n]*(?:[^)\n]|\([^()\n]*[^\w()\n-][^()\n]*\))$`}},
	}
}

// ToolConfig says how tool results are read beyond the text rules. [SeedToolConfig]
// is the seed's literal reading (every rule over the output text, nothing else);
// [DefaultToolConfig] is loopwatch's.
type ToolConfig struct {
	// StatusRules makes the source's explicit status authoritative for failure versus
	// not (see [ToolClassifier.Classify]): ok silences the failure rules, error the
	// success rules, and an error no rule classified is a ToolFailure. Seed: false
	// (the seed reads the text alone). Default true.
	StatusRules bool `json:"status_rules"`
	// FailureDropsSuccess drops the successes of an output whose status is unknown
	// when a failure rule fires on it (a cargo workspace run printing both "test
	// result: ok" and "test result: FAILED" failed). Seed: false. Default true.
	FailureDropsSuccess bool `json:"failure_drops_success"`
	// Commands reads the command a shell tool ran and its exit code
	// (analyze.Event.ToolCommand, ExitCode) with CommandRules: a build, test or lint
	// command's failure or success is read from its exit status (the text rules say
	// which kind when a line runs several) and targets that command, so a success
	// ends the failure streak of the same kind of command only; explorations (grep,
	// ls, cat, git status…) never fail; another command's failure is a ToolFailure
	// and its success a ToolSuccess. Results without a command are read as with
	// Commands off. Commands reads the status whatever StatusRules says. Seed: false.
	// Default true.
	Commands bool `json:"commands"`
	// TestSummaries reads, with Commands, the counts that close a test run's output
	// ("3 examples, 1 failure", "1 failed, 2 passed in 0.12s", "Tests: 3, Failures:
	// 1."; see [ReadTestSummary]) for a test step and for a command no rule
	// recognises: a run whose status a pipe hides is read by them, and they beat the
	// seed's generic "error:" rule. Seed: false. Default true.
	TestSummaries bool `json:"test_summaries"`
	// ProjectScripts reads, with Commands, a project's own script of a task given by
	// its path — "bin/test", "scripts/lint.sh", "bash ci/run-tests.sh" — as that task's
	// step, its target "script test" (a suite of its own, see [SameSuite]), where no
	// command rule knows it: its name, without an extension, is task words only
	// ([TaskWords], and run, all, fast…), and it sits in a folder scripts are kept in
	// (bin, script, scripts, ci, tools, hack, dev, tasks) or at the project's top. Seed:
	// false. Default true.
	ProjectScripts bool `json:"project_scripts"`
	// CommandRules recognise commands (default [DefaultCommandRules]).
	CommandRules []CommandRule `json:"command_rules"`
	// TaskWords read a task runner's task name (default [DefaultTaskWords]).
	TaskWords TaskWords `json:"task_words"`
	// TextTools are the tools whose output the text rules read when no command is
	// known; results of other named tools are judged by their status alone (a Read's
	// output is a file's content, an MCP tool's a service's answer, never a build
	// log), results without a tool name by the text. Empty: every tool, as in the
	// seed. Default: Claude Code's shell tools (Bash, BashOutput, TaskOutput).
	TextTools []string `json:"text_tools"`
	// QuietTools are tools whose flagged errors are no failure: explorations whose
	// miss is information (Read, Grep, Glob, LS, WebFetch, WebSearch) and edits the
	// agent retries at once ("String to replace not found", "File has not been read
	// yet"), and the planning tools. Seed: none.
	QuietTools []string `json:"quiet_tools"`
	// Collateral are markers of results that are no outcome of their command: a call
	// cancelled because a sibling call failed ("Sibling tool call errored"; its
	// sibling raises the signal), or stopped by the human's interrupt ("[Request
	// interrupted by user for tool use]": the interrupt is the human's turn, not a
	// failed test). Such a result raises no signal. Seed: none.
	Collateral []string `json:"collateral"`
	// ScanBytes bounds the output the text rules read: its first quarter and last
	// three quarters of ScanBytes (build errors open a log, summaries close it), so a
	// result costs the same whatever its size. 0 reads everything (the seed).
	// Default 65536.
	ScanBytes int `json:"scan_bytes"`
}

// SeedToolConfig returns the seed's literal tool reading: the text rules alone.
func SeedToolConfig() ToolConfig { return ToolConfig{} }

// DefaultToolConfig returns loopwatch's tool reading, documented on [ToolConfig].
func DefaultToolConfig() ToolConfig {
	return ToolConfig{
		StatusRules:         true,
		FailureDropsSuccess: true,
		Commands:            true,
		TestSummaries:       true,
		ProjectScripts:      true,
		CommandRules:        DefaultCommandRules(),
		TaskWords:           DefaultTaskWords(),
		TextTools:           []string{"Bash", "BashOutput", "TaskOutput"},
		QuietTools: []string{"Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "Edit", "MultiEdit", "Write",
			"NotebookEdit", "NotebookRead", "TodoWrite", "TodoRead", "ExitPlanMode", "EnterPlanMode", "AskUserQuestion",
			"Skill", "ToolSearch", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet"},
		Collateral: []string{"Sibling tool call errored", "Cancelled: parallel tool call", "[Request interrupted by user"},
		ScanBytes:  64 << 10,
	}
}

// Validate checks the bounds.
func (c ToolConfig) Validate() error {
	if err := CheckScanBytes(c.ScanBytes); err != nil {
		return fmt.Errorf("detect: tools.%w", err)
	}
	for _, m := range c.Collateral {
		if m == "" {
			return errors.New("detect: tools.collateral has an empty marker")
		}
	}
	return nil
}

// ToolClassifier reads tool results with compiled [ToolRule]s and a [ToolConfig]. It
// is immutable and safe for concurrent use.
type ToolClassifier struct {
	rules      []compiledRule
	cfg        ToolConfig
	commands   *commandMatcher // nil unless cfg.Commands
	textTools  map[string]bool // nil: every tool
	quietTools map[string]bool
	// lits are the distinct literals of the rules' matches, and scan their automaton
	// (nil beyond its bounds): a text is searched for all of them in one pass (see
	// litScan).
	lits []string
	scan *litScan
}

type compiledRule struct {
	name, toolchain string
	signal          Kind
	match           *CompiledMatch
	ids             matchLits
}

// matchLits are a match's literals as indices into the classifier's lits.
type matchLits struct {
	allOf, anyOf []uint16
	need         [][]uint16
}

// matches reports whether the rule's match holds on text; found, when set, is which
// of the classifier's literals text holds (litScan's answer), read in place of
// searching text for them.
func (r *compiledRule) matches(text string, found []uint64) bool {
	if found == nil {
		return r.match.Match(text)
	}
	return r.ids.holds(found) && r.match.matchPattern(text)
}

// holds reports whether found (litScan's answer) meets the literal conditions.
func (m *matchLits) holds(found []uint64) bool {
	return literalsHold(m.allOf, m.anyOf, m.need, func(id uint16) bool { return has(found, id) })
}

// NewToolClassifier compiles rules with the status rules on (StatusRules and
// FailureDropsSuccess) and nothing else of [ToolConfig]: the text rules read every
// result.
func NewToolClassifier(rules []ToolRule) (*ToolClassifier, error) {
	return NewToolClassifierConfig(rules, ToolConfig{StatusRules: true, FailureDropsSuccess: true})
}

// NewToolClassifierConfig compiles rules and cfg.
func NewToolClassifierConfig(rules []ToolRule, cfg ToolConfig) (*ToolClassifier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &ToolClassifier{rules: make([]compiledRule, 0, len(rules)), cfg: cfg}
	for _, r := range rules {
		ok := r.Signal.IsToolFailure() || r.Signal.IsToolSuccess() || r.Signal == ToolRejected
		if !ok || r.Signal == ToolFailure || r.Signal == ToolSuccess {
			return nil, fmt.Errorf("detect: tool rule %q: signal %v is not a build, test, lint or rejection signal", r.Name, r.Signal)
		}
		m, err := r.TextMatch.Compile()
		if err != nil {
			return nil, fmt.Errorf("detect: tool rule %q: %w", r.Name, err)
		}
		c.rules = append(c.rules, compiledRule{name: r.Name, toolchain: r.Toolchain, signal: r.Signal, match: m})
	}
	c.indexLiterals()
	for _, r := range c.rules {
		r.match.prepare() // the automata cost their build here, not at a first event
	}
	if cfg.Commands {
		cm, err := newCommandMatcher(cfg.CommandRules, cfg.TaskWords)
		if err != nil {
			return nil, err
		}
		cm.projectScripts = cfg.ProjectScripts
		c.commands = cm
	}
	if len(cfg.TextTools) > 0 {
		c.textTools = set(cfg.TextTools)
	}
	c.quietTools = set(cfg.QuietTools)
	return c, nil
}

// indexLiterals numbers the rules' literals and builds their automaton.
func (c *ToolClassifier) indexLiterals() {
	index := map[string]uint16{}
	ids := func(lits []string) []uint16 {
		out := make([]uint16, len(lits))
		for i, l := range lits {
			id, ok := index[l]
			if !ok {
				id = uint16(len(c.lits))
				index[l] = id
				c.lits = append(c.lits, l)
			}
			out[i] = id
		}
		return out
	}
	for i := range c.rules {
		m, r := c.rules[i].match, &c.rules[i].ids
		r.allOf, r.anyOf = ids(m.allOf), ids(m.anyOf)
		for _, set := range m.need {
			r.need = append(r.need, ids(set))
		}
		if len(c.lits) > maxScanLits {
			return // the rules search one by one (ids past the bound are never read)
		}
	}
	c.scan = newLitScan(c.lits)
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// markerBytes is how much of a result's opening is searched for a rejection or a
// collateral cancellation.
const markerBytes = 1024

// window returns the part of output the text rules read (see ToolConfig.ScanBytes).
func (c *ToolClassifier) window(output string) string { return OutputWindow(output, c.cfg.ScanBytes) }

// CheckScanBytes checks a bound on the bytes of a tool output read (see
// ToolConfig.ScanBytes and OutputWindow): 0 (no bound) or at least 1024.
func CheckScanBytes(n int) error {
	if n < 0 || n > 0 && n < 1024 {
		return fmt.Errorf("scan_bytes %d must be 0 (no bound) or ≥ 1024", n)
	}
	return nil
}

// OutputWindow returns the part of a tool output that a reading bounded to scanBytes
// reads (see ToolConfig.ScanBytes): the whole output when scanBytes is 0 or the
// output fits, otherwise its first quarter of scanBytes and its last three quarters,
// joined by a line break. Only an output longer than scanBytes is copied.
func OutputWindow(output string, scanBytes int) string {
	if scanBytes <= 0 || len(output) <= scanBytes {
		return output
	}
	head := scanBytes / 4
	return output[:head] + "\n" + output[len(output)-(scanBytes-head):]
}

// Classify appends the signals of one tool output and returns the extended slice.
// With StatusRules (the default), the explicit status is authoritative for failure
// versus not; the textual rules classify the failure and detect successes:
//
//   - ToolStatusOK: failure rules are not consulted (a Read of a source file that
//     contains "error:" is not a build failure); success rules apply.
//   - ToolStatusError: success rules are not consulted; failure rules classify the
//     failure; when none of them names a build or test failure (nor a rejection), a
//     ToolFailure with Source "is_error" is added, so every flagged error yields a
//     failure signal.
//   - ToolStatusUnknown: every rule applies, as in the seed; with FailureDropsSuccess,
//     if any failure fires, the successes of the same output are dropped.
//
// Without StatusRules every rule applies whatever the status, as in the seed. Each
// kind appears at most once per output (the first rule that fires names it); a
// signal's Target is its rule's toolchain and step ("go test"), "" for the seed's
// rules.
func (c *ToolClassifier) Classify(dst []Signal, output string, status analyze.ToolStatus) []Signal {
	if !c.cfg.StatusRules {
		status = analyze.ToolStatusUnknown
	}
	start := len(dst)
	dst = c.textSignals(dst, c.window(output), status)
	if status == analyze.ToolStatusError && !Has(dst[start:], BuildFailure) && !Has(dst[start:], TestFailure) && !Has(dst[start:], ToolRejected) {
		dst = append(dst, Signal{Kind: ToolFailure, Source: "is_error"})
	}
	return c.dropSuccesses(dst, start, status)
}

// dropSuccesses applies FailureDropsSuccess to dst[start:].
func (c *ToolClassifier) dropSuccesses(dst []Signal, start int, status analyze.ToolStatus) []Signal {
	failed := false
	for _, s := range dst[start:] {
		failed = failed || s.Kind.IsToolFailure()
	}
	if !failed || !c.cfg.FailureDropsSuccess || status != analyze.ToolStatusUnknown {
		return dst
	}
	kept := dst[:start]
	for _, s := range dst[start:] {
		if !s.Kind.IsToolSuccess() {
			kept = append(kept, s)
		}
	}
	return kept
}

// textSignals appends the signals of the rules that match text: failure rules unless
// status is ok, success rules unless it is an error. Targets are the rules'.
func (c *ToolClassifier) textSignals(dst []Signal, text string, status analyze.ToolStatus) []Signal {
	var buf [maxScanLits / 64]uint64
	var found []uint64 // the literals in text, when found in one pass
	if c.scan != nil {
		found = buf[:c.scan.words()]
		scanText(c.scan, text, found)
	}
	start := len(dst)
	for i := range c.rules {
		r := &c.rules[i]
		fail := r.signal.IsToolFailure()
		if fail && status == analyze.ToolStatusOK || r.signal.IsToolSuccess() && status == analyze.ToolStatusError {
			continue
		}
		if Has(dst[start:], r.signal) || !r.matches(text, found) {
			continue
		}
		s := Signal{Kind: r.signal, Source: r.name}
		if r.toolchain != "" {
			s.Target = r.toolchain + " " + stepOf(r.signal).String()
		}
		dst = append(dst, s)
	}
	return dst
}

// ClassifyEvent appends the signals of one tool result (ev.Kind is not checked) and
// returns the extended slice. Rejections (a rule of kind ToolRejected) and collateral
// cancellations, read in the result's first KiB, come first; then, with ToolConfig.Commands and a command, the
// command reading (see [ToolConfig.Commands]); without a command, a quiet tool
// raises nothing, a tool outside TextTools raises a ToolFailure or ToolSuccess from
// its status (with StatusRules), and the rest is [ToolClassifier.Classify].
func (c *ToolClassifier) ClassifyEvent(dst []Signal, ev *analyze.Event) []Signal {
	// Claude Code writes a rejection or a cancellation as the whole result: its
	// opening is enough to read them.
	head := ev.ToolOutput
	if len(head) > markerBytes {
		head = head[:markerBytes]
	}
	for _, m := range c.cfg.Collateral {
		if strings.Contains(head, m) {
			return dst
		}
	}
	for i := range c.rules {
		if r := &c.rules[i]; r.signal == ToolRejected && r.match.Match(head) {
			return append(dst, Signal{Kind: ToolRejected, Source: r.name})
		}
	}
	if c.commands != nil && ev.ToolCommand != "" {
		start := len(dst)
		dst, sum := c.classifyCommand(dst, ev, c.window(ev.ToolOutput))
		withCounts(dst[start:], sum)
		return dst
	}
	if c.quietTools[ev.ToolName] {
		return dst
	}
	if c.textTools != nil && ev.ToolName != "" && !c.textTools[ev.ToolName] {
		if !c.cfg.StatusRules {
			return dst
		}
		switch ev.ToolStatus {
		case analyze.ToolStatusError:
			return append(dst, Signal{Kind: ToolFailure, Source: "is_error", Target: ev.ToolName})
		case analyze.ToolStatusOK:
			return append(dst, Signal{Kind: ToolSuccess, Source: "status", Target: ev.ToolName})
		}
		return dst
	}
	return c.Classify(dst, ev.ToolOutput, ev.ToolStatus)
}

// classifyCommand reads a shell result by its command (ToolConfig.Commands), and
// returns the test summary it read (with ToolConfig.TestSummaries, for a line that
// runs tests).
func (c *ToolClassifier) classifyCommand(dst []Signal, ev *analyze.Event, text string) ([]Signal, TestSummary) {
	steps := c.commands.parse(ev.ToolCommand)
	failed := ev.ToolStatus == analyze.ToolStatusError || ev.HasExitCode && ev.ExitCode != 0
	ok := !failed && (ev.ToolStatus == analyze.ToolStatusOK || ev.HasExitCode)
	if failed && timedOut(ev, steps) {
		// Killed at a deadline — a server that was meant to keep running, a smoke test
		// cut short — its status says nothing of the work: only its text can.
		failed, ok = false, false
	}
	source := "status"
	if ev.HasExitCode {
		source = "exit_code"
	}
	// The text's own verdicts, unfiltered by status.
	var buf [8]Signal
	found := c.textSignals(buf[:0], text, analyze.ToolStatusUnknown)
	var textFail, textOK []Signal
	specific := false // a toolchain's failure rule fired: the seed's generic "error:" adds nothing
	for _, s := range found {
		specific = specific || s.Kind.IsToolFailure() && s.Target != ""
	}
	for _, s := range found {
		switch {
		case s.Kind.IsToolFailure() && (s.Target != "" || !specific):
			textFail = append(textFail, s)
		case s.Kind.IsToolSuccess():
			textOK = append(textOK, s)
		}
	}
	var sum TestSummary
	sumFail := false // a test summary says the run failed
	if reads, test := readsSummary(steps); c.cfg.TestSummaries && reads {
		if sum = ReadTestSummary(text); !test && !sum.Full() {
			sum = TestSummary{} // a command no rule knows: "2 errors, 3 warnings" is a script's log
		}
		textFail, textOK, sumFail = withSummary(textFail, textOK, sum)
	}
	var toolchain []commandStep
	exitCovers := true                      // the line's status speaks for every toolchain step
	var lastOther, hiddenOther *commandStep // hiddenOther: the last other command whose status the line's does not give
	for i := range steps {
		st := &steps[i]
		switch {
		case st.step.isToolchain():
			toolchain = append(toolchain, *st)
			exitCovers = exitCovers && st.tail
		case st.step == StepOther && st.tail:
			lastOther = st
		case st.step == StepOther:
			hiddenOther = st
		}
	}
	start := len(dst)
	add := func(k Kind, src, target string) {
		for _, s := range dst[start:] {
			if s.Kind == k && s.Target == target {
				return
			}
		}
		dst = append(dst, Signal{Kind: k, Source: src, Target: target})
	}
	// failures attributes the text's failures to the line's toolchain steps; it
	// reports whether there was any.
	failures := func() bool {
		for _, s := range textFail {
			st := stepFor(toolchain, s)
			k := s.Kind
			if st.step != stepOf(k) && !(k == BuildFailure && st.step == StepTest) {
				k = st.step.failureKind() // a vet or lint report read as compiler output
			}
			add(k, s.Source, st.target)
		}
		return len(textFail) > 0
	}
	if len(toolchain) > 0 {
		switch {
		case failed:
			if failures() {
				return dst, sum
			}
			for _, st := range toolchain {
				if st.tail {
					add(st.step.failureKind(), source, st.target)
					return dst, sum
				}
			}
			// The failure came from another command of the line: read below.
		case ok && exitCovers:
			for _, st := range toolchain {
				add(st.step.successKind(), source, st.target)
			}
			return dst, sum
		default: // the status is unknown, or hidden behind a pipe, ; or ||
			read := func(target string) bool {
				return slices.ContainsFunc(dst[start:], func(s Signal) bool { return s.Target == target })
			}
			failed := failures()
			if !failed {
				for _, s := range textOK {
					for _, st := range toolchain {
						if st.step == stepOf(s.Kind) {
							add(s.Kind, s.Source, st.target)
						}
					}
				}
			}
			if ok {
				// The line passed: a step whose status is the line's, and whose run
				// the text did not read failing, passed ("go test ./...; npx jest"
				// exiting 0 with go's failures above jest's pass).
				for _, st := range toolchain {
					if st.tail && !read(st.target) {
						add(st.step.successKind(), source, st.target)
					}
				}
			}
			if failed {
				return dst, sum
			}
			// A run neither its status nor its text gives a verdict for: it may have
			// passed, so it ends its target's streak of failures in a row.
			for _, st := range toolchain {
				if !read(st.target) {
					add(ToolInconclusive, "unread", st.target)
				}
			}
			return dst, sum
		}
	}
	if lastOther == nil {
		if hiddenOther != nil {
			// A command whose status a pipe, ";" or "||" hides ("bundle exec rspec |
			// tail -20"): read by its test summary or a toolchain's rule, not by the
			// seed's generic "error:" alone (a script's log); unread, it ends its
			// streak.
			read := false
			for _, s := range textFail {
				if s.Target != "" || s.Source == summarySource || sumFail {
					add(s.Kind, s.Source, hiddenOther.target)
					read = true
				}
			}
			for _, s := range textOK {
				if !read && (s.Target != "" || s.Source == summarySource) {
					add(s.Kind, s.Source, hiddenOther.target)
				}
			}
			if len(dst) == start {
				add(ToolInconclusive, "unread", hiddenOther.target)
			}
		}
		return dst, sum // explorations and built-ins: a miss is no failure
	}
	switch {
	case failed:
		if len(textFail) == 0 {
			add(ToolFailure, source, lastOther.target)
		}
		for _, s := range textFail {
			add(s.Kind, s.Source, lastOther.target)
		}
	case ok:
		if len(textOK) == 0 {
			add(ToolSuccess, source, lastOther.target)
		}
		for _, s := range textOK {
			add(s.Kind, s.Source, lastOther.target)
		}
	default:
		for _, s := range textFail {
			add(s.Kind, s.Source, lastOther.target)
		}
		if len(textFail) == 0 {
			add(ToolInconclusive, "unread", lastOther.target)
		}
	}
	return dst, sum
}

// withCounts puts a test summary's counts on a line's one test failure (failing and
// passing tests; a runner that counts the tests run, not those passed — "12 tests,
// 11 failures" — passed the rest) or its one test success (the tests it passed, so
// that one test's pass is not read as its suite's). Of a line with two, which run the
// counts close is not known.
func withCounts(sig []Signal, sum TestSummary) {
	if !sum.Tests {
		return
	}
	clamp := func(n int) uint16 { return uint16(min(n, math.MaxUint16)) }
	fail, pass := sum.Verdict()
	kind := TestSuccess
	if fail {
		kind = TestFailure
	} else if !pass {
		return
	}
	if Count(sig, kind) != 1 {
		return
	}
	s := &sig[slices.IndexFunc(sig, func(s Signal) bool { return s.Kind == kind })]
	if fail {
		s.Failed, s.Passed = clamp(sum.Failed), clamp(max(sum.Passed, sum.Total-sum.Failed))
	} else {
		s.Passed = clamp(max(sum.Passed, sum.Total))
	}
}

// summarySource is the Source of a signal read from a test run's closing counts.
const summarySource = "test_summary"

// readsSummary reports whether a line's output may close with a test summary
// (reads): it runs a test step (test), or a command no rule recognises, whose
// summary must be a whole one ([TestSummary.Full]); a build or lint step's counts
// are its own ("Found 3 errors" is mypy's).
func readsSummary(steps []commandStep) (reads, test bool) {
	toolchain := false
	for _, st := range steps {
		if st.step == StepTest {
			return true, true
		}
		toolchain = toolchain || st.step.isToolchain()
	}
	return !toolchain && slices.ContainsFunc(steps, func(st commandStep) bool { return st.step == StepOther }), false
}

// withSummary folds a test summary into the text's verdicts. A summary that counts
// failures is a TestFailure where no rule read a failure, and replaces the seed's
// generic failures ("error:", "FAILED" are a failing test run's words too) where it
// counts tests; a rule's reading stays (a compiler's "1 error" under a test step is
// the build's; a runner's own success is not overturned by counts it does not
// know: unittest's "OK (expected failures=1)"), and sumFail says the summary agrees
// with it. A summary that counts passes
// only is a TestSuccess, and drops the generic failures where no toolchain's rule
// read one — unless it is a bare count of passes, which never overrules a failure
// (a passing run's logs say "error:" too, but "2 passed" may close one suite of
// several).
func withSummary(textFail, textOK []Signal, sum TestSummary) (fail, ok []Signal, sumFail bool) {
	failed, passed := sum.Verdict()
	specific := func(s Signal) bool { return s.Target != "" }
	runnerPassed := func(s Signal) bool { return s.Kind == TestSuccess && s.Target != "" }
	switch {
	case failed && slices.ContainsFunc(textOK, runnerPassed) && !slices.ContainsFunc(textFail, specific):
		return textFail, textOK, false
	case failed && (len(textFail) == 0 || sum.Tests && !slices.ContainsFunc(textFail, specific)):
		return []Signal{{Kind: TestFailure, Source: summarySource}}, textOK, true
	case passed && len(textFail) == 0 || passed && !sum.Weak && !slices.ContainsFunc(textFail, specific):
		return nil, append(textOK, Signal{Kind: TestSuccess, Source: summarySource}), false
	}
	return textFail, textOK, failed
}

// timedOut reports whether a failed shell result was killed at a deadline: exit
// status 124 of a line whose status is a command's run under timeout(1), or Claude
// Code's own "Command timed out after …" opening its output.
func timedOut(ev *analyze.Event, steps []commandStep) bool {
	if ev.HasExitCode && ev.ExitCode == 124 && slices.ContainsFunc(steps, func(st commandStep) bool { return st.tail && st.timed }) {
		return true
	}
	return strings.Contains(ev.ToolOutput[:min(len(ev.ToolOutput), markerBytes)], "Command timed out after")
}

// stepFor returns the step of steps a failure s read from the output belongs to: where
// a toolchain's rule read it and the line runs that toolchain's step of the failure's
// kind (a test step, for a build failure) or the toolchain is a task runner (make's
// "*** Error 1" is its step's, whatever the step), pickStep's among that toolchain's
// steps ("go test ./...; npx jest" whose output shows jest failing is jest's run);
// otherwise pickStep's among all ("go vet ./... && just test" failing in go's test
// output is just's run).
func stepFor(steps []commandStep, s Signal) commandStep {
	kind := stepOf(s.Kind)
	if tc, _, ok := strings.Cut(s.Target, " "); ok {
		var buf [8]commandStep
		mine, owns := buf[:0], taskRunner(tc)
		for _, st := range steps {
			if stc, _, _ := strings.Cut(st.target, " "); family(stc) == family(tc) {
				mine = append(mine, st)
				owns = owns || st.step == kind || kind == StepBuild && st.step == StepTest
			}
		}
		if len(mine) > 0 && owns {
			return pickStep(mine, kind)
		}
	}
	return pickStep(steps, kind)
}

// pickStep returns the step of steps a failure of step kind belongs to: the first
// of that step, preferring those whose status counts (tail); a build failure of a
// line that builds nothing belongs to its test step (a test run that does not
// compile); otherwise the first step whose status counts, or the first step.
func pickStep(steps []commandStep, kind Step) commandStep {
	var first, firstTail, same, sameTail, test *commandStep
	for i := range steps {
		st := &steps[i]
		if first == nil {
			first = st
		}
		if st.tail && firstTail == nil {
			firstTail = st
		}
		if st.step == kind {
			if same == nil {
				same = st
			}
			if st.tail && sameTail == nil {
				sameTail = st
			}
		}
		if st.step == StepTest && test == nil {
			test = st
		}
	}
	for _, st := range []*commandStep{sameTail, same} {
		if st != nil {
			return *st
		}
	}
	if kind == StepBuild && test != nil {
		return *test
	}
	if firstTail != nil {
		return *firstTail
	}
	return *first
}
