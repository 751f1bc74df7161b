// Package llm is the vibes assessment's model side (seed assessment-logic.md, "LLM
// Backend"): the [AssessmentLLM] interface for segment summaries and session
// outcome analysis; [HarnessLLM], which runs `claude --print` as a subprocess; and
// [OfflineAnalyzer], deterministic rules over the buffered signals that need no
// network and are the default in replay.
//
// What it refuses to do: HarnessLLM never goes through a shell, never puts the prompt
// on the command line (it is written to stdin) and never lets claude use a tool (the
// prompt holds transcript text anyone may have written: [RestrictArgs]); a failed
// call is an error, never a made-up outcome; nothing here reads the clock for a
// decision (the subprocess timeout is a context deadline; progress reports measure
// elapsed time only), keeps package-level mutable state, or retries behind the
// caller's back.
package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopwatch/loopwatch/analyze/assess/session"
)

// Outcome is a session's outcome: success, partial, failure or abandoned.
type Outcome string

// The four outcomes the seed's session analysis classifies into.
const (
	OutcomeSuccess   Outcome = "success"
	OutcomePartial   Outcome = "partial"
	OutcomeFailure   Outcome = "failure"
	OutcomeAbandoned Outcome = "abandoned"
)

// ParseOutcome reads an outcome, ignoring case and surrounding space.
func ParseOutcome(s string) (Outcome, error) {
	switch o := Outcome(strings.ToLower(strings.TrimSpace(s))); o {
	case OutcomeSuccess, OutcomePartial, OutcomeFailure, OutcomeAbandoned:
		return o, nil
	}
	return "", fmt.Errorf("llm: unknown outcome %q (want success|partial|failure|abandoned)", s)
}

// TokenMetrics sizes a segment (the seed's token_metrics).
type TokenMetrics struct {
	Events int `json:"events"`
	// Bytes is the buffered text of the segment (user content, assistant text, tool
	// output, as clipped by the buffer).
	Bytes int `json:"bytes"`
	// EstimatedTokens is Bytes/4 rounded up, the usual rule of thumb for English and
	// code; no tokenizer is involved.
	EstimatedTokens int `json:"estimated_tokens"`
}

// ComputeMetrics sizes a list of buffered entries.
func ComputeMetrics(entries []session.Entry) TokenMetrics {
	m := TokenMetrics{Events: len(entries)}
	for i := range entries {
		ev := &entries[i].Event
		m.Bytes += len(ev.UserContent) + len(ev.AssistantText) + len(ev.ToolOutput)
	}
	m.EstimatedTokens = (m.Bytes + 3) / 4
	return m
}

// SegmentSummary is the medium assessment of one segment.
type SegmentSummary struct {
	Text    string       `json:"text"`
	Metrics TokenMetrics `json:"metrics"`
}

// SessionAnalysis is the heavy assessment of a whole session.
type SessionAnalysis struct {
	Outcome    Outcome `json:"outcome"`
	Confidence float64 `json:"confidence"`
	Summary    string  `json:"summary"`
}

// AssessmentLLM summarises segments and analyses sessions (the seed's trait).
// Implementations must honour ctx.
type AssessmentLLM interface {
	SummarizeSegment(ctx context.Context, seg session.Segment) (SegmentSummary, error)
	AnalyzeSession(ctx context.Context, t session.Transcript) (SessionAnalysis, error)
}
