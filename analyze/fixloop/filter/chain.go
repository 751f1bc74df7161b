package filter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CheckFunc runs one check in workDir. A nil error means the check passed. A non-nil
// error means it failed, and output says why — unless the error wraps
// [ErrInfrastructure], which means the check could not run.
type CheckFunc func(ctx context.Context, workDir string) (output string, err error)

// Check is a single named check of a [Chain].
type Check struct {
	Name string
	Fn   CheckFunc
}

// Chain runs its checks in order and stops at the first failure. It implements
// [Filter] and, through [Chain.RunCheck], fixloop's SingleCheckRunner.
type Chain struct {
	Checks []Check

	// Now is the clock that measures CheckResult.Elapsed (the online loop passes
	// time.Now); nil leaves Elapsed 0: the package reads no clock of its own.
	// Inject a fake clock for reproducible results.
	Now func() time.Time
}

// Run executes the checks in order and stops at the first failure, which is the last
// element of Result.Checks. It returns an error, and no result, when the context ends
// or a check could not run (see [ErrInfrastructure]).
func (c *Chain) Run(ctx context.Context, workDir string) (*Result, error) {
	res := &Result{Passed: true, Checks: make([]CheckResult, 0, len(c.Checks))}
	for i := range c.Checks {
		cr, err := c.run(ctx, workDir, &c.Checks[i])
		if err != nil {
			return nil, err
		}
		res.Checks = append(res.Checks, cr)
		if !cr.Passed {
			res.Passed = false
			return res, nil
		}
	}
	return res, nil
}

// RunCheck executes exactly one named check (the first with that name) and returns its
// result. It returns an error wrapping [ErrUnknownCheck] when the chain has no check of
// that name, and an error when the context ends or the check could not run.
func (c *Chain) RunCheck(ctx context.Context, workDir string, name string) (*CheckResult, error) {
	for i := range c.Checks {
		if c.Checks[i].Name == name {
			cr, err := c.run(ctx, workDir, &c.Checks[i])
			if err != nil {
				return nil, err
			}
			return &cr, nil
		}
	}
	return nil, fmt.Errorf("%w %q (chain has: %s)", ErrUnknownCheck, name, c.names())
}

func (c *Chain) run(ctx context.Context, workDir string, chk *Check) (CheckResult, error) {
	if err := ctx.Err(); err != nil {
		return CheckResult{}, fmt.Errorf("filter: check %q not started: %w", chk.Name, err)
	}
	if chk.Fn == nil {
		return CheckResult{}, fmt.Errorf("%w: check %q has no function", ErrInfrastructure, chk.Name)
	}
	var start time.Time
	if c.Now != nil {
		start = c.Now()
	}
	out, err := chk.Fn(ctx, workDir)
	var elapsed time.Duration
	if c.Now != nil {
		elapsed = c.Now().Sub(start)
	}
	if cerr := ctx.Err(); cerr != nil {
		return CheckResult{}, fmt.Errorf("filter: check %q interrupted: %w", chk.Name, cerr)
	}
	if err != nil && errors.Is(err, ErrInfrastructure) {
		return CheckResult{}, fmt.Errorf("filter: check %q: %w", chk.Name, err)
	}
	return CheckResult{Name: chk.Name, Passed: err == nil, Output: out, Elapsed: elapsed}, nil
}

func (c *Chain) names() string {
	names := make([]string, len(c.Checks))
	for i := range c.Checks {
		names[i] = c.Checks[i].Name
	}
	return strings.Join(names, ", ")
}
