package detect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

func TestReadTestSummary(t *testing.T) {
	tests := []struct {
		name, out             string
		failed, passed, total int
		verdict               string // "fail", "pass" or "none"
	}{
		{"rspec failing", "Finished in 0.02 seconds (files took 0.4 seconds to load)\n3 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/u_spec.rb:7 # User works\n", 1, 0, 3, "fail"},
		{"rspec passing", "...\n\nFinished in 0.018 seconds\n3 examples, 0 failures\n", 0, 0, 3, "pass"},
		{"rspec pending only", "3 examples, 0 failures, 1 pending", 0, 0, 3, "pass"},
		{"minitest: failures and errors add", "Finished in 0.05s, 38.4 runs/s, 38.4 assertions/s.\n2 runs, 2 assertions, 1 failures, 1 errors, 0 skips", 2, 0, 2, "fail"},
		{"pytest -q", "F.\n=== short test summary info ===\nFAILED t.py::test_b - assert 1 == 2\n1 failed, 1 passed in 0.01s", 1, 1, 0, "fail"},
		{"pytest's banner", "============ 3 passed, 1 warning in 0.12s ============", 0, 3, 0, "pass"},
		{"phpunit failing", "FAILURES!\nTests: 3, Assertions: 3, Failures: 1.", 1, 0, 3, "fail"},
		{"phpunit passing", "Time: 00:00.010, Memory: 8.00 MB\n\nOK (3 tests, 3 assertions)", 0, 0, 3, "pass"},
		{"bun, a count a line", "✗ subtracts [0.31ms]\n\n 1 pass\n 1 fail\n 2 expect() calls\nRan 2 tests across 1 files. [14.00ms]\n", 1, 1, 2, "fail"},
		{"deno", "FAILED | 1 passed | 1 failed (5ms)\n\nerror: Test failed", 1, 1, 0, "fail"},
		{"ctest failing", "50% tests passed, 1 tests failed out of 2\n\nTotal Test time (real) =   0.03 sec\n\nThe following tests FAILED:\n\t  1 - unit (Failed)\nErrors while running CTest", 1, 0, 2, "fail"},
		{"ctest passing", "100% tests passed, 0 tests failed out of 2\n\nTotal Test time (real) =   0.03 sec", 0, 0, 2, "pass"},
		{"mocha", "  2 passing (8ms)\n  1 failing\n\n  1) adds:\n     AssertionError", 1, 2, 0, "fail"},
		{"vitest over two lines", " Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 8 passed (9)\n   Start at  10:01:22\n   Duration  412ms", 1, 8, 0, "fail"},
		{"jest", "Test Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 2 passed, 3 total\nSnapshots:   0 total\nTime:        0.5 s", 1, 2, 3, "fail"},
		{"jest: the tests' counts, not the suites'", "Test Suites: 2 failed, 2 total\nTests:       1 failed, 30 passed, 31 total\nSnapshots:   0 total", 1, 30, 31, "fail"},
		{"jest: a suite that failed to run", "Test Suites: 1 failed, 1 passed, 2 total\nTests:       5 passed, 5 total", 1, 5, 5, "fail"},
		{"jest: the suites' counts where no test is counted", "Test Suites: 1 failed, 1 total\nTime:        0.5 s", 1, 0, 1, "fail"},
		{"vitest: the tests' counts, not the files'", " Test Files  2 failed (2)\n      Tests  1 failed | 30 passed (31)", 1, 30, 0, "fail"},
		{"cucumber: the scenarios' counts, not the steps'", "3 scenarios (1 failed, 2 passed)\n10 steps (1 failed, 1 skipped, 8 passed)\n0m0.012s", 1, 2, 3, "fail"},
		{"phpunit coloured: a label right after a colour", "\x1b[37;41mFAILURES!\x1b[0m\n\x1b[37;41mTests: 3\x1b[0m\x1b[37;41m, Assertions: 3\x1b[0m\x1b[37;41m, Failures: 1\x1b[0m\x1b[37;41m.\x1b[0m", 1, 0, 3, "fail"},
		{"dotnet's labels", "Failed!  - Failed:     1, Passed:     2, Skipped:     0, Total:     3, Duration: 5 ms", 1, 2, 3, "fail"},
		{"terminal colours", "\x1b[31m1 failed\x1b[0m, \x1b[32m2 passed\x1b[0m in 0.1s", 1, 2, 0, "fail"},
		{"CRLF line ends", "3 examples, 0 failures\r\n", 0, 0, 3, "pass"},
		{"a count that counts no outcome", "Ran 3 tests in 0.001s", 0, 0, 3, "none"},
		{"zero failures and nothing run", "0 failed", 0, 0, 0, "none"},
		{"one count among other words", "Found 3 errors in the config, fixing", 0, 0, 0, "none"},
		{"decimals, units and percentages count nothing", "took 1.5 failures 50% passed 5ms", 0, 0, 0, "none"},
		{"a version is no count", "node v1 tests, go1 failed", 0, 0, 0, "none"},
		{"unknown counts", "added 3 packages, audited 4 packages", 0, 0, 0, "none"},
		{"no output", "", 0, 0, 0, "none"},
		{"a later passing block does not undo a failing one", "1 failed, 2 passed in 0.1s\nfixing…\n3 passed in 0.1s", 1, 2, 0, "fail"},
		{"the last of passing blocks counts", "2 passed in 0.1s\nnext suite\n3 examples, 0 failures", 0, 0, 3, "pass"},
		{"cargo --no-fail-fast: a failing crate, then a passing one", "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: test failed\n     Running tests/it.rs\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s", 1, 1, 0, "fail"},
		{"Playwright: the failed tests listed between the counts", "  1 failed\n    tests/a.spec.js:3:1 › subtracts ───\n  1 skipped\n  2 passed (6.3s)", 1, 0, 0, "fail"},
		{"a monorepo runner's suites", "web:test: Tests:       1 failed, 3 passed, 4 total\napi:test: Tests:       4 passed, 4 total", 1, 4, 4, "fail"},
		{"unittest: expected failures are no failures", "Ran 3 tests in 0.001s\n\nOK (skipped=1, expected failures=1)", 0, 0, 3, "none"},
		{"an OK line counts no failure", "OK (3 tests, 1 errors)", 0, 0, 3, "pass"},
		{"a listing's counts are not the summary", "3 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/report_spec.rb:12 # Report prints 3 passed, 0 failed", 1, 0, 3, "fail"},
		{"a failed test's message is not the summary", "FAILED t.py::x - AssertionError: 2 errors, 1 warning\n1 failed, 7 passed in 0.3s", 1, 7, 0, "fail"},
		{"words before the counts", "Compiled 3 files, 1 error", 0, 0, 0, "none"},
		{"a summary past 16 KiB of its end is not read", "1 failed\n" + strings.Repeat("x\n", 9<<10), 0, 0, 0, "none"},
		{"an overlong line is no summary", "1 failed, 2 passed " + strings.Repeat("in ", 80), 0, 0, 0, "none"},
		{"a line's colours do not make it long", "\x1b[31;1mFailed!\x1b[0m  - Failed:     1, Passed:     2, Skipped:     0, Total:     3, Duration: 5 ms - " +
			strings.Repeat("\x1b[36m", 12) + "/home/dev/src/company/services/billing/tests/Billing.Invoices.Tests/bin/Debug/net8.0/Billing.Invoices.Tests.dll" +
			strings.Repeat("\x1b[0m", 10) + " (net8.0)", 1, 2, 3, "fail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ReadTestSummary(tc.out)
			fail, pass := s.Verdict()
			verdict := "none"
			switch {
			case fail && pass:
				t.Fatalf("both verdicts: %+v", s)
			case fail:
				verdict = "fail"
			case pass:
				verdict = "pass"
			}
			if verdict != tc.verdict || s.Failed != tc.failed || s.Passed != tc.passed || s.Total != tc.total {
				t.Errorf("got %s, failed %d passed %d total %d; want %s, %d %d %d", verdict, s.Failed, s.Passed, s.Total, tc.verdict, tc.failed, tc.passed, tc.total)
			}
		})
	}
}

func TestReadTestSummaryAllocates(t *testing.T) {
	out := strings.Repeat("ok line of output\n", 2000) + "Tests: 3, Assertions: 3, Failures: 1.\n"
	if n := testing.AllocsPerRun(50, func() { ReadTestSummary(out) }); n != 0 {
		t.Errorf("%v allocations a read, want 0", n)
	}
}

func BenchmarkReadTestSummary(b *testing.B) {
	for _, bc := range []struct{ name, out string }{
		{"rspec", "Finished in 0.02 seconds\n3 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/u_spec.rb:7 # User works\n"},
		{"no_summary_1MB", strings.Repeat("2026-01-05 10:00:00 INFO request 1234 served in 5ms\n", 20000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.out)))
			for b.Loop() {
				ReadTestSummary(bc.out)
			}
		})
	}
}

// FuzzReadTestSummary: any output reads without a panic, its counts are never
// negative, at most one verdict holds, and only the last 16 KiB count.
func FuzzReadTestSummary(f *testing.F) {
	for _, s := range []string{"3 examples, 1 failure", " 1 pass\n 1 fail\n", "Tests: 3, Failures: 1.", "OK (3 tests)",
		"1 tests failed out of 2", "\x1b[31m1 failed\x1b[0m", "Failures=", "out of 99999999999", "1 tests", "x: 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		s := ReadTestSummary(out)
		fail, pass := s.Verdict()
		if s.Failed < 0 || s.Passed < 0 || s.Total < 0 || fail && pass {
			t.Fatalf("%q: %+v", out, s)
		}
		if len(out) >= summaryBytes && ReadTestSummary("3 examples, 2 failures\n"+out) != s {
			t.Fatalf("%q: read past its last %d bytes", out, summaryBytes)
		}
	})
}

// TestTestFailureCounts: a test failure carries its run's closing counts, whichever
// rule read the failure; a build failure, a pass and a run without counts carry none.
func TestTestFailureCounts(t *testing.T) {
	rules := MustCompile(DefaultConfig())
	tests := []struct {
		name, cmd, out string
		exit           int
		want           string
	}{
		{"piped rspec: the tests run and not failed passed", "bundle exec rspec | tail", "3 examples, 2 failures", 0, "test_failure@ruby test 2/1"},
		{"mix: doctests and tests, the larger the total", "mix test", "14 doctests, 127 tests, 12 failures", 2, "test_failure@mix test 12/115"},
		{"jest's rule read it, the counts are the summary's", "npx jest", "Tests:       1 failed, 2 passed, 3 total", 1, "test_failure@node test 1/2"},
		{"a count past 65535 is held at it", "pytest", "=== 70000 failed, 1 passed in 9.0s ===", 1, "test_failure@python test 65535/1"},
		{"no counts", "go test ./...", "--- FAIL: TestX\nFAIL\tx", 1, "test_failure@go test 0/0"},
		{"a pass carries the tests it passed", "bundle exec rspec | tail", "3 examples, 0 failures", 0, "test_success@ruby test 0/3"},
		{"… one test's too", "pytest t.py::test_a", "1 passed in 0.01s", 0, "test_success@python test 0/1"},
		{"a pass without counts", "go test ./...", "ok  \tx\t0.1s", 0, "test_success@go test 0/0"},
		{"a compiler's count is the build's", "./gradlew test", "A.java:2: error: cannot find symbol\n1 error", 1, "build_failure@gradle test 0/0"},
	}
	for _, tc := range tests {
		ev := analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolCommand: tc.cmd, ToolOutput: tc.out, ToolStatus: analyze.ToolStatusOK}
		if tc.exit != 0 {
			ev.ToolStatus, ev.ExitCode, ev.HasExitCode = analyze.ToolStatusError, tc.exit, true
		}
		var got []string
		for _, s := range rules.Signals(&ev) {
			got = append(got, fmt.Sprintf("%s@%s %d/%d", s.Kind, s.Target, s.Failed, s.Passed))
		}
		if strings.Join(got, ", ") != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, strings.Join(got, ", "), tc.want)
		}
	}
}

func TestSameSuite(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"go test", "go test", true},
		{"npm test", "node test", true},
		{"node test", "npm test", true},
		{"make test", "go test", true},
		{"go test", "mise test", true},
		{"npm test", "go test", false},
		{"python test", "node test", false},
		{"go test", "go build", false},
		{"go test", "rspec", false},
		{"git commit", "go test", false},
		{"deno test", "deno test", true},
		{"turbo test", "node test", true},
		{"script test", "make test", false},
		{"make test", "script test", false},
		{"script test", "python test", false},
		{"script test", "script test", true},
		{"ruby test", "nx test", true},
		{"php test", "ruby test", false},
		{"deno test", "node test", false},
		{"ctest build", "make test", false},
		{"", "", false},
	} {
		if got := SameSuite(tc.a, tc.b); got != tc.want {
			t.Errorf("SameSuite(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}
