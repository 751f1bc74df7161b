package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
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
}

// DefaultHarnessConfig returns the defaults documented on [HarnessConfig].
func DefaultHarnessConfig() HarnessConfig {
	return HarnessConfig{
		Binary:  "claude",
		Args:    []string{"--print", "--output-format", "json"},
		Timeout: duration.Duration(2 * time.Minute),
		Limits:  DefaultPromptLimits(),
	}
}

// HarnessLLM is an [AssessmentLLM] that runs `claude --print` as a subprocess, with no
// shell: the prompt is written to its stdin, its stdout is parsed with
// [ParseEnvelope], and each call is bounded by Timeout. It is safe for concurrent use.
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
	return &HarnessLLM{cfg: cfg}
}

// SummarizeSegment asks claude for the seed's 2–3 sentence summary of a segment.
func (h *HarnessLLM) SummarizeSegment(ctx context.Context, seg session.Segment) (SegmentSummary, error) {
	text, err := h.Complete(ctx, SegmentPrompt(seg, h.cfg.Limits))
	if err != nil {
		return SegmentSummary{}, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return SegmentSummary{}, errors.New("llm: claude returned an empty summary")
	}
	return SegmentSummary{Text: text, Metrics: ComputeMetrics(seg.Entries)}, nil
}

// AnalyzeSession asks claude for the seed's outcome classification and parses the
// answer with [ParseAnalysis].
func (h *HarnessLLM) AnalyzeSession(ctx context.Context, t session.Transcript) (SessionAnalysis, error) {
	text, err := h.Complete(ctx, AnalysisPrompt(t, h.cfg.Limits))
	if err != nil {
		return SessionAnalysis{}, err
	}
	return ParseAnalysis(text)
}

// Complete runs claude once with prompt on stdin and returns the model's answer.
func (h *HarnessLLM) Complete(ctx context.Context, prompt string) (string, error) {
	path, err := exec.LookPath(h.cfg.Binary)
	if err != nil {
		return "", fmt.Errorf("%w: %q (install Claude Code or set the harness binary): %v", ErrBinaryNotFound, h.cfg.Binary, err)
	}
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout.Std())
	defer cancel()
	cmd := exec.CommandContext(ctx, path, h.cfg.Args...)
	cmd.Stdin = strings.NewReader(prompt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// If claude leaves children holding its pipes, stop waiting for them soon after
	// it has been killed.
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
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
