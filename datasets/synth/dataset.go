package synth

import "fmt"

// DatasetConfig says what a generated dataset holds: runs, Claude Code sessions and
// vibes event logs (two sessions each), all drawn from one seed. It is what the
// datagen command and the regression registry's synth: inputs generate.
type DatasetConfig struct {
	Runs, Sessions, VibesLogs int
	Seed                      uint64
	// RerunEvery makes every n-th run the next epoch of the previous run's task; 0
	// disables.
	RerunEvery int
	// FixLoopEvery records every n-th run with the inner fix loop on; 0 disables.
	FixLoopEvery int
}

// DatasetFiles generates the dataset of cfg, laid out by [Layout], in memory: file
// name → content. The same configuration always gives the same bytes. [WriteDataset]
// writes the same files without holding them.
func DatasetFiles(cfg DatasetConfig) map[string][]byte {
	files := memDest{}
	if _, err := WriteDataset(files, cfg); err != nil {
		panic(fmt.Sprintf("synth: generating in memory: %v", err)) // memory writes do not fail
	}
	return files
}
