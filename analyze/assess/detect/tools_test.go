package detect

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

const (
	cargoBuildErr = "   Compiling app v0.1.0\nerror[E0425]: cannot find value `x`\nerror: could not compile `app` due to previous error\n"
	cargoLint     = "warning: unused variable: `y`\nerror: aborting due to 1 previous error; 1 warning emitted\n"
	cargoTestFail = "running 2 tests\ntest a ... ok\ntest b ... FAILED\n\nfailures:\n\n---- b stdout ----\n\ntest result: FAILED. 1 passed; 1 failed\n"
	cargoTestOK   = "running 2 tests\ntest a ... ok\ntest b ... ok\n\ntest result: ok. 2 passed; 0 failed\n"
	cargoRelease  = "   Compiling app v0.1.0\n    Finished `release` profile [optimized] target(s) in 3.2s\n"
	cargoMixed    = "test result: ok. 3 passed\n...\ntest result: FAILED. 0 passed; 1 failed\n"
	goTestFail    = "--- FAIL: TestParse (0.00s)\n    parse_test.go:42: got 1, want 2\nFAIL\nFAIL\tgithub.com/x/y\t0.01s\n"
	goTestOK      = "ok  \tgithub.com/x/y\t0.012s\nok  \tgithub.com/x/z\t(cached)\n"
	goCompileErr  = "# github.com/x/y\n./parse.go:12:3: undefined: foo\n"
	goBuildFailed = "FAIL\tgithub.com/x/y [build failed]\n"
	sourceFile    = "     1→func f() error {\n     2→    return fmt.Errorf(\"parse error: %w\", err)\n"
)

func classify(t *testing.T, rules []ToolRule, out string, st analyze.ToolStatus) []Kind {
	t.Helper()
	c, err := NewToolClassifier(rules)
	if err != nil {
		t.Fatal(err)
	}
	return kinds(c.Classify(nil, out, st))
}

func TestSeedToolRulesLiteral(t *testing.T) {
	u := analyze.ToolStatusUnknown
	tests := []struct {
		name string
		out  string
		want []Kind
	}{
		{"build error", cargoBuildErr, []Kind{BuildFailure}},
		{"FAILED alone", "FAILED", []Kind{BuildFailure}},
		{"lint needs warning and error", cargoLint, []Kind{BuildFailure, LintError}},
		{"warning alone", "warning: unused import", nil},
		{"test failure", cargoTestFail, []Kind{BuildFailure, TestFailure}},
		{"failures: alone", "failures:", []Kind{TestFailure}},
		{"test ok", cargoTestOK, []Kind{TestSuccess}},
		{"release build", cargoRelease, []Kind{BuildSuccess}},
		{"Finished without release", "Finished dev [unoptimized]", nil},
		{"mixed: failure wins", cargoMixed, []Kind{BuildFailure, TestFailure}},
		{"source text with error: (unknown status)", sourceFile, []Kind{BuildFailure}},
		{"case-sensitive", "ERROR: x; test result: OK", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		if got := classify(t, SeedToolRules(), tt.out, u); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestToolStatusAuthority(t *testing.T) {
	ok, bad, unk := analyze.ToolStatusOK, analyze.ToolStatusError, analyze.ToolStatusUnknown
	all := append(SeedToolRules(), GoToolRules()...)
	tests := []struct {
		name   string
		out    string
		status analyze.ToolStatus
		want   []Kind
	}{
		{"ok status silences failure text", sourceFile, ok, nil},
		{"ok status keeps success", cargoTestOK, ok, []Kind{TestSuccess}},
		{"error status classifies", cargoTestFail, bad, []Kind{BuildFailure, TestFailure}},
		{"error status drops success", cargoMixed, bad, []Kind{BuildFailure, TestFailure}},
		{"error status unclassified", "Exit code 128\nfatal: no upstream branch", bad, []Kind{ToolFailure}},
		{"error status with lint only", "warning: x", bad, []Kind{ToolFailure}},
		{"error status and success text", cargoTestOK, bad, []Kind{ToolFailure}},
		{"go test failure", goTestFail, unk, []Kind{TestFailure}},
		{"go test failure flagged", goTestFail, bad, []Kind{TestFailure}},
		{"go test ok", goTestOK, unk, []Kind{TestSuccess}},
		{"go compile error", goCompileErr, bad, []Kind{BuildFailure}},
		{"go build failed", goBuildFailed, unk, []Kind{TestFailure, BuildFailure}},
		{"kinds deduplicated", cargoBuildErr + goCompileErr, unk, []Kind{BuildFailure}},
	}
	for _, tt := range tests {
		if got := classify(t, all, tt.out, tt.status); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	// The seed's rules alone do not know go test output.
	if got := classify(t, SeedToolRules(), goTestOK, unk); len(got) != 0 {
		t.Errorf("seed rules on go test output: %v", got)
	}
}

func TestToolRulesJSON(t *testing.T) {
	b, err := json.Marshal(GoToolRules()[3])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"go.compile_error","toolchain":"go","signal":"build_failure","any_of":[".go:"],"regexp":"(?m)\\.go:\\d+:\\d+: [^\\n]*(?:[^)\\n]|\\([^()\\n]*[^\\w()\\n-][^()\\n]*\\))$"}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var rules []ToolRule
	in := `[{"name":"py","signal":"test_failure","any_of":["FAILED ","Error"],"all_of":["pytest"]}]`
	if err := json.Unmarshal([]byte(in), &rules); err != nil {
		t.Fatal(err)
	}
	got := classify(t, rules, "pytest: 1 FAILED in 0.1s", analyze.ToolStatusUnknown)
	if !slices.Equal(got, []Kind{TestFailure}) {
		t.Errorf("custom rule: %v", got)
	}
	if err := json.Unmarshal([]byte(`[{"signal":"nope"}]`), &rules); err == nil {
		t.Error("unknown signal name accepted")
	}
}

func TestNewToolClassifierErrors(t *testing.T) {
	for _, r := range []ToolRule{
		{Name: "no condition", Signal: BuildFailure},
		{Name: "empty substring", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{""}}},
		{Name: "bad regexp", Signal: BuildFailure, TextMatch: TextMatch{Regexp: "("}},
		{Name: "human signal", Signal: Frustration, TextMatch: TextMatch{AnyOf: []string{"x"}}},
		{Name: "tool failure is implicit", Signal: ToolFailure, TextMatch: TextMatch{AnyOf: []string{"x"}}},
		{Name: "zero", TextMatch: TextMatch{AnyOf: []string{"x"}}},
	} {
		if _, err := NewToolClassifier([]ToolRule{r}); err == nil {
			t.Errorf("%s: accepted", r.Name)
		}
	}
}

func TestKindText(t *testing.T) {
	for k := Frustration; int(k) < NumKinds; k++ {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("%v round trip: %v, %v", k, back, err)
		}
		if strings.HasPrefix(k.String(), "kind(") {
			t.Errorf("%d has no name", k)
		}
	}
	if _, err := Kind(0).MarshalText(); err == nil {
		t.Error("zero kind marshalled")
	}
	if Kind(200).String() != "kind(200)" {
		t.Error(Kind(200).String())
	}
}
