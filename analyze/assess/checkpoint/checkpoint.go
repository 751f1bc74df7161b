// Package checkpoint decides when the vibes assessment takes a medium assessment of
// a session (seed assessment-logic.md, "Checkpoint Manager"): after a number of
// messages, at a task boundary the human announces, when a git commit shows up in
// tool output, or after a stretch of event time.
//
// Compile a [Config] once into a [Policy] (immutable, shared) and keep one [Manager]
// per session. What it refuses to do: it never reads the clock (time is the event's),
// never summarises anything itself (the processor hands the segment to an LLM), and
// keeps no package-level mutable state.
package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/duration"
)

// SeedBoundaryPhrases returns the seed's task-boundary phrases, verbatim. The seed
// matches them as case-insensitive substrings, so "done" also fires inside
// "abandoned" and "next" inside "Next.js"; that is kept.
func SeedBoundaryPhrases() []string {
	return []string{"done", "finished", "complete", "next", "now let's", "moving on", "that works", "perfect"}
}

// SeedGitCommit returns the seed's literal git-commit rule: the tool output contains
// both "commit" and "[". Kept literally, it misses the usual output of git commit
// ("[main 1a2b3c4] fix parser" has no "commit" unless the message does) and fires on
// any output mentioning a commit next to a bracket (JSON, logs).
func SeedGitCommit() detect.TextMatch {
	return detect.TextMatch{AllOf: []string{"commit", "["}}
}

// StrictGitCommit returns a stricter alternative to [SeedGitCommit]: a line of the
// form git commit prints, "[branch 1a2b3c4] message" or
// "[main (root-commit) 1a2b3c4] message".
func StrictGitCommit() detect.TextMatch {
	return detect.TextMatch{AllOf: []string{"["}, Regexp: `(?m)^\[[^\]\n]* [0-9a-f]{7,40}\] `}
}

// Config configures checkpoints. The seed leaves both thresholds open.
type Config struct {
	// MessageThreshold: a checkpoint fires when this many messages have been seen since
	// the last one. Default 20: the seed's history screen shows segments of 6–16
	// messages with boundaries firing in between; 20 makes the count a fallback for
	// long stretches without a boundary.
	MessageThreshold int `json:"message_threshold"`
	// TimeThreshold: a checkpoint fires on the first event more than this much event
	// time after the last checkpoint (or the session's first event), provided a
	// message has been counted since.
	// Default 10m: the seed's example session (23 minutes, 4 checkpoints) checkpoints
	// about every 6 minutes with boundaries doing most of the work; 10 minutes bounds
	// the gap when they don't.
	TimeThreshold duration.Duration `json:"time_threshold"`
	// BoundaryPhrases are matched as case-insensitive (ASCII) substrings of human
	// messages (default [SeedBoundaryPhrases]).
	BoundaryPhrases []string `json:"boundary_phrases"`
	// GitCommit is the rule over tool output that detects a commit (default
	// [SeedGitCommit]; [StrictGitCommit] is the precise alternative).
	GitCommit detect.TextMatch `json:"git_commit"`
	// TextWindow bounds the part of a human message the boundary phrases are looked
	// for in: its first Head and last Tail bytes, as the detector reads a message
	// (detect.TextWindow), so that a checkpoint costs the same for a short reply and a
	// pasted megabyte. A phrase only in the middle of a long paste is not a boundary
	// the human announced. Default [detect.DefaultTextWindow]; zero for both reads
	// every message whole, as the seed does ([SeedConfig]).
	TextWindow detect.TextWindow `json:"text_window"`
	// ScanBytes bounds the part of a tool output the git-commit rule reads: its first
	// quarter and last three quarters of ScanBytes, as the detector reads a tool
	// output (detect.ToolConfig.ScanBytes; git commit prints its "[branch sha]" line
	// first, and a command that runs the tests before it leaves it near the end).
	// Default 65536; 0 reads every output whole, as the seed does ([SeedConfig]).
	ScanBytes int `json:"scan_bytes"`

	// The seed's counting rules, each off by default ([SeedConfig] switches them on).

	// CountEveryEvent counts every event of the session towards MessageThreshold —
	// hooks, system records and subagent (sidechain) records included — as the
	// seed's should_checkpoint does (called once per event, it counts each), and so
	// lets the time trigger fire at any event. Default false: only the main
	// conversation's messages count (see [IsMessage]), and a segment without one is
	// never summarised.
	CountEveryEvent bool `json:"count_every_event"`
	// CommitOnError reads the git-commit rule in every tool output, flagged errors
	// included, as the seed does. Default false: a failed command committed nothing.
	CommitOnError bool `json:"commit_on_error"`
	// UnicodeCase lower-cases a human message with Unicode's rules before looking for
	// the boundary phrases, as the seed's to_lowercase does (the Kelvin sign "K"
	// becomes "k"). Default false: ASCII case folding, which allocates nothing and
	// differs only for such characters.
	UnicodeCase bool `json:"unicode_case"`
}

// DefaultConfig returns the defaults documented on [Config].
func DefaultConfig() Config {
	return Config{
		MessageThreshold: 20,
		TimeThreshold:    duration.Duration(10 * time.Minute),
		BoundaryPhrases:  SeedBoundaryPhrases(),
		GitCommit:        SeedGitCommit(),
		TextWindow:       detect.DefaultTextWindow(),
		ScanBytes:        detect.DefaultToolConfig().ScanBytes,
	}
}

// SeedConfig returns the seed's checkpoints: its boundary phrases and git rule (as
// by default), loopwatch's thresholds (the seed leaves both open), and the seed's
// reading and counting rules: every message and tool output read whole, every event
// counts, a commit is read in any tool output, messages are lower-cased with
// Unicode's rules.
func SeedConfig() Config {
	c := DefaultConfig()
	c.CountEveryEvent, c.CommitOnError, c.UnicodeCase = true, true, true
	c.TextWindow, c.ScanBytes = detect.TextWindow{}, 0
	return c
}

// Trigger says why a checkpoint fired.
type Trigger uint8

// The four triggers, in the order the seed checks them.
const (
	MessageCount Trigger = iota + 1
	TaskBoundary
	GitCommit
	Time
)

// String returns "message_count", "task_boundary", "git_commit" or "time".
func (t Trigger) String() string {
	switch t {
	case MessageCount:
		return "message_count"
	case TaskBoundary:
		return "task_boundary"
	case GitCommit:
		return "git_commit"
	case Time:
		return "time"
	}
	return fmt.Sprintf("trigger(%d)", uint8(t))
}

// MarshalText encodes t by name.
func (t Trigger) MarshalText() ([]byte, error) {
	if t < MessageCount || t > Time {
		return nil, fmt.Errorf("checkpoint: invalid trigger %d", uint8(t))
	}
	return []byte(t.String()), nil
}

// Policy is a compiled [Config]; immutable and safe for concurrent use.
type Policy struct {
	threshold     int
	every         time.Duration
	phrases       []string // lower-cased
	phraseBytes   [][]byte // the same
	longest       int      // the longest phrase's bytes
	git           *detect.CompiledMatch
	window        detect.TextWindow
	scanBytes     int
	everyEvent    bool
	commitOnError bool
	unicodeCase   bool
}

// NewPolicy validates and compiles cfg.
func NewPolicy(cfg Config) (*Policy, error) {
	if cfg.MessageThreshold < 1 {
		return nil, errors.New("checkpoint: message_threshold must be ≥ 1")
	}
	if cfg.TimeThreshold <= 0 {
		return nil, errors.New("checkpoint: time_threshold must be > 0")
	}
	if err := cfg.TextWindow.Validate(); err != nil {
		return nil, fmt.Errorf("checkpoint: text_window: %w", err)
	}
	if err := detect.CheckScanBytes(cfg.ScanBytes); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	git, err := cfg.GitCommit.Compile()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: git_commit: %w", err)
	}
	p := &Policy{threshold: cfg.MessageThreshold, every: cfg.TimeThreshold.Std(), git: git, window: cfg.TextWindow,
		scanBytes: cfg.ScanBytes, everyEvent: cfg.CountEveryEvent, commitOnError: cfg.CommitOnError,
		unicodeCase: cfg.UnicodeCase}
	for _, ph := range cfg.BoundaryPhrases {
		if ph == "" {
			return nil, errors.New("checkpoint: empty boundary phrase")
		}
		lower := strings.ToLower(ph)
		p.phrases, p.phraseBytes = append(p.phrases, lower), append(p.phraseBytes, []byte(lower))
		p.longest = max(p.longest, len(lower))
	}
	return p, nil
}

// IsTaskBoundary reports whether a human message announces a task boundary: whether
// a boundary phrase occurs in the part of it Config.TextWindow reads.
func (p *Policy) IsTaskBoundary(content string) bool {
	head, tail, cut := p.window.Cut(content)
	return p.hasPhrase(head) || cut && p.hasPhrase(tail)
}

// hasPhrase reports whether a boundary phrase occurs in content.
func (p *Policy) hasPhrase(content string) bool {
	switch {
	case len(p.phrases) == 0:
		return false
	case p.unicodeCase:
		lower := strings.ToLower(content)
		for _, ph := range p.phrases {
			if strings.Contains(lower, ph) {
				return true
			}
		}
		return false
	case p.longest > foldChunk/4: // too long for the chunks: byte by byte
		for _, ph := range p.phrases {
			if containsFoldASCII(content, ph) {
				return true
			}
		}
		return false
	}
	// The message lower-cased (ASCII) a chunk at a time, each chunk starting where a
	// phrase that did not fit in the one before may start, and every phrase looked for
	// in it as the library looks for a substring.
	var buf [foldChunk]byte
	for off := 0; off < len(content); off += foldChunk - (p.longest - 1) {
		chunk := buf[:min(foldChunk, len(content)-off)]
		for i := range chunk {
			chunk[i] = lowerASCII(content[off+i])
		}
		for _, ph := range p.phraseBytes {
			if bytes.Contains(chunk, ph) {
				return true
			}
		}
		if off+len(chunk) == len(content) {
			break
		}
	}
	return false
}

// foldChunk is how many bytes of a message IsTaskBoundary lowers at a time.
const foldChunk = 4096

// IsGitCommit reports whether a tool output shows a commit: whether the git-commit
// rule matches the part of it Config.ScanBytes reads.
func (p *Policy) IsGitCommit(output string) bool {
	return p.git.Match(detect.OutputWindow(output, p.scanBytes))
}

// IsMessage reports whether ev counts towards the message threshold: a user message,
// assistant message, tool result or interrupt of the main conversation. Hooks and
// system records are not messages, and sidechain (subagent) records are not counted,
// or one subagent run would fire the parent's checkpoints.
func IsMessage(ev *analyze.Event) bool {
	if ev.Sidechain {
		return false
	}
	switch ev.Kind {
	case analyze.KindUserMessage, analyze.KindAssistantMessage, analyze.KindToolResult, analyze.KindInterrupt:
		return true
	}
	return false
}

// Manager is one session's checkpoint state (the seed's CheckpointManager). Not safe
// for concurrent use.
type Manager struct {
	p       *Policy
	since   int
	last    time.Time
	started bool
}

// NewManager returns a manager for a new session. Its clock starts at the first
// event passed to ShouldCheckpoint.
func (p *Policy) NewManager() *Manager { return &Manager{p: p} }

// ShouldCheckpoint counts ev (when it is a message, see [IsMessage]; every event
// with Config.CountEveryEvent) and reports whether a checkpoint is due, and why. The
// seed's checks, in its order: message count ≥ threshold; a task-boundary phrase in a
// human message (non-sidechain KindUserMessage: a subagent's prompt is the agent's);
// a git commit in a tool result not flagged as an error (any, with
// Config.CommitOnError); more than TimeThreshold of event time since the last
// checkpoint. No checkpoint fires while nothing has been counted since the last one
// (an empty segment has nothing to summarise).
func (m *Manager) ShouldCheckpoint(ev analyze.Event) (Trigger, bool) {
	if !m.started {
		m.started, m.last = true, ev.Time
	}
	if m.p.everyEvent || IsMessage(&ev) {
		m.since++
	}
	switch {
	case m.since == 0:
		return 0, false
	case m.since >= m.p.threshold:
		return MessageCount, true
	case ev.Kind == analyze.KindUserMessage && !ev.Sidechain && m.p.IsTaskBoundary(ev.UserContent):
		return TaskBoundary, true
	case ev.Kind == analyze.KindToolResult && (m.p.commitOnError || ev.ToolStatus != analyze.ToolStatusError) &&
		m.p.IsGitCommit(ev.ToolOutput):
		return GitCommit, true
	case ev.Time.Sub(m.last) > m.p.every:
		return Time, true
	}
	return 0, false
}

// RecordCheckpoint resets the message count and restarts the clock at event time at.
func (m *Manager) RecordCheckpoint(at time.Time) {
	m.since, m.last, m.started = 0, at, true
}

// MessagesSinceCheckpoint returns the messages counted since the last checkpoint.
func (m *Manager) MessagesSinceCheckpoint() int { return m.since }

// containsFoldASCII reports whether sub (lower-case) occurs in s under ASCII case
// folding, without allocating.
func containsFoldASCII(s, sub string) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	first := sub[0]
	for i := 0; i+n <= len(s); i++ {
		if lowerASCII(s[i]) != first {
			continue
		}
		j := 1
		for j < n && lowerASCII(s[i+j]) == sub[j] {
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}
