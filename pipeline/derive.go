package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/replay/fixsim"
	"github.com/loopwatch/loopwatch/reports"
)

// The metadata keys a derivation is read from.
const (
	mdConfigs  = "loopwatch.configs"
	mdEval     = "loopwatch.eval"
	mdFixsim   = "loopwatch.fixsim"
	mdStruggle = "loopwatch.struggle_config"
	mdAssess   = "loopwatch.assess_config"
)

// derivation computes what a replay derives from its per-unit rows as a whole — the
// metrics and curves from the predictions rows, the fix-loop simulation from the
// recorded failures — with the settings recorded in the tables' metadata. A replay
// and the merge of a replay split in shards both read their settings back from the
// metadata and run the same derivation over the same rows, in an order that does not
// depend on how the units were split: so n shards give exactly the single replay's
// metrics, byte for byte.
type derivation struct {
	configs  []configSpec
	evalOpts eval.Options
	window   time.Duration
	outcomes []string // the positive session outcomes
	fix      fixsim.Config
	fixGiven map[string]float64
	struggle struggle.StruggleConfig
	assess   assess.Config
	workers  int // for the simulation; never changes the output
}

// evalSettings is the JSON of the loopwatch.eval metadata (its fields in key order,
// as the map it replaced wrote them).
type evalSettings struct {
	Beta             float64  `json:"beta"`
	Level            float64  `json:"ci_level"`
	FrictionWindow   string   `json:"friction_window"`
	PositiveOutcomes []string `json:"positive_outcomes"`
	Resamples        int      `json:"resamples"`
	Seed             uint64   `json:"seed"`
}

// fixSettings is the JSON of the loopwatch.fixsim metadata (fields in key order).
type fixSettings struct {
	CostFraction float64 `json:"cost_fraction"`
	Draws        int     `json:"draws"`
	MaxFixes     int     `json:"max_filter_fixes"`
	PassProb     string  `json:"pass_prob"`
	Seed         uint64  `json:"seed"`
	Trials       int     `json:"trials_per_draw"`
}

// settingsMetadata returns the metadata that records s and the scored configurations:
// what newDerivation reads back.
func settingsMetadata(s Settings, in *Inputs, configs []configSpec) map[string]string {
	cfgJSON, _ := json.Marshal(in.Struggle)
	assessJSON, _ := json.Marshal(in.Assess)
	fixJSON, _ := json.Marshal(fixSettings{PassProb: s.Fix.PassProb, CostFraction: s.Fix.CostFraction, Draws: s.Fix.Draws,
		Trials: s.Fix.Trials, MaxFixes: s.Fix.MaxFixes, Seed: s.Seed})
	evalJSON, _ := json.Marshal(evalSettings{Seed: s.Seed, Resamples: s.Resamples, Level: s.Level, Beta: s.Beta,
		PositiveOutcomes: in.Outcomes.Positive(), FrictionWindow: s.FrictionWindow.String()})
	configsJSON, _ := json.Marshal(configs)
	labelsID := in.labels.id
	if s.DeriveLabels {
		labelsID = "derived (quasar outcome rules); explicit: " + labelsID
	}
	md := map[string]string{
		mdStruggle:              string(cfgJSON),
		"loopwatch.config_hash": shortHash(cfgJSON),
		mdAssess:                string(assessJSON),
		"loopwatch.assess_hash": shortHash(assessJSON),
		"loopwatch.llm":         s.LLM,
		"loopwatch.labels":      labelsID,
		mdEval:                  string(evalJSON),
		mdFixsim:                string(fixJSON),
		mdConfigs:               string(configsJSON),
	}
	if s.LLM == "claude" {
		md["loopwatch.llm_timeout"] = s.ClaudeTimeout.String() // a call that outlasts it fails
	}
	return md
}

// newDerivation reads a derivation's settings from a replay's metadata.
func newDerivation(md map[string]string, workers int) (*derivation, error) {
	d := &derivation{workers: workers}
	var ev evalSettings
	var fx fixSettings
	for key, dst := range map[string]any{mdConfigs: &d.configs, mdEval: &ev, mdFixsim: &fx, mdStruggle: &d.struggle, mdAssess: &d.assess} {
		v, ok := md[key]
		if !ok {
			return nil, fmt.Errorf("metadata %s missing", key)
		}
		if err := json.Unmarshal([]byte(v), dst); err != nil {
			return nil, fmt.Errorf("metadata %s: %w", key, err)
		}
	}
	var err error
	if d.window, err = time.ParseDuration(ev.FrictionWindow); err != nil {
		return nil, fmt.Errorf("metadata %s: friction_window: %w", mdEval, err)
	}
	if d.fixGiven, err = parsePassProb(fx.PassProb); err != nil {
		return nil, fmt.Errorf("metadata %s: %w", mdFixsim, err)
	}
	resamples := ev.Resamples
	if resamples < 0 || resamples > eval.MaxResamples { // what replay --resamples takes
		return nil, fmt.Errorf("metadata %s: resamples %d: not between 0 and %d", mdEval, resamples, eval.MaxResamples)
	}
	if resamples == 0 {
		resamples = -1 // eval: < 0 disables; 0 would mean its default
	}
	d.evalOpts = eval.Options{Seed: ev.Seed, Resamples: resamples, Level: ev.Level, Beta: ev.Beta}
	d.outcomes = ev.PositiveOutcomes
	d.fix = fixsim.Config{Draws: fx.Draws, TrialsPerDraw: fx.Trials, Seed: fx.Seed, CostFraction: fx.CostFraction,
		MaxFilterFixes: fx.MaxFixes, Level: ev.Level}
	return d, nil
}

// derivedTables are the tables a derivation writes.
type derivedTables struct {
	metrics     *reports.Table[reports.MetricRow]
	curves      *reports.Table[reports.CurveRow]
	fixFailures *reports.Table[reports.FixFailureRow]
	fixRuns     *reports.Table[reports.FixRunRow]
}

// run derives the metrics, curves and fix-loop simulation of a whole replay from its
// predictions and fix-loop cases, which preds and cases give in the order of their
// file's path, then key — the order a replay delivers units in, whatever the workers,
// and one a split replay's merge can rebuild. The bootstrap resamples units in that
// order and the simulation sums runs in it. It writes them into t and fills res; sum
// is the whole replay's summary.
//
// A configuration's targets (struggle, breaker, outcome, outcome accuracy, event-level)
// are scored each on its own, from the configuration's predictions read for it alone:
// what is in memory at once is a target's observations per worker, not every
// configuration's.
func (d *derivation) run(ctx context.Context, preds predictionSource, cases caseSource, sum *replay.Summary,
	t *derivedTables, res *Result) error {
	badOutcome := "bad outcome (" + strings.Join(d.outcomes, ", ") + ")"
	withRuns := sum.Runs > 0 || sum.Sessions == 0
	parallel := d.workers > 1 || d.workers <= 0 && runtime.GOMAXPROCS(0) > 1
	evalOpts := d.evalOpts
	evalOpts.Context = ctx // an interrupt stops the bootstrap
	writeMetrics := func() error {
		// The targets are scored each on its own — seeded alike, reading nothing of each
		// other — on the workers when there are several, and put in res and written in
		// their order as soon as the ones before are.
		type scored struct {
			part    Result // the target's reports
			metrics []reports.MetricRow
			curves  []reports.CurveRow
			err     error
		}
		out := make([]scored, len(d.configs)*int(numTargets))
		score := func(k int) {
			i, tg := k/int(numTargets), target(k%int(numTargets))
			c := &scoring{configSpec: d.configs[i]}
			c.reserve(tg, preds.counts(i))
			if out[k].err = preds.each(i, func(p *keptPrediction, sm *eval.SessionMoments) { c.add(p, sm, tg) }); out[k].err != nil {
				return
			}
			out[k].metrics, out[k].curves, out[k].err = c.evaluateTarget(tg, &out[k].part, evalOpts, d.window, badOutcome, withRuns)
		}
		emit := func(k int) error {
			if err := out[k].err; err != nil {
				return err
			}
			res.Detectors = append(res.Detectors, out[k].part.Detectors...)
			res.Curves = append(res.Curves, out[k].part.Curves...)
			res.Moments = append(res.Moments, out[k].part.Moments...)
			res.Outcomes = append(res.Outcomes, out[k].part.Outcomes...)
			if err := t.metrics.Write(out[k].metrics...); err != nil {
				return err
			}
			err := t.curves.Write(out[k].curves...)
			out[k] = scored{}
			return err
		}
		if !parallel {
			for k := range out {
				score(k)
				if err := emit(k); err != nil {
					return err
				}
			}
			return nil
		}
		ready := make([]chan struct{}, len(out))
		for k := range ready {
			ready[k] = make(chan struct{})
		}
		var scoring sync.WaitGroup
		defer scoring.Wait()
		scoring.Go(func() { forEach(len(out), d.workers, func(k int) { score(k); close(ready[k]) }) })
		for k := range out {
			<-ready[k]
			if err := emit(k); err != nil {
				return err
			}
		}
		return nil
	}
	// The metrics and the simulation need nothing of each other: with more than one
	// worker the metrics are computed while the simulation runs, not before it.
	metricsErr := make(chan error, 1)
	if parallel {
		go func() { metricsErr <- writeMetrics() }()
	} else {
		metricsErr <- writeMetrics()
	}
	totals, err := simulateFixLoop(ctx, cases, d.fix, d.fixGiven, d.workers, t.fixRuns, t.fixFailures)
	if merr := <-metricsErr; merr != nil {
		return merr
	}
	if err != nil {
		return err
	}
	if sum.Runs > 0 {
		res.FixTotals = totals
	}
	res.Struggle, res.Assess = d.struggle, d.assess
	return nil
}

// forEach calls do(i) for i in [0, n), in order of i, on up to workers goroutines
// (≤ 0: GOMAXPROCS); it returns when every call has.
func forEach(n, workers int, do func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				do(i)
			}
		})
	}
	wg.Wait()
}
