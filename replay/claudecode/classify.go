package claudecode

import "strings"

// TextClass is what a piece of text in a user record is, as far as the assessment is
// concerned.
type TextClass string

// The classes of user-record text. Only ClassHuman becomes a user message and only
// ClassInterrupt an interrupt; every other class is text Claude Code or a hook wrote
// into the user role, and becomes a KindSystem event with the class as its Subtype.
const (
	ClassHuman            TextClass = "human"             // text the human typed
	ClassInterrupt        TextClass = "interrupt"         // [Request interrupted by user…]
	ClassCommand          TextClass = "command"           // slash commands, local command output, Caveat:, ! bash mode
	ClassMeta             TextClass = "meta"              // isMeta records (skill bodies, reminders)
	ClassCompactSummary   TextClass = "compact_summary"   // the summary that continues a compacted conversation
	ClassTaskNotification TextClass = "task_notification" // <task-notification> of a background task
	ClassSystemReminder   TextClass = "system_reminder"   // <system-reminder> blocks
	ClassHookOutput       TextClass = "hook_output"       // <user-prompt-submit-hook> output
	ClassEmpty            TextClass = "empty"             // white space only
)

// InterruptPrefix starts the markers Claude Code writes when the human interrupts the
// agent: "[Request interrupted by user]" and "[Request interrupted by user for tool use]".
const InterruptPrefix = "[Request interrupted by user"

// CompactSummaryPrefix starts the user-role summary Claude Code writes after compacting
// a conversation (flagged isCompactSummary in recent versions, not in older ones).
const CompactSummaryPrefix = "This session is being continued from a previous conversation"

// wrappers are the prefixes of system-written user text, tried in order.
var wrappers = []struct {
	prefix string
	class  TextClass
}{
	{"<command-", ClassCommand},       // <command-name>, <command-message>, <command-args>, <command-contents>
	{"<local-command-", ClassCommand}, // <local-command-stdout>, -stderr, -caveat
	{"Caveat:", ClassCommand},         // the caveat before local command output, unwrapped in old versions
	{"<bash-input>", ClassCommand},    // ! bash mode: the command …
	{"<bash-stdout>", ClassCommand},   // … and its output
	{"<bash-stderr>", ClassCommand},
	{"<task-notification>", ClassTaskNotification},
	{"<system-reminder>", ClassSystemReminder},
	{"<user-prompt-submit-hook>", ClassHookOutput},
	{CompactSummaryPrefix, ClassCompactSummary},
	{InterruptPrefix, ClassInterrupt},
}

// Classify returns the class of one piece of user-record text (a string content or
// one text block) by its opening, ignoring leading white space. Record flags come
// first: isMeta makes any text ClassMeta, isCompactSummary ClassCompactSummary.
func Classify(text string, isMeta, isCompactSummary bool) TextClass {
	t := strings.TrimLeft(text, " \t\r\n")
	switch {
	case t == "":
		return ClassEmpty
	case isMeta:
		return ClassMeta
	case isCompactSummary:
		return ClassCompactSummary
	}
	for _, w := range wrappers {
		if strings.HasPrefix(t, w.prefix) {
			return w.class
		}
	}
	return ClassHuman
}
