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
	ClassInjected         TextClass = "injected"          // wholly one tag another program wrote: <ci-monitor-event>…</ci-monitor-event>
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
	if wholeTag(t) {
		return ClassInjected
	}
	return ClassHuman
}

// wholeTag reports whether t is wholly one element of a tag whose name joins words
// with "-" or "_" and whose body is a message — lines, or 64 bytes or more:
// "<ci-monitor-event>CI checks … failed …</ci-monitor-event>", a tool's
// "<create-pr-command>\n## Overview…" —, the form Claude Code and the programs around
// it write into the user role ("<task-notification>", "<bash-input>"). A human may
// paste such an element too (a web component's "<mat-icon>home</mat-icon>", whose body
// is short, is read as theirs); a message that goes on after the closing tag is the
// human's (see HumanText).
func wholeTag(t string) bool {
	end, ok := leadingTag(t)
	return ok && strings.TrimRight(t[end:], " \t\r\n") == ""
}

// HumanText is what the human typed of a user message: text that opens with an
// element another program wrote (see [Classify]'s ClassInjected) and goes on with the
// human's words — "<ci-monitor-event>CI failed…</ci-monitor-event>\nhmm skip on CI
// runners" — is those words, trimmed; any other text is itself.
func HumanText(t string) string {
	lead := strings.TrimLeft(t, " \t\r\n")
	if end, ok := leadingTag(lead); ok {
		if rest := strings.TrimSpace(lead[end:]); rest != "" {
			return rest
		}
	}
	return t
}

// leadingTag reads an element at t's start whose tag's name joins lower-case words
// with "-" or "_" and whose body holds a line break or 64 bytes or more; end is where
// its first closing tag ends.
func leadingTag(t string) (end int, ok bool) {
	if len(t) < 2 || t[0] != '<' || !isLower(t[1]) {
		return 0, false
	}
	i, words := 2, 1
	for ; i < len(t); i++ {
		c := t[i]
		if c == '-' || c == '_' {
			if t[i-1] == '-' || t[i-1] == '_' {
				return 0, false
			}
			words++
		} else if !isLower(c) && !isDigit(c) {
			break
		}
	}
	if words < 2 || i == len(t) || t[i] != '>' && t[i] != ' ' || t[i-1] == '-' || t[i-1] == '_' {
		return 0, false
	}
	name := t[1:i]
	open := strings.IndexByte(t[i:], '>')
	if open < 0 {
		return 0, false
	}
	body := i + open + 1
	closing := strings.Index(t[body:], "</"+name+">")
	if closing < 64 && (closing <= 0 || !strings.Contains(t[body:body+closing], "\n")) {
		return 0, false // none, or a short body: a pasted element's "<mat-icon>home</mat-icon>"
	}
	return body + closing + len(name) + 3, true
}

func isLower(b byte) bool { return b >= 'a' && b <= 'z' }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }
