package breaker

import (
	"errors"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/analyze/assess/detect"
)

// How failures are grouped into streaks (Config.FailureStreaks).
const (
	// StreaksSession is the seed's count: one consecutive-failure count for the
	// session, reset to 0 by any build or test success.
	StreaksSession = "session"
	// StreaksTarget keeps one streak per kind of command (a signal's Target: "go
	// test", "npm lint", "git push"): a failure lengthens its command's streak, a
	// success of the same kind of command ends it (and, by FailureConfig's switches,
	// a passing run of the same suite, progress in its test counts), and
	// ApproachPivot looks at the longest open streak. A passing "go test" ends a "go test" failure streak, a
	// successful build ends build failures, and a one-off failing "gh api" call is
	// forgotten as soon as gh works again, instead of every tool error adding to one
	// count that only a build or test success resets.
	StreaksTarget = "target"
)

// maxStreaks bounds the streaks a breaker keeps; when full, a closed streak (or else
// the one touched least recently) gives way.
const maxStreaks = 32

// humanTarget is the streak corrections count in with StreaksTarget.
const humanTarget = "human correction"

// FailureConfig is the failure side of [Config]: what counts as a failure, what ends a
// streak of them, and how often a streak may call for ApproachPivot. [SeedFailures]
// is the seed's literal behaviour, [DefaultFailures] loopwatch's.
type FailureConfig struct {
	// FailureThreshold is the length of a failure streak that calls for
	// ApproachPivot. Default 5, seed's unspecified: with StreaksSession the count is
	// cumulative over any session whose toolchain's successes go unrecognised, so
	// "three strikes" would fire on most sessions that ever fail.
	FailureThreshold int `json:"failure_threshold"`
	// ToolErrorIsFailure makes a failure no rule classified (detect.ToolFailure: a
	// failed "git push", an MCP tool's error) count. Seed: false. Default true.
	ToolErrorIsFailure bool `json:"tool_error_is_failure"`
	// LintErrorIsFailure makes a lint error count. Seed: false (the seed counts build
	// and test failures only). Default true: a lint that keeps failing is as stuck
	// as a build.
	LintErrorIsFailure bool `json:"lint_error_is_failure"`
	// CorrectionIsFailure makes a correction (or, with InterruptIsCorrection, an
	// interrupt) count as a failure, as the seed does; with StreaksTarget corrections
	// make a streak of their own, ended like the seed's count by a build or test
	// success, or by the human's own words of success (detect.Success: "perfect",
	// "works great") in a turn that is no correction and raises no friction signal
	// ("thanks but no, that's wrong" goes on), which a session without builds or
	// tests — a document, a configuration, an investigation — has instead. Seed and
	// default: true.
	CorrectionIsFailure bool `json:"correction_is_failure"`
	// CountPerSignal counts every failure signal, in the seed's literal loop: one
	// failing cargo test raising build_failure and test_failure counts twice, and a
	// success later in the same event's list resets what came before it. False
	// counts per event: an event adds at most one failure (per target), and a
	// failure beats a success of the same event. Only with StreaksSession. Seed:
	// true. Default false.
	CountPerSignal bool `json:"count_per_signal"`
	// FailureStreaks is StreaksSession (the seed) or StreaksTarget (the default).
	FailureStreaks string `json:"failure_streaks"`
	// TestSuccessEndsTests makes a passing test run end every open streak of test
	// failures of a test command of the same suite (detect.SameSuite: one
	// toolchain, or a task runner's), whatever command ran it: "make test", "pnpm
	// test" and "npx vitest run" run one suite, and its passing says the suite the
	// agent was stuck on passes now. A passing "npm test" does not end "go test"'s
	// streak, nor does any test run end the streak of another command whose output
	// showed failing tests (a "git commit" its pre-commit hook refused). Only with
	// StreaksTarget. Seed: false. Default true.
	TestSuccessEndsTests bool `json:"test_success_ends_tests"`
	// ProgressRestartsStreak makes a test failure whose counts (detect.Signal's Failed
	// and Passed, read from the run's closing counts) show progress in its streak —
	// fewer tests failing than the last run of its size, or more passing with no more
	// failing, at counts the streak has not had — start its streak anew: an agent
	// working through a failing suite, one test at a time, is not stuck; one going
	// back and forth between the same counts is, and so is one running a single test
	// and the whole suite in turn. With it, a passing run smaller than a streak's last
	// run (one test's pass, 1 passed, after the suite's 3 of 100 failing) ends no
	// streak. Only with StreaksTarget. Seed: false. Default true.
	ProgressRestartsStreak bool `json:"progress_restarts_streak"`
	// PivotOncePerStreak lets ApproachPivot fire at most once per failure streak: it
	// fires again only after the streak has ended and a new one reached the
	// threshold. Seed: false (the condition persists, so it fires again after every
	// cooldown). Default true.
	PivotOncePerStreak bool `json:"pivot_once_per_streak"`
}

// SeedFailures returns the seed's literal failure side: one session count of build
// and test failures and corrections, per signal, reset by a build or test success,
// ApproachPivot again after every cooldown while it lasts. FailureThreshold is 5, as
// by default (the seed gives none).
func SeedFailures() FailureConfig {
	return FailureConfig{FailureThreshold: 5, CorrectionIsFailure: true, CountPerSignal: true, FailureStreaks: StreaksSession}
}

// DefaultFailures returns loopwatch's failure side, documented on [FailureConfig].
func DefaultFailures() FailureConfig {
	return FailureConfig{FailureThreshold: 5, ToolErrorIsFailure: true, LintErrorIsFailure: true, CorrectionIsFailure: true,
		FailureStreaks: StreaksTarget, TestSuccessEndsTests: true, ProgressRestartsStreak: true, PivotOncePerStreak: true}
}

// Validate checks the threshold and the streak mode.
func (c FailureConfig) Validate() error {
	switch {
	case c.FailureThreshold < 1:
		return errors.New("breaker: failure_threshold must be ≥ 1")
	case c.FailureStreaks != StreaksSession && c.FailureStreaks != StreaksTarget:
		return errors.New(`breaker: failure_streaks must be "session" or "target"`)
	case c.CountPerSignal && c.FailureStreaks != StreaksSession:
		return errors.New(`breaker: count_per_signal needs failure_streaks "session"`)
	}
	return nil
}

// WithSeedFailures returns cfg with the seed's failure side ([SeedFailures]); the
// correction and frustration settings are kept.
func WithSeedFailures(cfg Config) Config {
	cfg.FailureConfig = SeedFailures()
	return cfg
}

// WithDefaultFailures returns cfg with loopwatch's failure side
// ([DefaultFailures]); the correction and frustration settings are kept.
func WithDefaultFailures(cfg Config) Config {
	cfg.FailureConfig = DefaultFailures()
	return cfg
}

// streak is the open failure streak of one target.
type streak struct {
	target  string
	count   int
	pivoted bool        // ApproachPivot fired for this streak
	touched int         // update sequence, for eviction
	kind    detect.Kind // the kind of the failure that last lengthened it
	// The counts of the streak's last test failures (ProgressRestartsStreak): failing
	// and passing tests, the newest at runs[(next+len-1) % len].
	runs    [progressRuns][2]uint16
	nRuns   int
	nextRun int
}

// progressRuns is how many test failures' counts a streak keeps to tell progress.
const progressRuns = 8

// progress reports whether a test failure's counts are progress in its streak:
// better than those of the streak's last run of the same size (failing and passing
// tests), or of its last run where none had that size — fewer tests failing in a run
// no smaller, or more passing with no more failing in a run at most progressGrowth
// tests larger (a test added and passing, as in TDD) — and counts the streak has not
// had already. A single test's run and the
// whole suite's taken in turn are no progress either way, nor is going back and forth
// between the same counts. Where neither run counts passes, fewer failing is progress.
func (st *streak) progress(failed, passed uint16) bool {
	if st.nRuns == 0 {
		return false
	}
	size := uint32(failed) + uint32(passed)
	r := st.run(0)
	for k := range st.nRuns {
		if st.run(k) == [2]uint16{failed, passed} {
			return false // counts it has had
		}
	}
	for k := range st.nRuns {
		if runSize(st.run(k)) == size {
			r = st.run(k)
			break
		}
	}
	// A runner that counts no passes ("2 tests failed") gives no run's size: fewer
	// failing is progress.
	noSize := passed == 0 && r[1] == 0
	return failed < r[0] && (noSize || size >= runSize(r)) ||
		passed > r[1] && failed <= r[0] && size <= runSize(r)+progressGrowth
}

// run returns the counts of the streak's k-th newest test failure (k < nRuns).
func (st *streak) run(k int) [2]uint16 {
	return st.runs[(st.nextRun+progressRuns-1-k)%progressRuns]
}

// runSize is a run's size: its failing and passing tests.
func runSize(r [2]uint16) uint32 { return uint32(r[0]) + uint32(r[1]) }

// progressGrowth is how many tests a run may have more than the run it is compared
// with for more passing to be progress: tests added one by one (TDD), not a larger
// subset of the suite run with the same test failing.
const progressGrowth = 3

// remember keeps a test failure's counts among the streak's last.
func (st *streak) remember(failed, passed uint16) {
	st.runs[st.nextRun] = [2]uint16{failed, passed}
	st.nextRun = (st.nextRun + 1) % progressRuns
	st.nRuns = min(st.nRuns+1, progressRuns)
}

// failures is the breaker's failure state.
type failures struct {
	cfg     FailureConfig
	session streak   // StreaksSession
	streaks []streak // StreaksTarget, open or closed
	seq     int
	due     int // the streak ShouldIntervene found due: -1 session, ≥ 0 an index, -2 none
}

// counts reports whether a failure signal of kind k counts.
func (f *failures) counts(k detect.Kind) bool {
	switch k {
	case detect.BuildFailure, detect.TestFailure:
		return true
	case detect.LintError:
		return f.cfg.LintErrorIsFailure
	case detect.ToolFailure:
		return f.cfg.ToolErrorIsFailure
	}
	return false
}

// counted reports whether a signal of kind k is a failure that counts.
func (f *failures) counted(k detect.Kind) bool { return k.IsToolFailure() && f.counts(k) }

// update folds one event's tool signals (and whether it was a correction) into the
// streaks.
func (f *failures) update(signals []detect.Signal, correction bool) {
	f.seq++
	correction = correction && f.cfg.CorrectionIsFailure
	if f.cfg.FailureStreaks == StreaksSession {
		f.updateSession(signals, correction)
		return
	}
	// Successes first, then failures: a failure beats a success of its own target
	// in the same event.
	for _, s := range signals {
		switch s.Kind {
		case detect.BuildSuccess, detect.TestSuccess:
			suite := s.Kind == detect.TestSuccess && f.cfg.TestSuccessEndsTests
			for i := range f.streaks {
				st := &f.streaks[i]
				ends := st.target == s.Target || suite && st.kind == detect.TestFailure && detect.SameSuite(s.Target, st.target)
				if ends && !f.smaller(s, st) {
					f.close(st)
				}
			}
			f.end(humanTarget)
			if tc, _, ok := strings.Cut(s.Target, " "); ok {
				f.end(tc + " build") // a passing test run, or any build, built it
			}
		case detect.LintSuccess, detect.ToolSuccess, detect.ToolInconclusive:
			f.end(s.Target)
		case detect.Success:
			if !correction && !slices.ContainsFunc(signals, func(g detect.Signal) bool { return g.Kind.IsHumanFriction() }) {
				f.end(humanTarget) // the human says the work is right now, and nothing else
			}
		}
	}
	var seen map[string]bool // the targets failed, once there are too many to look back over
	for i, s := range signals {
		if !f.counted(s.Kind) {
			continue
		}
		if i >= lookBack {
			if seen == nil {
				seen = map[string]bool{}
				for _, e := range signals[:i] {
					if f.counted(e.Kind) {
						seen[e.Target] = true
					}
				}
			}
			if seen[s.Target] {
				continue
			}
			seen[s.Target] = true
		} else if f.failedBefore(signals[:i], s.Target) {
			continue
		}
		f.fail(s)
	}
	if correction {
		f.fail(detect.Signal{Kind: detect.UserCorrection, Target: humanTarget})
	}
}

// smaller reports whether a passing test run is smaller than the last run of a
// streak, by their counts (ProgressRestartsStreak): one test passing says
// nothing of the suite that failed around it, and ends no streak of it.
func (f *failures) smaller(s detect.Signal, st *streak) bool {
	return f.cfg.ProgressRestartsStreak && s.Kind == detect.TestSuccess && s.Passed > 0 && st.nRuns > 0 &&
		uint32(s.Passed) < runSize(st.run(0))
}

// lookBack is how many signals of one event update looks back over to find a target
// that already failed in it; past them, it keeps a set. (An event's signals are a
// handful: a set made for each would cost more than the look.)
const lookBack = 16

// failedBefore reports whether a counted failure of target is among signals.
func (f *failures) failedBefore(signals []detect.Signal, target string) bool {
	for _, e := range signals {
		if e.Target == target && f.counted(e.Kind) {
			return true
		}
	}
	return false
}

// updateSession is the seed's single count.
func (f *failures) updateSession(signals []detect.Signal, correction bool) {
	s := &f.session
	if f.cfg.CountPerSignal {
		// The seed's loop, literally: in signal order.
		for _, sig := range signals {
			switch {
			case sig.Kind == detect.UserCorrection || sig.Kind == detect.Interrupt:
			case sig.Kind.IsToolFailure() && f.counts(sig.Kind):
				s.count++
			case sig.Kind == detect.BuildSuccess || sig.Kind == detect.TestSuccess:
				s.count, s.pivoted = 0, false
			}
		}
		if correction {
			s.count++
		}
		return
	}
	if correction {
		s.count++
	}
	failed, succeeded := false, false
	for _, sig := range signals {
		switch {
		case sig.Kind.IsToolFailure() && f.counts(sig.Kind):
			failed = true
		case sig.Kind == detect.BuildSuccess || sig.Kind == detect.TestSuccess:
			succeeded = true
		}
	}
	if failed {
		s.count++
	} else if succeeded {
		s.count, s.pivoted = 0, false
	}
}

// fail lengthens the streak of s's target; with ProgressRestartsStreak, a test failure
// whose counts show progress starts it anew.
func (f *failures) fail(s detect.Signal) {
	i := f.find(s.Target)
	if i < 0 {
		i = f.slot(s.Target)
	}
	st := &f.streaks[i]
	if f.cfg.ProgressRestartsStreak && s.Kind == detect.TestFailure && s.Failed > 0 {
		if st.count > 0 && st.progress(s.Failed, s.Passed) {
			st.count, st.pivoted = 0, false // progress: a new streak, at the counts reached
		}
		st.remember(s.Failed, s.Passed)
	}
	st.count++
	st.kind = s.Kind
	st.touched = f.seq
}

// end closes target's streak.
func (f *failures) end(target string) {
	if i := f.find(target); i >= 0 {
		f.close(&f.streaks[i])
	}
}

// close closes a streak, forgetting its counts.
func (f *failures) close(st *streak) {
	st.count, st.pivoted, st.nRuns, st.nextRun = 0, false, 0, 0
	st.touched = f.seq
}

func (f *failures) find(target string) int {
	for i := range f.streaks {
		if f.streaks[i].target == target {
			return i
		}
	}
	return -1
}

// slot returns the index of a new streak for target, evicting a closed streak or
// else the least recently touched one when full.
func (f *failures) slot(target string) int {
	if len(f.streaks) < maxStreaks {
		f.streaks = append(f.streaks, streak{target: target})
		return len(f.streaks) - 1
	}
	victim := 0
	for i := range f.streaks {
		s, v := &f.streaks[i], &f.streaks[victim]
		if (s.count == 0) != (v.count == 0) {
			if s.count == 0 {
				victim = i
			}
			continue
		}
		if s.touched < v.touched {
			victim = i
		}
	}
	f.streaks[victim] = streak{target: target}
	return victim
}

// longest returns the longest open streak (the first of equals), or nil.
func (f *failures) longest() *streak {
	if f.cfg.FailureStreaks == StreaksSession {
		return &f.session
	}
	var best *streak
	for i := range f.streaks {
		if s := &f.streaks[i]; s.count > 0 && (best == nil || s.count > best.count) {
			best = s
		}
	}
	return best
}

// pivotDue reports whether a streak calls for ApproachPivot, and notes which one.
func (f *failures) pivotDue() bool {
	f.due = -2
	ready := func(s *streak) bool {
		return s.count >= f.cfg.FailureThreshold && !(f.cfg.PivotOncePerStreak && s.pivoted)
	}
	if f.cfg.FailureStreaks == StreaksSession {
		if ready(&f.session) {
			f.due = -1
		}
	} else {
		for i := range f.streaks {
			if ready(&f.streaks[i]) && (f.due < 0 || f.streaks[i].count > f.streaks[f.due].count) {
				f.due = i
			}
		}
	}
	return f.due != -2
}

// pivoted records that the ApproachPivot last found due was delivered.
func (f *failures) pivoted() {
	switch {
	case f.due == -1:
		f.session.pivoted = true
	case f.due >= 0:
		f.streaks[f.due].pivoted = true
	}
	f.due = -2
}

func (f *failures) longestCount() int {
	if s := f.longest(); s != nil {
		return s.count
	}
	return 0
}

func (f *failures) longestTarget() string {
	if s := f.longest(); s != nil && f.cfg.FailureStreaks == StreaksTarget {
		return s.target
	}
	return ""
}
