package synth

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// layoutDataset is DatasetFiles as first written: everything generated in memory,
// then laid out.
func layoutDataset(cfg DatasetConfig) map[string][]byte {
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

// TestWriteDataset: the streamed dataset, in memory and in a folder, is byte for byte
// the one laid out from everything generated at once — re-runs sharing files (every
// k-th, and every run), sessions with subagents, one and several vibes logs.
func TestWriteDataset(t *testing.T) {
	for _, cfg := range []DatasetConfig{
		{Runs: 50, Seed: 7},
		{Runs: 120, Sessions: 30, VibesLogs: 3, Seed: 7, RerunEvery: 10},
		{Runs: 9, Seed: 2, RerunEvery: 1},
		{Runs: 5, Seed: 3, RerunEvery: 2},
		{Sessions: 12, VibesLogs: 1, Seed: 1},
		{VibesLogs: 2, Seed: 4},
	} {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			want := layoutDataset(cfg)
			if got := DatasetFiles(cfg); !maps.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("in memory: %d files, want %d (or contents differ)", len(got), len(want))
			}
			dir := t.TempDir()
			w, err := WriteDataset(DirDest(dir), cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]byte{}
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					got[filepath.ToSlash(rel)], _ = os.ReadFile(p)
				}
				return err
			})
			for _, name := range slices.Sorted(maps.Keys(want)) {
				if !bytes.Equal(got[name], want[name]) {
					t.Errorf("%s differs", name)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d files written, want %d", len(got), len(want))
			}
			count := map[string]int{}
			for name := range want {
				for _, part := range []string{"runs", "sessions", "vibes"} {
					if dir, _ := filepath.Split(name); len(dir) > len(InputsDir)+len(part)+1 && dir[:len(InputsDir)+len(part)+2] == InputsDir+"/"+part+"/" {
						count[part]++
					}
				}
			}
			if w.Runs != count["runs"] || w.Sessions != count["sessions"] || w.Vibes != count["vibes"] {
				t.Errorf("written %+v, files %v", w, count)
			}
			for _, l := range w.Labels {
				if _, ok := want[l]; !ok {
					t.Errorf("label file %s not in the dataset", l)
				}
			}
			// Holding 1, 2 or 7 label rows at a time, the labels files are merged from
			// spilled sorted runs, of one row, of several, the last one short: the same
			// files.
			scratch := t.TempDir()
			t.Setenv("TMPDIR", scratch)
			for _, held := range []int{1, 2, 7} {
				mem := memDest{}
				if _, err := writeDataset(mem, cfg, held); err != nil {
					t.Fatal(err)
				}
				if left, _ := os.ReadDir(scratch); len(left) > 0 {
					t.Errorf("holding %d label rows: the scratch file was left: %v", held, left)
				}
				if !maps.EqualFunc(map[string][]byte(mem), want, bytes.Equal) {
					for _, name := range slices.Sorted(maps.Keys(want)) {
						if !bytes.Equal(mem[name], want[name]) {
							t.Errorf("holding %d label rows: %s differs:\n%s\nwant\n%s", held, name, mem[name], want[name])
						}
					}
				}
			}
		})
	}
}
