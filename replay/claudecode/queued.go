package claudecode

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// This file reads the messages the human types while the agent is busy. Claude Code
// keeps them in a queue and writes what happens to the queue as queue-operation
// records:
//
//   - enqueue, with the message as content: the human typed it;
//   - dequeue: it went out as the next prompt — a user record of its own follows, and
//     is read as one;
//   - remove: it went to the agent in the middle of its turn, beside a tool's result.
//     Up to about version 2.1.4x that record is all the transcript keeps of it, and
//     it does not name the message (see fileState.take for which it is); later
//     versions name it, and also write an attachment record of type queued_command
//     with the message as its prompt;
//   - popAll: the human pulled the queue back into the input box to edit it — what they
//     send then is a user record.
//
// A message delivered mid-turn is the human's words the agent read, often the ones a
// detector is for: typed while the agent was going wrong ("it's not adding the trailer
// properly??"). It is read as a user record's text is ([Classify]): the human's text a
// KindUserMessage of Subtype [analyze.SubtypeQueued], a task notification or a tool's
// element a KindSystem event — at the time it was delivered, the remove's or the
// attachment's place in the file (an attachment is stamped with the enqueue's time,
// not the delivery's: it takes the time of the record before it). A queued slash
// command ("/mcp") gives no message: it is a command to Claude Code (run as one, or,
// in some versions, passed on as its bare name), not words to the agent. Of a remove
// and an attachment that deliver one message, in either order, the first makes the
// event, and the attachment gives it its uuid as ID and its class (its mode and origin
// tell a bash command or another program's message from the human's words, which a
// remove's text alone does not). An attachment's prompt, and a queue operation's
// content, may be a list of blocks (a pasted image beside the words): its text blocks
// are the message (a pasted image alone is a message of no words, named all the same);
// any other JSON value is a problem with file and line. The queue keeps the last
// maxQueued messages: a background task's notifications can wait in it without a
// dequeue, and what a remove looks through stays bounded.

// maxQueued bounds the messages a file's queue keeps (the oldest go first).
const maxQueued = 32

// queuedMsg is a message delivered mid-turn: the event it made, until the other record
// of a version that writes both (a remove and an attachment, in either order) repeats
// it.
type queuedMsg struct {
	text   string
	event  int       // index into builder.events; -1: it made none
	class  TextClass // the class it was mapped as
	attach bool      // made by an attachment record (else by a remove)
}

// repeated finds, among the messages delivered since the last user, assistant or
// system record, the one of text made by the other kind of record, and forgets it.
func (fst *fileState) repeated(text string, byAttachment bool) (queuedMsg, bool) {
	for i, d := range fst.delivered {
		if d.text == text && d.attach != byAttachment {
			fst.delivered = slices.Delete(fst.delivered, i, i+1)
			return d, true
		}
	}
	return queuedMsg{}, false
}

// queueOp is the part of a queue-operation record the reader uses.
type queueOp struct {
	Operation string          `json:"operation"`
	Content   json.RawMessage `json:"content"`
}

// messageText reads a queued message given as raw JSON: a string, or a list of
// content blocks whose text blocks are the message (a pasted image beside the words;
// images counts the image blocks). Absent or null is no message (""); any other value
// is unreadable, and odd says what it is.
func messageText(raw json.RawMessage) (text string, images int, odd string) {
	switch firstByte(raw) {
	case 0, 'n':
		return "", 0, ""
	case '"', '[':
		var c toolContent
		if err := c.UnmarshalJSON(raw); err != nil {
			return "", 0, "a list of blocks one of which is unreadable"
		}
		return c.text, c.images, ""
	}
	return "", 0, "a JSON " + jsonl.Kind(raw) + ", not a string or a list of blocks"
}

// queuedCommand is the part of an attachment record of type queued_command the reader
// uses.
type queuedCommand struct {
	Attachment struct {
		Type        string          `json:"type"`
		Prompt      json.RawMessage `json:"prompt"` // see messageText
		CommandMode string          `json:"commandMode"`
		Origin      struct {
			Kind string `json:"kind"`
		} `json:"origin"`
	} `json:"attachment"`
}

// queueOperation reads the queue-operation record on line (see above).
func (b *builder) queueOperation(fst *fileState, line int, raw []byte, base analyze.Event) {
	var op queueOp
	if err := json.Unmarshal(raw, &op); err != nil {
		b.report(fst.name, line, input.ProblemInvalid, "queue-operation record without a readable operation (%v); skipped", err)
		return
	}
	b.sess.Records["queue/"+op.Operation]++
	content, _, odd := messageText(op.Content)
	if odd != "" && op.Operation != "popAll" {
		// Which message it names is unknown: taking one by the queue's order could
		// deliver the wrong one.
		b.report(fst.name, line, input.ProblemInvalid, "queue-operation %s whose content is %s; skipped", op.Operation, odd)
		return
	}
	// A message of no words (a pasted image alone) is named, not absent: the queue's
	// order says nothing of it.
	wordless := content == "" && (firstByte(op.Content) == '"' || firstByte(op.Content) == '[')
	switch op.Operation {
	case "enqueue":
		if content != "" {
			if len(fst.queue) == maxQueued {
				fst.queue = slices.Delete(fst.queue, 0, 1)
			}
			fst.queue = append(fst.queue, content)
		}
	case "dequeue":
		if !wordless {
			fst.take(content) // the next prompt: its user record follows
		}
	case "remove":
		text := ""
		if !wordless {
			if text = fst.take(content); text == "" {
				b.sess.Records["queue/remove_unknown"]++ // its enqueue is not in this file
				break
			}
		}
		if _, ok := fst.repeated(text, false); ok {
			b.sess.Records["queued/remove_of_attachment"]++ // the attachment told what it was
			break
		}
		class := classifyQueued(text, "", "")
		fst.delivered = append(fst.delivered, queuedMsg{text: text, event: b.queuedText(text, class, base), class: class})
	case "popAll":
		fst.queue = fst.queue[:0]
	}
}

// take removes from the queue the message a dequeue or remove sent, and returns it:
// the one it names, or, when it names none, the oldest queued message of the human's
// — a background task's notification waits in the queue for the turn's end and goes
// out as a user record of its own, often without a dequeue; the human's messages are
// what goes to the agent. With none of theirs, the oldest; "" when the queue is empty
// and the operation names nothing. A named message not in the queue is returned as it
// is (its enqueue was before the file).
func (fst *fileState) take(named string) string {
	i := -1
	if named != "" {
		i = slices.Index(fst.queue, named)
	} else if len(fst.queue) > 0 {
		i = 0
		for k, m := range fst.queue {
			if Classify(m, false, false) == ClassHuman {
				i = k
				break
			}
		}
		named = fst.queue[i]
	}
	if i >= 0 {
		fst.queue = slices.Delete(fst.queue, i, i+1)
	}
	return named
}

// attachment reads the attachment record on line, and reports whether it was one it
// reads: a queued_command is a message delivered mid-turn (see above); the caller
// counts any other attachment as skipped.
func (b *builder) attachment(fst *fileState, line int, raw []byte, base analyze.Event) bool {
	if !bytes.Contains(raw, []byte(`"queued_command"`)) {
		return false
	}
	var head struct {
		Attachment struct {
			Type json.RawMessage `json:"type"`
		} `json:"attachment"`
	}
	if json.Unmarshal(raw, &head) != nil || string(head.Attachment.Type) != `"queued_command"` {
		return false
	}
	var qc queuedCommand
	if err := json.Unmarshal(raw, &qc); err != nil {
		b.report(fst.name, line, input.ProblemInvalid, "queued_command attachment with a field of an unexpected type (%v); skipped", err)
		return true
	}
	a := &qc.Attachment
	text, images, odd := messageText(a.Prompt)
	if odd != "" {
		b.report(fst.name, line, input.ProblemInvalid, "queued_command attachment whose prompt is %s; skipped", odd)
		return true
	}
	if images > 0 {
		b.sess.Records["queued/image"] += images
	}
	class := classifyQueued(text, a.CommandMode, a.Origin.Kind)
	d, ok := fst.repeated(text, true)
	if !ok {
		fst.delivered = append(fst.delivered, queuedMsg{text: text, event: b.queuedText(text, class, base), class: class, attach: true})
		return true
	}
	// The remove came first and classified the words by themselves: the attachment's
	// mode and origin tell what they were.
	b.sess.Records["queued/attachment_of_remove"]++
	if class != d.class {
		b.recount("queued/"+string(d.class), "queued/"+string(class))
	}
	switch {
	case d.event >= 0:
		ev := &b.events[d.event]
		if ev.ID == "" {
			ev.ID = base.ID
		}
		if class != d.class && !queuedEvent(ev, text, class) {
			b.unmake(fst, d.event)
		}
	case class != d.class:
		if ev := base; queuedEvent(&ev, text, class) {
			b.emit(ev)
		}
	}
	return true
}

// unmake takes back event k, which the record of one of fst's stamps made alone: it
// is dropped in finish, and the record is one that made no event.
func (b *builder) unmake(fst *fileState, k int) {
	b.events[k].Kind = ""
	b.dropped++
	for i := len(fst.stamps) - 1; i >= 0; i-- {
		if st := &fst.stamps[i]; st.from <= k && k < st.to {
			if st.to-st.from == 1 {
				st.to = st.from
			}
			return
		}
	}
}

// recount moves one count of the session's records from one key to another.
func (b *builder) recount(from, to string) {
	r := b.sess.Records
	if r[from]--; r[from] <= 0 {
		delete(r, from)
	}
	r[to]++
}

// classifyQueued is the class of a message delivered mid-turn, sent in mode by origin
// (an attachment's commandMode and origin.kind; "" for a remove's): its text's
// ([Classify]), but a message another program sent (another origin, another mode) is
// ClassInjected, and a bash-mode command's or a slash command's ClassCommand.
func classifyQueued(text, mode, origin string) TextClass {
	switch {
	case origin != "" && origin != "human":
		return ClassInjected
	case mode == "bash":
		return ClassCommand
	case mode != "" && mode != "prompt" && mode != "task-notification":
		return ClassInjected
	}
	class := Classify(text, false, false)
	if class == ClassHuman && isSlashCommand(text) {
		return ClassCommand
	}
	return class
}

// queuedText maps a message delivered mid-turn, of class, and returns the index of
// the event it made, or -1 (see queuedEvent).
func (b *builder) queuedText(text string, class TextClass, base analyze.Event) int {
	b.sess.Records["queued/"+string(class)]++
	ev := base
	if !queuedEvent(&ev, text, class) {
		return -1
	}
	b.emit(ev)
	return len(b.events) - 1
}

// queuedEvent makes ev the event of a message delivered mid-turn, of class, and
// reports whether it makes one: the human's words are a KindUserMessage of Subtype
// [analyze.SubtypeQueued]; a command (a slash command: a command to Claude Code, not
// words to the agent), an interrupt marker or white space make none; any other class
// is a KindSystem event.
func queuedEvent(ev *analyze.Event, text string, class TextClass) bool {
	switch class {
	case ClassHuman:
		ev.Kind, ev.UserContent, ev.Subtype = analyze.KindUserMessage, HumanText(text), analyze.SubtypeQueued
	case ClassEmpty, ClassCommand, ClassInterrupt:
		return false
	default:
		ev.Kind, ev.UserContent, ev.Subtype = analyze.KindSystem, "", string(class)
	}
	return true
}

// isSlashCommand reports whether text is a slash command: "/" and a lower-case name
// ("/mcp", "/compact keep the plan", "/plugin:cmd"), not a path ("/Users/…").
func isSlashCommand(text string) bool {
	t := strings.TrimSpace(text)
	if len(t) < 2 || t[0] != '/' || !isLower(t[1]) {
		return false
	}
	for i := 2; i < len(t); i++ {
		switch c := t[i]; {
		case isLower(c), isDigit(c), c == '-', c == '_', c == ':':
		case c == ' ' || c == '\n' || c == '\t':
			return true
		default:
			return false
		}
	}
	return true
}
