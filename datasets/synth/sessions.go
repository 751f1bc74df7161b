package synth

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"iter"
	"math/rand/v2"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SessionScenario is the kind of Claude Code session the generator plays out.
type SessionScenario string

// The session scenarios. Each is one scripted coding task with a known outcome and
// known moments of friction (see [SessionLabel]).
const (
	// SmoothSuccess: a request, a few tool calls, passing tests, "thanks, that's
	// exactly it". Outcome success, no friction.
	SmoothSuccess SessionScenario = "smooth_success"
	// CorrectionStorm: the human corrects the agent three times within five minutes.
	// Outcome partial; each correction is friction.
	CorrectionStorm SessionScenario = "correction_storm"
	// FailingToolLoop: go build and go test keep failing, the human complains that it
	// still doesn't work and gives up. Outcome failure.
	FailingToolLoop SessionScenario = "failing_tool_loop"
	// InterruptRedirect: the human declines a tool call, interrupts and redirects the
	// agent, which then finishes. Outcome success; the interrupt is friction.
	InterruptRedirect SessionScenario = "interrupt_redirect"
	// Abandoned: the agent is corrected, keeps failing, and the transcript stops at an
	// interrupt with nothing after it. Outcome abandoned.
	Abandoned SessionScenario = "abandoned"
	// WithSubagent: the agent delegates a search to a subagent (a Task call with a
	// subagents/agent-synth-<id>.jsonl transcript), then finishes. Outcome success.
	WithSubagent SessionScenario = "subagent"
)

// SessionScenarios lists every session scenario in a fixed order.
var SessionScenarios = []SessionScenario{SmoothSuccess, CorrectionStorm, FailingToolLoop, InterruptRedirect, Abandoned, WithSubagent}

// Outcome returns the outcome sessions of the scenario end with, in the terms of the
// session labels: success, partial, failure or abandoned.
func (s SessionScenario) Outcome() string { return sessionScripts[s].outcome }

// SessionConfig says which Claude Code sessions to generate.
type SessionConfig struct {
	Seed uint64
	// Plan lists the scenario of each session, in order. When empty, Sessions sessions
	// are drawn from SessionScenarios with equal probability.
	Plan     []SessionScenario
	Sessions int
	// Start is the time the first session starts; sessions start 75 minutes apart,
	// give or take a few.
	Start time.Time
}

// SessionLabel is the ground truth of one session: one row of a session-labels file
// in the format of the Claude Code corpus's labels.csv, which eval.ReadLabels reads.
type SessionLabel struct {
	SessionID  string
	File       string // the session's main file, slash-separated, relative to the inputs folder
	Outcome    string // success, partial, failure or abandoned
	Confidence string // always "high": the scenario is the truth
	HumanMsgs  int    // messages the human typed (not commands, meta records, interrupts)
	// Friction lists the record ids (Claude Code uuids, vibes event ids) of the human
	// messages that show friction and of the interrupts followed by a redirect, in
	// time order.
	Friction []string
	Notes    string
}

// Session is one generated Claude Code session.
type Session struct {
	Scenario SessionScenario
	Label    SessionLabel
	// Files holds the main transcript and its subagent transcripts, keyed by
	// slash-separated path relative to the inputs folder:
	// sessions/<project-dir>/<session-id>.jsonl and
	// sessions/<project-dir>/<session-id>/subagents/agent-synth-<id>.jsonl.
	Files map[string][]byte
}

// sessionStream separates the random streams of sessions from those of runs.
const sessionStream = 0x636c61756465 // "claude"

// GenerateSessions plays out the sessions of cfg. Each session draws from its own
// random stream (the seed and its index), so a session does not change when another
// scenario is added to the plan after it.
func GenerateSessions(cfg SessionConfig) []Session {
	var out []Session
	for s := range Sessions(cfg) {
		out = append(out, s)
	}
	return out
}

// Sessions plays out the sessions of cfg one at a time, in order: the sessions of
// [GenerateSessions], without holding them all.
func Sessions(cfg SessionConfig) iter.Seq[Session] {
	return func(yield func(Session) bool) {
		plan := cfg.Plan
		if len(plan) == 0 {
			rng := rand.New(rand.NewPCG(cfg.Seed, sessionStream))
			plan = make([]SessionScenario, cfg.Sessions)
			for i := range plan {
				plan[i] = SessionScenarios[rng.IntN(len(SessionScenarios))]
			}
		}
		start := cfg.Start
		if start.IsZero() {
			start = time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
		}
		for i, sc := range plan {
			if !yield(playSession(cfg.Seed, i, sc, start)) {
				return
			}
		}
	}
}

// playSession plays out session i of a plan, of scenario sc.
func playSession(seed uint64, i int, sc SessionScenario, start time.Time) Session {
	script, ok := sessionScripts[sc]
	if !ok {
		panic(fmt.Sprintf("synth: unknown session scenario %q", sc))
	}
	rng := rand.New(rand.NewPCG(seed, sessionStream+1+uint64(i)))
	c := &clock{rng: rng, t: start.Add(time.Duration(i)*75*time.Minute + time.Duration(rng.IntN(600_000))*time.Millisecond)}
	id := uuid4(rng)
	version := fmt.Sprintf("2.1.%d", 38+rng.IntN(6))
	w := newCCWriter(c, id, script.project.cwd, version, script.branch, "claude-opus-4-6")
	w.start("$HOME/.claude/hooks/session-start.sh")
	script.play(w)

	dir := "sessions/" + script.project.dir()
	main := dir + "/" + id + ".jsonl"
	files := map[string][]byte{main: w.bytes()}
	for _, s := range w.subs {
		files[dir+"/"+id+"/subagents/agent-synth-"+s.agentID+".jsonl"] = s.bytes()
	}
	return Session{Scenario: sc, Files: files, Label: SessionLabel{
		SessionID: id, File: main, Outcome: script.outcome, Confidence: "high", HumanMsgs: c.humans,
		Friction: slices.Clone(c.friction), Notes: "Synthetic " + string(sc) + ": " + script.notes}}
}

// SessionLabels renders session labels as CSV in the Claude Code corpus's labels.csv
// format (session_id, file, outcome, confidence, human_msgs, friction_uuids, notes),
// sorted by file, then session id.
func SessionLabels(labels []SessionLabel) []byte {
	sorted := slices.Clone(labels)
	slices.SortFunc(sorted, func(a, b SessionLabel) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return strings.Compare(a.SessionID, b.SessionID)
	})
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(sessionLabelHeader)
	for _, l := range sorted {
		w.Write(sessionLabelRow(l))
	}
	w.Flush()
	return buf.Bytes()
}

var sessionLabelHeader = []string{"session_id", "file", "outcome", "confidence", "human_msgs", "friction_uuids", "notes"}

func sessionLabelRow(l SessionLabel) []string {
	return []string{l.SessionID, l.File, l.Outcome, l.Confidence, strconv.Itoa(l.HumanMsgs), strings.Join(l.Friction, ";"), l.Notes}
}

// The layout of a generated dataset (and of the built-in sample), relative to its
// folder: inputs/ is what replay reads, labels/ the ground truth.
const (
	InputsDir         = "inputs"
	RunLabelsFile     = "labels/runs.csv"
	SessionLabelsFile = "labels/sessions.csv"
)

// Layout returns the files of a dataset made of runs, Claude Code sessions and vibes
// logs, keyed by slash-separated path relative to the dataset's folder:
// inputs/runs/*.jsonl, inputs/sessions/<project-dir>/<session-id>.jsonl (with
// subagents/), inputs/vibes/*.jsonl, and the labels RunLabelsFile (when there are
// runs) and SessionLabelsFile (when there are sessions or logs). The labels' file
// column is relative to inputs/.
func Layout(runs []Run, sessions []Session, logs []VibesLog) map[string][]byte {
	out := map[string][]byte{}
	if len(runs) > 0 {
		for name, b := range Files(runs) {
			out[path.Join(InputsDir, "runs", name)] = b
		}
		out[RunLabelsFile] = Labels(runs)
	}
	var labels []SessionLabel
	for _, s := range sessions {
		for name, b := range s.Files {
			out[path.Join(InputsDir, name)] = b
		}
		labels = append(labels, s.Label)
	}
	for _, l := range logs {
		out[path.Join(InputsDir, l.File)] = l.Data
		labels = append(labels, l.Labels...)
	}
	if len(labels) > 0 {
		out[SessionLabelsFile] = SessionLabels(labels)
	}
	return out
}

// SampleSessionPlan is the session scenario list of the built-in sample: every
// session scenario once.
var SampleSessionPlan = slices.Clone(SessionScenarios)

// SampleSessionConfig is the configuration that generates the built-in sample's
// Claude Code sessions.
func SampleSessionConfig() SessionConfig {
	return SessionConfig{Seed: 20260303, Plan: SampleSessionPlan}
}

// SampleFiles returns every file of loopwatch's built-in sample: the runs of
// SampleConfig, the sessions of SampleSessionConfig and the vibes log of
// SampleVibesConfig, laid out by [Layout].
func SampleFiles() map[string][]byte {
	return Layout(Generate(SampleConfig()), GenerateSessions(SampleSessionConfig()),
		[]VibesLog{GenerateVibesLog(SampleVibesConfig())})
}
