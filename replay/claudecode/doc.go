// Package claudecode reads Claude Code session transcripts — the JSONL files Claude
// Code writes under ~/.claude/projects/<project>/<session>.jsonl, with their subagent
// transcripts in <session>/subagents/agent-*.jsonl — into [input.Session] values: one
// session per main transcript, a sequence of [analyze.Event]s on event time.
//
// It reads; it does not detect, score or replay. It does not walk folders either: the
// caller finds the files, asks [Sniff] and [IsSubagentFile], and calls [Read] on each
// main transcript (which attaches its subagents itself) and [ReadOrphan] on each
// subagent transcript whose [ParentOf] is missing.
//
// # Records → events
//
// Every line is one record with a type. Records map as follows (Records keys in
// brackets count what was met; a key with a slash counts parts of records and does not
// add up with the record counts):
//
//   - user, content a string or text blocks: each text is classified by [Classify].
//     Human text becomes one KindUserMessage per record (several text blocks joined by
//     newlines) [user/human]. An interrupt marker ("[Request interrupted by user]",
//     "[Request interrupted by user for tool use]") becomes a KindInterrupt carrying the
//     marker as UserContent [user/interrupt]. Text Claude Code or a hook wrote into the
//     user role becomes one KindSystem event per record whose Subtype is the class:
//     isMeta records "meta"; slash commands and their output (<command-…>,
//     <local-command-…>, "Caveat:", ! bash mode's <bash-…>) "command"; compaction
//     summaries (isCompactSummary, or text opening "This session is being continued
//     from a previous conversation") "compact_summary"; "<task-notification>"
//     "task_notification"; "<system-reminder>" "system_reminder";
//     "<user-prompt-submit-hook>" "hook_output"; a text wholly one element of a tag
//     whose name joins words with "-" or "_" ("<ci-monitor-event>…</ci-monitor-event>",
//     a plugin's or a tool's) "injected" — a human message that goes on after such an
//     element is the human's words only ([HumanText]). White space only is counted
//     [user/empty], images [user/image]; neither is an event.
//   - user, tool_result blocks: one KindToolResult each [user/tool_result], ToolOutput
//     the content (a string, or its text blocks joined by newlines; images counted
//     [user/tool_result_image]). ToolStatus: is_error true → error, is_error false →
//     ok; without is_error, the record's toolUseResult.interrupted (Bash) true → error,
//     else unknown. When the content is empty, toolUseResult's stdout and stderr are the
//     output. ToolName is the name of the assistant tool_use with that id earlier in
//     the same file ("" when there is none [user/tool_result_unmatched]), ToolCommand
//     the "command" string of its input (Bash's command line). A result flagged as an
//     error that opens with "Exit code N" (Claude Code 2.x writes a failed Bash
//     command's status so) has ExitCode N ([analyze.ExitCodeOf]); no other exit code
//     is recorded, a success's 0 included.
//   - assistant: the text blocks of one record make one KindAssistantMessage (joined by
//     blank lines) [assistant/text]; white-space-only text is counted
//     [assistant/empty_text]. thinking and tool_use blocks are no events but are
//     counted [assistant/thinking], [assistant/tool_use]; tool_use ids feed ToolName.
//     An API error written as an assistant record (isApiErrorMessage) is a KindSystem
//     "api_error" [assistant/api_error].
//   - system: subtype stop_hook_summary (Claude Code ran the Stop hooks at the end of a
//     turn) is a KindHook "Stop" ("SubagentStop" in a sidechain); every other system
//     record (compact_boundary, turn_duration, local_command, api_error, …) is a
//     KindSystem with its subtype ("system" when it has none) [system/<subtype>].
//   - summary, ai-title, custom-title: the session's Title (see below); no events.
//   - queue-operation and attachment of type queued_command: a message the human typed
//     while the agent was busy and the agent read mid-turn is a KindUserMessage of
//     Subtype [analyze.SubtypeQueued] where it was read [queued/human]: at a remove's
//     time, or, for an attachment (stamped when the message was queued), at the time
//     of the record before it (see queued.go for the operations; what other programs
//     queue maps as a user record's text does); the operations are counted
//     [queue/<operation>].
//   - every other type — progress, file-history-snapshot, permission-mode,
//     last-prompt, other attachments, agent-name and types not known yet — is counted
//     by type in Records and skipped. Unknown types are normal, not problems.
//
// Event ID is the record's uuid (shared by the events of one record); SessionID the
// session's Key.
//
// # Sidechains and subagents
//
// Records of subagent transcripts, and records with isSidechain true in any file (old
// versions kept sidechains inline), map by the same rules with Sidechain set, and are
// merged into the session's timeline. A sidechain's "user" text is written by the
// parent agent (the Task prompt) or by Claude Code (the compaction prompt of an
// agent-acompact-* transcript), never by the human: it is a KindUserMessage with
// Sidechain true, which detectors and counts of human messages must leave out, as
// [analyze.Event.Sidechain] says. Session.Subagents counts the subagent transcripts
// read. A subagent transcript without its main transcript is not replayed:
// [ReadOrphan] reports it (with its bad lines) as a problem; replaying it alone would
// make a session with no human conversation, and one that would count twice were its
// main transcript replayed from elsewhere.
//
// # Time
//
// An event's time is its record's timestamp, in UTC. A record without one, or with
// one that is not RFC 3339, takes the time of the record before it in its file (at
// the start of a file, the file's first time) [time/missing]; a timestamp that is not
// RFC 3339 is reported, a missing one when the record produces events (snapshots and
// summaries have none by design). Claude Code writes records slightly out of time order as a matter of course
// (the records of parallel tool calls are written as they stream; a slash command is
// logged after the compaction it started), so events are stable-sorted by time: ties
// keep file order, the main transcript before subagents, subagents in name order; the
// events placed before an earlier line's are counted [time/out_of_order]. A timestamp
// of a record that gives events that falls more than [MaxBackstep] behind the records
// before it in its file that give events, or lies more than a year from the file's
// other times, is a clock fault — and the fault is told from its neighbours (package
// clockfault): one record stamped seventy years ahead is the one reported, not the
// records after it. A faulty record is placed at its trusted neighbour's time, in file
// order. A record that gives no event (most queue operations) is bookkeeping written when
// it happens, not in turn order — the queue operations of the next prompt come before
// the stop-hook summary of the turn before it, stamped with that turn's time — so it
// is not checked against its neighbours, nor they against it; only a time more than a
// year from the file's is a fault, reported and left out of the session's span. A
// subagent transcript's times are also checked against the session's so far: a year
// or more outside it is a fault (reported, placed at the span's nearer end), and a
// subagent transcript without a time takes the session's first. Session.Start and End
// are the earliest and latest record times (records of every type, subagents
// included, clock faults placed, an eventless record a year off left out), so End is
// the session's last record.
//
// # Session fields
//
// Key is the file's stem when a record carries it as its sessionId (Claude Code names
// a transcript after its session), else the sessionId of the main transcript's last
// records, else the stem (a summary-only file). A resumed session's file begins with
// records of the session it continues (and its hooks may go on reporting that id):
// records of an id that opens the main transcript before the key's first record are
// kept, counted under [ContinuedRecords] and listed in
// Session.ContinuedFrom (a note, not a problem). Records carrying another session id
// anywhere else — in the main transcript or a subagent's — are kept in the session
// and reported once per foreign id with the line of its first record. Project is the first cwd, Version the first
// version. Title is the last custom-title, else the last ai-title, else the summary
// whose leafUuid is a record of this session, else the file's last summary (old
// versions put at the top of a file the summaries of the conversation it continued).
// Line is the line of the main transcript's first record.
//
// # Bad input
//
// Nothing in a transcript stops the reading. Lines that are not JSON objects, cut-off
// final lines, lines longer than [MaxLine], lines with invalid UTF-8 (kept, the bytes
// read as U+FFFD), records without a type, fields of the wrong JSON type (the record is
// kept without them), user records without content and content of an unexpected shape
// are reported as [input.Problem]s with file and line, and the rest goes on. A line
// holding several records — a lost newline, or a record cut off mid-write with the
// next one written straight after it ([jsonl.SplitJoined]) — is reported, and its
// complete records are read. A file with
// no record at all gives no session and a problem. Lines are read one at a time, of any
// length up to MaxLine; fields the mapping does not need (tool inputs but a command,
// thinking text, usage, snapshots, progress payloads) are skipped by the JSON decoder without being
// built.
package claudecode
