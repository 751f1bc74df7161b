package claudecode

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

// TestQueuedMessages: what the human typed while the agent was busy, as the queue
// operations of old and new versions and the queued_command attachments of new ones
// record it (synthetic records in the shapes of the corpus's 2.1.37 and 2.1.222
// transcripts).
func TestQueuedMessages(t *testing.T) {
	queue := func(ts, op, content string) string {
		line := fmt.Sprintf(`{"type":"queue-operation","operation":%q,"timestamp":%q,"sessionId":"s1"`, op, ts)
		if content != "" {
			line += fmt.Sprintf(`,"content":%q`, content)
		}
		return line + "}\n"
	}
	attach := func(uuid, ts, prompt, mode, origin string) string {
		o := ""
		if origin != "" {
			o = fmt.Sprintf(`,"origin":{"kind":%q}`, origin)
		}
		return rec("attachment", uuid, ts, fmt.Sprintf(`"attachment":{"type":"queued_command","prompt":%q,"commandMode":%q%s}`, prompt, mode, o))
	}
	start := userText("u1", "2026-02-15T09:50:00Z", "add the trailer to gemini commits") +
		rec("assistant", "a1", "2026-02-15T09:50:01Z", `"message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}}]}`)
	result := func(ts string) string {
		return rec("user", "r"+ts[17:19], ts, `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":false}]}`)
	}
	notification := "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>"
	ci := `<ci-monitor-event>CI checks "shell-check", "docker-check" failed on the pull request; see the run for details</ci-monitor-event>`
	tests := []struct {
		name    string
		in      string
		want    []string // brief, with the subtype and ID of the queued events
		records map[string]int
		probs   []string // problems' lines and details
	}{
		{
			name: "an old version's remove: the enqueue's message, at the remove's time",
			in: start + queue("2026-02-15T09:57:20Z", "enqueue", "it's not adding the trailer properly??") + result("2026-02-15T09:57:25Z") +
				queue("2026-02-15T09:57:26Z", "remove", ""),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:it's not adding the trailer properly?? queued 09:57:26 id="},
			records: map[string]int{"queue/enqueue": 1, "queue/remove": 1, "queued/human": 1},
		},
		{
			name: "dequeued: the next prompt, read from its own user record",
			in: start + queue("2026-02-15T09:57:20Z", "enqueue", "then open a PR") + result("2026-02-15T09:57:25Z") +
				queue("2026-02-15T09:57:26Z", "dequeue", "") + userText("u2", "2026-02-15T09:57:26Z", "then open a PR"),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:then open a PR"},
			records: map[string]int{"queue/enqueue": 1, "queue/dequeue": 1},
		},
		{
			name: "pulled back to the input box: nothing was sent; a remove after it names nothing",
			in: start + queue("2026-02-15T09:57:20Z", "enqueue", "and maybe a separate PR") + queue("2026-02-15T09:57:22Z", "popAll", "and maybe a separate PR") +
				result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "remove", ""),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./..."},
			records: map[string]int{"queue/enqueue": 1, "queue/popAll": 1, "queue/remove": 1, "queue/remove_unknown": 1},
		},
		{
			name: "a new version's remove names the message, and its attachment gives it its uuid",
			in: start + queue("2026-02-15T09:57:20Z", "enqueue", "and create PR") + result("2026-02-15T09:57:25Z") +
				queue("2026-02-15T09:57:26Z", "remove", "and create PR") + attach("q1", "2026-02-15T09:57:26.001Z", "and create PR", "prompt", "human"),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:and create PR queued 09:57:26 id=q1"},
			records: map[string]int{"queue/enqueue": 1, "queue/remove": 1, "queued/human": 1, "queued/attachment_of_remove": 1},
		},
		{
			name:    "an attachment without its remove",
			in:      start + result("2026-02-15T09:57:25Z") + attach("q1", "2026-02-15T09:57:26Z", "and create PR", "prompt", "human"),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:and create PR queued 09:57:25 id=q1"},
			records: map[string]int{"queued/human": 1},
		},
		{
			name: "an attachment after a later record is another message, even with the same words",
			in: start + queue("2026-02-15T09:57:20Z", "enqueue", "yes") + queue("2026-02-15T09:57:21Z", "remove", "yes") + result("2026-02-15T09:57:25Z") +
				attach("q1", "2026-02-15T09:58:00Z", "yes", "prompt", "human"),
			want: []string{"user_message:add the trailer to gemini commits", "user_message:yes queued 09:57:21 id=", "tool_result:Bash/ok/ok $ go test ./...",
				"user_message:yes queued 09:57:25 id=q1"},
			records: map[string]int{"queued/human": 2},
		},
		{
			name: "an attachment before its remove: one message, at the attachment's place, not its enqueue time",
			in: start + queue("2026-02-15T09:50:05Z", "enqueue", "please also create the PR") + result("2026-02-15T10:20:00Z") +
				attach("q1", "2026-02-15T09:50:05Z", "please also create the PR", "prompt", "human") + queue("2026-02-15T10:20:00.1Z", "remove", "please also create the PR"),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:please also create the PR queued 10:20:00 id=q1"},
			records: map[string]int{"queued/human": 1, "queued/remove_of_attachment": 1},
		},
		{
			name: "a dequeue that names nothing sent the human's message: the notification waiting stays, the next remove is the next message",
			in: start + queue("2026-02-15T09:51:00Z", "enqueue", notification) + queue("2026-02-15T09:52:00Z", "enqueue", "now open a pull request for it") +
				queue("2026-02-15T09:52:01Z", "dequeue", "") + userText("u2", "2026-02-15T09:52:01Z", "now open a pull request for it") +
				queue("2026-02-15T09:57:20Z", "enqueue", "use the draft flag") + result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "remove", ""),
			want: []string{"user_message:add the trailer to gemini commits", "user_message:now open a pull request for it", "tool_result:Bash/ok/ok $ go test ./...",
				"user_message:use the draft flag queued 09:57:26 id="},
			records: map[string]int{"queued/human": 1},
		},
		{
			name: "a remove that names nothing delivered the human's message, not a task notification waiting for the turn's end",
			in: start + queue("2026-02-15T09:57:10Z", "enqueue", notification) + queue("2026-02-15T09:57:20Z", "enqueue", "are we missing some t.Parallel opportunities?") +
				result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "remove", ""),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:are we missing some t.Parallel opportunities? queued 09:57:26 id="},
			records: map[string]int{"queue/enqueue": 2, "queue/remove": 1, "queued/human": 1},
		},
		{
			name: "a queued slash command runs as a command: its own records tell it",
			in: start + queue("2026-02-15T09:57:20Z", "enqueue", "/mcp") + result("2026-02-15T09:57:25Z") +
				queue("2026-02-15T09:57:26Z", "remove", ""),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./..."},
			records: map[string]int{"queued/command": 1},
		},
		{
			name: "a path is no slash command",
			in: start + queue("2026-02-15T09:57:20Z", "enqueue", "/Users/alex/cli is the checkout") + result("2026-02-15T09:57:25Z") +
				queue("2026-02-15T09:57:26Z", "remove", ""),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:/Users/alex/cli is the checkout queued 09:57:26 id="},
			records: map[string]int{"queued/human": 1},
		},
		{
			name: "what other programs queue is theirs: a CI plugin's element, a task notification, another origin",
			in: start + result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "enqueue", ci) + queue("2026-02-15T09:57:27Z", "remove", ci) +
				attach("q2", "2026-02-15T09:57:28Z", notification, "task-notification", "") +
				attach("q3", "2026-02-15T09:57:29Z", "run the nightly checks", "prompt", "agent") +
				attach("q4", "2026-02-15T09:57:30Z", "git status", "bash", "human") +
				attach("q5", "2026-02-15T09:57:31Z", "ls", "bash", "agent"),
			want: []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...",
				"system:injected", "system:task_notification", "system:injected", "system:injected"},
			records: map[string]int{"queued/injected": 3, "queued/task_notification": 1, "queued/command": 1},
		},
		{
			name: "a remove before its attachment: the attachment's mode and origin tell what the words were (a bash command makes no message; another program's is injected)",
			in: start + result("2026-02-15T09:57:25Z") +
				queue("2026-02-15T09:57:26Z", "enqueue", "git status") + queue("2026-02-15T09:57:26.5Z", "remove", "git status") + attach("q1", "2026-02-15T09:57:26Z", "git status", "bash", "human") +
				queue("2026-02-15T09:57:27Z", "enqueue", "run the nightly checks") + queue("2026-02-15T09:57:27.5Z", "remove", "run the nightly checks") + attach("q2", "2026-02-15T09:57:27Z", "run the nightly checks", "prompt", "agent") +
				queue("2026-02-15T09:57:28Z", "enqueue", "and the docs") + queue("2026-02-15T09:57:28.5Z", "remove", "and the docs") + attach("q3", "2026-02-15T09:57:28Z", "and the docs", "prompt", "human"),
			want: []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "system:injected",
				"user_message:and the docs queued 09:57:28 id=q3"},
			records: map[string]int{"queued/human": 1, "queued/command": 1, "queued/injected": 1, "queued/attachment_of_remove": 3},
		},
		{
			name: "an attachment before its remove tells as much: a bash-mode command makes no message, and the remove none either",
			in: start + result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "enqueue", "git status") +
				attach("q1", "2026-02-15T09:57:26Z", "git status", "bash", "human") + queue("2026-02-15T09:57:27Z", "remove", "git status"),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./..."},
			records: map[string]int{"queued/command": 1, "queued/human": 0, "queued/remove_of_attachment": 1},
		},
		{
			name: "a remove that made no message, and its attachment from another program: one injected event, counted once",
			in: start + result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "enqueue", "/review") +
				queue("2026-02-15T09:57:27Z", "remove", "/review") + attach("q1", "2026-02-15T09:57:26Z", "/review", "prompt", "agent"),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "system:injected"},
			records: map[string]int{"queued/injected": 1, "queued/command": 0, "queued/attachment_of_remove": 1},
		},
		{
			name: "a message its attachment unmakes gives no event, so its remove's time is no clock fault",
			in: start + result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "enqueue", "git log") +
				queue("2026-02-15T09:20:00Z", "remove", "git log") + attach("q1", "2026-02-15T09:57:26Z", "git log", "bash", "human") +
				result("2026-02-15T09:57:40Z"),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "tool_result:Bash/ok/ok $ go test ./..."},
			records: map[string]int{"queued/command": 1, "queued/human": 0},
		},
		{
			name: "queued words given as a list of blocks are its text blocks, in the queue as in the attachment",
			in: start + result("2026-02-15T09:57:25Z") +
				`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-15T09:57:26Z","content":[{"type":"text","text":"the button is cut off"},{"type":"image","source":{}}]}` + "\n" +
				`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-15T09:57:27Z","content":[{"type":"text","text":"the button is cut off"},{"type":"image","source":{}}]}` + "\n",
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:the button is cut off queued 09:57:27 id="},
			records: map[string]int{"queued/human": 1},
		},
		{
			name: "a prompt or a content that is neither a string nor a list of blocks is a problem, and nothing is taken from the queue",
			in: start + result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "enqueue", "then open a PR") +
				`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-15T09:57:27Z","content":{"text":"x"}}` + "\n" +
				rec("attachment", "q1", "2026-02-15T09:57:28Z", `"attachment":{"type":"queued_command","prompt":7,"commandMode":"prompt"}`) +
				rec("attachment", "q2", "2026-02-15T09:57:29Z", `"attachment":{"type":"queued_command","prompt":[{"type":"text","text":7}],"commandMode":"prompt"}`) +
				queue("2026-02-15T09:57:30Z", "remove", ""),
			want: []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:then open a PR queued 09:57:30 id="},
			probs: []string{
				"5: queue-operation remove whose content is a JSON object, not a string or a list of blocks; skipped",
				"6: queued_command attachment whose prompt is a JSON number, not a string or a list of blocks; skipped",
				"7: queued_command attachment whose prompt is a list of blocks one of which is unreadable; skipped",
			},
			records: map[string]int{"queued/human": 1},
		},
		{
			name: "a queued image alone is named by its remove: the human's message waiting is not taken for it",
			in: start + queue("2026-02-15T09:57:20Z", "enqueue", "then open a PR") +
				`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-02-15T09:57:21Z","content":[{"type":"image","source":{}}]}` + "\n" +
				result("2026-02-15T09:57:25Z") +
				`{"type":"queue-operation","operation":"remove","timestamp":"2026-02-15T09:57:26Z","content":[{"type":"image","source":{}}]}` + "\n" +
				rec("attachment", "q1", "2026-02-15T09:57:26Z", `"attachment":{"type":"queued_command","prompt":[{"type":"image","source":{}}],"commandMode":"prompt"}`) +
				queue("2026-02-15T09:58:00Z", "dequeue", "") + userText("u2", "2026-02-15T09:58:00Z", "then open a PR"),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:then open a PR"},
			records: map[string]int{"queued/human": 0, "queued/empty": 1, "queued/image": 1, "queued/attachment_of_remove": 1},
		},
		{
			name: "a queued_command attachment with a field of another type is a problem; its remove is then read alone",
			in: start + result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "enqueue", "git status") +
				rec("attachment", "q1", "2026-02-15T09:57:26Z", `"attachment":{"type":"queued_command","prompt":"git status","commandMode":7}`) +
				queue("2026-02-15T09:57:27Z", "popAll", "") + attach("q2", "2026-02-15T09:57:28Z", "no image", "prompt", "human") +
				rec("attachment", "q3", "2026-02-15T09:57:29Z", `"attachment":{"type":"hook_success","content":"queued_command","origin":"hook"}`),
			want: []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:no image queued 09:57:27 id=q2"},
			probs: []string{
				"5: queued_command attachment with a field of an unexpected type (json: cannot unmarshal number into Go struct field .attachment.commandMode of type string); skipped",
			},
			records: map[string]int{"queued/human": 1, "queue/popAll": 1, "skipped/attachment": 1, "queued/image": 0},
		},
		{
			name: "a prompt given as a list of blocks (words and a pasted image): its words; an image alone makes no message",
			in: start + result("2026-02-15T09:57:25Z") +
				rec("attachment", "q1", "2026-02-15T09:57:26Z", `"attachment":{"type":"queued_command","prompt":[{"type":"text","text":"the button is cut off here"},{"type":"image","source":{"type":"base64","data":"iVBO"}}],"commandMode":"prompt"}`) +
				rec("attachment", "q2", "2026-02-15T09:57:27Z", `"attachment":{"type":"queued_command","prompt":[{"type":"image","source":{"type":"base64","data":"iVBO"}}],"commandMode":"prompt"}`),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "user_message:the button is cut off here queued 09:57:25 id=q1"},
			records: map[string]int{"queued/human": 1, "queued/empty": 1, "queued/image": 2},
		},
		{
			name: "the queue keeps its last messages: the oldest went first",
			in: start + queue("2026-02-15T09:57:00Z", "enqueue", "stop, that is the wrong branch") +
				strings.Repeat(queue("2026-02-15T09:57:10Z", "enqueue", notification), maxQueued) +
				result("2026-02-15T09:57:25Z") + queue("2026-02-15T09:57:26Z", "remove", ""),
			want:    []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./...", "system:task_notification"},
			records: map[string]int{"queue/enqueue": maxQueued + 1, "queued/task_notification": 1},
		},
		{
			name:  "an operation that is not a string is a problem, and the rest is read",
			in:    start + `{"type":"queue-operation","operation":7,"timestamp":"2026-02-15T09:57:26Z","content":"no"}` + "\n" + result("2026-02-15T09:57:27Z"),
			want:  []string{"user_message:add the trailer to gemini commits", "tool_result:Bash/ok/ok $ go test ./..."},
			probs: []string{"3: queue-operation record without a readable operation (json: cannot unmarshal number into Go struct field queueOp.operation of type string); skipped"},
		},
	}
	for _, tt := range tests {
		s, probs := ReadTranscript("t.jsonl", strings.NewReader(tt.in))
		var gotProbs []string
		for _, p := range probs {
			gotProbs = append(gotProbs, fmt.Sprintf("%d: %s", p.Line, p.Detail))
		}
		if !slices.Equal(gotProbs, tt.probs) {
			t.Errorf("%s: problems %q, want %q", tt.name, gotProbs, tt.probs)
		}
		got := brief(s.Events)
		for i, ev := range s.Events {
			if ev.Subtype == analyze.SubtypeQueued {
				got[i] += fmt.Sprintf(" queued %s id=%s", ev.Time.Format("15:04:05"), ev.ID)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		for k, n := range tt.records {
			if s.Records[k] != n {
				t.Errorf("%s: records %s = %d, want %d", tt.name, k, s.Records[k], n)
			}
		}
		for k, n := range s.Records {
			if n <= 0 {
				t.Errorf("%s: records %s = %d: a count is kept only when there is one", tt.name, k, n)
			}
		}
	}
}

func TestIsSlashCommand(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"/mcp", true}, {"/compact keep the plan", true}, {"/plugin:review now", true}, {" /exit\n", true},
		{"/Users/alex/cli", false}, {"/", false}, {"/tmp/x is stale", false}, {"please /mcp", false}, {"/mcp.", false},
	} {
		if got := isSlashCommand(tt.text); got != tt.want {
			t.Errorf("isSlashCommand(%q) = %v", tt.text, got)
		}
	}
}
