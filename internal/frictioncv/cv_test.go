package frictioncv

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/loopwatch/loopwatch/analyze"
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/breaker"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
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
	fold    int
	events  []analyze.Event
	moments []eval.Point
	humans  int // non-sidechain user messages
}

func load(t *testing.T) []labelled {
	t.Helper()
	dir, err := corpus.Dir("claude-code")
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Skip(err)
	}
	labels, _, err := eval.ReadLabels(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var out []labelled
	_, err = replay.Replay(context.Background(), os.DirFS(dir), replay.Options{}, replay.Sinks{Sessions: func(sr *replay.SessionResult) error {
		rec, ok := labels.Get(sr.Session.Key)
		if !ok {
			return nil
		}
		h := fnv.New32a()
		h.Write([]byte(sr.Session.Key))
		l := labelled{session: sr.Session, key: sr.Session.Key, fold: int(h.Sum32() % folds), events: sr.Session.Events, humans: sr.HumanMessages}
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
	return out
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
			d, open, s.open = detect.NewLightweightDetector(rules), true, true
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
// intervention is a false alarm.
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
func (t tally) precision() float64 { return ratio(t.tp, t.interventions) }

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
	med := math.NaN()
	if len(d) > 0 {
		med = d[len(d)/2]
	}
	return fmt.Sprintf("recall %.3f (%d/%d), precision %.3f (%d/%d), %.1f false alarms per 100 human turns (%d), median delay %.0f s",
		t.recall(), t.caught, t.moments, t.precision(), t.tp, t.interventions, t.falseAlarms(), t.humans, med)
}

// better orders settings for selection on training folds: meeting the target first,
// then recall, precision, fewer false alarms; below the target, F1.
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

// grid is the sweep the training folds choose from: the human-text side's detector
// switches, then its EMA and breaker thresholds around the defaults. The tool side,
// the failure path and the cooldown they share stay at their defaults.
func grid() ([]assess.Config, []string, []setting) {
	var dets []assess.Config
	var names []string
	for _, skipFirst := range []bool{false, true} {
		for _, selfInt := range []bool{true, false} {
			for _, repeat := range []float64{0.7, 0.8} {
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
		for _, alpha := range []float64{0.5, 0.7, 1} {
			for _, thr := range []float64{0.2, 0.3, 0.45, 0.6} {
				for _, storm := range []int{2, 3} {
					for _, iw := range []float64{0, 0.5, 1} {
						for _, weak := range []float64{0.5, 1} {
							for _, rx := range []float64{0, 0.5} {
								e := dets[d].Detect.EMA
								e.Alpha, e.InterruptWeight, e.DoubtWeight, e.ExasperationWeight = alpha, iw, weak, weak
								e.FrustrationWeight, e.CorrectionWeight = rx, rx
								b := dets[d].Breaker
								b.FrustrationThreshold, b.CorrectionStorm = thr, storm
								out = append(out, setting{detector: d, ema: e, breaker: b, name: fmt.Sprintf(
									"%s alpha=%.1f frustration_threshold=%.2f correction_storm=%d interrupt_weight=%.1f doubt/exasperation_weight=%.1f pattern_weights=%.1f",
									names[d], alpha, thr, storm, iw, weak, rx)})
							}
						}
					}
				}
			}
		}
	}
	return dets, names, out
}

// TestFrictionCrossValidated chooses the human-text side's switches and thresholds
// on four folds of the labelled sessions and scores the whole assessment with that
// choice (tool side and failure path at their defaults) on the fifth, for each fold,
// and checks the pooled held-out figures against issue 10's target. It also logs the
// defaults', the human-text side's alone and the seed preset's figures on all
// sessions. It takes a few
// seconds (minutes under -race), so it runs only when asked:
//
//	LOOPWATCH_CV=1 go test -run TestFrictionCrossValidated -v ./internal/frictioncv
func TestFrictionCrossValidated(t *testing.T) {
	if os.Getenv("LOOPWATCH_CV") == "" {
		t.Skip("set LOOPWATCH_CV=1 to cross-validate on the Claude Code corpus")
	}
	sessions := load(t)
	dets, _, settings := grid()
	detected := make([][][]step, len(dets))
	for d, cfg := range dets {
		rules := detect.MustCompile(cfg.Detect)
		detected[d] = make([][]step, len(sessions))
		for i := range sessions {
			detected[d][i] = detectAll(&sessions[i], cfg, rules)
		}
	}
	evalOn := func(s *setting, keep func(fold int) bool) tally {
		var t tally
		for i := range sessions {
			if keep(sessions[i].fold) {
				t.add(score(&sessions[i], interventions(detected[s.detector][i], s.ema, s.breaker)))
			}
		}
		return t
	}
	choose := func(keep func(int) bool) (int, tally) {
		best, bt := -1, tally{}
		for i := range settings {
			if t := evalOn(&settings[i], keep); best < 0 || better(t, bt) {
				best, bt = i, t
			}
		}
		return best, bt
	}
	var pooled tally
	for f := range folds {
		i, train := choose(func(fold int) bool { return fold != f })
		held := evalOn(&settings[i], func(fold int) bool { return fold == f })
		pooled.add(held)
		t.Logf("fold %d: chose %s\n  training: %v\n  held out: %v", f, settings[i].name, train, held)
	}
	t.Logf("pooled held-out: %v", pooled)
	if !pooled.target() {
		t.Errorf("held-out figures miss the target (recall ≥ 0.6, precision ≥ 0.5, ≤ 10 false alarms per 100 human turns): %v", pooled)
	}

	// The presets on all sessions (in-sample for the defaults, which were chosen on
	// them; the seed's were not chosen at all).
	for _, p := range []struct {
		name string
		cfg  assess.Config
	}{
		{"defaults", assess.DefaultConfig()},
		{"defaults, human-text side alone", humanSide(assess.DefaultConfig())},
		{"seed", assess.SeedConfig()},
	} {
		rules := detect.MustCompile(p.cfg.Detect)
		var all tally
		for i := range sessions {
			all.add(score(&sessions[i], interventions(detectAll(&sessions[i], p.cfg, rules), p.cfg.Detect.EMA, p.cfg.Breaker)))
		}
		t.Logf("%s, all sessions: %v", p.name, all)
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
		for i := range sessions {
			l := &sessions[i]
			got := interventions(detectAll(l, cfg, rules), cfg.Detect.EMA, cfg.Breaker)
			sr, err := replay.ReplaySession(context.Background(), l.session, replay.SessionOptions{Assess: &cfg})
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
