// Package sessiontext renders session events as one line of text each, for the golden
// files of the session sources' tests. It is for tests only.
package sessiontext

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
)

// Time formats an event time in UTC with milliseconds, "-" for the zero time.
func Time(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format("2006-01-02T15:04:05.000Z07:00")
}

// Counts writes " key=count" for every key, in key order.
func Counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, m[k])
	}
	return b.String()
}

// Event writes one event on one line: time, kind, id, flags and content.
func Event(ev analyze.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s id=%s", Time(ev.Time), ev.Kind, ev.ID)
	if ev.Sidechain {
		b.WriteString(" sidechain")
	}
	switch ev.Kind {
	case analyze.KindUserMessage, analyze.KindInterrupt:
		fmt.Fprintf(&b, " %q", ev.UserContent)
	case analyze.KindAssistantMessage:
		fmt.Fprintf(&b, " %q", ev.AssistantText)
	case analyze.KindToolResult:
		fmt.Fprintf(&b, " tool=%s status=%s", ev.ToolName, ev.ToolStatus)
		if ev.HasExitCode {
			fmt.Fprintf(&b, " exit=%d", ev.ExitCode)
		}
		if ev.ToolCommand != "" {
			fmt.Fprintf(&b, " command=%q", ev.ToolCommand)
		}
		fmt.Fprintf(&b, " %q", ev.ToolOutput)
	case analyze.KindHook:
		fmt.Fprintf(&b, " hook=%s", ev.HookName)
	case analyze.KindSystem:
		fmt.Fprintf(&b, " subtype=%s", ev.Subtype)
	}
	return b.String()
}
