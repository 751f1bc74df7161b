package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/eval"
)

// openInput returns the file system to replay and a name for messages.
func openInput(in string) (fs.FS, string, error) {
	if in == "" {
		return datasets.Sample(), datasets.SampleName, nil
	}
	fi, err := os.Stat(in)
	if err != nil {
		return nil, "", fmt.Errorf("--in %s: %w", in, unwrap(err))
	}
	if fi.IsDir() {
		return os.DirFS(in), in, nil
	}
	return singleFile{dir: os.DirFS(filepath.Dir(in)), name: filepath.Base(in)}, in, nil
}

// loadLabels reads every --labels file (or, replaying the built-in sample, its
// labels) into one label set: a key labelled in two files keeps the later file's
// label, and that is reported. It returns the labels, a line for the summary and an
// identifier for the metadata.
func loadLabels(o options, outcomes eval.OutcomeClass, stderr io.Writer) (*eval.Labels, string, string, error) {
	type file struct {
		name string
		data []byte
	}
	var files []file
	switch {
	case len(o.labels) > 0:
		for _, name := range o.labels {
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, "", "", fmt.Errorf("--labels %s: %w", name, unwrap(err))
			}
			files = append(files, file{name, b})
		}
	case o.in == "":
		files = append(files, file{datasets.SampleName + " run labels", datasets.SampleLabels()},
			file{datasets.SampleName + " session labels", datasets.SampleSessionLabels()})
	default:
		note := "none (pass --labels or --derive-labels to score the detectors)"
		if o.deriveLabels {
			note = "none"
		}
		labels := eval.NewLabels()
		labels.Outcomes = outcomes
		return labels, note, "none", nil
	}
	all := eval.NewLabels()
	all.Outcomes = outcomes
	var notes, ids []string
	for _, f := range files {
		ls, probs, err := eval.ReadLabelsWith(bytes.NewReader(f.data), eval.LabelOptions{Outcomes: outcomes})
		if err != nil {
			return nil, "", "", fmt.Errorf("--labels %s: %w", f.name, err)
		}
		for _, p := range probs {
			fmt.Fprintf(stderr, "%s:%d: label: %s\n", f.name, p.Line, p.Detail)
		}
		for _, k := range ls.Keys() {
			if _, dup := all.Get(k); dup {
				fmt.Fprintf(stderr, "%s: label: %s is labelled in an earlier --labels file too; this file's label counts\n", f.name, k)
			}
			rec, _ := ls.Get(k)
			all.Set(rec)
		}
		notes = append(notes, fmt.Sprintf("%s: %d labelled", f.name, ls.Len()))
		ids = append(ids, filepath.Base(f.name)+" sha256:"+shortHash(f.data))
	}
	return all, strings.Join(notes, "; "), strings.Join(ids, "; "), nil
}

// loadStruggleConfig reads --struggle-config over the defaults.
func loadStruggleConfig(path string) (struggle.StruggleConfig, error) {
	cfg := struggle.DefaultStruggleConfig()
	if path == "" {
		return cfg, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("--struggle-config %s: %w", path, unwrap(err))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("--struggle-config %s: %w (fields: enabled, min_cycles_before_check, filter_repeat_threshold, finding_overlap_threshold, budget_burn_threshold, composite_threshold)", path, err)
	}
	return cfg, nil
}

// parsePassProb reads --fix-pass-prob: "history", one probability for every check, or
// check=probability pairs.
func parsePassProb(s string) (map[string]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "history" {
		return nil, nil
	}
	bad := func(v string) error {
		return fmt.Errorf(`--fix-pass-prob %q: %q is not a probability in [0, 1] (use "history", 0.6, or build=0.8,test=0.5)`, s, v)
	}
	given := map[string]float64{}
	if !strings.Contains(s, "=") {
		p, err := strconv.ParseFloat(s, 64)
		if err != nil || !(p >= 0 && p <= 1) {
			return nil, bad(s)
		}
		for _, c := range []string{filter.CheckBuild, filter.CheckVet, filter.CheckLint, filter.CheckTest, filter.CheckClaims} {
			given[c] = p
		}
		return given, nil
	}
	for _, pair := range strings.Split(s, ",") {
		check, v, _ := strings.Cut(pair, "=")
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(p >= 0 && p <= 1) || strings.TrimSpace(check) == "" {
			return nil, bad(pair)
		}
		given[strings.TrimSpace(check)] = p
	}
	return given, nil
}

func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// singleFile is a file system holding one file of dir, so that a single input file is
// replayed exactly like a folder holding only it.
type singleFile struct {
	dir  fs.FS
	name string
}

func (s singleFile) Open(name string) (fs.File, error) {
	if name == "." {
		return &rootDir{s}, nil
	}
	if name != s.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return s.dir.Open(name)
}

type rootDir struct{ s singleFile }

func (d *rootDir) Stat() (fs.FileInfo, error) { return fs.Stat(d.s.dir, ".") }
func (d *rootDir) Read([]byte) (int, error)   { return 0, errors.New("is a directory") }
func (d *rootDir) Close() error               { return nil }
func (d *rootDir) ReadDir(n int) ([]fs.DirEntry, error) {
	fi, err := fs.Stat(d.s.dir, d.s.name)
	if err != nil {
		return nil, err
	}
	return []fs.DirEntry{fs.FileInfoToDirEntry(fi)}, nil
}

// loadAssessConfig reads --assess-config over the assessment's defaults.
func loadAssessConfig(path string) (assess.Config, error) {
	cfg := assess.DefaultConfig()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("--assess-config %s: %w", path, unwrap(err))
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return cfg, fmt.Errorf("--assess-config %s: %w", path, err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("--assess-config %s: %w", path, err)
	}
	return cfg, nil
}

// sessionLLM returns the session analyzer --llm names: nil for the offline analyzer.
func sessionLLM(o options) (llm.AssessmentLLM, error) {
	switch o.llm {
	case "offline":
		return nil, nil
	case "claude":
		bin, err := exec.LookPath(o.claudePath)
		if err != nil {
			return nil, fmt.Errorf("--llm claude: %w (install Claude Code or pass --claude-path; --llm offline needs no binary)", err)
		}
		return llm.NewHarnessLLM(llm.HarnessConfig{Binary: bin}), nil
	}
	return nil, fmt.Errorf("--llm %q: use offline (default, deterministic, no network) or claude (runs claude --print)", o.llm)
}
