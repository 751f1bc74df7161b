package claudecode

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// SourceName is the name sessions read by this package carry in [input.Session.Source].
const SourceName = "claude_code"

// recordTypes are the record types Claude Code is known to write. Others are read,
// counted and skipped like the ones that carry nothing for the assessment.
var recordTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "progress": true,
	"file-history-snapshot": true, "queue-operation": true, "permission-mode": true,
	"last-prompt": true, "ai-title": true, "custom-title": true, "attachment": true,
	"agent-name": true,
}

// claudeKeys are top-level keys only Claude Code transcripts have.
var claudeKeys = []string{"sessionId", "uuid", "parentUuid", "leafUuid", "messageId", "isSidechain", "userType"}

// Sniff reports whether head, the opening bytes of a file, looks like a Claude Code
// transcript: one of its first JSON object lines ([jsonl.HeadObjects]) is a Claude
// Code record ([SniffRecord]), so that a garbage first line does not hide the file's
// format. name is not consulted: subagent transcripts sniff like main ones, and
// [IsSubagentFile] tells them apart.
func Sniff(name string, head []byte) bool {
	for obj := range jsonl.HeadObjects(head, 0) {
		if SniffRecord(obj) {
			return true
		}
	}
	return false
}

// SniffRecord reports whether a record's top-level keys (string values, others "")
// are a Claude Code record's: a Claude Code record type and one of Claude Code's own
// keys (sessionId, uuid, parentUuid, leafUuid, messageId, isSidechain, userType) — a
// summary-only file ({"type":"summary","summary":…,"leafUuid":…}) qualifies — or, for
// a record type this version does not know yet or a record cut off before its type,
// two of those keys.
func SniffRecord(obj map[string]string) bool {
	n := 0
	for _, k := range claudeKeys {
		if _, ok := obj[k]; ok {
			n++
		}
	}
	return recordTypes[obj["type"]] && n >= 1 || n >= 2
}

// IsSubagentFile reports whether name (a slash-separated path) is a subagent
// transcript: <dir>/<session>/subagents/agent-<id>.jsonl, including the compaction
// agents agent-acompact-<id>.jsonl. Such a file is read with its main transcript
// ([ParentOf]) by [Read], never on its own.
func IsSubagentFile(name string) bool {
	dir, base := path.Split(name)
	if !strings.HasPrefix(base, "agent-") || !strings.HasSuffix(base, ".jsonl") {
		return false
	}
	dir = strings.TrimSuffix(dir, "/")
	if path.Base(dir) != "subagents" {
		return false
	}
	session := path.Dir(dir)
	return session != "." && session != "/" && session != "" && path.Base(session) != ".."
}

// ParentOf returns the path of the main transcript a subagent transcript belongs to
// (<dir>/<session>.jsonl for <dir>/<session>/subagents/agent-*.jsonl), or "" when name
// is not a subagent transcript.
func ParentOf(name string) string {
	if !IsSubagentFile(name) {
		return ""
	}
	return path.Dir(path.Dir(name)) + ".jsonl"
}

// SubagentFiles returns the subagent transcripts of the main transcript name that
// exist in fsys (<session>/subagents/agent-*.jsonl beside <session>.jsonl), in name
// order: regular files only, as opening a named pipe could block. A missing folder is
// no error.
func SubagentFiles(fsys fs.FS, name string) ([]string, error) {
	if !strings.HasSuffix(name, ".jsonl") {
		return nil, nil
	}
	dir := path.Join(strings.TrimSuffix(name, ".jsonl"), "subagents")
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if IsSubagentFile(p) && regular(fsys, p, e) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// regular reports whether a folder entry is a regular file, following a symbolic link.
func regular(fsys fs.FS, name string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink != 0 {
		fi, err := fs.Stat(fsys, name)
		return err == nil && fi.Mode().IsRegular()
	}
	return e.Type().IsRegular()
}
