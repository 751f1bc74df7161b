package vibeslog

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/replay/clockfault"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// SourceName is the name sessions read by this package carry in [input.Session.Source].
const SourceName = "vibes_log"

// MaxLine is the longest log line read (256 MiB); longer lines are reported and
// skipped without being held in memory.
const MaxLine = 256 << 20

// MaxToolInput bounds the tool input a session collects from one tool call's
// tool_input_delta events (64 KiB): a longer input gives no ToolCommand. A command
// line is far shorter; file contents written by a tool are what reach the bound.
const MaxToolInput = 64 << 10

// PairWindow is how far apart in time the two records of one prompt (user_input and
// hook user_prompt_submit) or of one tool call (claude tool_result and hook
// post_tool_use) may be to be taken for one.
const PairWindow = 5 * time.Minute

// MaxUnpaired bounds the records of each kind (prompts, tool results) a session keeps
// waiting for their other half: past it the oldest is given up (counted as
// "pairing/given_up"), so that a log whose records never pair — no hooks, ids that
// give no time, one time for all — costs a bounded look-up per record, not one that
// grows with the log. Far more than a live session leaves waiting within PairWindow.
const MaxUnpaired = 256

// MaxBackstep is how far an event's time may fall behind an earlier event's of the
// same session before one of them is taken for a clock fault (package clockfault).
const MaxBackstep = 10 * time.Minute

// The top-level event types (variants) of the vibes event log.
var variants = map[string]bool{
	"claude": true, "user_input": true, "hook": true, "session_created": true,
	"session_state_changed": true, "session_removed": true, "permission_response": true,
	"ownership_transferred": true, "client_connected": true, "client_disconnected": true,
	"tunnel_state_changed": true,
}

// hookNames maps the hook payload types to Claude Code's hook event names.
var hookNames = map[string]string{
	"pre_tool_use": "PreToolUse", "post_tool_use": "PostToolUse", "stop": "Stop",
	"session_start": "SessionStart", "user_prompt_submit": "UserPromptSubmit",
	"permission_request": "PermissionRequest", "notification": "Notification",
	"subagent_stop": "SubagentStop", "pre_compact": "PreCompact", "session_end": "SessionEnd",
}

// Sniff reports whether head, the opening bytes of a file, looks like a vibes event
// log: one of its first JSON object lines ([jsonl.HeadObjects]) is a vibes event
// ([SniffRecord]).
func Sniff(head []byte) bool {
	for obj := range jsonl.HeadObjects(head, 0) {
		if SniffRecord(obj) {
			return true
		}
	}
	return false
}

// SniffRecord reports whether a record's top-level keys (string values, others "")
// are a vibes event's: an event_id and a type that is a vibes variant.
func SniffRecord(obj map[string]string) bool {
	_, hasID := obj["event_id"]
	return hasID && variants[obj["type"]]
}

// Log is what one event-log file holds.
type Log struct {
	// Sessions in key order.
	Sessions []*input.Session
	// Problems in line order (of a log read in parts, in the order of the parts, then
	// of their lines).
	Problems []input.Problem
	// Unattributed counts, by type, the events that belong to no session
	// (client_connected, client_disconnected, tunnel_state_changed, …).
	Unattributed map[string]int
	// Repeated counts the events read again: an event_id read before in the same session
	// (ReadPartsOnly).
	Repeated int
}

// UnattributedCount returns how many events belong to no session, of every type.
func (lg *Log) UnattributedCount() int {
	n := 0
	for _, c := range lg.Unattributed {
		n += c
	}
	return n
}

// Read reads the sessions of one event-log file. name is the file's path for
// problems and [input.Session.File]. Sessions come back sorted by key, problems in
// line order. Events that belong to no session are counted in [ReadLog]'s Log only.
func Read(name string, r io.Reader) ([]*input.Session, []input.Problem) {
	lg := ReadLog(name, r)
	return lg.Sessions, lg.Problems
}

// envelope is one log line.
type envelope struct {
	EventID   string  `json:"event_id"`
	Type      string  `json:"type"`
	SessionID string  `json:"session_id"`
	Content   *string `json:"content"` // user_input
	Name      string  `json:"name"`    // session_created
	Event     *inner  `json:"event"`   // claude, hook
}

// sum is a hash of the event as the reader reads it: every field of the envelope and
// of its inner event, strings decoded, and tool_input and tool_response by their JSON
// values (jsonl.ValueSum). Two lines of one event, written by two tools — members in
// another order, other white space, other escapes, a member the reader does not read
// added or left out — sum alike.
func (e *envelope) sum(seed maphash.Seed) uint64 {
	var fields [24 * 8]byte // the fields' hashes, in their order, hashed once
	b := fields[:0]
	add := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	str := func(s string) { add(maphash.String(seed, s)) }
	opt := func(s *string) {
		if s == nil {
			add(0)
			return
		}
		str(*s)
		add(1)
	}
	value := func(raw json.RawMessage) {
		v, ok := jsonl.ValueSum(seed, raw)
		if !ok { // none, or not JSON the Scanner reads
			v = maphash.Bytes(seed, bytes.TrimSpace(raw)) ^ 1
		}
		add(v)
	}
	str(e.EventID)
	str(e.Type)
	str(e.SessionID)
	opt(e.Content)
	str(e.Name)
	if in := e.Event; in != nil {
		for _, s := range [...]string{in.Type, in.Text, in.ID, in.Name, in.Delta, in.SessionID, in.Cwd, in.HookEventName, in.ToolName} {
			str(s)
		}
		opt(in.Output)
		switch {
		case in.IsError == nil:
			add(0)
		case *in.IsError:
			add(1)
		default:
			add(2)
		}
		opt(in.Prompt)
		value(in.ToolInput)
		value(in.ToolResponse)
	}
	return maphash.Bytes(seed, b)
}

// inner is a claude or hook event.
type inner struct {
	Type string `json:"type"`
	// claude
	Text    string  `json:"text"`
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Output  *string `json:"output"`
	IsError *bool   `json:"is_error"`
	Delta   string  `json:"delta"` // tool_input_delta
	// hook
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	Prompt        *string         `json:"prompt"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
}

// ReadLog reads one event-log file; see [Read].
func ReadLog(name string, r io.Reader) *Log { return ReadLogOnly(name, r, nil) }

// ReadOnly is Read building only the sessions whose key keep accepts (nil: every
// session); see [ReadLogOnly].
func ReadOnly(name string, r io.Reader, keep func(key string) bool) ([]*input.Session, []input.Problem) {
	lg := ReadLogOnly(name, r, keep)
	return lg.Sessions, lg.Problems
}

// ReadLogOnly is ReadLog building only the sessions whose key keep accepts (nil:
// every session). The sessions it returns are the ones ReadLog returns with those
// keys, event for event, and it counts the same events of no session (Unattributed).
// Of the other sessions' lines it decodes the envelope — of a line that names its
// session at the top level, as vibes writes every session event, the event inside is
// validated, not decoded; a line the fast decoder leaves to jsonl.DecodeObject is
// decoded whole — and goes on. Its problems are not ReadLog's: those of a line as such
// (not JSON, not UTF-8, no type, no session) are reported as ReadLog reports them, but
// what is wrong with the other sessions' events goes unreported, or reported in part,
// and a problem that counts the events of an unknown type counts only those it read.
// It is for a reader that replays only some sessions and drops the file's problems
// anyway: a shard of a split replay reading a log another shard reports on.
func ReadLogOnly(name string, r io.Reader, keep func(key string) bool) *Log {
	return ReadPartsOnly([]Part{{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}}, keep)
}

// A Part is one file of a log exported in several: vibes' log is one stream, and an
// export of it taken in pieces — one a day, or each from where the last stopped, or
// each the whole log again — splits a session that was going on at the cut, or
// repeats it.
type Part struct {
	Name string                        // the file's path, for problems and input.Session.File
	Open func() (io.ReadCloser, error) // opened when its turn comes, closed once read
}

// ReadPartsOnly reads the parts of a log, in the order given, as the one log they
// were cut from: a session's events from every part are one session (its File and
// Line where it first appears), told apart, timed, paired and ordered as within one
// file, and a problem names the part and the line it is at (problems in part order,
// then line order). An event whose event_id its session has read already is the same
// event exported again and is read once (counted in Log.Repeated and the session's
// Records as "repeated"); when it is another event, it is reported too: in one part,
// a line that is not the first one's byte for byte; across parts, an event that is
// not the first one as the reader reads it (the same event written again by another
// tool — members in another order, other white space or escapes, a member the reader
// does not read added — is the event). A part that cannot be opened is left out,
// unreported: its caller, which gave the part, reports it. keep is ReadLogOnly's. One part is ReadLogOnly of
// its file.
func ReadPartsOnly(parts []Part, keep func(key string) bool) *Log {
	lr := newLogReader(keep)
	lr.byEvent = len(parts) > 1
	for _, p := range parts {
		lr.names = append(lr.names, p.Name)
	}
	for i, p := range parts {
		f, err := p.Open()
		if err != nil {
			continue
		}
		lr.part, lr.name = i, p.Name
		lr.read(f)
		f.Close()
	}
	return lr.finish()
}

// SessionKeys calls fn with the key of each session whose events r holds, at least
// once each (fn may not keep the bytes past its call): of each line, the string value
// of its top-level "session_id" member, or, when it has none (or an empty one), of each
// nested one — the key [ReadLog] files the line's event under (a hook payload's
// session_id when the event names none), and on such a line maybe others. It is for
// a caller that needs to know which logs share a session before it reads them, as
// [ReadPartsOnly]'s parts, and costs a fraction of a read: it looks for the member's
// name, and walks the line's structure only up to where the name is. A name spelled
// otherwise — in another case, or with escapes, which encoding/json would match and
// vibes never writes — is not seen, and on a line that is no JSON (a record cut off
// and run together with the next, which ReadLog recovers) a key may be missed. start
// is where the log starts, to put parts in order: the median time of its first
// [StartEvents] event_ids that are UUIDv7s (of each line's first), so that one event
// from a wrong clock does not move it (zero when none is). It reports nothing of what
// is wrong with the log; its error is a failure to read r.
func SessionKeys(r io.Reader, fn func(key []byte)) (start time.Time, err error) {
	rd := jsonl.NewReader(r, MaxLine)
	defer rd.Close()
	var times []time.Time
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return median(times), err
		}
		if l.Oversize {
			continue
		}
		sessionIDs(l.Bytes, fn)
		if len(times) < StartEvents {
			if t := firstTime(l.Bytes); !t.IsZero() {
				times = append(times, t)
			}
		}
	}
	return median(times), nil
}

// StartEvents is how many of a log's first event times [SessionKeys] takes the median
// of, for where the log starts.
const StartEvents = 9

// median returns the middle of times (the earlier of the two middles), or zero.
func median(times []time.Time) time.Time {
	if len(times) == 0 {
		return time.Time{}
	}
	slices.SortFunc(times, time.Time.Compare)
	return times[(len(times)-1)/2]
}

// firstTime returns the time of the first "event_id" member of line whose value is a
// UUIDv7, or zero.
func firstTime(line []byte) time.Time {
	const name = `"event_id"`
	for i := 0; ; {
		k := bytes.Index(line[i:], []byte(name))
		if k < 0 {
			return time.Time{}
		}
		i += k + len(name)
		start, end, _, ok := stringValue(line, i)
		switch {
		case end < 0:
			return time.Time{}
		case !ok:
			continue
		}
		if t, err := EventTime(string(line[start:end])); err == nil {
			return t
		}
		i = end + 1
	}
}

// stringValue reads what follows a member name that ends before i: a colon, then a
// string, and returns the string's text, line[start:end] (end at its closing quote),
// and whether it holds an escape. ok is false when no string follows — the name is a
// value, or the member's value is of another type; end is -1 when the line ends
// inside the string. White space is skipped as JSON allows.
func stringValue(line []byte, i int) (start, end int, escaped, ok bool) {
	j := i + jsonl.SkipSpace(line[i:])
	if j >= len(line) || line[j] != ':' {
		return 0, 0, false, false
	}
	if j += 1 + jsonl.SkipSpace(line[j+1:]); j >= len(line) || line[j] != '"' {
		return 0, 0, false, false
	}
	end, escaped = stringEnd(line, j+1)
	return j + 1, end, escaped, end >= 0
}

// sessionIDs calls fn with the text of the value of line's top-level "session_id"
// member when it is a string that is not empty, else of each nested one's that is,
// decoded as encoding/json decodes it.
func sessionIDs(line []byte, fn func(key []byte)) {
	const name, tail = `"session_id"`, `_id"` // '_' is rarer than '"' or 's': the search looks for the tail
	depth, i, top := 0, 0, false              // i: how far the walk has come, at depth
	for from := 0; ; {                        // from: how far the search has come
		k := bytes.Index(line[from:], []byte(tail))
		if k < 0 {
			return
		}
		end := from + k + len(tail) // past the name's closing quote
		start := end - len(name)
		from = end
		if start < i || string(line[start:end]) != name {
			continue
		}
		var outside, closed bool
		depth, i, outside, closed = walkTo(line, i, start, depth)
		if closed {
			top = false // a record ended: the next (a line of several) is another event
		}
		// Within a JSON string the name would have escaped quotes: found inside one, the
		// walk has lost its way on a line that is no JSON (a record cut off and run
		// together with the next, which the reader recovers): the name is taken for a
		// key, as any other of the line.
		lost := !outside
		i = end
		vstart, vend, escaped, ok := stringValue(line, end)
		switch {
		case vend < 0:
			return
		case !ok:
			continue // a value, not a key, or no string
		}
		raw := line[vstart:vend]
		if escaped || !utf8.Valid(raw) {
			raw = unquoted(raw)
		}
		if len(raw) > 0 && (depth == 1 || !top || lost) {
			fn(raw)
			top = top || depth == 1
		}
		i, from = vend+1, vend+1
	}
}

// walkTo walks line's structure from i, at depth (of objects and arrays), to k: it
// returns the depth at k, and k, when k is not inside a string; else the index past
// the string that holds k (len(line) when that string does not end), and false.
// closed reports whether the walk ended a value at depth 0 (a record).
func walkTo(line []byte, i, k, depth int) (d, at int, outside, closed bool) {
	for i < k {
		switch line[i] {
		case '"':
			end, _ := stringEnd(line, i+1)
			if end < 0 {
				return depth, len(line), false, closed
			}
			if end >= k {
				return depth, end + 1, false, closed
			}
			i = end + 1
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			closed = closed || depth == 0
		}
		i++
	}
	return depth, k, true, closed
}

// unquoted returns a JSON string's text (between its quotes) decoded as encoding/json
// decodes it — jsonl.Unquote, but for invalid UTF-8, which encoding/json reads as
// U+FFFD — or raw when it does not decode.
func unquoted(raw []byte) []byte {
	quoted := append(append(append(make([]byte, 0, len(raw)+2), '"'), raw...), '"')
	switch {
	case !json.Valid(quoted): // jsonl.Unquote's input must be a JSON string
		return raw
	case utf8.Valid(raw):
		return []byte(jsonl.Unquote(raw))
	}
	var v string
	json.Unmarshal(quoted, &v)
	return []byte(v)
}

// stringEnd returns the index of the quote that ends the string whose text starts at
// start (a quote after an even number of backslashes), and whether the string holds
// an escape; -1 when the line ends first.
func stringEnd(line []byte, start int) (int, bool) {
	for i := start; ; {
		k := bytes.IndexByte(line[i:], '"')
		if k < 0 {
			return -1, false
		}
		i += k
		n := 0
		for n < i-start && line[i-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return i, bytes.IndexByte(line[start:i], '\\') >= 0
		}
		i++
	}
}

func newLogReader(keep func(key string) bool) *logReader {
	return &logReader{keep: keep, ids: map[eventKey]readLine{}, seed: maphash.MakeSeed(), sessions: map[string]*sessBuilder{}, unknown: map[string]*unknownType{},
		log: &Log{Unattributed: map[string]int{}}}
}

// read reads the lines of one part.
func (lr *logReader) read(r io.Reader) {
	rd := jsonl.NewReader(r, MaxLine)
	defer rd.Close() // its buffers serve the next log's read
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			lr.report(0, input.ProblemRead, "reading stopped after line %d: %v; the events before it are kept", rd.Line(), err)
			return
		}
		if l.Oversize {
			lr.report(l.Num, input.ProblemOversize, "line of %d bytes exceeds the %d-byte limit; skipped", l.Len, MaxLine)
			continue
		}
		if l.Blank() {
			continue
		}
		reported := len(lr.log.Problems) // the line's problems from here, dropped if its events were read before
		valid := l.ValidUTF8()
		if !valid {
			lr.report(l.Num, input.ProblemInvalidUTF8, "line is not valid UTF-8; invalid bytes read as U+FFFD")
		}
		lr.line(l, valid, reported)
	}
}

type logReader struct {
	name     string                // the part being read, for problems
	part     int                   // its index among the parts
	names    []string              // every part's name, by index
	keep     func(key string) bool // the sessions built (nil: all)
	ids      map[eventKey]readLine // every event read with an id, and where
	seed     maphash.Seed          // of the lines' hashes, which are compared within the read only
	byEvent  bool                  // a log in parts: a repeat in another part than the first's is compared as the event read (envelope.sum)
	log      *Log
	sessions map[string]*sessBuilder
	unknown  map[string]*unknownType
}

type unknownType struct {
	part, line, count, order int
}

func (lr *logReader) report(line int, kind input.ProblemKind, format string, args ...any) {
	lr.log.Problems = append(lr.log.Problems, input.Problem{File: lr.name, Line: line, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

// noteUnknown counts an event of an unknown type; one problem per type is reported
// at the end.
func (lr *logReader) noteUnknown(typ string, line int) {
	u := lr.unknown[typ]
	if u == nil {
		u = &unknownType{part: lr.part, line: line, order: len(lr.unknown)}
		lr.unknown[typ] = u
	}
	u.count++
}

// line decodes one line and files its event under its session, to be mapped once the
// session's times are known (see finish). validUTF8 reports that the line's bytes are
// valid UTF-8: the fast decoder (decodeEnvelope) reads almost every such line, and
// jsonl.DecodeObject the others. reported is how many problems the log had before the
// line's: dropped when its event was read before (repeated).
func (lr *logReader) line(l jsonl.Line, validUTF8 bool, reported int) {
	var env envelope
	bad, err := errors.New("not a JSON object"), error(nil)
	if b := bytes.TrimLeft(l.Bytes, " \t"); len(b) > 0 && b[0] == '{' {
		if !validUTF8 || !decodeEnvelope(l.Bytes, &env, lr.keep) {
			env = envelope{}
			var fields []jsonl.FieldError
			fields, err = jsonl.DecodeObject(l.Bytes, &env)
			if err == nil && len(fields) > 0 {
				lr.report(l.Num, input.ProblemInvalid, "%s; the event is read without it", jsonl.Describe(fields))
			}
		}
		bad = err
	}
	if bad != nil {
		if recs, detail, ok := l.Split(); ok {
			// A line that is no event is a problem of each file it is in; each record's
			// own problems are dropped when it repeats an event read before.
			lr.report(l.Num, input.ProblemMalformed, "%s", detail)
			for _, rec := range recs {
				lr.line(rec, utf8.Valid(rec.Bytes), len(lr.log.Problems))
			}
			return
		}
		lr.bad(l, bad)
		return
	}
	sid := env.SessionID
	if sid == "" && env.Event != nil {
		sid = env.Event.SessionID
	}
	var t time.Time // the event's time from its id (parsed once, for the events of the sessions built)
	var terr error
	if sid == "" || lr.keep == nil || lr.keep(sid) {
		if t, terr = EventTime(env.EventID); terr == nil && lr.repeated(env.EventID, sid, l, &env, reported) {
			return
		}
	}
	if env.Type == "" {
		lr.report(l.Num, input.ProblemInvalid, "event without a type; skipped")
		return
	}
	if sid == "" {
		switch env.Type {
		case "claude", "user_input", "hook", "session_created", "session_state_changed", "session_removed",
			"permission_response", "ownership_transferred":
			lr.report(l.Num, input.ProblemInvalid, "%s event without a session_id; skipped", env.Type)
		default:
			if !variants[env.Type] {
				lr.noteUnknown(env.Type, l.Num)
			}
			lr.log.Unattributed[env.Type]++
		}
		return
	}
	if lr.keep != nil && !lr.keep(sid) {
		return // a session not built (ReadLogOnly)
	}
	sb := lr.sessions[sid]
	if sb == nil {
		sb = newSession(sid, lr.name, l.Num)
		lr.sessions[sid] = sb
	}
	sb.s.Records[env.Type]++
	if !variants[env.Type] {
		lr.noteUnknown(env.Type, l.Num)
		return
	}

	// Time: from the event id, else (once placed) the session's previous event's.
	if terr != nil {
		t = time.Time{}
		sb.s.Records["time/missing"]++
		if env.EventID == "" {
			lr.report(l.Num, input.ProblemInvalid, "event without an event_id; it takes the time of the session's event before it")
		} else {
			lr.report(l.Num, input.ProblemInvalid, "event_id %q is not a UUIDv7 (%v); it takes the time of the session's event before it", env.EventID, terr)
		}
	}
	sb.pending = append(sb.pending, pendingEvent{part: lr.part, line: l.Num, env: env, t: t})
}

// repeated reports whether the log has read an event with this event_id already in
// session sid ("" for none): the same event exported again (a log exported in parts
// that overlap), read once and counted (Log.Repeated, and Records "repeated" of the
// session); what reading its line again found is not reported again (the problems
// from index reported on are dropped), but another event is: an id given to two
// events. Within one file — one part — the lines are compared byte for byte (white
// space around them aside): one writer writes an event the same way. A line in
// another part than the first one's, which another tool may have written again, is
// compared as the reader reads the event (envelope.sum), at some 10–15% of the read's
// time. id is a UUIDv7 (an event whose id
// is missing or none is never taken for another: no sign of the event it names). A
// reader that builds only some sessions (ReadLogOnly) does not look at the others'
// events.
func (lr *logReader) repeated(id, sid string, l jsonl.Line, env *envelope, reported int) bool {
	bytesSum := maphash.Bytes(lr.seed, bytes.TrimSpace(l.Bytes))
	var eventSum uint64
	if lr.byEvent {
		eventSum = env.sum(lr.seed)
	}
	first, ok := lr.ids[eventKey{sid, id}]
	if !ok {
		lr.ids[eventKey{sid, id}] = readLine{part: int32(lr.part), line: int32(min(l.Num, math.MaxInt32)), sum: bytesSum, event: eventSum}
		return false
	}
	want, sum := first.sum, bytesSum // in the part the first was read in: byte for byte
	if lr.byEvent && int(first.part) != lr.part {
		want, sum = first.event, eventSum
	}
	lr.log.Problems = lr.log.Problems[:reported]
	lr.log.Repeated++
	if want != sum && first.other != sum { // a copy of a line reported already is not reported again
		lr.report(l.Num, input.ProblemInvalid, "event_id %s was read at %s, with other content; this one is skipped", id, lr.place(int(first.part), int(first.line)))
		first.other = sum
		lr.ids[eventKey{sid, id}] = first
	}
	if sb := lr.sessions[sid]; sb != nil {
		sb.s.Records["repeated"]++
	}
	return true
}

// eventKey is an event as repeated knows it: its session (none for an event of no
// session) and its event_id. An id is an event's within its session: whether an event
// repeats one does not depend on the other sessions, which a reader that builds only
// some (ReadLogOnly) does not look at.
type eventKey struct{ session, id string }

// readLine is where an event was read first, its line's hash (of its bytes), its
// event's hash (envelope.sum, in a log in parts), and the hash of the last other line
// reported with its id.
type readLine struct {
	part, line        int32
	sum, event, other uint64
}

// pendingEvent is a decoded event of a session, waiting for the session's times to be
// checked before it is mapped.
type pendingEvent struct {
	part int // the log part it was read from
	line int
	env  envelope
	t    time.Time // zero: no usable event time
}

// mapEvents checks the session's event times for clock faults (reporting them and
// placing each at its trusted neighbour's time, in log order), then maps its events in
// log order.
func (lr *logReader) mapEvents(sb *sessBuilder) {
	times := make([]time.Time, len(sb.pending))
	for i, p := range sb.pending {
		times[i] = p.t
	}
	for _, f := range clockfault.Find(times, MaxBackstep) {
		p := &sb.pending[f.Index]
		lr.at(p.part)
		lr.report(p.line, input.ProblemInvalid, "event time %s is %s the session's events around it (a clock fault); the event is placed at %s's time, in log order",
			p.t.Format(time.RFC3339Nano), f.Describe(p.t), lr.place(sb.pending[f.From].part, sb.pending[f.From].line))
		p.t = f.Placed
	}
	for i := range sb.pending {
		lr.at(sb.pending[i].part)
		lr.mapEvent(sb, &sb.pending[i])
	}
	sb.pending = nil
}

// place names a line, as a problem of the part being read says it: "line N" in that
// part, "FILE:N" in another.
func (lr *logReader) place(part, line int) string {
	if part == lr.part {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("%s:%d", lr.names[part], line)
}

// at makes the part of this index the one problems are reported of.
func (lr *logReader) at(part int) {
	if part < len(lr.names) {
		lr.part, lr.name = part, lr.names[part]
	}
}

// mapEvent maps one event of a session.
func (lr *logReader) mapEvent(sb *sessBuilder, p *pendingEvent) {
	l, env := jsonl.Line{Num: p.line}, &p.env
	at := at{t: sb.place(p.t, !p.t.IsZero()), id: env.EventID}

	if env.Type == "claude" || env.Type == "hook" {
		if env.Event == nil || env.Event.Type == "" {
			lr.report(l.Num, input.ProblemInvalid, "%s event without an event type; skipped", env.Type)
			return
		}
		sb.s.Records[env.Type+"/"+env.Event.Type]++
	}
	switch env.Type {
	case "claude":
		lr.claude(sb, l.Num, env.Event, at)
	case "hook":
		sb.flush()
		sb.hook(env.Event, at)
	case "user_input":
		sb.flush()
		if env.Content == nil {
			lr.report(l.Num, input.ProblemInvalid, "user_input without content; skipped")
			return
		}
		sb.prompt(*env.Content, sideInput, at)
	case "session_created":
		sb.flush()
		if sb.s.Title == "" {
			sb.s.Title = env.Name
		}
		sb.system(env.Type, at)
	case "client_connected", "client_disconnected", "tunnel_state_changed":
		// Connection events with a session id: counted, no event.
	default: // session_state_changed, session_removed, permission_response, ownership_transferred
		sb.flush()
		sb.system(env.Type, at)
	}
}

// bad reports a line that is not an event.
func (lr *logReader) bad(l jsonl.Line, err error) {
	if l.Unterminated {
		lr.report(l.Num, input.ProblemTruncated, "final line is cut off (%v); skipped", err)
		return
	}
	lr.report(l.Num, input.ProblemMalformed, "not a JSON event: %v; skipped", err)
}

// claude maps a Claude event.
func (lr *logReader) claude(sb *sessBuilder, line int, ev *inner, at at) {
	if ev.Type == "text_delta" {
		sb.delta(ev.Text, at)
		return
	}
	sb.flush()
	switch ev.Type {
	case "thinking_delta":
	case "tool_input_delta":
		if in := sb.toolInputs[ev.ID]; in != nil && in.Len()+len(ev.Delta) <= MaxToolInput {
			in.WriteString(ev.Delta)
		} else if in != nil {
			in.Reset()
			sb.toolInputs[ev.ID] = nil // too long: no command
		}
	case "tool_use_start":
		sb.toolNames[ev.ID] = ev.Name
		sb.toolInputs[ev.ID] = &strings.Builder{}
	case "tool_result":
		e := analyze.Event{Kind: analyze.KindToolResult, ToolName: sb.toolNames[ev.ID]}
		if _, ok := sb.toolNames[ev.ID]; !ok {
			sb.s.Records["claude/tool_result/unmatched"]++
		}
		if in := sb.toolInputs[ev.ID]; in != nil {
			e.ToolCommand = commandOf([]byte(in.String()))
		}
		delete(sb.toolInputs, ev.ID)
		if ev.Output != nil {
			e.ToolOutput = *ev.Output
		}
		if ev.IsError != nil {
			e.ToolStatus = analyze.ToolStatusOK
			if *ev.IsError {
				e.ToolStatus = analyze.ToolStatusError
			}
		}
		sb.tool(e, sideInput, at)
	case "turn_start", "turn_complete", "error", "permission_request":
		sb.system(ev.Type, at)
	default:
		lr.noteUnknown("claude/"+ev.Type, line)
	}
}

// finish closes every session and orders the results.
func (lr *logReader) finish() *Log {
	keys := make([]string, 0, len(lr.sessions))
	for k := range lr.sessions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lr.mapEvents(lr.sessions[k])
		lr.log.Sessions = append(lr.log.Sessions, lr.sessions[k].finish())
	}
	types := make([]string, 0, len(lr.unknown))
	for t := range lr.unknown {
		types = append(types, t)
	}
	slices.SortFunc(types, func(a, b string) int { return lr.unknown[a].order - lr.unknown[b].order })
	for _, t := range types {
		u := lr.unknown[t]
		lr.at(u.part)
		lr.report(u.line, input.ProblemUnknownKind, "%d event(s) of unknown type %q, the first here; counted and skipped", u.count, t)
	}
	part := make(map[string]int, len(lr.names))
	for i, n := range lr.names {
		part[n] = i
	}
	slices.SortStableFunc(lr.log.Problems, func(a, b input.Problem) int {
		return cmp.Or(part[a.File]-part[b.File], a.Line-b.Line)
	})
	return lr.log
}

// at is when and as what a record happened.
type at struct {
	t  time.Time
	id string
}

// The two sides of a pair: the record vibes makes itself (user_input, claude
// tool_result) and the Claude Code hook reporting the same thing.
const (
	sideInput = iota
	sideHook
)

// pairRef is an event that may yet be paired with its record from the other side.
type pairRef struct {
	idx  int // in sessBuilder.events
	side int
	key  string
	t    time.Time
}

// sessBuilder assembles one session.
type sessBuilder struct {
	s          *input.Session
	events     []analyze.Event
	toolNames  map[string]string
	toolInputs map[string]*strings.Builder // tool_use id → its input so far (nil: too long)

	text     strings.Builder // the pending assistant text run
	textAt   at              // its first delta
	textLast time.Time       // its last delta
	inText   bool

	prompts []pairRef
	tools   []pairRef

	pending []pendingEvent // decoded, not yet mapped

	last    time.Time // the previous event's placed time
	untimed []int     // events waiting for a time (before the session's first known one)
	firstTS time.Time
}

func newSession(key, file string, line int) *sessBuilder {
	return &sessBuilder{
		s:          &input.Session{Key: key, Source: SourceName, File: file, Line: line, Records: map[string]int{}},
		toolNames:  map[string]string{},
		toolInputs: map[string]*strings.Builder{},
	}
}

// place returns the time an event of the session is placed at: its own (clock faults
// already placed), or the previous event's when it has none.
func (sb *sessBuilder) place(t time.Time, timed bool) time.Time {
	if !timed {
		return sb.last
	}
	if t.Before(sb.last) {
		sb.s.Records["time/out_of_order"]++
	}
	if sb.firstTS.IsZero() {
		sb.firstTS = t
	}
	if sb.s.Start.IsZero() || t.Before(sb.s.Start) {
		sb.s.Start = t
	}
	if t.After(sb.s.End) {
		sb.s.End = t
	}
	sb.last = t
	return t
}

// add appends an event at a and returns its index.
func (sb *sessBuilder) add(ev analyze.Event, a at) int {
	ev.Time, ev.ID, ev.SessionID = a.t, a.id, sb.s.Key
	if a.t.IsZero() {
		sb.untimed = append(sb.untimed, len(sb.events))
	}
	sb.events = append(sb.events, ev)
	return len(sb.events) - 1
}

func (sb *sessBuilder) system(subtype string, a at) {
	sb.add(analyze.Event{Kind: analyze.KindSystem, Subtype: subtype}, a)
}

// delta adds assistant text to the pending run.
func (sb *sessBuilder) delta(text string, a at) {
	if !sb.inText {
		sb.inText, sb.textAt = true, a
	}
	sb.text.WriteString(text)
	sb.textLast = a.t
}

// flush ends the pending text run: one assistant message at its last delta's time,
// with its first delta's id.
func (sb *sessBuilder) flush() {
	if !sb.inText {
		return
	}
	text := sb.text.String()
	sb.text.Reset()
	sb.inText = false
	if strings.TrimSpace(text) == "" {
		sb.s.Records["claude/text_delta/empty_run"]++
		return
	}
	sb.add(analyze.Event{Kind: analyze.KindAssistantMessage, AssistantText: text}, at{t: sb.textLast, id: sb.textAt.id})
}

// pairWith returns the index in refs of the oldest reference from the other side
// with a matching key within PairWindow of t, or -1; references too old to pair are
// dropped.
func pairWith(refs *[]pairRef, side int, key string, t time.Time, anyKey bool) int {
	kept := (*refs)[:0]
	for _, r := range *refs {
		if t.Sub(r.t) <= PairWindow {
			kept = append(kept, r)
		}
	}
	*refs = kept
	for i, r := range kept {
		if r.side != side && (r.key == key || anyKey && (r.key == "" || key == "")) {
			return i
		}
	}
	return -1
}

func remove(refs *[]pairRef, i int) { *refs = slices.Delete(*refs, i, i+1) }

// wait keeps r waiting for its other half, giving up the oldest past MaxUnpaired.
func (sb *sessBuilder) wait(refs *[]pairRef, r pairRef) {
	if len(*refs) >= MaxUnpaired {
		remove(refs, 0)
		sb.s.Records["pairing/given_up"]++
	}
	*refs = append(*refs, r)
}

// prompt maps a user prompt from either side: the first of a pair is the user
// message, the second is merged into it (user_input's text wins).
func (sb *sessBuilder) prompt(text string, side int, a at) {
	key := strings.TrimSpace(text)
	if key == "" {
		if side == sideInput {
			sb.s.Records["user_input/empty"]++
		} else {
			sb.s.Records["hook/user_prompt_submit/empty"]++
		}
		return
	}
	if i := pairWith(&sb.prompts, side, key, a.t, false); i >= 0 {
		if side == sideInput {
			sb.events[sb.prompts[i].idx].UserContent = text
			sb.s.Records["user_input/paired"]++
		} else {
			sb.s.Records["hook/user_prompt_submit/paired"]++
		}
		remove(&sb.prompts, i)
		return
	}
	idx := sb.add(analyze.Event{Kind: analyze.KindUserMessage, UserContent: text}, a)
	sb.wait(&sb.prompts, pairRef{idx: idx, side: side, key: key, t: a.t})
}

// tool maps a tool result from either side: the first of a pair is the tool result
// event, the second is merged into it (the claude tool_result's output and is_error
// win; the hook's interrupted flag fills an unknown status).
func (sb *sessBuilder) tool(ev analyze.Event, side int, a at) {
	if i := pairWith(&sb.tools, side, ev.ToolName, a.t, true); i >= 0 {
		first := &sb.events[sb.tools[i].idx]
		if first.ToolName == "" {
			first.ToolName = ev.ToolName
		}
		if first.ToolCommand == "" {
			first.ToolCommand = ev.ToolCommand
		}
		if side == sideInput {
			first.ToolOutput = ev.ToolOutput
			if ev.ToolStatus != analyze.ToolStatusUnknown {
				first.ToolStatus = ev.ToolStatus
			}
			sb.s.Records["claude/tool_result/paired"]++
		} else {
			if first.ToolStatus == analyze.ToolStatusUnknown {
				first.ToolStatus = ev.ToolStatus
			}
			sb.s.Records["hook/post_tool_use/paired"]++
		}
		noteExitCode(first)
		remove(&sb.tools, i)
		return
	}
	noteExitCode(&ev)
	idx := sb.add(ev, a)
	sb.wait(&sb.tools, pairRef{idx: idx, side: side, key: ev.ToolName, t: a.t})
}

// hook maps a Claude Code hook payload.
func (sb *sessBuilder) hook(ev *inner, a at) {
	if sb.s.Project == "" && ev.Cwd != "" {
		sb.s.Project = ev.Cwd
	}
	switch ev.Type {
	case "user_prompt_submit":
		if ev.Prompt != nil {
			sb.prompt(*ev.Prompt, sideHook, a)
			return
		}
	case "post_tool_use":
		out, status := toolResponse(ev.ToolResponse)
		sb.tool(analyze.Event{Kind: analyze.KindToolResult, ToolName: ev.ToolName, ToolOutput: out, ToolStatus: status,
			ToolCommand: commandOf(ev.ToolInput)}, sideHook, a)
		return
	}
	name := hookNames[ev.Type]
	if name == "" {
		name = ev.HookEventName
	}
	if name == "" {
		name = camel(ev.Type)
	}
	if name == "" { // a type of underscores only
		name = ev.Type
	}
	sb.add(analyze.Event{Kind: analyze.KindHook, HookName: name}, a)
}

// toolResponse renders a post_tool_use tool_response: a string as it is, Bash's
// {stdout, stderr, interrupted} as stdout and stderr joined by a newline (interrupted
// is a failure), anything else as its JSON text.
func toolResponse(raw json.RawMessage) (string, analyze.ToolStatus) {
	if out, status, ok := fastToolResponse(raw); ok {
		return out, status
	}
	return decodeToolResponse(raw)
}

// decodeToolResponse is toolResponse with encoding/json: the reference
// fastToolResponse keeps to.
func decodeToolResponse(raw json.RawMessage) (string, analyze.ToolStatus) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", analyze.ToolStatusUnknown
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, analyze.ToolStatusUnknown
	}
	var bash struct {
		Stdout      *string `json:"stdout"`
		Stderr      *string `json:"stderr"`
		Interrupted bool    `json:"interrupted"`
	}
	if json.Unmarshal(raw, &bash) == nil && (bash.Stdout != nil || bash.Stderr != nil) {
		var parts []string
		for _, p := range []*string{bash.Stdout, bash.Stderr} {
			if p != nil && *p != "" {
				parts = append(parts, *p)
			}
		}
		status := analyze.ToolStatusUnknown
		if bash.Interrupted {
			status = analyze.ToolStatusError
		}
		return strings.Join(parts, "\n"), status
	}
	return string(raw), analyze.ToolStatusUnknown
}

// commandOf returns the "command" string of a tool input object (Bash's command
// line), or "".
func commandOf(raw []byte) string {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	var cmd string
	if json.Unmarshal(raw, &in) == nil && len(in.Command) > 0 && in.Command[0] == '"' {
		json.Unmarshal(in.Command, &cmd)
	}
	return cmd
}

// noteExitCode reads the exit code Claude Code writes at the top of a failed shell
// result.
func noteExitCode(ev *analyze.Event) {
	if ev.ToolStatus == analyze.ToolStatusError && !ev.HasExitCode {
		ev.ExitCode, ev.HasExitCode = analyze.ExitCodeOf(ev.ToolOutput)
	}
}

// camel turns a snake_case hook type into Claude Code's CamelCase spelling.
func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// finish flushes, times and orders the session.
func (sb *sessBuilder) finish() *input.Session {
	sb.flush()
	for _, i := range sb.untimed {
		sb.events[i].Time = sb.firstTS
	}
	slices.SortStableFunc(sb.events, func(a, b analyze.Event) int { return a.Time.Compare(b.Time) })
	sb.s.Events = sb.events
	return sb.s
}
