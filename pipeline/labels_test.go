package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/eval"
)

// labelsDataset writes a small synthetic dataset into dir and returns settings
// replaying it with its run and session labels into a file.
func labelsDataset(t *testing.T, dir string) Settings {
	t.Helper()
	for name, b := range synth.DatasetFiles(synth.DatasetConfig{Runs: 12, Sessions: 4, Seed: 21}) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := DefaultSettings()
	s.In, s.Out = filepath.Join(dir, synth.InputsDir), filepath.Join(dir, "r.parquet")
	s.Labels = []string{filepath.Join(dir, filepath.FromSlash(synth.RunLabelsFile)), filepath.Join(dir, filepath.FromSlash(synth.SessionLabelsFile))}
	s.Resamples, s.Fix.Draws, s.Fix.Trials = 50, 5, 2
	return s
}

// openFiles returns the number of files the process has open (-1 where /proc does not
// tell).
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(fds)
}

// TestLabelFilesChangedMidReplay: a --labels file that changes after its labels were
// read — cut short, rewritten in place (its modification time put back, so that only
// reading the labels again can tell), emptied — fails the replay, the file named,
// nothing committed; a replay whose file stays as it was commits. The label files are
// closed either way.
func TestLabelFilesChangedMidReplay(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, name string, b []byte)
		want   string // in the error; "" for none
	}{
		{"unchanged", func(*testing.T, string, []byte) {}, ""},
		{"cut short", func(t *testing.T, name string, b []byte) { write(t, name, b[:len(b)*2/3], false) }, "changed since it was read"},
		{"rewritten in place, the time put back", func(t *testing.T, name string, b []byte) {
			write(t, name, swapLabels(b), true)
		}, "changed since it was read"},
		{"emptied", func(t *testing.T, name string, b []byte) { write(t, name, nil, false) }, "changed since it was read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := labelsDataset(t, t.TempDir())
			before := openFiles(t)
			changed := s.Labels[0]
			orig, err := os.ReadFile(changed)
			if err != nil {
				t.Fatal(err)
			}
			labelsReadHook = func(name string) {
				if name == s.Labels[len(s.Labels)-1] { // every file read: the replay starts next
					tt.change(t, changed, orig)
				}
			}
			defer func() { labelsReadHook = nil }()
			_, err = Run(context.Background(), s)
			if after := openFiles(t); after != before {
				t.Errorf("%d files open before the replay, %d after", before, after)
			}
			_, statErr := os.Stat(s.Out)
			if tt.want == "" {
				if err != nil || statErr != nil {
					t.Fatalf("replay: %v; output: %v", err, statErr)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), changed) {
				t.Fatalf("replay error %v, want %q naming %s", err, tt.want, changed)
			}
			t.Logf("replay error: %v", err)
			var usage UsageError
			if errors.As(err, &usage) {
				t.Errorf("a usage error: %v", err)
			}
			if statErr == nil {
				t.Errorf("the output %s was committed", s.Out)
			}
		})
	}
}

// write replaces the content of name by b; keepTime puts its modification time back.
func write(t *testing.T, name string, b []byte, keepTime bool) {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if keepTime {
		if err := os.Chtimes(name, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
}

// swapLabels turns every positive label of a run label file negative and back, the
// file's length unchanged.
func swapLabels(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(",positive"), []byte(",xositive"))
	b = bytes.ReplaceAll(b, []byte(",negative"), []byte(",positive"))
	return bytes.ReplaceAll(b, []byte(",xositive"), []byte(",negative"))
}

// TestLoadLabelsKeptInFiles: the labels of regular --labels files stay in them, read
// again through the files the set holds open until it is closed, holding what the
// files read into memory hold; files that cannot be read leave none open.
func TestLoadLabelsKeptInFiles(t *testing.T) {
	s := labelsDataset(t, t.TempDir())
	before := openFiles(t)
	set, err := loadLabels(s, eval.DefaultOutcomeClass())
	if err != nil {
		t.Fatal(err)
	}
	if len(set.files) != 2 {
		t.Fatalf("%d files held open, want 2", len(set.files))
	}
	want := eval.NewLabels()
	for _, name := range s.Labels {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ls, _, err := eval.ReadLabelsWith(bytes.NewReader(b), eval.LabelOptions{NoText: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := want.Merge(ls); err != nil {
			t.Fatal(err)
		}
	}
	keys := want.Keys()
	if got := set.labels.Keys(); !reflect.DeepEqual(got, keys) {
		t.Fatalf("keys %v, want %v", got, keys)
	}
	for _, k := range keys {
		got, _ := set.labels.Get(k)
		w, _ := want.Get(k)
		gi, _ := set.labels.Index(k)
		wi, _ := want.Index(k)
		if !reflect.DeepEqual(got, w) || gi != wi {
			t.Fatalf("%s: %+v at %d, want %+v at %d", k, got, gi, w, wi)
		}
	}
	if err := set.close(); err != nil {
		t.Fatal(err)
	}
	if after := openFiles(t); after != before {
		t.Errorf("%d files open before, %d after close", before, after)
	}
	s.Labels = append(s.Labels, filepath.Join(filepath.Dir(s.Labels[0]), "missing.csv"))
	if _, err := loadLabels(s, eval.DefaultOutcomeClass()); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Fatalf("a missing file: %v", err)
	}
	if after := openFiles(t); after != before {
		t.Errorf("%d files open before, %d after a failed load", before, after)
	}
}

// TestLabelledInTwoFiles: a key labelled again in a later --labels file keeps the later
// label, and the warning names the later file's line and both labels with the
// earlier one's line.
func TestLabelledInTwoFiles(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	if err := os.WriteFile(first, []byte("run_key,label\nq-1,positive\nq-2,negative\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, []byte("run_key,label\nq-3,positive\nq-2,positive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.In, s.Labels = dir, []string{first, second}
	set, err := loadLabels(s, eval.DefaultOutcomeClass())
	if err != nil {
		t.Fatal(err)
	}
	defer set.close()
	var warnings []string
	for _, w := range set.warnings {
		warnings = append(warnings, w.Error())
	}
	want := []string{second + ":3: label: q-2 is labelled in an earlier --labels file too (negative at its line 3; positive here); this file's label counts"}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
	if r, ok := set.labels.Get("q-2"); !ok || r.Label != eval.Positive {
		t.Errorf("q-2: %+v, want the later file's positive", r)
	}
}
