package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/internal/doctest"
)

// written returns the files under dir, keyed by slash-separated relative path.
func written(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		code  int
		check func(t *testing.T, files map[string][]byte)
	}{
		{"sample", []string{"--sample"}, 0, func(t *testing.T, files map[string][]byte) {
			want := synth.SampleFiles()
			if len(files) != len(want) {
				t.Errorf("%d files, want %d", len(files), len(want))
			}
			for name, b := range want {
				if !bytes.Equal(files[name], b) {
					t.Errorf("%s differs from synth.SampleFiles", name)
				}
			}
		}},
		{"runs only", []string{"--runs", "5", "--seed", "3"}, 0, func(t *testing.T, files map[string][]byte) {
			if files[synth.RunLabelsFile] == nil || files[synth.SessionLabelsFile] != nil || len(files) < 4 {
				t.Errorf("files %d, run labels %v, session labels %v", len(files), files[synth.RunLabelsFile] != nil, files[synth.SessionLabelsFile] != nil)
			}
		}},
		{"sessions and logs", []string{"--runs", "0", "--sessions", "4", "--vibes", "2"}, 0, func(t *testing.T, files map[string][]byte) {
			var sessions, logs int
			for name := range files {
				switch {
				case strings.HasPrefix(name, "inputs/sessions/") && !strings.Contains(name, "/subagents/"):
					sessions++
				case strings.HasPrefix(name, "inputs/vibes/vibes-events-"):
					logs++
				case strings.HasPrefix(name, "inputs/runs/") || name == synth.RunLabelsFile:
					t.Errorf("unexpected %s", name)
				}
			}
			if sessions != 4 || logs != 2 || files[synth.SessionLabelsFile] == nil {
				t.Errorf("%d sessions, %d logs", sessions, logs)
			}
		}},
		{"no out", nil, 2, nil},
		{"negative", []string{"--sessions", "-1"}, 2, nil},
		{"negative re-runs", []string{"--rerun-every", "-1"}, 2, nil},
		{"negative fix-loop runs", []string{"--fix-loop-every", "-1"}, 2, nil},
		{"bad flag", []string{"--nope"}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := tt.args
			if tt.name != "no out" {
				args = append(args, "--out", dir)
			}
			var stdout bytes.Buffer
			if code := run(context.Background(), args, &stdout, io.Discard); code != tt.code {
				t.Fatalf("exit %d, want %d", code, tt.code)
			}
			if tt.check == nil {
				return
			}
			files := written(t, dir)
			tt.check(t, files)
			// It prints the replay of what it wrote: its inputs and the label files there are.
			want := "replay it: replay --in " + filepath.Join(dir, synth.InputsDir)
			for _, l := range []string{synth.RunLabelsFile, synth.SessionLabelsFile} {
				if files[l] != nil {
					want += " --labels " + filepath.Join(dir, filepath.FromSlash(l))
				}
			}
			if want += " --out " + filepath.Join(dir, "results.parquet") + "\n"; !strings.HasSuffix(stdout.String(), want) {
				t.Errorf("prints\n%s\nwant it to end with\n%s", stdout.String(), want)
			}
		})
	}
}

// TestRefusesAnEarlierDataset: a second call into the same folder would leave the
// first one's files among its own; it is refused, and what is there is left alone.
func TestRefusesAnEarlierDataset(t *testing.T) {
	for _, part := range []string{"inputs", "labels"} {
		t.Run(part, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, part), 0o755); err != nil {
				t.Fatal(err)
			}
			before := written(t, dir)
			if code := run(context.Background(), []string{"--runs", "2", "--out", dir}, io.Discard, io.Discard); code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
			if after := written(t, dir); len(after) != len(before) {
				t.Errorf("%d files after a refused call, %d before", len(after), len(before))
			}
		})
	}
	dir := t.TempDir() // an existing folder with other things in it is fine
	if err := os.WriteFile(filepath.Join(dir, "README"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(context.Background(), []string{"--runs", "2", "--out", dir}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("exit %d into a folder without inputs/ or labels/, want 0", code)
	}
	if code := run(context.Background(), []string{"--runs", "10", "--out", dir}, io.Discard, io.Discard); code != 2 {
		t.Fatalf("second call: exit %d, want 2", code)
	}
	if code := run(context.Background(), []string{"--sample", "--out", dir}, io.Discard, io.Discard); code != 0 { // over an earlier sample: datasets/sample regenerated
		t.Fatalf("--sample into a dataset: exit %d, want 0", code)
	}
	if code := run(context.Background(), []string{"--sample", "--out", dir}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("--sample again: exit %d, want 0", code)
	}
}

// TestRefusals: every call that cannot write a dataset is one line on stderr, exit 2,
// and nothing written.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", file, "--runs", "2"}, "--out " + file + ": is a file, not a folder"},
		{[]string{"--out", filepath.Join(file, "sub"), "--runs", "2"}, "--out " + filepath.Join(file, "sub") + ": "},
		{[]string{"--out", filepath.Join(dir, "d"), "--runs", "0"}, "nothing to generate"},
		{[]string{"--out", filepath.Join(dir, "d"), "extra"}, `unexpected argument "extra"`},
		{[]string{"--runs", "2"}, "--out is required"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), tt.args, io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "d")); err == nil {
			t.Fatalf("%v: wrote %s", tt.args, filepath.Join(dir, "d"))
		}
	}
}

// TestDocExamples runs every example of the command's documentation in an empty
// folder; each must be in the --help text too, and write its dataset.
func TestDocExamples(t *testing.T) {
	examples := doctest.Examples(t, "datagen", usage, 4)
	t.Chdir(t.TempDir())
	for _, ex := range examples {
		args := strings.Fields(ex)[1:]
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 0 {
			t.Errorf("%s: exit %d\n%s", ex, code, errb.String())
			continue
		}
		dir := args[len(args)-1]
		if entries, err := os.ReadDir(filepath.Join(dir, "inputs")); err != nil || len(entries) == 0 {
			t.Errorf("%s: no inputs written (%v)", ex, err)
		}
		if entries, err := os.ReadDir(filepath.Join(dir, "labels")); err != nil || len(entries) == 0 {
			t.Errorf("%s: no labels written (%v)", ex, err)
		}
	}
}

// failAfter is a synth.Dest that creates n files in dest, then calls fail and
// returns its error (nil: it goes on).
type failAfter struct {
	dest synth.Dest
	n    *int
	fail func() error
}

func (f failAfter) Create(name string) (io.WriteCloser, error) {
	if *f.n--; *f.n < 0 {
		if err := f.fail(); err != nil {
			return nil, err
		}
	}
	return f.dest.Create(name)
}

// TestNothingOnFailure: a generation that fails part-way — a write that fails (a full
// disk), an interrupt — leaves nothing at --out: not the files written before it, nor
// the folders made for them; an existing folder keeps what it held, and an earlier
// sample stays as it was.
func TestNothingOnFailure(t *testing.T) {
	full := errors.New("no space left on device")
	cfg := synth.DatasetConfig{Runs: 40, Sessions: 10, VibesLogs: 2, Seed: 3}
	for _, tt := range []struct {
		name      string
		existing  bool // --out exists, with a file of its own
		sample    bool // --out holds a sample, which --sample writes over
		after     int  // files created before the failure; -1: all but the last
		interrupt bool // the failure: an interrupt (the context cancelled), else a failed write
	}{
		{name: "a write fails", after: 30},
		{name: "a write fails into an existing folder", existing: true, after: 30},
		{name: "the last file fails (the session labels)", after: -1},
		{name: "interrupted", after: 30, interrupt: true},
		{name: "interrupted into an existing folder", existing: true, after: 5, interrupt: true},
		{name: "interrupted before the first file", after: 0, interrupt: true},
		{name: "interrupted over an earlier sample", sample: true, after: 10, interrupt: true},
		{name: "a write fails over an earlier sample", sample: true, after: 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			out := filepath.Join(root, "a", "b")
			if tt.existing {
				if err := os.MkdirAll(out, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(out, "README"), []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.sample {
				if code := run(context.Background(), []string{"--sample", "--out", out}, io.Discard, io.Discard); code != 0 {
					t.Fatalf("the earlier sample: exit %d", code)
				}
			}
			var before map[string][]byte
			if tt.existing || tt.sample {
				before = written(t, root)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := tt.after
			if n < 0 {
				n = len(synth.DatasetFiles(cfg)) - 1
			}
			fail := func() error { return full }
			if tt.interrupt {
				fail = func() error { cancel(); return nil }
			}
			write := func(dest synth.Dest) (synth.Written, error) {
				return synth.WriteDataset(failAfter{dest, &n, fail}, cfg)
			}
			if tt.sample {
				write = func(dest synth.Dest) (synth.Written, error) { return writeSample(failAfter{dest, &n, fail}) }
			}
			var replaces map[string][]byte
			if tt.sample {
				replaces = synth.SampleFiles()
			}
			_, _, err := generate(ctx, out, replaces, write)
			switch {
			case tt.interrupt && !errors.Is(err, context.Canceled):
				t.Errorf("interrupted: %v, want %v", err, context.Canceled)
			case !tt.interrupt && !errors.Is(err, full):
				t.Errorf("a failed write: %v, want %v", err, full)
			}
			if n >= 0 {
				t.Fatalf("the failure was not reached: %d files to go", n)
			}
			if after := written(t, root); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("left %d files, want the %d there before: %v", len(after), len(before), slices.Sorted(maps.Keys(after)))
			}
			entries, err := os.ReadDir(root)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.existing && !tt.sample && len(entries) != 0 {
				t.Errorf("left the folders it made: %v", entries)
			}
		})
	}
}

// TestInterrupted: datagen stopped by a signal says so, exits 130 and writes nothing.
func TestInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr bytes.Buffer
	if code := run(ctx, []string{"--runs", "20", "--out", out}, io.Discard, &stderr); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if want := "datagen: interrupted; nothing was written to " + out + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %v, want nothing there", out, err)
	}
}

// TestSampleKeepsOthersFiles: --sample replaces an earlier sample's inputs/ and
// labels/, but never removes a file it did not write: a folder holding one is refused
// (exit 2, naming it), and everything in it is left as it was.
func TestSampleKeepsOthersFiles(t *testing.T) {
	for _, tt := range []struct {
		name    string
		earlier bool     // an earlier sample is there first
		extra   []string // then these files, slash-separated under --out
		link    string   // and a symbolic link to a file outside, at this path
		code    int
	}{
		{name: "a session of one's own", extra: []string{"inputs/sessions/real.jsonl"}, code: 2},
		{name: "labels of one's own", extra: []string{"labels/mine.csv"}, code: 2},
		{name: "beside an earlier sample", earlier: true, extra: []string{"inputs/runs/extra.jsonl"}, code: 2},
		{name: "a link where a sample file goes", earlier: true, link: synth.RunLabelsFile, code: 2},
		{name: "inputs/ a link", link: "inputs", code: 2},
		{name: "an earlier sample alone", earlier: true, code: 0},
		{name: "empty folders", extra: nil, code: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			out := filepath.Join(root, "d")
			if err := os.MkdirAll(filepath.Join(out, "inputs", "sessions"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.earlier {
				if code := run(context.Background(), []string{"--sample", "--out", out}, io.Discard, io.Discard); code != 0 {
					t.Fatalf("the earlier sample: exit %d", code)
				}
			}
			for _, name := range tt.extra {
				p := filepath.Join(out, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.link != "" {
				target := filepath.Join(root, "elsewhere")
				if err := os.WriteFile(target, []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(out, filepath.FromSlash(tt.link))
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, p); err != nil {
					t.Fatal(err)
				}
			}
			before := written(t, root)
			var stderr bytes.Buffer
			code := run(context.Background(), []string{"--sample", "--out", out}, io.Discard, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, stderr.String())
			}
			if tt.code == 0 {
				if got := written(t, out); len(got) != len(synth.SampleFiles()) {
					t.Errorf("%d files, want the sample's %d", len(got), len(synth.SampleFiles()))
				}
				return
			}
			named := filepath.Join(out, filepath.FromSlash(tt.link))
			if tt.extra != nil {
				named = filepath.Join(out, filepath.FromSlash(tt.extra[0]))
			}
			if !strings.Contains(stderr.String(), named+" is no file of the sample") || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q, want one line naming %s", stderr.String(), named)
			}
			if after := written(t, root); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("the files changed: %v, were %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
			}
		})
	}
}

// TestCommitKeepsFilesAddedLate: a file added to an earlier sample after run checked
// it (while the new one was written) is found where commit moved the sample aside,
// and everything is put back rather than removed.
func TestCommitKeepsFilesAddedLate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d")
	if code := run(context.Background(), []string{"--sample", "--out", out}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("the earlier sample: exit %d", code)
	}
	late := filepath.Join(out, "labels", "late.csv")
	write := func(dest synth.Dest) (synth.Written, error) {
		if err := os.WriteFile(late, []byte("mine"), 0o644); err != nil {
			return synth.Written{}, err
		}
		return writeSample(dest)
	}
	before := written(t, out)
	_, _, err := generate(context.Background(), out, synth.SampleFiles(), write)
	var fe foreignError
	if !errors.As(err, &fe) || fe.path != late {
		t.Errorf("generate: %v, want a foreignError naming %s", err, late)
	}
	after := written(t, out)
	if string(after["labels/late.csv"]) != "mine" || len(after) != len(before)+1 {
		t.Errorf("left %v", slices.Sorted(maps.Keys(after)))
	}
}

// TestCommitKeepsAFolderMadeMeanwhile: without --sample, an inputs/ someone made in
// --out while datagen wrote is neither replaced nor removed.
func TestCommitKeepsAFolderMadeMeanwhile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "d")
	theirs := filepath.Join(out, "inputs", "theirs.jsonl")
	write := func(dest synth.Dest) (synth.Written, error) {
		if err := os.MkdirAll(filepath.Dir(theirs), 0o755); err != nil {
			return synth.Written{}, err
		}
		if err := os.WriteFile(theirs, []byte("theirs"), 0o644); err != nil {
			return synth.Written{}, err
		}
		return writeSample(dest)
	}
	_, _, err := generate(context.Background(), out, nil, write)
	if err == nil || !strings.Contains(err.Error(), "appeared while datagen wrote: nothing was replaced") {
		t.Errorf("generate: %v, want a refusal", err)
	}
	if got := written(t, out); len(got) != 1 || string(got["inputs/theirs.jsonl"]) != "theirs" {
		t.Errorf("left %v", slices.Sorted(maps.Keys(got)))
	}
}

// TestStaleFolders: a killed datagen's temporary folder (its process gone) is removed
// at the next datagen into the same --out, with a message; a running one's is not.
func TestStaleFolders(t *testing.T) {
	out := t.TempDir()
	dead := filepath.Join(out, ".datagen.tmp-99999999-1") // above any pid_max
	alive := filepath.Join(out, ".datagen.tmp-"+fmt.Sprint(os.Getppid())+"-2")
	other := filepath.Join(out, ".results.parquet.tmp-99999999-3") // a folder, not datagen's
	for _, d := range []string{dead, alive, other} {
		if err := os.MkdirAll(filepath.Join(d, "inputs", "runs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "inputs", "runs", "stale.jsonl"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"--runs", "2", "--out", out}, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "datagen: removed " + dead + ", the temporary folder of a datagen that was killed\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	for d, kept := range map[string]bool{dead: false, alive: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != kept {
			t.Errorf("%s: %v, want kept %v", d, err, kept)
		}
	}
}
