package analyze

import (
	"strconv"
	"strings"
	"time"
)

// EventKind says what an agent-session [Event] records.
type EventKind string

// The event kinds every session source maps its records onto.
const (
	// KindUserMessage is text the human typed (a prompt, a correction, a reply).
	KindUserMessage EventKind = "user_message"
	// KindAssistantMessage is text the agent wrote. It is never scanned for the
	// user's frustration.
	KindAssistantMessage EventKind = "assistant_message"
	// KindToolResult is the output of a tool call.
	KindToolResult EventKind = "tool_result"
	// KindInterrupt is the human interrupting the agent mid-turn.
	KindInterrupt EventKind = "interrupt"
	// KindHook is a Claude Code hook firing (Stop, SessionEnd, UserPromptSubmit, ...).
	KindHook EventKind = "hook"
	// KindSystem is anything else the session recorded (compaction notices, hook output,
	// session lifecycle records) that carries no user or tool content.
	KindSystem EventKind = "system"
)

// ToolStatus is what the source itself says about a tool call's success, independent
// of any heuristic over its output text.
type ToolStatus uint8

// Tool statuses. ToolStatusUnknown means the source gave no explicit flag.
const (
	ToolStatusUnknown ToolStatus = iota
	ToolStatusOK
	ToolStatusError
)

// String returns "unknown", "ok" or "error".
func (s ToolStatus) String() string {
	switch s {
	case ToolStatusOK:
		return "ok"
	case ToolStatusError:
		return "error"
	}
	return "unknown"
}

// Event is one moment of an agent session as the assessment sees it, whatever the
// source (a Claude Code transcript record, a vibes event-log entry, a live hook).
type Event struct {
	Kind      EventKind
	SessionID string
	Time      time.Time // event time as recorded by the source, UTC
	ID        string    // the source's record id (a uuid), when it has one

	// UserContent is the human's text for KindUserMessage (and the interrupt marker for
	// KindInterrupt); empty otherwise.
	UserContent string
	// AssistantText is the agent's text for KindAssistantMessage.
	AssistantText string

	// ToolName, ToolOutput and ToolStatus describe a KindToolResult.
	ToolName   string
	ToolOutput string
	ToolStatus ToolStatus
	// ToolCommand is the command line a KindToolResult ran, when the tool is a shell
	// (Claude Code's Bash: the "command" of the tool call's input) and the source
	// records it; empty otherwise.
	ToolCommand string
	// ExitCode is the command's exit status when HasExitCode is set, i.e. when the
	// source records it (Claude Code writes "Exit code N" at the top of a failed Bash
	// result: see [ExitCodeOf]). A successful call rarely records its 0.
	ExitCode    int
	HasExitCode bool

	// HookName is the Claude Code hook event name for KindHook, in Claude Code's own
	// spelling: "Stop", "SessionEnd", "UserPromptSubmit", "PostToolUse", ...
	HookName string

	// Sidechain marks records of a subagent: they belong to the session but not to the
	// human conversation.
	Sidechain bool

	// Subtype says, in the source's own terms, what a KindSystem event records: a
	// Claude Code system subtype ("compact_boundary", "turn_duration", "local_command",
	// "api_error"), the class of system-injected user text ("command", "meta",
	// "compact_summary", "task_notification"), or a vibes variant ("error",
	// "session_removed"). For a KindUserMessage it is empty (a prompt), or
	// [SubtypeQueued]. Empty for the other kinds.
	Subtype string
}

// SubtypeQueued marks a KindUserMessage the human typed while the agent was busy and
// the agent read in the middle of its turn (Claude Code's queued messages): the
// human's words, but not a prompt that starts a turn — the agent was working on the
// request before it (see [Event.MidTurn]).
const SubtypeQueued = "queued"

// MidTurn reports whether e is a human message the agent read in the middle of its
// turn ([SubtypeQueued]) rather than a prompt.
func (e *Event) MidTurn() bool {
	return e.Kind == KindUserMessage && e.Subtype == SubtypeQueued
}

// ExitCodeOf reads the exit status Claude Code writes at the top of a failed shell
// result ("Exit code 1\n…", also "Error: Exit code 1\n…" in its toolUseResult): ok
// is false when output does not open with it.
func ExitCodeOf(output string) (code int, ok bool) {
	rest, found := strings.CutPrefix(output, "Exit code ")
	if !found {
		rest, found = strings.CutPrefix(output, "Error: Exit code ")
	}
	if !found {
		return 0, false
	}
	end := 0
	for end < len(rest) && end < 10 && (rest[end] >= '0' && rest[end] <= '9' || end == 0 && rest[end] == '-') {
		end++
	}
	if end < len(rest) && rest[end] != '\n' && rest[end] != '\r' {
		return 0, false
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0, false
	}
	return n, true
}
