package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/duration"
	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// ErrBinaryNotFound is returned (wrapped) when the claude executable cannot be found.
var ErrBinaryNotFound = errors.New("llm: claude executable not found")

// HarnessConfig configures [HarnessLLM].
type HarnessConfig struct {
	// Binary is the claude executable: a name looked up in PATH or a path.
	// Default "claude".
	Binary string `json:"binary"`
	// Args are the arguments; the prompt is never one of them, it goes to stdin.
	// Default ["--print", "--output-format", "json"].
	Args []string `json:"args"`
	// Timeout bounds one call. Default 2m: a summary or a 25k-token analysis takes
	// seconds to tens of seconds; a hung subprocess must not stall the consumer.
	Timeout duration.Duration `json:"timeout"`
	// Limits bound the transcript in a prompt (default [DefaultPromptLimits]).
	Limits PromptLimits `json:"limits"`
	// ProgressEvery is how often Progress hears of a call still running. Default 10s.
	ProgressEvery duration.Duration `json:"progress_every"`
	// Progress, if set, is told when a call starts, every ProgressEvery while it
	// runs, and when it ends — so that a command can show a slow analyzer at work. It
	// is called from the calling goroutine and from a timer's, and must be safe for
	// concurrent use (a replay analyses several sessions at once).
	Progress func(Call) `json:"-"`
	// Now is the clock Progress's Call.Elapsed is measured with (a command passes
	// time.Now); nil leaves Elapsed 0: the package reads no clock of its own. Only
	// the timer that paces the reports runs in wall time, and it changes no result.
	// Like Progress, it is called from several goroutines and must be safe for it.
	Now func() time.Time `json:"-"`
}

// Call describes one claude call for [HarnessConfig.Progress].
type Call struct {
	Kind      string        // "summary" (a checkpoint's segment) or "analysis" (a session's end)
	SessionID string        // the session it is about
	Elapsed   time.Duration // since the call started, by HarnessConfig.Now (0 without it; no decision reads it)
	Done      bool          // the call has ended; Err says how
	Err       error
}

// RestrictArgs are the arguments the harness always adds after Args: claude reads
// transcript text, which may hold instructions of anyone's, so it gets no tool at all
// ("--tools ”": no built-in tool, not even Read) and no MCP server but those of an
// --mcp-config ("--strict-mcp-config", and none is given). A claude too old to know
// the flags fails loudly, and every analysis with it.
func RestrictArgs() []string { return []string{"--tools", "", "--strict-mcp-config"} }

// DefaultHarnessConfig returns the defaults documented on [HarnessConfig].
func DefaultHarnessConfig() HarnessConfig {
	return HarnessConfig{
		Binary:  "claude",
		Args:    []string{"--print", "--output-format", "json"},
		Timeout: duration.Duration(2 * time.Minute),
		Limits:  DefaultPromptLimits(),

		ProgressEvery: duration.Duration(10 * time.Second),
	}
}

// HarnessLLM is an [AssessmentLLM] that runs `claude --print` as a subprocess, with no
// shell and no tools ([RestrictArgs]): the prompt is written to its stdin, its stdout
// is parsed with [ParseEnvelope], and each call is bounded by Timeout. On unix the
// subprocess runs in a process group of its own, and a timeout or cancellation kills
// the whole group, so that nothing it started outlives it. Every failure — a
// non-zero exit, an answer that is no analysis, a timeout — is an error, which the
// processor records as a failed analysis. It is safe for concurrent use.
type HarnessLLM struct {
	cfg HarnessConfig
}

// NewHarnessLLM returns a harness. Zero fields of cfg take their defaults.
func NewHarnessLLM(cfg HarnessConfig) *HarnessLLM {
	def := DefaultHarnessConfig()
	if cfg.Binary == "" {
		cfg.Binary = def.Binary
	}
	if cfg.Args == nil {
		cfg.Args = def.Args
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = def.Timeout
	}
	if cfg.Limits.MaxBytes <= 0 {
		cfg.Limits.MaxBytes = def.Limits.MaxBytes
	}
	if cfg.Limits.MaxEntryBytes <= 0 {
		cfg.Limits.MaxEntryBytes = def.Limits.MaxEntryBytes
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = def.ProgressEvery
	}
	return &HarnessLLM{cfg: cfg}
}

// SummarizeSegment asks claude for the seed's 2–3 sentence summary of a segment.
func (h *HarnessLLM) SummarizeSegment(ctx context.Context, seg session.Segment) (SegmentSummary, error) {
	done := h.track(Call{Kind: "summary", SessionID: seg.SessionID})
	text, err := h.run(ctx, SegmentPrompt(seg, h.cfg.Limits))
	text = strings.TrimSpace(text)
	if err == nil && text == "" {
		err = errors.New("llm: claude returned an empty summary")
	}
	done(err)
	if err != nil {
		return SegmentSummary{}, err
	}
	return SegmentSummary{Text: text, Metrics: ComputeMetrics(seg.Entries)}, nil
}

// AnalyzeSession asks claude for the seed's outcome classification and parses the
// answer with [ParseAnalysis].
func (h *HarnessLLM) AnalyzeSession(ctx context.Context, t session.Transcript) (SessionAnalysis, error) {
	done := h.track(Call{Kind: "analysis", SessionID: t.SessionID})
	text, err := h.run(ctx, AnalysisPrompt(t, h.cfg.Limits))
	var a SessionAnalysis
	if err == nil {
		a, err = ParseAnalysis(text)
	}
	done(err)
	return a, err
}

// Complete runs claude once with prompt on stdin and returns the model's answer.
func (h *HarnessLLM) Complete(ctx context.Context, prompt string) (string, error) {
	done := h.track(Call{Kind: "completion"})
	text, err := h.run(ctx, prompt)
	done(err)
	return text, err
}

// track tells Progress that a call starts and, until the returned function is called
// with the call's outcome, that it is running.
func (h *HarnessLLM) track(call Call) (done func(error)) {
	if h.cfg.Progress == nil {
		return func(error) {}
	}
	since := func() func() time.Duration {
		if h.cfg.Now == nil {
			return func() time.Duration { return 0 }
		}
		start := h.cfg.Now()
		return func() time.Duration { return h.cfg.Now().Sub(start) }
	}()
	h.cfg.Progress(call)
	stop := make(chan struct{})
	stopped := make(chan struct{})
	ticks := time.NewTicker(h.cfg.ProgressEvery.Std())
	go func() {
		defer close(stopped)
		for {
			select {
			case <-ticks.C:
				c := call
				c.Elapsed = since()
				h.cfg.Progress(c)
			case <-stop:
				return
			}
		}
	}()
	return func(err error) {
		ticks.Stop()
		close(stop)
		<-stopped // no running report after the last
		call.Elapsed, call.Done, call.Err = since(), true, err
		h.cfg.Progress(call)
	}
}

// run runs claude once.
func (h *HarnessLLM) run(ctx context.Context, prompt string) (string, error) {
	path, err := exec.LookPath(h.cfg.Binary)
	if err != nil {
		return "", fmt.Errorf("%w: %q (install Claude Code or set the harness binary): %v", ErrBinaryNotFound, h.cfg.Binary, err)
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout.Std())
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append(slices.Clone(h.cfg.Args), RestrictArgs()...)...)
	cmd.Stdin = strings.NewReader(prompt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group, killed whole at a timeout or cancellation (unix).
	ownProcessGroup(cmd)
	// If claude leaves children holding its pipes, stop waiting for them soon after
	// it has been killed.
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	if errors.Is(runErr, exec.ErrWaitDelay) || ctx.Err() != nil {
		killProcessGroup(cmd) // what it left behind
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return "", fmt.Errorf("llm: %s timed out after %v: %w", h.cfg.Binary, h.cfg.Timeout, ctxErr)
		}
		return "", fmt.Errorf("llm: %s: %w", h.cfg.Binary, ctxErr)
	}
	if runErr != nil {
		// claude prints an is_error result envelope on some failures: prefer it.
		if _, perr := ParseEnvelope(stdout.Bytes()); perr != nil && stdout.Len() > 0 {
			return "", fmt.Errorf("llm: %s: %v: %w", h.cfg.Binary, runErr, perr)
		}
		return "", fmt.Errorf("llm: %s: %w; stderr: %s", h.cfg.Binary, runErr, clipForError(strings.TrimSpace(stderr.String())))
	}
	return ParseEnvelope(stdout.Bytes())
}
