package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/reports"
)

// Settings is everything one replay needs: what the replay command's flags fill, and
// what tune and regress set for each dataset they replay.
type Settings struct {
	// In is the input folder (walked recursively) or file; "" replays the built-in
	// sample with its labels.
	In string
	// Out is the run table's path; sibling tables share its stem.
	Out string
	// Labels are label files (CSV or JSONL, run or session labels), read in order: a
	// key labelled twice keeps the later file's label.
	Labels []string
	// DeriveLabels labels quasar runs from their recorded outcomes; Labels override.
	DeriveLabels bool
	// PositiveOutcomes lists the session outcomes of the positive (bad) class.
	PositiveOutcomes string
	// FrictionWindow is how long after a labelled friction moment an intervention
	// catches it.
	FrictionWindow time.Duration
	// StruggleConfig and AssessConfig are JSON files over the detectors' defaults ("":
	// the defaults).
	StruggleConfig, AssessConfig string
	// LLM names the session analyzer: "offline" or "claude" (ClaudePath is the binary).
	LLM, ClaudePath string
	// ClaudeTimeout bounds one claude call (a timed-out call is a failed analysis);
	// ClaudeProgress is how often a call still running is reported to Progress.
	ClaudeTimeout, ClaudeProgress time.Duration
	// Workers is how many files are replayed at once (≤ 0: every CPU). It never
	// changes the output.
	Workers int
	// Seed, Resamples, Level and Beta configure the evaluation: the bootstrap's seed
	// and resamples of runs (0 disables it), the intervals' confidence level and the
	// β of the extra F-beta row.
	Seed      uint64
	Resamples int
	Level     float64
	Beta      float64
	// Fix configures the inner fix-loop simulation.
	Fix FixSettings
	// Progress, when set, hears of slow work while it runs (a claude analysis still
	// running); a command prints it on stderr.
	Progress func(string)
	// Phase, when set, is called as each step of a replay ends, with its name:
	// "prepare" (the labels and configurations read), the replay's steps
	// ([replay.Options].Phase: "walk", "recognise", "context", "replay"), "seal" (the
	// replayed tables written out), "derive" (the metrics and the fix-loop simulation),
	// "commit" (the output in place) and, for a folder not split, "merge". It is for
	// timing them (replay --timings); it changes nothing.
	Phase func(name string)
	// Delivered, when set, hears how long the replay's delivery was busy
	// ([replay.Options].Delivered): the part of the replay step no number of workers
	// shares. It is for timing; it changes nothing else.
	Delivered func(busy time.Duration)
	// Shard, for a replay split over several processes, is the part this one does
	// (Out must then be a folder every shard writes into; [Merge] computes the metrics
	// from the union). The zero Shard is the whole replay.
	Shard replay.Shard
	// Compare names what is scored beside the configured detectors on the same runs
	// and sessions: presets every run and session is also replayed under (a preset
	// equal to the configured one is skipped), and "shipped-today", the baselines of
	// what quasar and vibes run today. Default: the seed preset and the baselines.
	Compare []string
}

// FixSettings configure the inner fix-loop simulation.
type FixSettings struct {
	// PassProb is "history" (estimated per check from the replayed runs), one
	// probability for every check, or check=probability pairs.
	PassProb string
	// CostFraction is a fix attempt's cost as a fraction of the run's mean coder call.
	CostFraction float64
	// Draws of each check's pass probability, and Trials per failure and draw.
	Draws, Trials int
	// MaxFixes is the loop's MaxFilterFixes.
	MaxFixes int
}

// DefaultSettings returns the replay command's defaults.
func DefaultSettings() Settings {
	return Settings{
		Out:              "results.parquet",
		PositiveOutcomes: "failure,abandoned",
		FrictionWindow:   5 * time.Minute,
		LLM:              "offline",
		ClaudePath:       "claude",
		ClaudeTimeout:    2 * time.Minute,
		ClaudeProgress:   10 * time.Second,
		Seed:             1,
		Resamples:        2000,
		Level:            0.95,
		Beta:             1,
		Fix:              FixSettings{PassProb: "history", CostFraction: 0.25, Draws: 100, Trials: 20, MaxFixes: 3},
		Compare:          []string{"seed", Shipped},
	}
}

// UsageError is a problem with the settings or the files they name (a missing input,
// an unreadable labels file, a value out of range): the command's exit status 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// IsUsage reports whether err is a UsageError.
func IsUsage(err error) bool {
	var ue UsageError
	return errors.As(err, &ue)
}

// ExitInterrupted is the exit status of a command stopped by an interrupt or a
// termination signal: 128 + SIGINT's 2, as shells report a process killed by it.
const ExitInterrupted = 130

// MaxFilterFixes bounds --max-filter-fixes: the simulation replays the loop once for
// every number of failed re-runs up to it, for every recorded failure (the seed's
// loop makes 3 attempts).
const MaxFilterFixes = fixsim.MaxFilterFixes

// MaxResamples bounds --resamples (see [eval.MaxResamples] for why).
const MaxResamples = eval.MaxResamples

// Interrupted reports whether err ended a command because its context was cancelled
// (the commands' contexts end on SIGINT and SIGTERM), rather than by a failure of its
// own: the command says "interrupted" and exits with ExitInterrupted.
func Interrupted(ctx context.Context, err error) bool { return err != nil && ctx.Err() != nil }

// Validate rejects values out of range, naming the flag: the value the metadata
// records is always the value computed with, never a silent replacement.
func (s Settings) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !(s.FrictionWindow > 0):
		return usage("--friction-window %v: must be positive", s.FrictionWindow)
	case !(s.ClaudeTimeout > 0):
		return usage("--claude-timeout %v: must be positive", s.ClaudeTimeout)
	case !(s.ClaudeProgress > 0):
		return usage("--claude-progress %v: must be positive", s.ClaudeProgress)
	case s.Workers < 0:
		return usage("--workers %d: must be ≥ 0 (0: every CPU)", s.Workers)
	case s.Resamples < 0 || s.Resamples > MaxResamples:
		return usage("--resamples %d: must be between 0 (no bootstrap) and %d (more moves no interval by what is printed, and costs time and memory)", s.Resamples, MaxResamples)
	case !(s.Level > 0 && s.Level < 1):
		return usage("--ci-level %v: must be between 0 and 1 (e.g. 0.95)", s.Level)
	case !(s.Beta > 0) || !finite(s.Beta):
		return usage("--beta %v: must be a positive number", s.Beta)
	case !(s.Fix.CostFraction > 0) || !finite(s.Fix.CostFraction):
		return usage("--fix-cost-fraction %v: must be a positive number", s.Fix.CostFraction)
	case s.Fix.Draws < 1:
		return usage("--fix-draws %d: must be ≥ 1", s.Fix.Draws)
	case s.Fix.Trials < 1:
		return usage("--fix-trials %d: must be ≥ 1", s.Fix.Trials)
	case s.Fix.MaxFixes < 1 || s.Fix.MaxFixes > MaxFilterFixes:
		return usage("--max-filter-fixes %d: must be between 1 and %d", s.Fix.MaxFixes, MaxFilterFixes)
	case s.Out != "" && !reports.IsFolder(s.Out) && filepath.Base(s.Out) == ".parquet":
		return usage("--out %s: the run table's name before .parquet is empty (give one, results.parquet say, or a folder ending in /)", s.Out)
	}
	return nil
}

// phase calls Phase, when set.
func (s Settings) phase(name string) {
	if s.Phase != nil {
		s.Phase(name)
	}
}
