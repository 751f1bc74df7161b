package frictioncv

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
	"github.com/loopwatch/loopwatch/analyze/assess/duration"
	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/input"
)

// folds is the number of cross-validation folds; a session's fold is a stable hash
// of its key.
const folds = 5

// window is the scoring window: an intervention at most this long after a moment.
const window = 5 * time.Minute

// labelled is one labelled session: its events and its friction moments.
type labelled struct {
	session *input.Session
	key     string
	source  string // the corpus folder the session comes from (cctrace, entire-cli, …)
	fold    int
	events  []analyze.Event
	moments []eval.Point
	humans  int // non-sidechain user messages
}

// loadFS replays the sessions of fsys and keeps those the labels name.
func loadFS(t *testing.T, fsys fs.FS, labelFile io.Reader) []labelled {
	t.Helper()
	labels, _, err := eval.ReadLabels(labelFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []labelled
	_, err = replay.Replay(context.Background(), fsys, replay.Options{}, replay.Sinks{Sessions: func(sr *replay.SessionResult) error {
		rec, ok := labels.Get(sr.Session.Key)
		if !ok {
			return nil
		}
		h := fnv.New32a()
		h.Write([]byte(sr.Session.Key))
		source, _, _ := strings.Cut(sr.Session.File, "/")
		l := labelled{session: sr.Session, key: sr.Session.Key, source: source, fold: int(h.Sum32() % folds),
			events: sr.Session.Events, humans: sr.HumanMessages}
		for _, m := range rec.Moments {
			if i := m.Find(sr.Session.Events); i >= 0 {
				l.moments = append(l.moments, eval.Point{Time: sr.Session.Events[i].Time, Index: i})
			}
		}
		out = append(out, l)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b labelled) int { return strings.Compare(a.key, b.key) })
	return out
}

// corpusLabels returns the shared Claude Code corpus's folder and its labels file,
// open; it skips the test when they are not there.
func corpusLabels(t *testing.T) (string, *os.File) {
	t.Helper()
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { f.Close() })
	return dir, f
}

// load replays the shared Claude Code corpus with its labels.
func load(t *testing.T) []labelled {
	t.Helper()
	dir, f := corpusLabels(t)
	return loadFS(t, os.DirFS(dir), f)
}

// loadSynth generates a synthetic dataset (datasets/synth, as the regression
// registry's synth dataset does, smaller) and replays its sessions: friction phrased
// by the generator's scripts, which nothing in the detector was written from.
func loadSynth(t *testing.T) []labelled {
	t.Helper()
	files := synth.DatasetFiles(synth.DatasetConfig{Sessions: 120, VibesLogs: 4, Seed: 7})
	fsys := fstest.MapFS{}
	for name, b := range files {
		fsys[name] = &fstest.MapFile{Data: b}
	}
	inputs, err := fs.Sub(fsys, synth.InputsDir)
	if err != nil {
		t.Fatal(err)
	}
	return loadFS(t, inputs, bytes.NewReader(files[synth.SessionLabelsFile]))
}

// step is one event's detection, computed once per detector configuration.
type step struct {
	at      time.Time
	human   bool // the EMA moves (a human turn, or every event with EMAConfig.EveryEvent)
	open    bool // the processor opens a fresh session state here
	skipped bool // the processor skips the event (a hook or system record of a closed session)
	signals []detect.Signal
}

// detectAll runs cfg's detector over a session exactly as the processor does,
// including the fresh state after an inactivity timeout or an end hook.
func detectAll(l *labelled, cfg assess.Config, rules *detect.Rules) []step {
	var d *detect.LightweightDetector
	var last time.Time
	open := false
	steps := make([]step, len(l.events))
	for i := range l.events {
		ev := l.events[i]
		ev.SessionID = l.key
		s := &steps[i]
		s.at = ev.Time
		if open && ev.Time.Sub(last) > cfg.InactivityTimeout.Std() {
			open = false
		}
		if !open {
			if ev.Kind == analyze.KindHook || ev.Kind == analyze.KindSystem {
				s.skipped = true
				continue
			}
			resumed := d != nil
			d, open, s.open = detect.NewLightweightDetector(rules), true, true
			if resumed {
				d.Resume()
			}
		}
		last = ev.Time
		s.signals = d.Detect(ev)
		s.human = cfg.Detect.EMA.EveryEvent || detect.IsHumanTurn(&ev)
		if ev.Kind == analyze.KindHook && slices.Contains(cfg.EndHooks, ev.HookName) {
			open = false
		}
	}
	return steps
}

// interventions runs the EMA and the breaker over detected steps, as the processor
// does, and returns the interventions.
func interventions(steps []step, ema detect.EMAConfig, bc breaker.Config) []eval.Point {
	var ivs []eval.Point
	var br *breaker.CircuitBreaker
	var fr detect.EmaTracker
	for i := range steps {
		s := &steps[i]
		if s.skipped {
			continue
		}
		if s.open {
			br, fr = breaker.New(bc), detect.NewEmaTracker(ema.Alpha)
		}
		if s.human {
			fr.Update(ema.FrustrationValue(s.signals))
		}
		br.Update(s.at, s.signals, fr.Value())
		if _, ok := br.ShouldIntervene(s.at); ok {
			br.RecordIntervention(s.at)
			ivs = append(ivs, eval.Point{Time: s.at, Index: i})
		}
	}
	return ivs
}

// tally sums eval.ScoreSession's event-level scores: a moment is caught when an
// intervention follows it within the window; an intervention is a true positive when
// it is the first to catch at least one moment not caught yet; every other
// intervention is a false alarm. Precision is caught moments over caught moments and
// false alarms, as eval.AlarmCounts has it.
type tally struct {
	moments, caught, interventions, tp, humans int
	delays                                     []float64
}

func score(l *labelled, ivs []eval.Point) tally {
	sc := eval.ScoreSession(eval.MomentSession{Key: l.key, Moments: l.moments, Interventions: ivs, HumanTurns: l.humans}, window)
	return tally{moments: len(l.moments), caught: sc.Caught, interventions: len(ivs), tp: sc.TruePositives, humans: l.humans,
		delays: sc.DelaySeconds}
}

func (t *tally) add(o tally) {
	t.moments += o.moments
	t.caught += o.caught
	t.interventions += o.interventions
	t.tp += o.tp
	t.humans += o.humans
	t.delays = append(t.delays, o.delays...)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func (t tally) recall() float64    { return ratio(t.caught, t.moments) }
func (t tally) precision() float64 { return ratio(t.caught, t.caught+t.interventions-t.tp) }

// falseAlarms is false alarms per 100 human turns.
func (t tally) falseAlarms() float64 { return 100 * ratio(t.interventions-t.tp, t.humans) }

func (t tally) f1() float64 {
	p, r := t.precision(), t.recall()
	if !(p+r > 0) {
		return 0
	}
	return 2 * p * r / (p + r)
}

// target is issue 10's: recall ≥ 0.6 at precision ≥ 0.5 and ≤ 10 false alarms per
// 100 human turns.
func (t tally) target() bool {
	return t.interventions > 0 && t.recall() >= 0.6 && t.precision() >= 0.5 && t.falseAlarms() <= 10
}

func (t tally) String() string {
	d := slices.Clone(t.delays)
	sort.Float64s(d)
	s := fmt.Sprintf("recall %.3f (%d/%d), precision %.3f (%d/%d), %.1f false alarms per 100 human turns (%d)",
		t.recall(), t.caught, t.moments, t.precision(), t.caught, t.caught+t.interventions-t.tp, t.falseAlarms(), t.humans)
	if len(d) > 0 {
		s += fmt.Sprintf(", median delay %.0f s", d[len(d)/2])
	}
	return s
}

// better orders settings for selection on training sessions — the objective "best
// recall at precision ≥ 0.5 and ≤ 10 false alarms per 100 human turns": meeting
// the target first, then recall, precision, fewer false alarms; below the target,
// F1.
func better(a, b tally) bool {
	if a.target() != b.target() {
		return a.target()
	}
	if !a.target() {
		return a.f1() > b.f1()
	}
	if a.recall() != b.recall() {
		return a.recall() > b.recall()
	}
	if a.precision() != b.precision() {
		return a.precision() > b.precision()
	}
	return a.falseAlarms() < b.falseAlarms()
}

// setting is one choice of the human-text side's switches and thresholds.
type setting struct {
	detector int // index of the detector variant
	ema      detect.EMAConfig
	breaker  breaker.Config
	name     string
}

// humanSide returns cfg with the failure path off, so only the human-text side
// intervenes.
func humanSide(cfg assess.Config) assess.Config {
	cfg.Breaker.FailureThreshold = math.MaxInt32
	return cfg
}

// grid is the sweep the training sessions choose from: the human-text side's
// detector switches, then its EMA weights and the breaker's thresholds and cooldown
// around the defaults. The tool side and the failure path stay at their defaults.
func grid() ([]assess.Config, []setting) {
	var dets []assess.Config
	var names []string
	// choose keeps the first of equals (and says how many tied). skip_first_message
	// lists the seed's value first, not the default's: the default was chosen on
	// these sessions, and on the fold that holds out the only source it changes,
	// a tie kept by the default would be a choice made on the held-out sessions.
	for _, skipFirst := range []bool{false, true} {
		for _, selfInt := range []bool{true, false} {
			for _, repeat := range []float64{0.8, 0.7} {
				c := assess.DefaultConfig()
				c.Detect.Friction.SkipFirstMessage, c.Detect.Friction.IgnoreSelfInterrupts = skipFirst, selfInt
				c.Detect.Friction.Repeat.Threshold = repeat
				dets = append(dets, c)
				names = append(names, fmt.Sprintf("skip_first_message=%v ignore_self_interrupts=%v repeat.threshold=%.1f", skipFirst, selfInt, repeat))
			}
		}
	}
	var out []setting
	for d := range dets {
		for _, alpha := range []float64{1, 0.7, 0.5} {
			for _, thr := range []float64{0.2, 0.3, 0.45, 0.6} {
				for _, storm := range []int{2, 3} {
					for _, iw := range []float64{0, 0.5, 1} {
						for _, weak := range []float64{0.5, 1} {
							for _, rx := range []float64{0, 0.5} {
								for _, cd := range []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute} {
									e := dets[d].Detect.EMA
									e.Alpha, e.InterruptWeight, e.DoubtWeight, e.ExasperationWeight = alpha, iw, weak, weak
									e.FrustrationWeight, e.CorrectionWeight = rx, rx
									b := dets[d].Breaker
									b.FrustrationThreshold, b.CorrectionStorm, b.Cooldown = thr, storm, duration.Duration(cd)
									out = append(out, setting{detector: d, ema: e, breaker: b, name: fmt.Sprintf(
										"%s alpha=%.1f frustration_threshold=%.2f correction_storm=%d cooldown=%v interrupt_weight=%.1f doubt/exasperation_weight=%.1f pattern_weights=%.1f",
										names[d], alpha, thr, storm, cd, iw, weak, rx)})
								}
							}
						}
					}
				}
			}
		}
	}
	return dets, out
}

// sweep holds every setting's tally on every session, so that choosing on any
// subset of the sessions is a sum.
type sweep struct {
	sessions []labelled
	settings []setting
	tallies  [][]tally // [setting][session], without delays
	steps    [][][]step
}

func newSweep(sessions []labelled) *sweep {
	dets, settings := grid()
	sw := &sweep{sessions: sessions, settings: settings, steps: make([][][]step, len(dets))}
	for d, cfg := range dets {
		rules := detect.MustCompile(cfg.Detect)
		sw.steps[d] = make([][]step, len(sessions))
		for i := range sessions {
			sw.steps[d][i] = detectAll(&sessions[i], cfg, rules)
		}
	}
	sw.tallies = make([][]tally, len(settings))
	for s := range settings {
		st := &settings[s]
		sw.tallies[s] = make([]tally, len(sessions))
		for i := range sessions {
			tl := score(&sessions[i], interventions(sw.steps[st.detector][i], st.ema, st.breaker))
			tl.delays = nil
			sw.tallies[s][i] = tl
		}
	}
	return sw
}

// choose returns the best of the settings allow admits on the sessions keep
// selects (the first of equals, in grid order), its tally there, and how many other
// settings tie with it.
func (sw *sweep) choose(allow func(*setting) bool, keep func(*labelled) bool) (int, tally, int) {
	best, bt, ties := -1, tally{}, 0
	for s := range sw.settings {
		if !allow(&sw.settings[s]) {
			continue
		}
		var t tally
		for i := range sw.sessions {
			if keep(&sw.sessions[i]) {
				t.add(sw.tallies[s][i])
			}
		}
		switch {
		case best < 0 || better(t, bt):
			best, bt, ties = s, t, 0
		case !better(bt, t):
			ties++
		}
	}
	return best, bt, ties
}

// score returns setting s's tally, delays included, on the sessions keep selects.
func (sw *sweep) score(s int, keep func(*labelled) bool) tally {
	st := &sw.settings[s]
	var t tally
	for i := range sw.sessions {
		if keep(&sw.sessions[i]) {
			t.add(score(&sw.sessions[i], interventions(sw.steps[st.detector][i], st.ema, st.breaker)))
		}
	}
	return t
}

// evalConfig scores a whole configuration on sessions.
func evalConfig(sessions []labelled, cfg assess.Config, keep func(*labelled) bool) tally {
	rules := detect.MustCompile(cfg.Detect)
	var all tally
	for i := range sessions {
		if keep == nil || keep(&sessions[i]) {
			all.add(score(&sessions[i], interventions(detectAll(&sessions[i], cfg, rules), cfg.Detect.EMA, cfg.Breaker)))
		}
	}
	return all
}

// sources returns the sessions' source folders, sorted.
func sources(sessions []labelled) []string {
	var out []string
	for i := range sessions {
		if !slices.Contains(out, sessions[i].source) {
			out = append(out, sessions[i].source)
		}
	}
	slices.Sort(out)
	return out
}

// heldOut is a cross-validation's result: each held-out part's choice and figures,
// and the pooled held-out figures.
type heldOut struct {
	parts  []string
	pooled tally
}

// crossValidate chooses among the settings allow admits on all but one part of the
// sessions and scores the choice on that part, for each part: the 5 folds (byFold)
// or the source folders.
func crossValidate(sw *sweep, allow func(*setting) bool, byFold bool) heldOut {
	var parts []func(*labelled) bool
	var names []string
	if byFold {
		for f := range folds {
			parts = append(parts, func(l *labelled) bool { return l.fold == f })
			names = append(names, fmt.Sprintf("fold %d", f))
		}
	} else {
		for _, src := range sources(sw.sessions) {
			parts = append(parts, func(l *labelled) bool { return l.source == src })
			names = append(names, "source "+src)
		}
	}
	var out heldOut
	for p, in := range parts {
		s, train, ties := sw.choose(allow, func(l *labelled) bool { return !in(l) })
		held := sw.score(s, in)
		out.pooled.add(held)
		out.parts = append(out.parts, fmt.Sprintf("held-out %s: chose %s (%d other settings tie with it on the training sessions)\n  training: %v\n  held out: %v",
			names[p], sw.settings[s].name, ties, train, held))
	}
	return out
}

// TestFrictionCrossValidated chooses the human-text side's switches, weights and
// thresholds on part of the labelled sessions and scores the whole assessment with
// that choice (tool side and failure path at their defaults) on the rest, two ways:
// 5-fold by session (a stable hash of its id), and leave one source out (choose on
// four of the corpus's folders — cctrace, dotfiles, entire-cli, sniffly, spotter —
// and score on the fifth: other users, projects and months, the nearest proxy the
// corpus has for sessions it does not hold). The interrupt weight stays at the
// default's 0 (see detect.EMAConfig.InterruptWeight: the message after an interrupt
// carries its friction); the figures with it free are logged beside. It checks the
// pooled held-out figures of both against issue 10's target, and logs the defaults'
// and the seed preset's figures on all sessions, per source, and on a synthetic
// dataset whose friction is phrased by datasets/synth's scripts. It takes a minute
// (much longer under -race), so it runs only when asked:
//
//	LOOPWATCH_CV=1 go test -run TestFrictionCrossValidated -v ./internal/frictioncv
func TestFrictionCrossValidated(t *testing.T) {
	if os.Getenv("LOOPWATCH_CV") == "" {
		t.Skip("set LOOPWATCH_CV=1 to cross-validate on the Claude Code corpus")
	}
	sessions := load(t)
	sw := newSweep(sessions)
	def := assess.DefaultConfig().Detect.EMA.InterruptWeight
	designed := func(s *setting) bool { return s.ema.InterruptWeight == def }
	free := func(*setting) bool { return true }
	for _, cv := range []struct {
		name   string
		allow  func(*setting) bool
		byFold bool
		check  bool
	}{
		{"5-fold", designed, true, true},
		{"leave-one-source-out", designed, false, true},
		{"5-fold, interrupt weight free", free, true, false},
		{"leave-one-source-out, interrupt weight free", free, false, false},
	} {
		res := crossValidate(sw, cv.allow, cv.byFold)
		for _, p := range res.parts {
			t.Logf("%s: %s", cv.name, p)
		}
		t.Logf("%s pooled held-out: %v", cv.name, res.pooled)
		if cv.check && !res.pooled.target() {
			t.Errorf("%s held-out figures miss the target (recall ≥ 0.6, precision ≥ 0.5, ≤ 10 false alarms per 100 human turns): %v",
				cv.name, res.pooled)
		}
	}

	// The presets on all sessions and per source (in-sample for the defaults, which
	// were chosen on them; the seed's were not chosen at all), and on the synthetic
	// dataset.
	syn := loadSynth(t)
	for _, p := range []struct {
		name string
		cfg  assess.Config
	}{
		{"defaults", assess.DefaultConfig()},
		{"defaults, human-text side alone", humanSide(assess.DefaultConfig())},
		{"seed", assess.SeedConfig()},
	} {
		t.Logf("%s, all sessions: %v", p.name, evalConfig(sessions, p.cfg, nil))
		for _, src := range sources(sessions) {
			t.Logf("  %s: %v", src, evalConfig(sessions, p.cfg, func(l *labelled) bool { return l.source == src }))
		}
		t.Logf("  synthetic (datasets/synth, %d sessions): %v", len(syn), evalConfig(syn, p.cfg, nil))
	}
}

// TestSimulationMatchesTheProcessor checks that the test's fast path (detection once,
// then the EMA and the breaker) decides exactly as the processor the replay runs.
func TestSimulationMatchesTheProcessor(t *testing.T) {
	if os.Getenv("LOOPWATCH_CV") == "" {
		t.Skip("set LOOPWATCH_CV=1 to replay the Claude Code corpus through the processor")
	}
	sessions := load(t)
	for _, cfg := range []assess.Config{assess.DefaultConfig(), assess.SeedConfig()} {
		rules := detect.MustCompile(cfg.Detect)
		replayer := replay.NewSessionReplayer(replay.SessionOptions{Assess: &cfg})
		for i := range sessions {
			l := &sessions[i]
			got := interventions(detectAll(l, cfg, rules), cfg.Detect.EMA, cfg.Breaker)
			sr, err := replayer.Replay(context.Background(), l.session)
			if err != nil {
				t.Fatal(err)
			}
			var want []eval.Point
			for j, st := range sr.Steps {
				if st.Intervention != nil {
					want = append(want, eval.Point{Time: l.events[j].Time, Index: j})
				}
			}
			if !slices.EqualFunc(got, want, func(a, b eval.Point) bool { return a.Index == b.Index && a.Time.Equal(b.Time) }) {
				t.Fatalf("%s: simulation %v, processor %v", l.key, got, want)
			}
		}
	}
}

// TestSignalsBySource logs, for each friction signal of the human, on how many human
// turns of each source folder it fired and how many of those were labelled friction
// (the labelled turn, or the message right after a labelled interrupt, which is
// where its redirect shows), with the defaults; and the same on the synthetic
// dataset. A signal that is precise on one source only is phrased for that source.
//
//	LOOPWATCH_CV=1 go test -run TestSignalsBySource -v ./internal/frictioncv
func TestSignalsBySource(t *testing.T) {
	if os.Getenv("LOOPWATCH_CV") == "" {
		t.Skip("set LOOPWATCH_CV=1 to read the Claude Code corpus")
	}
	sessions := append(load(t), loadSynth(t)...)
	cfg := assess.DefaultConfig()
	rules := detect.MustCompile(cfg.Detect)
	type count struct{ fired, friction int }
	table := map[detect.Kind]map[string]*count{}
	turns := map[string]*count{}
	var cols []string
	for i := range sessions {
		l := &sessions[i]
		src := l.source
		if l.session.Source == "vibes_log" || src == "sessions" {
			src = "synthetic"
		}
		if !slices.Contains(cols, src) {
			cols = append(cols, src)
		}
		steps := detectAll(l, cfg, rules)
		moment := map[int]bool{}
		for _, m := range l.moments {
			moment[m.Index] = true
		}
		prevInterrupt := -1
		for j := range l.events {
			ev := &l.events[j]
			if !detect.IsHumanTurn(ev) {
				continue
			}
			friction := moment[j] || ev.Kind == analyze.KindUserMessage && prevInterrupt >= 0 && moment[prevInterrupt]
			prevInterrupt = -1
			if ev.Kind == analyze.KindInterrupt {
				prevInterrupt = j
			}
			tc := turns[src]
			if tc == nil {
				tc = &count{}
				turns[src] = tc
			}
			tc.fired++
			if friction {
				tc.friction++
			}
			seen := map[detect.Kind]bool{}
			for _, s := range steps[j].signals {
				if !s.Kind.IsHumanFriction() || seen[s.Kind] {
					continue
				}
				seen[s.Kind] = true
				if table[s.Kind] == nil {
					table[s.Kind] = map[string]*count{}
				}
				c := table[s.Kind][src]
				if c == nil {
					c = &count{}
					table[s.Kind][src] = c
				}
				c.fired++
				if friction {
					c.friction++
				}
			}
		}
	}
	slices.Sort(cols)
	var b strings.Builder
	fmt.Fprintf(&b, "friction turns / turns the signal fired on, by source (defaults)\n%-20s", "signal")
	for _, c := range cols {
		fmt.Fprintf(&b, " %12s", c)
	}
	row := func(name string, cells map[string]*count) {
		fmt.Fprintf(&b, "\n%-20s", name)
		for _, c := range cols {
			if x := cells[c]; x != nil {
				fmt.Fprintf(&b, " %12s", fmt.Sprintf("%d/%d", x.friction, x.fired))
			} else {
				fmt.Fprintf(&b, " %12s", "·")
			}
		}
	}
	row("(human turns)", turns)
	for k := detect.Kind(1); int(k) < detect.NumKinds; k++ {
		if cells := table[k]; cells != nil {
			row(k.String(), cells)
		}
	}
	t.Log(b.String())
}
