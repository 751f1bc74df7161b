// Package checkparse turns the output of a failed filter check into structured errors:
// [ParseCheckOutput] reads a filter.CheckResult and returns a [ParseResult] whose
// [Diagnostic]s carry file, line, column, message, failing test, package, linter and
// [Kind] (build, vet, lint, test, panic, claims).
//
// It reads the formats the Go tools really print:
//
//   - go build and go vet: `path.go:line:col: message`, under `# import/path` headers
//     (`# [import/path]` and `# pkg [pkg.test]` too), with `vet: ` prefixes on type
//     errors and tab-indented continuation lines (`have (…)`/`want (…)`) that are kept
//     as part of the message;
//   - golangci-lint's default text format `path.go:line:col: message (linter)`, the
//     linter moved to [Diagnostic.Linter], the source snippet and caret lines that
//     follow an issue and the `N issues:` / `* linter: N` summary recognised and dropped;
//   - go test: compile errors of packages and test files as above; `file_test.go:line:
//     message` lines (and their deeper-indented continuation lines) attributed, by
//     indentation, to the `--- FAIL: TestName` or `--- FAIL: TestA/sub` they are nested
//     under (lines under `--- PASS`/`--- SKIP` are logs, not errors); `panic:`,
//     `fatal error:` and `test timed out` blocks, located at the first frame of the
//     goroutine traces that is not in the standard library, the testing harness or the
//     generated test main — a `_test.go` or source file; and the `FAIL\tpkg` summary
//     lines, which give the test errors above them their package;
//   - quasar's claims check: `Modified files not claimed by task <id>:` followed by one
//     indented path per line (optionally `path (owned by <task>)`).
//
// Errors are de-duplicated on (file, line, message), keeping the first; a bare file
// name (go test prints test files without their directory) only names the same file
// within one package, so for those the package is part of the key. Every non-blank
// line of the output is counted as recognised or not ([ParseResult.Recognized],
// [ParseResult.Unrecognized]); the raw output is always kept in
// [ParseResult.RawOutput], so a caller falls back to it when nothing parsed.
//
// What it refuses to do: fail. There is no error return; unparseable output is counted
// and kept raw. It does no I/O, keeps no state, reads no clock, and does not rewrite
// paths: they are reported as the tool printed them, minus a leading "./" (go test
// prints test file names relative to the package directory, panics print absolute
// paths). A location path may not contain white space, and a line is only a location
// when its file name has an extension (".go", ".mod", …).
package checkparse
