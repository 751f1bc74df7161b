package claudecode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/replay/clockfault"
	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// MaxLine is the longest transcript line read (256 MiB); longer lines are reported
// and skipped without being held in memory. Real lines reach tens of megabytes (tool
// output, images in base64).
const MaxLine = 256 << 20

// MaxBackstep is how far a record's timestamp may fall behind an earlier record's of
// the same file before one of them is taken for a clock fault (package clockfault).
// Smaller back-steps are normal in Claude Code: the records of parallel tool calls are
// written as they stream, and a slash command is logged after the compaction it
// started.
const MaxBackstep = 10 * time.Minute

// ContinuedRecords is the Session.Records entry counting the records that carry the id
// of a session this one resumed (listed in Session.ContinuedFrom).
const ContinuedRecords = "continued/earlier_session"

// Read reads one session: the main transcript name in fsys and its subagent
// transcripts ([SubagentFiles]), merged into one timeline. It returns nil only when
// the main transcript cannot be opened or holds no record; the problems say why.
// Problems come in file order (main transcript first), then line order.
func Read(fsys fs.FS, name string) (*input.Session, []input.Problem) {
	f, err := fsys.Open(name)
	if err != nil {
		b := newBuilder(name)
		b.report(name, 0, input.ProblemRead, "cannot open the transcript: %v", err)
		return nil, b.probs
	}
	defer f.Close()
	return ReadFrom(fsys, name, f)
}

// ReadFrom is [Read] with the main transcript's content read from r, once (a stream
// can be read only once); its subagent transcripts are opened in fsys.
func ReadFrom(fsys fs.FS, name string, r io.Reader) (*input.Session, []input.Problem) {
	b := newBuilder(name)
	b.readFile(name, r, false)
	subs, err := SubagentFiles(fsys, name)
	if err != nil {
		b.report(name, 0, input.ProblemRead, "cannot list its subagent transcripts: %v", err)
	}
	for _, sub := range subs {
		f, err := fsys.Open(sub)
		if err != nil {
			b.report(sub, 0, input.ProblemRead, "cannot open the subagent transcript: %v", err)
			continue
		}
		b.readFile(sub, f, true)
		f.Close()
		b.sess.Subagents++
	}
	return b.finish()
}

// ReadTranscript reads one transcript file from r, without looking for subagent
// transcripts (use [Read] for that). name is the file's path for problems and
// [input.Session.File].
func ReadTranscript(name string, r io.Reader) (*input.Session, []input.Problem) {
	b := newBuilder(name)
	b.readFile(name, r, false)
	return b.finish()
}

// ReadOrphan handles a subagent transcript whose main transcript ([ParentOf]) is not
// in the input. Such a file is not replayed: a subagent's records are not the human
// conversation, and the session they belong to is incomplete without its main
// transcript (were the main transcript replayed from elsewhere, the subagent would
// count twice). ReadOrphan still reads the file, so that its bad lines are reported
// like any other, and returns those problems followed by one [input.ProblemUnusable]
// that names the session, the missing parent and what the file held.
func ReadOrphan(fsys fs.FS, name string) []input.Problem {
	b := newBuilder(name)
	f, err := fsys.Open(name)
	if err != nil {
		b.report(name, 0, input.ProblemRead, "cannot open the subagent transcript: %v", err)
		return b.probs
	}
	b.readFile(name, f, true)
	f.Close()
	records := 0
	for k, n := range b.sess.Records {
		if !strings.Contains(k, "/") {
			records += n
		}
	}
	id := "unknown"
	for k, f := range b.ids {
		if f.order == 0 {
			id = k
		}
	}
	b.report(name, 0, input.ProblemUnusable,
		"subagent transcript of session %s (%d records, %d events) without its main transcript %s; not replayed",
		id, records, len(b.events)-b.dropped, ParentOf(name))
	return b.probs
}

// builder assembles one session from its files.
type builder struct {
	sess    *input.Session
	probs   []input.Problem
	fileIdx map[string]int

	ids    map[string]*sessionID // every sessionId met, main transcript and subagents
	lastID string                // the sessionId of the main transcript's last record with one
	uuids  map[string]bool       // record uuids, to match summaries' leafUuid

	summaries   []summary
	aiTitle     string
	customTitle string

	// rec is the record readLine decodes a line into, one for every line: what the
	// mapping keeps of a record it copies, never a pointer into it.
	rec record

	// until, when set, stops a file's reading at the first line after which ids holds
	// it (KeyFromHead: what it asks is settled there).
	until string

	events  []analyze.Event // in reading order: main transcript, then subagents; lines in order
	dropped int             // events a later record unmade (Kind ""), taken out in finish
	start   time.Time
	end     time.Time
}

// sessionID is where one sessionId occurs in a session's files.
type sessionID struct {
	file      string // file and line of its first record
	line      int
	count     int
	order     int // order of first appearance
	main      int // records in the main transcript
	firstMain int // first line in the main transcript (0: none)
}

type summary struct{ text, leaf string }

// toolUse is what a tool_result needs of its tool_use.
type toolUse struct{ name, command string }

func newBuilder(name string) *builder {
	return &builder{
		sess:    &input.Session{Source: SourceName, File: name, Records: map[string]int{}},
		fileIdx: map[string]int{},
		ids:     map[string]*sessionID{},
		uuids:   map[string]bool{},
	}
}

func (b *builder) report(file string, line int, kind input.ProblemKind, format string, args ...any) {
	if _, ok := b.fileIdx[file]; !ok {
		b.fileIdx[file] = len(b.fileIdx)
	}
	b.probs = append(b.probs, input.Problem{File: file, Line: line, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

// fileState is what the reader tracks while reading one file.
type fileState struct {
	name   string
	sub    bool               // a subagent transcript: every record is a sidechain
	tools  map[string]toolUse // tool_use id → the call
	stamps []stamp            // records with a timestamp or events, in file order

	queue     []string    // messages typed while the agent was busy, not yet sent (queued.go)
	delivered []queuedMsg // messages a remove or an attachment delivered since the last user, assistant or system record
}

// stamp is a record's timestamp (zero: none) and the events it produced,
// b.events[from:to]; the events are timed once the file is read (placeTimes).
type stamp struct {
	t        time.Time
	line     int
	from, to int
}

// readFile reads the records of one file.
func (b *builder) readFile(name string, r io.Reader, sub bool) {
	if _, ok := b.fileIdx[name]; !ok {
		b.fileIdx[name] = len(b.fileIdx)
	}
	fst := &fileState{name: name, sub: sub, tools: map[string]toolUse{}}
	rd := jsonl.NewReader(r, MaxLine)
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.report(name, 0, input.ProblemRead, "reading stopped after line %d: %v; the records before it are kept", rd.Line(), err)
			break
		}
		if l.Oversize {
			b.report(name, l.Num, input.ProblemOversize, "line of %d bytes exceeds the %d-byte limit; skipped", l.Len, MaxLine)
			continue
		}
		if l.Blank() {
			continue
		}
		valid := l.ValidUTF8()
		if !valid {
			b.report(name, l.Num, input.ProblemInvalidUTF8, "line is not valid UTF-8; invalid bytes read as U+FFFD")
		}
		b.readLine(fst, l, valid)
		if b.until != "" {
			if _, ok := b.ids[b.until]; ok {
				break
			}
		}
	}
	rd.Close() // its buffers serve the next file's read
	b.placeTimes(fst)
}

// placeTimes times the events of a file once it is read. A record's timestamp that
// is a clock fault against the records around it in the file (package clockfault) is
// reported, and the record placed at its trusted neighbour's time, in file order. A
// record without a timestamp takes the time of the record before it (at the start of
// the file, the file's first time). The session's start and end take in every
// record's time, faults placed, but for an eventless record's a year off, which is left
// out.
func (b *builder) placeTimes(fst *fileState) {
	// The back-steps are looked for among the records that give events. A record that
	// gives none is bookkeeping Claude Code writes when it happens, not in turn order
	// (a queue operation when the next prompt is queued, ahead of a turn's stop-hook
	// summary written after it with the turn's time): neither checked against its
	// neighbours nor trusted against them. It is a fault only when it is far from the
	// file's times, and is then left out of the session's span.
	times := make([]time.Time, len(fst.stamps))
	eventless := 0
	for i, st := range fst.stamps {
		if st.to > st.from {
			times[i] = st.t
		} else {
			eventless++
		}
	}
	for _, f := range clockfault.Find(times, MaxBackstep) {
		st := fst.stamps[f.Index]
		b.report(fst.name, st.line, input.ProblemInvalid,
			"timestamp %s is %s the records around it (a clock fault); the record is placed at line %d's time, in file order",
			clockfault.Format(st.t), f.Describe(st.t), fst.stamps[f.From].line)
		times[f.Index] = f.Placed
	}
	if eventless > 0 {
		var far []int // the records a year from the file's times; none in the common case
		if fst.spread() > clockfault.MaxSpread {
			all := make([]time.Time, len(fst.stamps))
			for i, st := range fst.stamps {
				all[i] = st.t
			}
			far = clockfault.Far(all)
		}
		for i, st := range fst.stamps {
			switch {
			case st.to > st.from:
			case isFar(far, i):
				b.report(fst.name, st.line, input.ProblemInvalid,
					"timestamp %s is more than a year from the file's other times (a clock fault); the record gives no event and is left out of the session's span",
					clockfault.Format(st.t))
			default:
				times[i] = st.t
			}
		}
	}
	start := b.start // the session's first time before this file: the main transcript's, for a subagent's
	if fst.sub && !start.IsZero() {
		b.checkAgainstSession(fst, times)
	}
	var last, maxEv, first time.Time
	var untimed []int
	for i, st := range fst.stamps {
		ts := times[i]
		if ts.IsZero() {
			ts = last
		} else {
			if b.start.IsZero() || ts.Before(b.start) {
				b.start = ts
			}
			if ts.After(b.end) {
				b.end = ts
			}
			if first.IsZero() {
				first = ts
			}
			if st.to > st.from {
				if ts.Before(maxEv) {
					b.sess.Records["time/out_of_order"]++
				} else {
					maxEv = ts
				}
			}
			last = ts
		}
		for k := st.from; k < st.to; k++ {
			b.events[k].Time = ts
			if ts.IsZero() {
				untimed = append(untimed, k)
			}
		}
	}
	if first.IsZero() && fst.sub {
		first = start // a subagent transcript without a time: the session's first
	}
	for _, k := range untimed {
		b.events[k].Time = first
	}
}

// spread is how far apart the file's earliest and latest times are.
func (fst *fileState) spread() time.Duration {
	var lo, hi time.Time
	for _, st := range fst.stamps {
		if st.t.IsZero() {
			continue
		}
		if lo.IsZero() || st.t.Before(lo) {
			lo = st.t
		}
		if st.t.After(hi) {
			hi = st.t
		}
	}
	return hi.Sub(lo)
}

// isFar reports whether i is among far, sorted.
func isFar(far []int, i int) bool { _, ok := slices.BinarySearch(far, i); return ok }

// checkAgainstSession checks a subagent transcript's times against the session's
// span so far (its main transcript's, and the subagents' read before): a subagent runs
// within its session, so a time more than [clockfault.MaxSpread] outside that span is
// a clock fault the file alone cannot show (every record of it may share the fault). It
// is reported, and the record placed at the span's nearer end.
func (b *builder) checkAgainstSession(fst *fileState, times []time.Time) {
	lo, hi := b.start, b.end
	for i, t := range times {
		var f clockfault.Fault
		switch {
		case t.IsZero():
			continue
		case t.After(hi.Add(clockfault.MaxSpread)):
			f = clockfault.Fault{Ahead: true, Placed: hi}
		case t.Before(lo.Add(-clockfault.MaxSpread)):
			f = clockfault.Fault{Placed: lo}
		default:
			continue
		}
		end := "first"
		if f.Ahead {
			end = "last"
		}
		b.report(fst.name, fst.stamps[i].line, input.ProblemInvalid,
			"timestamp %s is %s its session's span so far (a clock fault); the record is placed at the span's %s time",
			clockfault.Format(t), f.Describe(t), end)
		times[i] = f.Placed
	}
}

// readLine decodes and maps one line; validUTF8 reports that its bytes are valid
// UTF-8. The fast decoder (decodeRecord) reads almost every line; a line it is not
// sure of is decoded by encoding/json, which reports what is wrong with it.
func (b *builder) readLine(fst *fileState, l jsonl.Line, validUTF8 bool) {
	if firstByte(l.Bytes) != '{' {
		b.badLine(fst, l, errors.New("not a JSON object"))
		return
	}
	rec := &b.rec
	*rec = record{}
	if !validUTF8 || !decodeRecord(l.Bytes, rec) {
		bad, err := decodeSlow(l.Bytes, rec)
		if err != nil {
			b.badLine(fst, l, err)
			return
		}
		if len(bad) > 0 {
			// Fields of an unexpected type, each lost where it is wrong: the rest of the
			// record (its uuid and timestamp too) was decoded.
			them := "it"
			if len(bad) > 1 {
				them = "them"
			}
			b.report(fst.name, l.Num, input.ProblemInvalid, "%s; the record is read without %s", jsonl.Describe(bad), them)
		}
	}
	if rec.Type == "" {
		b.report(fst.name, l.Num, input.ProblemInvalid, "record without a type; skipped")
		return
	}
	s := b.sess
	s.Records[rec.Type]++
	if s.Line == 0 && !fst.sub {
		s.Line = l.Num
	}
	b.noteSession(fst, l.Num, rec.SessionID)
	if rec.UUID != "" {
		b.uuids[rec.UUID] = true
	}
	if s.Project == "" && rec.Cwd != "" {
		s.Project = rec.Cwd
	}
	if s.Version == "" && rec.Version != "" {
		s.Version = rec.Version
	}

	// Time: the record's timestamp, placed once the file is read (placeTimes).
	ts, timed := time.Time{}, false
	if rec.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, rec.Timestamp)
		if err != nil {
			b.report(fst.name, l.Num, input.ProblemInvalid, "timestamp %q is not an RFC 3339 time; the record takes the previous record's time", rec.Timestamp)
		} else {
			ts, timed = clockfault.Recorded(t), true
		}
	}

	n := len(b.events)
	ownTime := true // the record's timestamp is when its events happened
	side := fst.sub || rec.IsSidechain
	base := analyze.Event{ID: rec.UUID, Sidechain: side}
	switch rec.Type {
	case "user", "assistant", "system":
		fst.delivered = fst.delivered[:0] // an attachment repeating a remove's message comes right after it
	}
	switch rec.Type {
	case "user":
		b.user(fst, l.Num, l.Bytes, rec, base)
	case "assistant":
		b.assistant(fst, l.Num, rec, base)
	case "system":
		b.system(rec, base)
	case "queue-operation":
		b.queueOperation(fst, l.Num, l.Bytes, base)
	case "attachment":
		if !b.attachment(fst, l.Num, l.Bytes, base) {
			s.Records["skipped/"+rec.Type]++
		} else if len(b.events) > n {
			// Stamped when the message was queued, not when the agent read it: the
			// record takes the time of the record before it.
			ts, timed, ownTime = time.Time{}, false, false
		}
	case "summary":
		if rec.Summary != "" {
			b.summaries = append(b.summaries, summary{rec.Summary, rec.LeafUUID})
		}
	case "ai-title":
		if rec.AITitle != "" {
			b.aiTitle = rec.AITitle
		}
	case "custom-title":
		if rec.CustomTitle != "" {
			b.customTitle = rec.CustomTitle
		}
	default: // progress, file-history-snapshot, permission-mode, ... and types not yet known
		s.Records["skipped/"+rec.Type]++
	}
	if len(b.events) > n && !timed && ownTime {
		s.Records["time/missing"]++
		if rec.Timestamp == "" {
			b.report(fst.name, l.Num, input.ProblemInvalid, "%s record without a timestamp; it takes the time of the record before it (at the start of a file, the file's first time; in a subagent transcript without any, the session's first)", rec.Type)
		}
	}
	if timed || len(b.events) > n {
		fst.stamps = append(fst.stamps, stamp{t: ts, line: l.Num, from: n, to: len(b.events)})
	}
}

// badLine reports a line that is not a record, or reads the records of a line that
// holds several (two writes run together).
func (b *builder) badLine(fst *fileState, l jsonl.Line, err error) {
	if recs, detail, ok := l.Split(); ok {
		b.report(fst.name, l.Num, input.ProblemMalformed, "%s", detail)
		for _, rec := range recs {
			b.readLine(fst, rec, utf8.Valid(rec.Bytes))
		}
		return
	}
	if l.Unterminated {
		b.report(fst.name, l.Num, input.ProblemTruncated, "final line is cut off (%v); skipped", err)
		return
	}
	b.report(fst.name, l.Num, input.ProblemMalformed, "not a JSON record: %v; skipped", err)
}

// noteSession counts the records of each sessionId; finish chooses the key.
func (b *builder) noteSession(fst *fileState, line int, id string) {
	if id == "" {
		return
	}
	f := b.ids[id]
	if f == nil {
		f = &sessionID{file: fst.name, line: line, order: len(b.ids)}
		b.ids[id] = f
	}
	f.count++
	if !fst.sub {
		if f.firstMain == 0 {
			f.firstMain = line
		}
		f.main++
		b.lastID = id
	}
}

// sessionKey chooses the session's key: the file stem when the stem is a sessionId of
// the file (Claude Code names a transcript after its session), else the sessionId of
// the main transcript's last records (a resumed session's file begins with records of
// the session it continues), else the stem (a summary-only file).
func (b *builder) sessionKey(stem string) string {
	if _, ok := b.ids[stem]; ok {
		return stem
	}
	if b.lastID != "" {
		return b.lastID
	}
	return stem
}

func (b *builder) emit(ev analyze.Event) {
	b.events = append(b.events, ev)
}

// user maps a user record: tool results, interrupts, human text and system-written
// text.
func (b *builder) user(fst *fileState, line int, raw []byte, rec *record, base analyze.Event) {
	s := b.sess
	if rec.Message == nil || !rec.Message.Content.present {
		s.Records["user/no_content"]++
		b.report(fst.name, line, input.ProblemInvalid, "user record without message content; skipped")
		return
	}
	c := &rec.Message.Content
	if c.odd != "" {
		b.report(fst.name, line, input.ProblemInvalid, "user message content is a JSON %s, not a string or a list of blocks; skipped", c.odd)
		return
	}
	var human []string
	var sys TextClass
	text := func(t string) {
		class := Classify(t, rec.IsMeta, rec.IsCompactSummary)
		s.Records["user/"+string(class)]++
		switch class {
		case ClassHuman:
			human = append(human, HumanText(t))
		case ClassInterrupt:
			ev := base
			ev.Kind, ev.UserContent = analyze.KindInterrupt, strings.TrimSpace(t)
			b.emit(ev)
		case ClassEmpty:
		default:
			if sys == "" {
				sys = class
			}
		}
	}
	if c.isText {
		text(c.text)
	}
	toolResults := 0
	for i := range c.blocks {
		if c.blocks[i].Type == "tool_result" {
			toolResults++
		}
	}
	for i := range c.blocks {
		bl := &c.blocks[i]
		switch bl.Type {
		case "text":
			text(bl.Text)
		case "tool_result":
			b.toolResult(fst, raw, rec, bl, toolResults == 1, base)
		default:
			if bl.Type == "" {
				s.Records["user/untyped_block"]++
			} else {
				s.Records["user/"+bl.Type]++
			}
		}
	}
	if sys != "" {
		ev := base
		ev.Kind, ev.Subtype = analyze.KindSystem, string(sys)
		b.emit(ev)
	}
	if len(human) > 0 {
		ev := base
		ev.Kind, ev.UserContent = analyze.KindUserMessage, strings.Join(human, "\n")
		b.emit(ev)
	}
}

// toolResult maps one tool_result block of the record on line. only reports that it
// is the record's only tool result, so that the record's toolUseResult describes it.
func (b *builder) toolResult(fst *fileState, line []byte, rec *record, bl *block, only bool, base analyze.Event) {
	s := b.sess
	s.Records["user/tool_result"]++
	ev := base
	ev.Kind = analyze.KindToolResult
	call, ok := fst.tools[bl.ToolUseID]
	if !ok {
		s.Records["user/tool_result_unmatched"]++
	}
	ev.ToolName, ev.ToolCommand = call.name, call.command
	ev.ToolOutput = bl.Content.text
	if bl.Content.images > 0 {
		s.Records["user/tool_result_image"] += bl.Content.images
	}
	tur := rec.ToolUseResult
	switch {
	case bl.IsError != nil && *bl.IsError:
		ev.ToolStatus = analyze.ToolStatusError
	case bl.IsError != nil:
		ev.ToolStatus = analyze.ToolStatusOK
	case only && tur.Interrupted:
		ev.ToolStatus = analyze.ToolStatusError
	}
	if only && tur.HasOutput && strings.TrimSpace(ev.ToolOutput) == "" {
		ev.ToolOutput = bashOutput(line) // rare: the output is usually in the content too
	}
	if ev.ToolStatus == analyze.ToolStatusError {
		ev.ExitCode, ev.HasExitCode = analyze.ExitCodeOf(ev.ToolOutput)
	}
	b.emit(ev)
}

// assistant maps an assistant record: its text blocks make one assistant message;
// thinking and tool_use blocks are counted, tool_use ids remembered.
func (b *builder) assistant(fst *fileState, line int, rec *record, base analyze.Event) {
	s := b.sess
	if rec.Message == nil || !rec.Message.Content.present {
		s.Records["assistant/no_content"]++
		return
	}
	c := &rec.Message.Content
	if c.odd != "" {
		b.report(fst.name, line, input.ProblemInvalid, "assistant message content is a JSON %s, not a string or a list of blocks; skipped", c.odd)
		return
	}
	var texts []string
	if c.isText && strings.TrimSpace(c.text) != "" {
		texts = append(texts, c.text)
		s.Records["assistant/text"]++
	}
	for i := range c.blocks {
		bl := &c.blocks[i]
		switch bl.Type {
		case "text":
			if strings.TrimSpace(bl.Text) == "" {
				s.Records["assistant/empty_text"]++
				continue
			}
			texts = append(texts, bl.Text)
			s.Records["assistant/text"]++
		case "tool_use", "server_tool_use":
			fst.tools[bl.ID] = toolUse{name: bl.Name, command: bl.Input.command}
			s.Records["assistant/"+bl.Type]++
		case "":
			s.Records["assistant/untyped_block"]++
		default: // thinking, redacted_thinking, …
			s.Records["assistant/"+bl.Type]++
		}
	}
	if len(texts) == 0 {
		return
	}
	ev := base
	if rec.IsAPIError {
		ev.Kind, ev.Subtype = analyze.KindSystem, "api_error"
		s.Records["assistant/api_error"]++
	} else {
		ev.Kind, ev.AssistantText = analyze.KindAssistantMessage, strings.Join(texts, "\n\n")
	}
	b.emit(ev)
}

// system maps a system record: Stop hook summaries are hooks, the rest system events.
func (b *builder) system(rec *record, base analyze.Event) {
	sub := rec.Subtype
	if sub == "" {
		sub = "system"
	}
	b.sess.Records["system/"+sub]++
	ev := base
	if sub == "stop_hook_summary" {
		ev.Kind, ev.HookName = analyze.KindHook, "Stop"
		if base.Sidechain {
			ev.HookName = "SubagentStop"
		}
	} else {
		ev.Kind, ev.Subtype = analyze.KindSystem, sub
	}
	b.emit(ev)
}

// finish keys, titles and orders the session.
func (b *builder) finish() (*input.Session, []input.Problem) {
	s := b.sess
	main := s.File
	if len(s.Records) == 0 {
		b.report(main, 0, input.ProblemUnusable, "no Claude Code record in the transcript; skipped")
		return nil, b.sortedProblems()
	}
	s.Key = b.sessionKey(strings.TrimSuffix(path.Base(main), ".jsonl"))
	ids := make([]string, 0, len(b.ids))
	for id := range b.ids {
		if id != s.Key {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(x, y string) int { return b.ids[x].order - b.ids[y].order })
	own := b.ids[s.Key]
	for _, id := range ids {
		f := b.ids[id]
		if own != nil && f.main == f.count && f.firstMain < own.firstMain {
			// The main transcript opens with records of another session: the session
			// this one resumed (its hooks may go on reporting the earlier id). Kept, and
			// noted.
			s.Records[ContinuedRecords] += f.count
			s.ContinuedFrom = append(s.ContinuedFrom, id)
			continue
		}
		b.report(f.file, f.line, input.ProblemInvalid,
			"%d record(s) from here on carry session id %s, not the session's %s; kept in this session", f.count, id, s.Key)
	}

	switch {
	case b.customTitle != "":
		s.Title = b.customTitle
	case b.aiTitle != "":
		s.Title = b.aiTitle
	case len(b.summaries) > 0:
		s.Title = b.summaries[len(b.summaries)-1].text
		for _, sm := range b.summaries {
			if b.uuids[sm.leaf] {
				s.Title = sm.text
			}
		}
	}

	if b.dropped > 0 {
		b.events = slices.DeleteFunc(b.events, func(e analyze.Event) bool { return e.Kind == "" })
	}
	// Ties keep reading order: main transcript before subagents, lines in order.
	slices.SortStableFunc(b.events, func(x, y analyze.Event) int { return x.Time.Compare(y.Time) })
	for i := range b.events {
		b.events[i].SessionID = s.Key
	}
	s.Events = b.events
	s.Start, s.End = b.start, b.end
	if n := len(s.Events); n > 0 {
		if s.Start.IsZero() || s.Events[0].Time.Before(s.Start) {
			s.Start = s.Events[0].Time
		}
		if s.Events[n-1].Time.After(s.End) {
			s.End = s.Events[n-1].Time
		}
	}
	return s, b.sortedProblems()
}

// sortedProblems orders problems by file (main transcript first) and line.
func (b *builder) sortedProblems() []input.Problem {
	slices.SortStableFunc(b.probs, func(x, y input.Problem) int {
		if c := b.fileIdx[x.File] - b.fileIdx[y.File]; c != 0 {
			return c
		}
		return x.Line - y.Line
	})
	return b.probs
}

func joinNonEmpty(parts ...string) string {
	var buf bytes.Buffer
	for _, p := range parts {
		if p == "" {
			continue
		}
		if buf.Len() > 0 {
			buf.WriteByte('\n')
		}
		buf.WriteString(p)
	}
	return buf.String()
}

// MayProveKey reports whether a transcript at path name can prove its session's key
// from its opening bytes ([KeyFromHead]): a main transcript, named <session>.jsonl,
// not a subagent's.
func MayProveKey(name string) bool {
	return !IsSubagentFile(name) && strings.HasSuffix(name, ".jsonl")
}

// KeyFromHead returns the key of the session whose main transcript is name when
// head, the transcript's opening bytes, proves it: a record on one of its complete
// lines, read as [Read] reads it, carries the file's stem as its session id. The key
// of a session is its file's stem whenever the stem is one of its session ids, so
// reading the rest of the file cannot change it. ok is false when the head proves
// nothing (a resumed session's first records carry the earlier session's id, a
// summary-only file, a first line longer than the head): only reading the session
// tells its key then. A split replay uses it to leave the sessions of other shards
// unread.
func KeyFromHead(name string, head []byte) (key string, ok bool) {
	if !MayProveKey(name) {
		return "", false
	}
	i := bytes.LastIndexByte(head, '\n')
	if i < 0 {
		return "", false
	}
	stem := strings.TrimSuffix(path.Base(name), ".jsonl")
	b := newBuilder(name)
	b.until = stem // the session ids only grow: the first record that carries it proves it
	b.readFile(name, bytes.NewReader(head[:i+1]), false)
	if _, ok := b.ids[stem]; !ok {
		return "", false
	}
	return stem, true
}
