package detect

// The toolchain rule sets below extend [SeedToolRules]; [DefaultExtraToolRules] is
// all of them. A rule with a regexp also lists substrings one of which the regexp's
// match must contain (AnyOf), so that most outputs are turned down by a substring
// search before any regexp runs. Each was written against real output captured with the toolchain (or,
// where the toolchain could not be installed here, its documented format); the
// golden tests under testdata/toolchains/ hold those outputs and say which.

// RustToolRules returns loopwatch's rules for cargo beyond the seed's (which read
// "error:", "test result: FAILED"/"ok" and a release build's "Finished"):
//
//	build failure: rustc's coded errors "error[E0425]" and "error: could not compile"
//	build success: "Finished `dev` profile", any profile (the seed needs "release")
func RustToolRules() []ToolRule {
	return []ToolRule{
		{Name: "cargo.build_failure", Toolchain: "cargo", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"error"}, Regexp: "error\\[E\\d{4}\\]|error: could not compile `"}},
		{Name: "cargo.build_success", Toolchain: "cargo", Signal: BuildSuccess, TextMatch: TextMatch{AnyOf: []string{"Finished"}, Regexp: "(?m)^\\s*Finished `\\w+` profile|(?m)^\\s*Finished (?:dev|release|test) \\["}},
	}
}

// NodeToolRules returns the rules for Node's test runners, tsc and eslint:
//
//	test failure:  jest "Tests: … N failed", vitest "Tests  N failed", node --test
//	               "ℹ fail N"/"# fail N", mocha "N failing"
//	test success:  jest "Tests: N passed, N total", vitest "Tests  N passed (N)",
//	               node --test "fail 0", mocha "N passing" (failures win)
//	build failure: tsc "error TS2322:", webpack "ERROR in"
//	lint error:    eslint "✖ N problems (N errors" with at least one error
func NodeToolRules() []ToolRule {
	return []ToolRule{
		{Name: "jest.test_failure", Toolchain: "node", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"Tests:"}, Regexp: `(?m)^Tests:\s+(?:\d+ \w+, )*\d+ failed`}},
		{Name: "vitest.test_failure", Toolchain: "node", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"Tests "}, Regexp: `(?m)^\s*Tests\s+\d+ failed`}},
		{Name: "nodetest.test_failure", Toolchain: "node", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"fail ", "failing"}, Regexp: `(?m)^(?:ℹ|#) fail [1-9]|(?m)^\s*\d+ failing$`}},
		{Name: "jest.test_success", Toolchain: "node", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"Tests:"}, Regexp: `(?m)^Tests:\s+(?:\d+ (?:passed|skipped|todo), )+\d+ total`}},
		{Name: "vitest.test_success", Toolchain: "node", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"Tests "}, Regexp: `(?m)^\s*Tests\s+\d+ passed`}},
		{Name: "nodetest.test_success", Toolchain: "node", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"fail 0", "passing ("}, Regexp: `(?m)^(?:ℹ|#) fail 0$|(?m)^\s*\d+ passing \(`}},
		{Name: "tsc.build_failure", Toolchain: "node", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"error TS", "ERROR in "}, Regexp: `error TS\d+: |(?m)^ERROR in `}},
		{Name: "eslint.lint_error", Toolchain: "node", Signal: LintError, TextMatch: TextMatch{AnyOf: []string{"✖ "}, Regexp: `✖ \d+ problems? \([1-9]\d* errors?`}},
	}
}

// PythonToolRules returns the rules for pytest, unittest, mypy and ruff:
//
//	test failure: pytest's summary "=== 1 failed …" / "1 error in", unittest's
//	              "FAILED (failures=1)"
//	test success: pytest "=== 3 passed in", unittest "Ran N tests … OK"
//	lint error:   mypy "Found 1 error in 1 file", ruff "Found 2 errors."
//	lint success: mypy "Success: no issues found", ruff "All checks passed!"
func PythonToolRules() []ToolRule {
	return []ToolRule{
		{Name: "pytest.test_failure", Toolchain: "python", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"failed", "error"}, Regexp: `(?m)^=+ (?:.*, )?\d+ (?:failed|errors?)\b.* in [\d.]+m?s\b`}},
		{Name: "unittest.test_failure", Toolchain: "python", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"FAILED ("}, Regexp: `(?m)^FAILED \((?:failures|errors)=\d+`}},
		{Name: "pytest.test_success", Toolchain: "python", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"passed"}, Regexp: `(?m)^=+ \d+ passed\b.* in [\d.]+m?s\b`}},
		{Name: "unittest.test_success", Toolchain: "python", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"OK"}, Regexp: `(?m)^Ran \d+ tests? in [\d.]+s\s+OK\b`}},
		{Name: "python.lint_error", Toolchain: "python", Signal: LintError, TextMatch: TextMatch{AnyOf: []string{"Found "}, Regexp: `(?m)^Found \d+ errors? (?:in \d+ files?|\()|(?m)^Found \d+ errors?\.$`}},
		{Name: "python.lint_success", Toolchain: "python", Signal: LintSuccess, TextMatch: TextMatch{AnyOf: []string{"Success: no issues found", "All checks passed!"}}},
	}
}

// JavaToolRules returns the rules for Maven and Gradle:
//
//	build failure: "BUILD FAILURE" (Maven), "BUILD FAILED" (Gradle), "COMPILATION ERROR"
//	test failure:  Surefire "Tests run: N, Failures: F, Errors: E" with F or E > 0,
//	               "There are test failures", Gradle "N tests completed, M failed"
//	build success: "BUILD SUCCESS" (Maven), "BUILD SUCCESSFUL" (Gradle)
//	test success:  Surefire "Tests run: N, Failures: 0, Errors: 0"
func JavaToolRules() []ToolRule {
	return []ToolRule{
		{Name: "java.test_failure", Toolchain: "java", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"Tests run:", "test failures", "failing tests", "tests completed", "test completed"}, Regexp: `Tests run: \d+, Failures: (?:[1-9]\d*, Errors: \d+|\d+, Errors: [1-9])|There (?:are|were) (?:test failures|failing tests)|\d+ tests? completed, \d+ failed`}},
		{Name: "java.build_failure", Toolchain: "java", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"BUILD FAILURE", "BUILD FAILED", "COMPILATION ERROR", "Compilation failed"}}},
		{Name: "java.test_success", Toolchain: "java", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"Tests run:"}, Regexp: `(?m)^(?:\[INFO\] )?Tests run: [1-9]\d*, Failures: 0, Errors: 0, Skipped: \d+$`}},
		{Name: "java.build_success", Toolchain: "java", Signal: BuildSuccess, TextMatch: TextMatch{AnyOf: []string{"BUILD SUCCESS"}, Regexp: `BUILD SUCCESS(?:FUL)?\b`}},
	}
}

// DotnetToolRules returns the rules for the .NET CLI:
//
//	build failure: "Build FAILED.", C# compiler errors "error CS0103:"
//	test failure:  "Failed!  - Failed: N", "Test Run Failed."
//	build success: "Build succeeded."
//	test success:  "Passed!  - Failed: 0", "Test Run Successful."
func DotnetToolRules() []ToolRule {
	return []ToolRule{
		{Name: "dotnet.test_failure", Toolchain: "dotnet", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"Failed!", "Test Run Failed."}, Regexp: `(?m)^Failed!\s+-\s+Failed:\s+[1-9]|Test Run Failed\.`}},
		{Name: "dotnet.build_failure", Toolchain: "dotnet", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"Build FAILED.", "error CS"}, Regexp: `Build FAILED\.|error CS\d{4}:`}},
		{Name: "dotnet.test_success", Toolchain: "dotnet", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"Passed!", "Test Run Successful."}, Regexp: `(?m)^Passed!\s+-\s+Failed:\s+0\b|Test Run Successful\.`}},
		{Name: "dotnet.build_success", Toolchain: "dotnet", Signal: BuildSuccess, TextMatch: TextMatch{AnyOf: []string{"Build succeeded."}}},
	}
}

// SwiftToolRules returns the rules for SwiftPM and xcodebuild:
//
//	build failure: "** BUILD FAILED **", swift-driver's "error: fatalError"/"error: emit-module"
//	               are covered by the seed's "error:"
//	test failure:  XCTest "Executed N tests, with M failures" (M > 0), Swift Testing
//	               "✘ Test run with N tests failed", "** TEST FAILED **"
//	build success: "Build complete!", "** BUILD SUCCEEDED **"
//	test success:  "with 0 failures", "✔ Test run with N tests passed", "** TEST SUCCEEDED **"
func SwiftToolRules() []ToolRule {
	return []ToolRule{
		{Name: "swift.test_failure", Toolchain: "swift", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"Executed ", "✘ Test run", "** TEST FAILED **"}, Regexp: `Executed \d+ tests?, with [1-9]\d* failures?|✘ Test run with \d+ tests? (?:in \d+ suites? )?failed|\*\* TEST FAILED \*\*`}},
		{Name: "swift.build_failure", Toolchain: "swift", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"** BUILD FAILED **"}}},
		{Name: "swift.test_success", Toolchain: "swift", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"Executed ", "✔ Test run", "** TEST SUCCEEDED **"}, Regexp: `Executed [1-9]\d* tests?, with 0 failures|✔ Test run with \d+ tests? (?:in \d+ suites? )?passed|\*\* TEST SUCCEEDED \*\*`}},
		{Name: "swift.build_success", Toolchain: "swift", Signal: BuildSuccess, TextMatch: TextMatch{AnyOf: []string{"Build complete!", "** BUILD SUCCEEDED **"}, Regexp: `(?m)^Build complete!|\*\* BUILD SUCCEEDED \*\*`}},
	}
}

// ElixirToolRules returns the rules for mix:
//
//	test failure:  ExUnit "1 test, 1 failure"
//	test success:  ExUnit "3 tests, 0 failures"
//	build failure: "== Compilation error in file", "** (CompileError)"
func ElixirToolRules() []ToolRule {
	return []ToolRule{
		{Name: "mix.test_failure", Toolchain: "mix", Signal: TestFailure, TextMatch: TextMatch{AnyOf: []string{"failure"}, Regexp: `(?m)\btests?, [1-9]\d* failures?\b`}},
		{Name: "mix.test_success", Toolchain: "mix", Signal: TestSuccess, TextMatch: TextMatch{AnyOf: []string{"0 failures"}, Regexp: `(?m)\btests?, 0 failures\b`}},
		{Name: "mix.build_failure", Toolchain: "mix", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"== Compilation error in file", "** (CompileError)"}}},
	}
}

// MakeToolRules returns the rules for make and golangci-lint (which agents run
// through make and task runners):
//
//	build failure: "make: *** [Makefile:4: test] Error 1"
//	lint error:    golangci-lint's "2 issues:"
//	lint success:  golangci-lint's "0 issues."
func MakeToolRules() []ToolRule {
	return []ToolRule{
		{Name: "make.failure", Toolchain: "make", Signal: BuildFailure, TextMatch: TextMatch{AnyOf: []string{"***"}, Regexp: `(?m)^g?make(?:\[\d+\])?: \*\*\* .*Error \d+`}},
		{Name: "golangci.lint_error", Toolchain: "go", Signal: LintError, TextMatch: TextMatch{AnyOf: []string{"issue"}, Regexp: `(?m)^[1-9]\d* issues?:$`}},
		{Name: "golangci.lint_success", Toolchain: "go", Signal: LintSuccess, TextMatch: TextMatch{AnyOf: []string{"0 issues."}, Regexp: `(?m)^0 issues\.$`}},
	}
}

// ClaudeCodeToolRules returns the rule for Claude Code's own tool results: a call
// the human declined at the permission prompt is a ToolRejected, not a failure.
func ClaudeCodeToolRules() []ToolRule {
	return []ToolRule{
		{Name: "claudecode.rejected", Signal: ToolRejected, TextMatch: TextMatch{AnyOf: []string{
			"The user doesn't want to proceed with this tool use", "The user doesn't want to take this action right now"}}},
	}
}

// DefaultExtraToolRules returns every toolchain rule set: Go, Rust, Node, Python,
// Java, .NET, Swift, Elixir, make, and Claude Code's rejection.
func DefaultExtraToolRules() []ToolRule {
	var out []ToolRule
	for _, set := range [][]ToolRule{GoToolRules(), RustToolRules(), NodeToolRules(), PythonToolRules(), JavaToolRules(),
		DotnetToolRules(), SwiftToolRules(), ElixirToolRules(), MakeToolRules(), ClaudeCodeToolRules()} {
		out = append(out, set...)
	}
	return out
}
