package synth

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// clock is the event time and randomness one generated session (or log) shares
// between its writers, and the ground truth gathered while it is played out.
type clock struct {
	rng      *rand.Rand
	t        time.Time
	humans   int      // human messages written
	friction []string // ids of the records that show friction, in order
}

// wait advances the clock by a duration drawn uniformly from [lo, hi], in whole
// milliseconds (the precision of the timestamps).
func (c *clock) wait(lo, hi time.Duration) {
	ms := lo.Milliseconds()
	if span := hi.Milliseconds() - ms; span > 0 {
		ms += c.rng.Int64N(span + 1)
	}
	c.t = c.t.Add(time.Duration(ms) * time.Millisecond)
}

// between returns an int drawn uniformly from [lo, hi].
func (c *clock) between(lo, hi int) int { return lo + c.rng.IntN(hi-lo+1) }

// ccWriter writes one Claude Code v2 transcript (a main session or one subagent's)
// record by record, keeping the parentUuid chain, the API message an assistant
// record belongs to, and the clock.
type ccWriter struct {
	c *clock

	sessionID, cwd, version, branch, model string
	sidechain                              bool
	agentID                                string

	// pause is the range of the human's pauses before a prompt: reading the answer
	// and typing.
	pause [2]time.Duration

	lines     [][]byte
	parent    string    // uuid of the last chained record; "" before the first
	msg       *apiMsg   // the API response assistant blocks are added to; nil after a user record
	turnStart time.Time // time of the prompt that started the current turn
	context   int       // tokens of context so far, for usage figures
	summary   string    // title written as a summary record at the top; "" for none

	files map[string]string // the project's files as the script has them, by relative path
	subs  []*ccWriter       // subagent transcripts, in the order they started
}

// apiMsg is one API response: its records share id, request id and usage.
type apiMsg struct {
	id, req string
	usage   obj
}

// result is what a tool call returns.
type result struct {
	content any // string, or []obj content blocks
	isError bool
	extra   any              // toolUseResult; nil for none
	took    [2]time.Duration // how long the tool ran
}

func newCCWriter(c *clock, sessionID, cwd, version, branch, model string) *ccWriter {
	return &ccWriter{c: c, sessionID: sessionID, cwd: cwd, version: version, branch: branch, model: model,
		pause: [2]time.Duration{20 * time.Second, 75 * time.Second}, context: 14000 + c.rng.IntN(5000),
		files: map[string]string{}}
}

// subagent returns the writer of a subagent transcript of w's session, sharing its
// clock: its records are sidechain records carrying agentId.
func (w *ccWriter) subagent(agentID, model string) *ccWriter {
	s := newCCWriter(w.c, w.sessionID, w.cwd, w.version, w.branch, model)
	s.sidechain, s.agentID = true, agentID
	s.files = w.files
	w.subs = append(w.subs, s)
	return s
}

// bytes returns the transcript: the summary record (if any) first, as Claude Code
// puts them, then the records in order.
func (w *ccWriter) bytes() []byte {
	var buf bytes.Buffer
	if w.summary != "" {
		buf.Write(line(obj{{"type", "summary"}, {"summary", w.summary}, {"leafUuid", w.parent}}))
	}
	for _, l := range w.lines {
		buf.Write(l)
	}
	return buf.Bytes()
}

// envelope returns the keys every chained record opens with.
func (w *ccWriter) envelope() obj {
	var parent any
	if w.parent != "" {
		parent = w.parent
	}
	o := obj{{"parentUuid", parent}, {"isSidechain", w.sidechain}, {"userType", "external"}, {"cwd", w.cwd},
		{"sessionId", w.sessionID}, {"version", w.version}, {"gitBranch", w.branch}}
	if w.agentID != "" {
		o = append(o, kv{"agentId", w.agentID})
	}
	return o
}

// chain writes a chained record whose uuid is id.
func (w *ccWriter) chain(o obj, id string) {
	w.lines = append(w.lines, line(o))
	w.parent = id
}

// start writes the SessionStart hook's progress record that opens a session.
func (w *ccWriter) start(hook string) {
	id, tool := uuid4(w.c.rng), uuid4(w.c.rng)
	o := append(w.envelope(), kv{"type", "progress"},
		kv{"data", obj{{"type", "hook_progress"}, {"hookEvent", "SessionStart"}, {"hookName", "SessionStart:startup"}, {"command", hook}}},
		kv{"parentToolUseID", tool}, kv{"toolUseID", tool}, kv{"timestamp", stamp(w.c.t)}, kv{"uuid", id})
	w.chain(o, id)
}

// user writes a user record with content and returns its uuid.
func (w *ccWriter) user(content any, extra ...kv) string {
	id := uuid4(w.c.rng)
	o := append(w.envelope(), kv{"type", "user"}, kv{"message", obj{{"role", "user"}, {"content", content}}},
		kv{"uuid", id}, kv{"timestamp", stamp(w.c.t)})
	w.chain(append(o, extra...), id)
	w.msg = nil
	w.context += len(fmt.Sprint(content)) / 4
	return id
}

// human writes a prompt the human typed, after a pause, with the file-history
// snapshot Claude Code takes before each prompt, and returns its uuid. friction
// marks it as a moment of friction in the ground truth.
func (w *ccWriter) human(text string, friction bool) string {
	w.c.wait(w.pause[0], w.pause[1])
	w.turnStart = w.c.t
	id := uuid4(w.c.rng)
	w.lines = append(w.lines, line(obj{{"type", "file-history-snapshot"}, {"messageId", id},
		{"snapshot", obj{{"messageId", id}, {"trackedFileBackups", obj{}}, {"timestamp", stamp(w.c.t)}}},
		{"isSnapshotUpdate", false}}))
	o := append(w.envelope(), kv{"type", "user"}, kv{"message", obj{{"role", "user"}, {"content", text}}},
		kv{"uuid", id}, kv{"timestamp", stamp(w.c.t)}, kv{"permissionMode", "default"})
	w.chain(o, id)
	w.msg = nil
	w.context += len(text) / 4
	w.c.humans++
	if friction {
		w.c.friction = append(w.c.friction, id)
	}
	return id
}

// prompt writes the Task prompt that opens a subagent transcript.
func (w *ccWriter) prompt(text string) {
	w.turnStart = w.c.t
	w.user(text)
}

// assistant writes one assistant record holding block, as part of the current API
// response (a new one after a user record).
func (w *ccWriter) assistant(block obj) string {
	if w.msg == nil {
		w.c.wait(1500*time.Millisecond, 4500*time.Millisecond) // time to first token
		in := w.context
		cached := in * (70 + w.c.rng.IntN(25)) / 100
		w.msg = &apiMsg{id: token(w.c.rng, "msg_01", 22), req: token(w.c.rng, "req_011C", 20),
			usage: obj{{"input_tokens", w.c.between(3, 12)}, {"cache_creation_input_tokens", in - cached},
				{"cache_read_input_tokens", cached},
				{"cache_creation", obj{{"ephemeral_5m_input_tokens", in - cached}, {"ephemeral_1h_input_tokens", 0}}},
				{"output_tokens", w.c.between(40, 900)}, {"service_tier", "standard"}}}
	} else {
		w.c.wait(300*time.Millisecond, 1500*time.Millisecond)
	}
	// A record is written when its block has streamed: some 250 characters a second.
	w.c.wait(streamTime(block), streamTime(block)*5/4)
	id := uuid4(w.c.rng)
	msg := obj{{"model", w.model}, {"id", w.msg.id}, {"type", "message"}, {"role", "assistant"},
		{"content", []obj{block}}, {"stop_reason", nil}, {"stop_sequence", nil}, {"usage", w.msg.usage}}
	o := append(w.envelope(), kv{"message", msg}, kv{"requestId", w.msg.req}, kv{"type", "assistant"},
		kv{"uuid", id}, kv{"timestamp", stamp(w.c.t)})
	w.chain(o, id)
	return id
}

// streamTime is how long the model takes to write block, at 250 characters a second.
func streamTime(block obj) time.Duration {
	return time.Duration(len(line(block))) * time.Second / 250
}

// think writes a thinking block.
func (w *ccWriter) think(text string) {
	w.assistant(obj{{"type", "thinking"}, {"thinking", text}, {"signature", token(w.c.rng, "Eq", 46)}})
}

// say writes a text block.
func (w *ccWriter) say(text string) {
	w.assistant(obj{{"type", "text"}, {"text", text}})
	w.context += len(text) / 4
}

// toolUse writes a tool_use block and returns the tool call id and the record's uuid.
func (w *ccWriter) toolUse(name string, input obj) (id, record string) {
	id = token(w.c.rng, "toolu_01", 22)
	record = w.assistant(obj{{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", input}})
	return id, record
}

// toolResult writes the result of tool call id (made by record) after it ran.
func (w *ccWriter) toolResult(id, record string, r result) {
	w.c.wait(r.took[0], r.took[1])
	block := obj{{"tool_use_id", id}, {"type", "tool_result"}, {"content", r.content}, {"is_error", r.isError}}
	var extra []kv
	if r.extra != nil {
		extra = append(extra, kv{"toolUseResult", r.extra})
	}
	extra = append(extra, kv{"sourceToolAssistantUUID", record})
	w.user([]obj{block}, extra...)
}

// tool writes a tool call and its result.
func (w *ccWriter) tool(name string, input obj, r result) {
	id, record := w.toolUse(name, input)
	w.toolResult(id, record, r)
}

// rejected writes a tool call the human declines at the permission prompt.
func (w *ccWriter) rejected(name string, input obj) {
	id, record := w.toolUse(name, input)
	w.toolResult(id, record, result{
		content: "The user declined this tool use, so it did not run. Stop here and wait for the user to say how to go on.",
		isError: true, extra: "Error: tool use declined by the user", took: [2]time.Duration{4 * time.Second, 12 * time.Second}})
}

// interrupt writes the marker of the human interrupting the agent ("for tool use"
// right after a declined tool call) and returns its uuid. friction marks it as a
// moment of friction: an interrupt followed by a redirect.
func (w *ccWriter) interrupt(forTool, friction bool) string {
	text := "[Request interrupted by user]"
	if forTool {
		text = "[Request interrupted by user for tool use]"
	} else {
		w.c.wait(2*time.Second, 9*time.Second)
	}
	id := w.user([]obj{{{"type", "text"}, {"text", text}}})
	if friction {
		w.c.friction = append(w.c.friction, id)
	}
	return id
}

// endTurn writes what Claude Code records when a turn ends: the Stop hooks'
// summary and the turn's duration.
func (w *ccWriter) endTurn() {
	w.c.wait(40*time.Millisecond, 400*time.Millisecond)
	id := uuid4(w.c.rng)
	o := append(w.envelope(), kv{"type", "system"}, kv{"subtype", "stop_hook_summary"}, kv{"hookCount", 1},
		kv{"hookInfos", []obj{{{"command", "$HOME/.claude/hooks/notify-done.sh"}}}}, kv{"hookErrors", []any{}},
		kv{"preventedContinuation", false}, kv{"stopReason", ""}, kv{"hasOutput", false}, kv{"level", "suggestion"},
		kv{"timestamp", stamp(w.c.t)}, kv{"uuid", id}, kv{"toolUseID", uuid4(w.c.rng)})
	w.chain(o, id)
	w.c.wait(10*time.Millisecond, 80*time.Millisecond)
	id = uuid4(w.c.rng)
	o = append(w.envelope(), kv{"type", "system"}, kv{"subtype", "turn_duration"},
		kv{"durationMs", w.c.t.Sub(w.turnStart).Milliseconds()}, kv{"timestamp", stamp(w.c.t)}, kv{"uuid", id}, kv{"isMeta", false})
	w.chain(o, id)
	w.msg = nil
}

// command writes a slash command the human ran as Claude Code records it: the
// caveat (an isMeta record), the command wrapper and its output. None of them is a
// human message.
func (w *ccWriter) command(name, stdout string) {
	w.c.wait(w.pause[0], w.pause[1])
	w.user("<local-command-caveat>Caveat: the messages below come from local commands the user ran. Do not reply to them unless the user asks about them.</local-command-caveat>",
		kv{"isMeta", true})
	w.user(fmt.Sprintf("<command-name>/%s</command-name>\n<command-message>%s</command-message>\n<command-args></command-args>", name, name))
	w.c.wait(20*time.Millisecond, 200*time.Millisecond)
	w.user("<local-command-stdout>" + stdout + "</local-command-stdout>")
}

// abs returns the absolute path of a file of the project.
func (w *ccWriter) abs(rel string) string { return w.cwd + "/" + rel }

// numbered renders source lines as the Read and Edit tools show them (cat -n with
// an arrow), the first one numbered from.
func numbered(src string, from int) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\u2192%s", from+i, l)
	}
	return b.String()
}

func lineCount(s string) int { return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1 }

// read calls Read on rel, a file of the writer's project.
func (w *ccWriter) read(rel string) {
	src, ok := w.files[rel]
	if !ok {
		panic("synth: reading a file the script never created: " + rel)
	}
	n := lineCount(src)
	w.tool("Read", obj{{"file_path", w.abs(rel)}}, result{content: numbered(src, 1),
		extra: obj{{"type", "text"}, {"file", obj{{"filePath", w.abs(rel)}, {"content", src}, {"numLines", n}, {"startLine", 1}, {"totalLines", n}}}},
		took:  [2]time.Duration{20 * time.Millisecond, 300 * time.Millisecond}})
}

// edit calls Edit on rel, replacing old (which must occur once) by new, and shows
// the edited region as the tool does.
func (w *ccWriter) edit(rel, old, new string) {
	src := w.files[rel]
	if strings.Count(src, old) != 1 {
		panic(fmt.Sprintf("synth: edit of %s: the old text occurs %d times", rel, strings.Count(src, old)))
	}
	i := strings.Index(src, old)
	src = src[:i] + new + src[i+len(old):]
	w.files[rel] = src
	first := strings.Count(src[:i], "\n") + 1
	last := first + strings.Count(new, "\n")
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	from, to := max(1, first-4), min(len(lines), last+4)
	snippet := strings.Join(lines[from-1:to], "\n")
	w.tool("Edit", obj{{"file_path", w.abs(rel)}, {"old_string", old}, {"new_string", new}},
		result{content: fmt.Sprintf("The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s", w.abs(rel), numbered(snippet, from)),
			extra: obj{{"filePath", w.abs(rel)}, {"oldString", old}, {"newString", new}, {"userModified", false}, {"replaceAll", false}},
			took:  [2]time.Duration{30 * time.Millisecond, 400 * time.Millisecond}})
}

// write calls Write to create rel with content.
func (w *ccWriter) write(rel, content string) {
	w.files[rel] = content
	w.tool("Write", obj{{"file_path", w.abs(rel)}, {"content", content}},
		result{content: "File created successfully at: " + w.abs(rel),
			extra: obj{{"type", "create"}, {"filePath", w.abs(rel)}, {"content", content}},
			took:  [2]time.Duration{30 * time.Millisecond, 300 * time.Millisecond}})
}

// lineOf returns the line number of the first line of rel that contains s.
func (w *ccWriter) lineOf(rel, s string) int {
	src := w.files[rel]
	i := strings.Index(src, s)
	if i < 0 {
		panic(fmt.Sprintf("synth: %q is not in %s", s, rel))
	}
	return strings.Count(src[:i], "\n") + 1
}

// bash runs command, which prints out and succeeds, in about took (±30%).
func (w *ccWriter) bash(command, description, out string, took time.Duration) {
	w.tool("Bash", obj{{"command", command}, {"description", description}},
		result{content: out, extra: obj{{"stdout", out}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}},
			took: [2]time.Duration{took * 7 / 10, took * 13 / 10}})
}

// bashFail runs command, which prints out and exits with status 1.
func (w *ccWriter) bashFail(command, description, out string, took time.Duration) {
	text := "Exit code 1\n" + strings.TrimSuffix(out, "\n")
	w.tool("Bash", obj{{"command", command}, {"description", description}},
		result{content: text, isError: true, extra: "Error: " + text, took: [2]time.Duration{took * 7 / 10, took * 13 / 10}})
}

// grep calls Grep in content mode; matches are "path:line:text" lines.
func (w *ccWriter) grep(pattern, path string, matches []string) {
	files := map[string]bool{}
	var names []string
	for _, m := range matches {
		f, _, _ := strings.Cut(m, ":")
		if !files[f] {
			files[f] = true
			names = append(names, f)
		}
	}
	out := strings.Join(matches, "\n")
	w.tool("Grep", obj{{"pattern", pattern}, {"path", path}, {"output_mode", "content"}, {"-n", true}},
		result{content: out, extra: obj{{"mode", "content"}, {"numFiles", len(names)}, {"filenames", names}, {"content", out}, {"numLines", len(matches)}},
			took: [2]time.Duration{100 * time.Millisecond, 900 * time.Millisecond}})
}

// glob calls Glob; files are relative paths.
func (w *ccWriter) glob(pattern string, files []string) {
	abs := make([]string, len(files))
	for i, f := range files {
		abs[i] = w.abs(f)
	}
	w.tool("Glob", obj{{"pattern", pattern}},
		result{content: strings.Join(abs, "\n"), extra: obj{{"filenames", abs}, {"durationMs", w.c.between(5, 60)}, {"numFiles", len(abs)}, {"truncated", false}},
			took: [2]time.Duration{20 * time.Millisecond, 200 * time.Millisecond}})
}
