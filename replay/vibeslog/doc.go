// Package vibeslog reads vibes event logs — the JSONL export of vibes' append-only
// event stream, one {"event_id": "<UUIDv7>", "type": "<variant>", …} object per line —
// into [input.Session] values: one session per session_id, each a sequence of
// [analyze.Event]s on event time. Several sessions interleaved in one log come back
// as one session each, sorted by key.
//
// It reads; it does not detect, score or replay, and it does not look at Claude Code
// transcripts (package claudecode does).
//
// # Time
//
// An event's time is the Unix millisecond time in the first 48 bits of its event_id
// ([EventTime]), in UTC. An event whose id is missing or not a UUIDv7 is reported and
// takes the time of its session's event before it (the session's first time when it
// comes first). Within a session, events are stable-sorted by time (ties keep log
// order). An event time that falls more than [MaxBackstep] behind the session's events
// before it, or lies more than a year from its other times, is a clock fault, told
// from its neighbours (package clockfault: one event seventy years ahead is the one
// reported, not the events after it); it is reported and placed at its trusted
// neighbour's time, in log order. A session's events are checked once the whole log is
// read, then mapped. Start and End are the session's earliest and latest event times.
//
// # Events → events
//
// Records keys count every event by type ("hook", "claude", …) and by type/inner type
// ("hook/stop", "claude/text_delta", …); keys ending in "/paired", "/empty",
// "/unmatched" count the decisions below.
//
//   - user_input.content → KindUserMessage.
//   - hook user_prompt_submit.prompt → KindUserMessage too: a prompt typed in Claude
//     Code's own terminal reaches vibes only through the hook. A prompt sent through
//     vibes arrives twice, as user_input and as the hook; the two are one message when
//     their texts are equal after trimming white space and they are at most
//     [PairWindow] apart, in either order and oldest first: the first of the two is
//     the event (at its time, with its id), the second is merged into it (user_input's
//     text wins) and counted [user_input/paired, hook/user_prompt_submit/paired].
//   - claude text_delta: consecutive deltas of a session join into one
//     KindAssistantMessage, ended by any other event of the same session (a thinking
//     delta, a tool call, a turn's end, a prompt, a hook); it takes the time of its
//     last delta (when the text was complete) and the id of its first. White-space-only
//     runs are counted, not emitted.
//   - claude tool_result{output, is_error} → KindToolResult: ToolName from the
//     tool_use_start with that id, ToolCommand the "command" string of the input its
//     tool_input_delta events spell (up to [MaxToolInput]), ToolStatus error/ok from
//     is_error (unknown without it). hook post_tool_use{tool_name, tool_input,
//     tool_response} → KindToolResult too: ToolCommand from tool_input's "command", a
//     string response is the output, Bash's {stdout, stderr, interrupted} gives stdout
//     and stderr joined by a newline (interrupted → error), any other shape its JSON
//     text. A failed result that opens with "Exit code N" has ExitCode N
//     ([analyze.ExitCodeOf]).
//     One tool call reported both ways is one event: a claude tool_result and a
//     post_tool_use of the same tool name (or either unnamed) at most PairWindow apart
//     pair, oldest first, in either order; the first is the event, the claude side's
//     output and is_error win, the hook's interrupted flag fills an unknown status and
//     its command a missing one. At most [MaxUnpaired] prompts and as many tool
//     results of a session wait for their other half; past that the oldest is given
//     up [pairing/given_up], which bounds a record's cost in a log whose records never
//     pair.
//   - claude thinking_delta, tool_use_start, tool_input_delta: no events (counted).
//   - claude turn_start, turn_complete, error, permission_request → KindSystem with
//     that Subtype. Unknown claude event types are counted and reported once per type.
//   - hook stop → KindHook "Stop" (one per turn); session_end → "SessionEnd";
//     session_start, pre_tool_use, notification, subagent_stop, pre_compact,
//     permission_request → their Claude Code names; an unknown hook type takes the
//     payload's hook_event_name (or its CamelCase). A user_prompt_submit without a
//     prompt is a plain KindHook "UserPromptSubmit".
//   - session_created, session_state_changed, session_removed, permission_response,
//     ownership_transferred → KindSystem with the variant as Subtype. session_removed
//     is where vibes ends a session: it is usually the session's last event, so End is
//     its time, and a replay that ends each session at its End ends it there (it is
//     not a Claude Code hook, so it is no KindHook). session_created's name is the session's Title. Project is the first cwd of a
//     hook payload.
//   - client_connected, client_disconnected, tunnel_state_changed (no session):
//     counted in [Log.Unattributed] ([Log.UnattributedCount]; package replay notes
//     them).
//
// The session key is the event's session_id, or the hook payload's session_id when the
// event has none. Event ID is the event_id.
//
// # A log in parts
//
// vibes' log is one stream; an export of it taken in pieces — one file a day, each
// from where the last stopped, or each the whole log again — cuts a session going on
// at the cut in two, or repeats it. [ReadPartsOnly] reads such files, in the order
// given (the log's: [SessionKeys] says where each starts), as the one log they were
// cut from: a session's events from every part are one session, paired, timed and
// checked as within one file, and its problems name the part and line they are at. An
// event whose event_id (a UUIDv7) its session has read already is the same event
// exported again: it is read once — what was wrong with its line is not reported
// twice (a line that is no event, as several records run together, is a problem of
// each part it is in, with what is wrong with its bytes) — and counted in [Log.Repeated] and in the session's Records as "repeated"
// (another event is reported: an id given to two events — within one file or part, a
// line that is not the first one's byte for byte; in another part than the first
// one's, an event that is not the first one as the reader reads it — every field it reads, strings
// decoded, tool_input and tool_response by their JSON values — so that a part a tool
// wrote again — members in another order, other white space or escapes, a member the
// reader does not read added or left out — repeats its events). An id is an event's within its session, so that a reader that builds only
// some sessions ([ReadLogOnly]) builds them as ReadLog does. This holds within one
// file too. [SessionKeys] names the sessions a file holds without reading their
// events, for a caller that must know which files share a session before it reads
// them (package replay reads every vibes file of its input that shares a session with
// another together with it).
//
// # Bad input
//
// Nothing in a log stops the reading. Lines that are not JSON objects, cut-off final
// lines, lines longer than [MaxLine], invalid UTF-8 (kept, read as U+FFFD), events
// without a type, session events without a session_id, claude or hook events without
// an inner event, fields of the wrong JSON type (each named; the event is read without
// them), and bad event ids are reported as [input.Problem]s with their line; unknown
// types are counted in their session's Records and reported once per type, with the
// line of the first and the count. A line holding several events (a lost newline, or
// an event cut off mid-write with the next written straight after it) is reported and
// its complete events are read.
package vibeslog
