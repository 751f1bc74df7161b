package filter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// fakeClock advances by step on every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time { c.t = c.t.Add(c.step); return c.t }

// recorder builds checks that record their calls.
type recorder struct{ calls []string }

func (r *recorder) check(name, out string, fail bool) Check {
	return Check{Name: name, Fn: func(context.Context, string) (string, error) {
		r.calls = append(r.calls, name)
		if fail {
			return out, errors.New("exit status 1")
		}
		return out, nil
	}}
}

func TestChainRun(t *testing.T) {
	tests := []struct {
		name      string
		fail      map[string]bool
		wantCalls []string
		wantPass  bool
	}{
		{"all pass", nil, []string{"build", "vet", "test"}, true},
		{"first fails", map[string]bool{"build": true}, []string{"build"}, false},
		{"middle fails", map[string]bool{"vet": true, "test": true}, []string{"build", "vet"}, false},
		{"last fails", map[string]bool{"test": true}, []string{"build", "vet", "test"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			clk := &fakeClock{step: time.Second}
			c := &Chain{Now: clk.Now}
			for _, n := range []string{"build", "vet", "test"} {
				c.Checks = append(c.Checks, r.check(n, n+" output", tt.fail[n]))
			}
			res, err := c.Run(context.Background(), "/work")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.calls, tt.wantCalls) {
				t.Errorf("calls = %v, want %v", r.calls, tt.wantCalls)
			}
			if res.Passed != tt.wantPass || len(res.Checks) != len(tt.wantCalls) {
				t.Fatalf("Passed=%v with %d checks, want %v with %d", res.Passed, len(res.Checks), tt.wantPass, len(tt.wantCalls))
			}
			for i, cr := range res.Checks {
				want := CheckResult{Name: tt.wantCalls[i], Passed: !tt.fail[tt.wantCalls[i]], Output: tt.wantCalls[i] + " output", Elapsed: time.Second}
				if cr != want {
					t.Errorf("check %d = %+v, want %+v", i, cr, want)
				}
			}
			ff := res.FirstFailure()
			if tt.wantPass != (ff == nil) {
				t.Fatalf("FirstFailure = %v with Passed=%v", ff, tt.wantPass)
			}
			if ff != nil && ff.Name != tt.wantCalls[len(tt.wantCalls)-1] {
				t.Errorf("FirstFailure = %q, want the last check run", ff.Name)
			}
		})
	}
}

// TestChainWithoutClock: a chain given no clock reads none: every check's Elapsed is 0.
func TestChainWithoutClock(t *testing.T) {
	var r recorder
	c := &Chain{Checks: []Check{r.check("build", "ok", false), r.check("test", "FAIL", true)}}
	res, err := c.Run(context.Background(), "/work")
	if err != nil || len(res.Checks) != 2 {
		t.Fatal(res, err)
	}
	for _, cr := range res.Checks {
		if cr.Elapsed != 0 {
			t.Errorf("%s: Elapsed %v without a clock", cr.Name, cr.Elapsed)
		}
	}
}

func TestChainRunCheck(t *testing.T) {
	var r recorder
	c := &Chain{Checks: []Check{
		r.check("build", "", false),
		r.check("vet", "vet says no", true),
		r.check("test", "", false),
		r.check("vet", "second vet never runs", false),
	}}
	tests := []struct {
		name      string
		check     string
		want      *CheckResult
		wantErr   error
		wantCalls []string
	}{
		{"runs only the named failing check", "vet", &CheckResult{Name: "vet", Output: "vet says no"}, nil, []string{"vet"}},
		{"runs only the named passing check", "test", &CheckResult{Name: "test", Passed: true}, nil, []string{"test"}},
		{"unknown name", "lint", nil, ErrUnknownCheck, nil},
		{"empty name", "", nil, ErrUnknownCheck, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.calls = nil
			got, err := c.RunCheck(context.Background(), "/work", tt.check)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(r.calls, tt.wantCalls) {
				t.Errorf("calls = %v, want %v", r.calls, tt.wantCalls)
			}
			if (got == nil) != (tt.want == nil) || got != nil && (got.Name != tt.want.Name || got.Passed != tt.want.Passed || got.Output != tt.want.Output) {
				t.Errorf("RunCheck = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestChainErrors(t *testing.T) {
	infra := Check{Name: "build", Fn: func(context.Context, string) (string, error) {
		return "", fmt.Errorf("%w: go: not found", ErrInfrastructure)
	}}
	cancelDuring := func(cancel context.CancelFunc) Check {
		return Check{Name: "test", Fn: func(context.Context, string) (string, error) {
			cancel()
			return "signal: killed", errors.New("signal: killed")
		}}
	}
	tests := []struct {
		name    string
		check   func(cancel context.CancelFunc) Check
		cancel  bool // cancel before running
		wantErr error
	}{
		{"infrastructure failure is an error, not a failed check", func(context.CancelFunc) Check { return infra }, false, ErrInfrastructure},
		{"nil check function", func(context.CancelFunc) Check { return Check{Name: "build"} }, false, ErrInfrastructure},
		{"context cancelled before", func(context.CancelFunc) Check { return infra }, true, context.Canceled},
		{"context cancelled during", cancelDuring, false, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, run := range []string{"Run", "RunCheck"} {
				ctx, cancel := context.WithCancel(context.Background())
				chk := tt.check(cancel)
				if tt.cancel {
					cancel()
				}
				c := &Chain{Checks: []Check{chk}}
				var err error
				if run == "Run" {
					var res *Result
					res, err = c.Run(ctx, "")
					if res != nil {
						t.Errorf("Run returned a result with error %v", err)
					}
				} else {
					var cr *CheckResult
					cr, err = c.RunCheck(ctx, "", chk.Name)
					if cr != nil {
						t.Errorf("RunCheck returned a result with error %v", err)
					}
				}
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("%s: err = %v, want %v", run, err, tt.wantErr)
				}
				cancel()
			}
		})
	}
}

func ExampleChain_RunCheck() {
	chain := &Chain{Checks: []Check{
		{Name: "build", Fn: func(context.Context, string) (string, error) { return "", nil }},
		{Name: "vet", Fn: func(context.Context, string) (string, error) {
			return "main.go:3:2: self-assignment of x", errors.New("exit status 1")
		}},
	}}
	cr, err := chain.RunCheck(context.Background(), ".", "vet")
	fmt.Println(cr.Name, cr.Passed, cr.Output, err)
	_, err = chain.RunCheck(context.Background(), ".", "lint")
	fmt.Println(err)
	// Output:
	// vet false main.go:3:2: self-assignment of x <nil>
	// filter: unknown check "lint" (chain has: build, vet)
}
