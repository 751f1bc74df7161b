package synth

import (
	"fmt"
	"time"
)

// DatasetConfig says what a generated dataset holds: runs, Claude Code sessions and
// vibes event logs (two sessions each), all drawn from one seed. It is what the
// datagen command and the regression registry's synth: inputs generate.
type DatasetConfig struct {
	Runs, Sessions, VibesLogs int
	Seed                      uint64
	// RerunEvery makes every n-th run a second epoch of the previous run's task; 0
	// disables.
	RerunEvery int
}

// DatasetFiles generates the dataset of cfg, laid out by [Layout]. The same
// configuration always gives the same bytes.
func DatasetFiles(cfg DatasetConfig) map[string][]byte {
	var runs []Run
	if cfg.Runs > 0 {
		runs = Generate(Config{Runs: cfg.Runs, Seed: cfg.Seed, RerunEvery: cfg.RerunEvery})
	}
	var sessions []Session
	if cfg.Sessions > 0 {
		sessions = GenerateSessions(SessionConfig{Sessions: cfg.Sessions, Seed: cfg.Seed})
	}
	var logs []VibesLog
	for i := range cfg.VibesLogs {
		vc := VibesConfig{Seed: cfg.Seed + uint64(i), Start: SampleVibesConfig().Start.Add(time.Duration(i) * 2 * time.Hour)}
		if cfg.VibesLogs > 1 {
			vc.File = fmt.Sprintf("vibes/vibes-events-%04d.jsonl", i+1)
		}
		logs = append(logs, GenerateVibesLog(vc))
	}
	return Layout(runs, sessions, logs)
}
