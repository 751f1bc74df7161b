package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// VibesConfig says how to generate a vibes event log.
type VibesConfig struct {
	Seed uint64
	// Start is the time of the log's first event.
	Start time.Time
	// File is the log's path relative to the inputs folder (default
	// "vibes/vibes-events.jsonl").
	File string
}

// VibesLog is one generated vibes event log: the JSONL export of vibes' event
// stream with two sessions interleaved, one smooth and one with friction.
type VibesLog struct {
	File   string // slash-separated, relative to the inputs folder
	Data   []byte
	Labels []SessionLabel // one per session, in the order the sessions start
}

// SampleVibesConfig is the configuration that generates the built-in sample's vibes
// log.
func SampleVibesConfig() VibesConfig {
	return VibesConfig{Seed: 20260304, Start: time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)}
}

// vbEvent is one event of the log before its id is assigned.
type vbEvent struct {
	t    time.Time
	body obj // the members after event_id
	id   string
}

// vbSession writes the events of one vibes session on its own clock.
type vbSession struct {
	c                    *clock
	id, ccID, cwd, trans string
	viaVibes             bool // prompts are sent through vibes (user_input and hook) rather than typed in Claude Code
	events               []*vbEvent
	friction             []*vbEvent
}

func (s *vbSession) add(body obj) *vbEvent {
	e := &vbEvent{t: s.c.t, body: body}
	s.events = append(s.events, e)
	return e
}

// hook adds a Claude Code hook payload of type typ.
func (s *vbSession) hook(typ, name string, extra ...kv) *vbEvent {
	payload := append(obj{{"type", typ}, {"session_id", s.ccID}, {"transcript_path", s.trans}, {"cwd", s.cwd}, {"hook_event_name", name}}, extra...)
	return s.add(obj{{"type", "hook"}, {"session_id", s.id}, {"event", payload}})
}

// claude adds a Claude event.
func (s *vbSession) claude(ev obj) *vbEvent {
	return s.add(obj{{"type", "claude"}, {"session_id", s.id}, {"event", ev}})
}

// human adds a prompt after a pause: through vibes it arrives as user_input and then
// as the UserPromptSubmit hook; typed in Claude Code, as the hook alone.
func (s *vbSession) human(text string, friction bool) {
	s.c.wait(20*time.Second, 70*time.Second)
	var first *vbEvent
	if s.viaVibes {
		first = s.add(obj{{"type", "user_input"}, {"session_id", s.id}, {"content", text}, {"source", "web_ui"}})
		s.c.wait(5*time.Millisecond, 40*time.Millisecond)
	}
	e := s.hook("user_prompt_submit", "UserPromptSubmit", kv{"prompt", text})
	if first == nil {
		first = e
	}
	if friction {
		s.friction = append(s.friction, first)
	}
	s.c.wait(50*time.Millisecond, 300*time.Millisecond)
	s.claude(obj{{"type", "turn_start"}})
}

// think adds a thinking delta.
func (s *vbSession) think(text string) {
	s.c.wait(1200*time.Millisecond, 3500*time.Millisecond)
	s.claude(obj{{"type", "thinking_delta"}, {"text", text}})
}

// say adds text as a few streamed deltas.
func (s *vbSession) say(text string) {
	s.c.wait(600*time.Millisecond, 2500*time.Millisecond)
	words := strings.SplitAfter(text, " ")
	for len(words) > 0 {
		n := min(len(words), 3+s.c.rng.IntN(6))
		s.claude(obj{{"type", "text_delta"}, {"text", strings.Join(words[:n], "")}})
		words = words[n:]
		if len(words) > 0 {
			s.c.wait(30*time.Millisecond, 180*time.Millisecond)
		}
	}
}

// tool adds a tool call: its start and streamed input, the result as Claude reports
// it, and the PostToolUse hook with response.
func (s *vbSession) tool(name string, input obj, output string, isError bool, response any, took time.Duration) {
	s.c.wait(400*time.Millisecond, 1500*time.Millisecond)
	id := token(s.c.rng, "toolu_01", 22)
	s.claude(obj{{"type", "tool_use_start"}, {"id", id}, {"name", name}})
	in := string(line(input))
	in = strings.TrimSuffix(in, "\n")
	cut := len(in) / 2
	for _, part := range []string{in[:cut], in[cut:]} {
		s.c.wait(20*time.Millisecond, 120*time.Millisecond)
		s.claude(obj{{"type", "tool_input_delta"}, {"id", id}, {"delta", part}})
	}
	s.c.wait(took*7/10, took*13/10)
	s.claude(obj{{"type", "tool_result"}, {"id", id}, {"output", output}, {"is_error", isError}})
	s.c.wait(5*time.Millisecond, 60*time.Millisecond)
	s.hook("post_tool_use", "PostToolUse", kv{"tool_name", name}, kv{"tool_input", input}, kv{"tool_response", response})
}

// bash adds a Bash call; a failing command exits with status 1.
func (s *vbSession) bash(command, out string, fail bool, took time.Duration) {
	output := out
	if fail {
		output = "Exit code 1\n" + out
	}
	s.tool("Bash", obj{{"command", command}}, output, fail,
		obj{{"stdout", out}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}}, took)
}

// edit adds an Edit call on the absolute path file.
func (s *vbSession) edit(file, old, new string) {
	s.tool("Edit", obj{{"file_path", file}, {"old_string", old}, {"new_string", new}},
		"The file "+file+" has been updated.", false,
		obj{{"filePath", file}, {"oldString", old}, {"newString", new}, {"userModified", false}, {"replaceAll", false}}, 200*time.Millisecond)
}

// endTurn adds the turn's end and the Stop hook.
func (s *vbSession) endTurn() {
	s.c.wait(100*time.Millisecond, 600*time.Millisecond)
	s.claude(obj{{"type", "turn_complete"}, {"usage", obj{{"input_tokens", s.c.between(3, 12)}, {"output_tokens", s.c.between(80, 900)},
		{"cache_read_input_tokens", s.c.between(15000, 40000)}, {"cache_creation_input_tokens", s.c.between(200, 3000)}}}})
	s.c.wait(20*time.Millisecond, 200*time.Millisecond)
	s.hook("stop", "Stop", kv{"stop_hook_active", false})
}

// GenerateVibesLog plays out the two sessions of a vibes event log and interleaves
// them: a smooth one whose prompts are sent through vibes (user_input and the hook),
// and one with two moments of friction whose prompts are typed in Claude Code's
// terminal (the hook alone).
func GenerateVibesLog(cfg VibesConfig) VibesLog {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7669626573)) // "vibes"
	start := cfg.Start
	if start.IsZero() {
		start = SampleVibesConfig().Start
	}
	file := cfg.File
	if file == "" {
		file = "vibes/vibes-events.jsonl"
	}
	newSession := func(p project, at time.Time, viaVibes bool) *vbSession {
		c := &clock{rng: rng, t: at}
		cc := uuid4(rng)
		return &vbSession{c: c, id: uuid7(at, rng), ccID: cc, cwd: p.cwd, viaVibes: viaVibes,
			trans: "/home/dev/.claude/projects/" + p.dir() + "/" + cc + ".jsonl"}
	}
	smooth := newSession(shortlink, start.Add(time.Duration(2000+rng.IntN(3000))*time.Millisecond), true)
	playVibesSmooth(smooth)
	friction := newSession(ledger, start.Add(time.Duration(80+rng.IntN(40))*time.Second), false)
	playVibesFriction(friction)

	// Interleave: one log, in time order (ties: the smooth session first).
	events := []*vbEvent{{t: start, body: obj{{"type", "client_connected"}, {"client_id", "web-" + hexID(rng, 6)}}}}
	events = append(events, smooth.events...)
	events = append(events, friction.events...)
	slices.SortStableFunc(events, func(a, b *vbEvent) int { return a.t.Compare(b.t) })
	var data []byte
	for _, e := range events {
		e.id = uuid7(e.t, rng)
		data = append(data, line(append(obj{{"event_id", e.id}}, e.body...))...)
	}
	label := func(s *vbSession, outcome, notes string) SessionLabel {
		l := SessionLabel{SessionID: s.id, File: file, Outcome: outcome, Confidence: "high", Notes: notes}
		for _, e := range s.events {
			if isHumanEvent(e, s.viaVibes) {
				l.HumanMsgs++
			}
		}
		for _, e := range s.friction {
			l.Friction = append(l.Friction, e.id)
		}
		return l
	}
	return VibesLog{File: file, Data: data, Labels: []SessionLabel{
		label(smooth, "success", "Synthetic vibes session: a health endpoint added with passing tests and accepted at once."),
		label(friction, "success", "Synthetic vibes session: a flaky test fixed after one correction and one complaint that it was still failing."),
	}}
}

// isHumanEvent reports whether e is the event a human prompt becomes: user_input
// when prompts go through vibes (the hook that follows is merged into it), the
// UserPromptSubmit hook otherwise.
func isHumanEvent(e *vbEvent, viaVibes bool) bool {
	typ := e.body[0].v
	if viaVibes {
		return typ == "user_input"
	}
	if typ != "hook" {
		return false
	}
	return e.body[2].v.(obj)[0].v == "user_prompt_submit"
}

func playVibesSmooth(s *vbSession) {
	s.add(obj{{"type", "session_created"}, {"session_id", s.id}, {"name", "healthz endpoint"}})
	s.c.wait(300*time.Millisecond, 900*time.Millisecond)
	s.hook("session_start", "SessionStart", kv{"source", "startup"})
	routes := s.cwd + "/internal/server/routes.go"
	src := "package server\n\nimport \"net/http\"\n\n// routes registers the handlers on mux.\nfunc (s *Server) routes(mux *http.ServeMux) {\n\tmux.HandleFunc(\"GET /{code}\", s.redirect)\n\tmux.HandleFunc(\"POST /links\", s.create)\n}\n"
	s.human("add a GET /healthz endpoint that returns 200 with the build version as JSON", false)
	s.think("Register it next to the other routes; the version is in s.version.")
	s.say("I'll add the route next to the existing ones.")
	s.tool("Read", obj{{"file_path", routes}}, numbered(src, 1), false,
		obj{{"type", "text"}, {"file", obj{{"filePath", routes}, {"numLines", lineCount(src)}, {"startLine", 1}, {"totalLines", lineCount(src)}}}}, 150*time.Millisecond)
	s.edit(routes, "\tmux.HandleFunc(\"POST /links\", s.create)\n",
		"\tmux.HandleFunc(\"POST /links\", s.create)\n\tmux.HandleFunc(\"GET /healthz\", func(w http.ResponseWriter, r *http.Request) {\n\t\tw.Header().Set(\"Content-Type\", \"application/json\")\n\t\tfmt.Fprintf(w, `{\"version\":%q}`, s.version)\n\t})\n")
	s.edit(routes, "import \"net/http\"\n", "import (\n\t\"fmt\"\n\t\"net/http\"\n)\n")
	s.bash("go test ./internal/server/", fmt.Sprintf("ok  \t%s/internal/server\t0.%03ds", shortlink.module, 10+s.c.rng.IntN(80)), false, 5*time.Second)
	s.say("Added `GET /healthz`: it answers 200 with `{\"version\":\"…\"}`. The server tests pass.")
	s.endTurn()
	s.human("perfect, thanks", false)
	s.say("You're welcome!")
	s.endTurn()
	s.c.wait(30*time.Second, 90*time.Second)
	s.hook("session_end", "SessionEnd", kv{"reason", "prompt_input_exit"})
	s.c.wait(100*time.Millisecond, 500*time.Millisecond)
	s.add(obj{{"type", "session_removed"}, {"session_id", s.id}})
}

func playVibesFriction(s *vbSession) {
	s.add(obj{{"type", "session_created"}, {"session_id", s.id}, {"name", "flaky queue test"}})
	s.c.wait(300*time.Millisecond, 900*time.Millisecond)
	s.hook("session_start", "SessionStart", kv{"source", "startup"})
	test := s.cwd + "/internal/queue/queue_test.go"
	queue := s.cwd + "/internal/queue/queue.go"
	run := "go test -race -count=20 -run TestQueueDrain ./internal/queue/"
	fail := func(got int) string {
		return fmt.Sprintf("--- FAIL: TestQueueDrain (0.01s)\n    queue_test.go:57: drained %d items, want 10\nFAIL\nFAIL\t%s/internal/queue\t0.%03ds\nFAIL",
			got, ledger.module, 300+s.c.rng.IntN(600))
	}
	s.human("TestQueueDrain is flaky on CI, make it deterministic", false)
	s.think("Reproduce with -count and the race detector first.")
	s.bash(run, fail(9), true, 4*time.Second)
	s.say("It fails about one run in twenty: the test checks the count before the last item is drained. I'll wait for the drain in the test.")
	s.edit(test, "\tq.Close()\n", "\tq.Close()\n\ttime.Sleep(10 * time.Millisecond)\n")
	s.bash(run, fmt.Sprintf("ok  \t%s/internal/queue\t1.%03ds", ledger.module, s.c.rng.IntN(1000)), false, 4*time.Second)
	s.say("With the short wait after `Close` it passes 20 runs in a row.")
	s.endTurn()
	s.human("no, don't add a sleep, that just hides the race. the bug is in Close, it returns before the workers finish", true)
	s.edit(test, "\tq.Close()\n\ttime.Sleep(10 * time.Millisecond)\n", "\tq.Close()\n")
	s.edit(queue, "\tclose(q.items)\n", "\tclose(q.items)\n\tq.wg.Wait()\n")
	s.bash(run, fail(9), true, 4*time.Second)
	s.say("Close now waits for the workers, but one run in twenty still drains 9 items.")
	s.endTurn()
	s.human("still failing. Close has to wait for the item that is in flight too, not only the idle workers", true)
	s.edit(queue, "\t\tq.handle(it)\n", "\t\tq.handle(it)\n\t\tq.inflight.Done()\n")
	s.edit(queue, "\tq.items <- it\n", "\tq.inflight.Add(1)\n\tq.items <- it\n")
	s.edit(queue, "\tq.wg.Wait()\n", "\tq.inflight.Wait()\n\tq.wg.Wait()\n")
	s.bash(run, fmt.Sprintf("ok  \t%s/internal/queue\t2.%03ds", ledger.module, s.c.rng.IntN(1000)), false, 5*time.Second)
	s.say("Close now waits for the in-flight items as well as the workers; 20 runs with the race detector pass.")
	s.endTurn()
	s.human("good, it passes here too. thanks", false)
	s.say("Glad it's stable now.")
	s.endTurn()
	s.c.wait(40*time.Second, 120*time.Second)
	s.hook("session_end", "SessionEnd", kv{"reason", "logout"})
}
