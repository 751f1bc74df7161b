package pipeline

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
)

// TestReplacedWhileMerging: what the merge, once it committed its files, asks of the
// shards' manifests read again (shardSet.replaced) — whether a shard was replaced
// meanwhile (whose commit may have found no merged file to remove yet), when merge
// takes its files back, not to leave them describing the shard replaced. (That merge
// then removes them is the few lines after its call; no test can replace a shard
// between the two.) A manifest absent for a moment — moved aside by a commit in
// progress, of a shard written again byte for byte perhaps — is not a replacement (a
// commit of other content removes the merged files itself once its manifest is in
// place): taking the files back then would delete correct output.
func TestReplacedWhileMerging(t *testing.T) {
	dir := t.TempDir()
	for i := range 2 {
		s := DefaultSettings()
		s.Resamples, s.Fix.Draws, s.Fix.Trials = 50, 5, 2
		s.Out, s.Shard = dir+"/", replay.Shard{Index: i, Count: 2}
		if _, err := Run(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name   string
		change func(manifest string)
		want   int
	}{
		{"unchanged", func(string) {}, -1},
		{"rewritten as it was", func(m string) { os.WriteFile(m, must(os.ReadFile(m)), 0o644) }, -1},
		{"replaced", func(m string) { os.WriteFile(m, append(must(os.ReadFile(m)), '\n'), 0o644) }, 1},
		{"replaced by another digest", func(m string) {
			os.WriteFile(m, []byte(strings.Replace(string(must(os.ReadFile(m))), `"tables"`, `"tables" `, 1)), 0o644)
		}, 1},
		{"moved aside by a commit in progress", func(m string) { os.Remove(m) }, -1},
		{"unreadable", func(m string) { os.Remove(m); os.Mkdir(m, 0o755) }, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set, err := readShardSet(dir)
			if err != nil {
				t.Fatal(err)
			}
			m := reports.FolderManifestPath(dir, shardPartition(1))
			keep := must(os.ReadFile(m))
			defer func() { os.RemoveAll(m); os.WriteFile(m, keep, 0o644) }()
			tt.change(m)
			if got := set.replaced(); got != tt.want {
				t.Errorf("replaced() = %d, want %d", got, tt.want)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
