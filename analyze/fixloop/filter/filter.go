package filter

import (
	"context"
	"errors"
	"time"
)

// Names of the checks in the default chain, as quasar names them.
const (
	CheckBuild  = "build"
	CheckVet    = "vet"
	CheckLint   = "lint"
	CheckTest   = "test"
	CheckClaims = "claims"
)

// CheckNames returns the names of the default chain's checks in its order — build,
// vet, lint, test, claims — the order [DefaultChain] runs them in and stops at the
// first failure.
func CheckNames() []string {
	return []string{CheckBuild, CheckVet, CheckLint, CheckTest, CheckClaims}
}

// ErrUnknownCheck is returned (wrapped, with the name) by [Chain.RunCheck] for a
// check name the chain does not have.
var ErrUnknownCheck = errors.New("filter: unknown check")

// ErrInfrastructure marks a check that could not be run at all — a command that
// cannot be started, a claims source that fails. A [Check] signals it by returning an
// error that wraps ErrInfrastructure; [Chain.Run] and [Chain.RunCheck] then return the
// error instead of a failed [CheckResult], because there is nothing for a coder to fix.
var ErrInfrastructure = errors.New("filter: check could not run")

// Filter runs deterministic checks on the coder's output.
//
// Run returns the result of the checks, or an error when the filter infrastructure
// itself fails (context ended, a check could not run). Check failures are not errors:
// they are reported in [Result].
type Filter interface {
	Run(ctx context.Context, workDir string) (*Result, error)
}

// Result is the outcome of running a filter.
type Result struct {
	Passed bool          // true when every check passed
	Checks []CheckResult // the checks that ran, in order; the last one failed unless Passed
}

// CheckResult is the outcome of a single check.
type CheckResult struct {
	Name    string        // "build", "vet", "lint", "test", "claims", or a custom name
	Passed  bool          // true when the check passed
	Output  string        // combined stdout+stderr (trailing white space trimmed)
	Elapsed time.Duration // time the check took, measured with [Chain.Now]
}

// FirstFailure returns the first failing check, or nil when all passed.
func (r *Result) FirstFailure() *CheckResult {
	for i := range r.Checks {
		if !r.Checks[i].Passed {
			return &r.Checks[i]
		}
	}
	return nil
}
