// Package filter is quasar's pre-reviewer filter chain: a [Chain] of named [Check]s
// (build, vet, lint, test, claims) that runs in order and stops at the first failure,
// plus [Chain.RunCheck], which re-runs exactly one named check — what the inner fix
// loop (package fixloop) needs to re-test only the check that failed.
//
// The shapes mirror quasar's internal/filter: [Filter], [Result], [CheckResult]
// {Name, Passed, Output, Elapsed} and [Check]{Name, Fn}, so quasar can import this
// package unchanged.
//
// [DefaultChain] builds the real chain of command checks: `go build ./...`,
// `go vet ./...`, `golangci-lint run` (skipped, passing, when golangci-lint is not on
// PATH), `go test ./...` and, when a [ClaimsSource] is given, the claims check, whose
// failure output is quasar's
//
//	Modified files not claimed by task <id>:
//	  path/one.go
//	  path/two.go
//
// Commands run without a shell (exec.CommandContext with an argument list) in the
// work directory, under the caller's context (its deadline is the timeout), with
// stdout and stderr captured together and capped at [MaxCommandOutput] bytes.
//
// What it refuses to do:
//   - run anything through a shell, or interpret check output (see package checkparse);
//   - decide anything about retries, prompts or budgets (see package fixloop);
//   - keep state between runs: a Chain is read-only while it runs and may be shared
//     by goroutines as long as its checks are safe for concurrent use (the command
//     checks built here are; a claims check is as safe as its ClaimsSource);
//   - treat a check that could not run as a code failure: a command that cannot be
//     started, a claims source that errors, or a context that ends while a check runs
//     is reported as an error from Run/RunCheck (wrapping [ErrInfrastructure] or the
//     context's error), never as a failed CheckResult the coder would be asked to fix.
//
// It reads no clock of its own: [CheckResult.Elapsed] is measured with [Chain.Now]
// when one is given, and is 0 otherwise.
package filter
