package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopwatch/loopwatch/analyze/assess/duration"
	"github.com/loopwatch/loopwatch/analyze/assess/llm"
	"github.com/loopwatch/loopwatch/analyze/fixloop/filter"
	"github.com/loopwatch/loopwatch/datasets"
	"github.com/loopwatch/loopwatch/eval"
	"github.com/loopwatch/loopwatch/replay"
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
		return replay.DirFS(in), in, nil
	}
	return newFileAndCompanions(replay.DirFS(filepath.Dir(in)), filepath.Base(in)), in, nil
}

// isStream reports whether in names one file that is not a regular file (/dev/stdin,
// a named pipe, a process substitution): it is read once, as a stream.
func isStream(in string) bool {
	if in == "" {
		return false
	}
	fi, err := os.Stat(in)
	return err == nil && !fi.IsDir() && !fi.Mode().IsRegular()
}

// labelSet is the labels of a replay: the merged records, a line for the summary, an
// identifier for the metadata, and what reading them found.
type labelSet struct {
	labels   *eval.Labels
	note, id string
	explicit bool    // read from files (or the sample's), not only derived
	warnings []error // label problems and keys labelled twice
	problems int     // the label problems among the warnings: the files' bad rows
	// files are the --labels files the labels stay in (read again for each unit, see
	// eval.Labels), open until close.
	files []labelFile
}

// labelFile is a --labels file the labels stay in, and what it was when read.
type labelFile struct {
	f    *os.File
	info os.FileInfo
}

// close closes the label files. It fails when a label could not be read again, or a
// file changed (its size or modification time) after it was read: the labels the
// replay read are then not the file's, and its results must not stand.
func (s *labelSet) close() error {
	var errs []error
	if s.labels != nil {
		if err := s.labels.Err(); err != nil {
			errs = append(errs, fmt.Errorf("--labels: %w", err))
		}
	}
	for _, lf := range s.files {
		if fi, err := lf.f.Stat(); err == nil && (fi.Size() != lf.info.Size() || !fi.ModTime().Equal(lf.info.ModTime())) {
			errs = append(errs, fmt.Errorf("--labels %s: %w during the replay", lf.f.Name(), eval.ErrLabelsChanged))
		}
		if err := lf.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--labels %s: %w", lf.f.Name(), err))
		}
	}
	s.files = nil
	return errors.Join(errs...)
}

// labelsReadHook, when set (by tests), is called with each --labels file once its
// labels are read.
var labelsReadHook func(name string)

// loadLabels reads every --labels file (or, replaying the built-in sample, its
// labels) into one label set: a key labelled in two files keeps the later file's
// label, and that is a warning. A file none of whose rows is usable is an error.
// The labels of a regular file stay in it (eval.LabelOptions.Source): the set holds
// the file open, for labelSet.close to close.
func loadLabels(s Settings, outcomes eval.OutcomeClass) (set labelSet, err error) {
	defer func() {
		if err != nil {
			set.close()
		}
	}()
	type file struct {
		name string
		read func(opts eval.LabelOptions) (*eval.Labels, []eval.LabelProblem, string, error) // and the file's hash
	}
	var files []file
	switch {
	case len(s.Labels) > 0:
		for _, name := range s.Labels {
			files = append(files, file{name, func(opts eval.LabelOptions) (*eval.Labels, []eval.LabelProblem, string, error) {
				return set.readFile(name, opts)
			}})
		}
	case s.In == "":
		for _, f := range []struct {
			name string
			data []byte
		}{{datasets.SampleName + " run labels", datasets.SampleLabels()}, {datasets.SampleName + " session labels", datasets.SampleSessionLabels()}} {
			files = append(files, file{f.name, func(opts eval.LabelOptions) (*eval.Labels, []eval.LabelProblem, string, error) {
				opts.Source = bytes.NewReader(f.data)
				ls, probs, err := eval.ReadLabelsWith(bytes.NewReader(f.data), opts)
				return ls, probs, shortHash(f.data), err
			}})
		}
	default:
		note := "none (pass --labels or --derive-labels to score the detectors)"
		if s.DeriveLabels {
			note = "none"
		}
		labels := eval.NewLabels()
		labels.Outcomes = outcomes
		return labelSet{labels: labels, note: note, id: "none"}, nil
	}
	all := eval.NewLabels()
	all.Outcomes = outcomes
	set.labels, set.explicit = all, true
	var notes, ids []string
	for _, f := range files {
		ls, probs, hash, err := f.read(eval.LabelOptions{Outcomes: outcomes, NoText: true, Name: f.name})
		if err != nil {
			return set, fmt.Errorf("--labels %s: %w", f.name, err)
		}
		if ls.Len() == 0 && len(probs) > 0 {
			return set, fmt.Errorf("--labels %s: none of its %d rows is usable (line %d: %s)", f.name, len(probs), probs[0].Line, probs[0].Detail)
		}
		if ls.Len() == 0 {
			return set, fmt.Errorf("--labels %s: no label rows (the file is empty, or a header only)", f.name)
		}
		for _, p := range probs {
			set.warnings = append(set.warnings, fmt.Errorf("%s:%d: label: %s", f.name, p.Line, p.Detail))
		}
		set.problems += len(probs)
		if all.Len() == 0 { // the first labels read are the set's, not a copy of them
			all, set.labels = ls, ls
			all.Outcomes = outcomes
		} else {
			// The earlier labels of the keys this file labels again, for the warnings.
			earlier := map[string]eval.LabelRecord{}
			if err := ls.EachKey(func(_ int, k string) {
				if r, ok := all.Get(k); ok {
					earlier[k] = r
				}
			}); err != nil {
				return set, fmt.Errorf("--labels %s: %w", f.name, err)
			}
			both, err := all.Merge(ls)
			if err != nil {
				return set, fmt.Errorf("--labels %s: %w", f.name, err)
			}
			for _, k := range both {
				now, _ := ls.Get(k)
				old := earlier[k]
				set.warnings = append(set.warnings, fmt.Errorf("%s:%d: label: %s is labelled in an earlier --labels file too (%s at its line %d; %s here); this file's label counts",
					f.name, now.Line, k, labelText(old), old.Line, labelText(now)))
			}
		}
		notes = append(notes, fmt.Sprintf("%s: %d labelled", f.name, ls.Len()))
		ids = append(ids, filepath.Base(f.name)+" sha256:"+hash)
		if labelsReadHook != nil {
			labelsReadHook(f.name)
		}
	}
	set.note, set.id = strings.Join(notes, "; "), strings.Join(ids, "; ")
	return set, nil
}

// labelText is a label as a warning shows it: its label, and its outcome when it has one.
func labelText(r eval.LabelRecord) string {
	switch {
	case r.Outcome == "":
		return string(r.Label)
	case r.Label == "":
		return r.Outcome
	}
	return fmt.Sprintf("%s (%s)", r.Label, r.Outcome)
}

// readFile reads the labels of a --labels file and returns them with the hash of its
// bytes. A regular file's labels stay in it: the file is kept open in set.files. A
// file of another kind (a pipe, /dev/stdin) is read once, into memory.
func (set *labelSet) readFile(name string, opts eval.LabelOptions) (*eval.Labels, []eval.LabelProblem, string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, "", unwrap(err)
	}
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		f.Close()
		if err == nil {
			err = errors.New("is a directory")
		}
		return nil, nil, "", unwrap(err)
	}
	sum := sha256.New()
	var r io.Reader = io.TeeReader(f, sum)
	if info.Mode().IsRegular() {
		set.files = append(set.files, labelFile{f, info})
		opts.Source = f
		r = io.TeeReader(io.NewSectionReader(f, 0, info.Size()), sum)
	} else {
		defer f.Close()
	}
	ls, probs, err := eval.ReadLabelsWith(r, opts)
	if err == nil {
		_, err = io.Copy(sum, r) // what the reading left: the hash is of every byte
	}
	if err != nil {
		return nil, nil, "", err
	}
	return ls, probs, shortSum(sum), nil
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
	checks := filter.CheckNames()
	if !strings.Contains(s, "=") {
		p, err := strconv.ParseFloat(s, 64)
		if err != nil || !(p >= 0 && p <= 1) {
			return nil, bad(s)
		}
		for _, c := range checks {
			given[c] = p
		}
		return given, nil
	}
	for _, pair := range strings.Split(s, ",") {
		check, v, _ := strings.Cut(pair, "=")
		check = strings.TrimSpace(check)
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(p >= 0 && p <= 1) || check == "" {
			return nil, bad(pair)
		}
		// A name the chain does not have would be ignored (its runs, an input problem
		// of their own, keep their history): a typo must not fall back silently.
		if !slices.Contains(checks, check) {
			return nil, fmt.Errorf("--fix-pass-prob %q: %q is not a check of quasar's filter chain (%s)", s, check, strings.Join(checks, ", "))
		}
		if _, twice := given[check]; twice {
			return nil, fmt.Errorf("--fix-pass-prob %q: check %q is given twice", s, check)
		}
		given[check] = p
	}
	return given, nil
}

func shortHash(b []byte) string {
	h := sha256.New()
	h.Write(b)
	return shortSum(h)
}

// shortSum is shortHash of what was written to h (a SHA-256).
func shortSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)[:8]) }

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileAndCompanions is a file system holding one file of dir and the files that
// belong to it — a Claude Code transcript's subagent folder (<stem>/subagents/…) —
// so that a single input file is replayed exactly like a folder holding only them.
type fileAndCompanions struct {
	dir  fs.FS
	name string
	stem string // the companion folder's name: name without ".jsonl"
}

func newFileAndCompanions(dir fs.FS, name string) fileAndCompanions {
	return fileAndCompanions{dir: dir, name: name, stem: strings.TrimSuffix(name, ".jsonl")}
}

// keep reports whether name (slash-separated, relative to dir) is in the file system.
func (s fileAndCompanions) keep(name string) bool {
	if name == "." || name == s.name {
		return true
	}
	if !strings.HasSuffix(s.name, ".jsonl") {
		return false
	}
	sub := s.stem + "/subagents"
	return name == s.stem || name == sub || strings.HasPrefix(name, sub+"/")
}

func (s fileAndCompanions) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) || !s.keep(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f, err := s.dir.Open(name)
	if err != nil {
		return nil, err
	}
	if d, ok := f.(fs.ReadDirFile); ok {
		return filteredDir{ReadDirFile: d, s: s, name: name}, nil
	}
	return f, nil
}

func (s fileAndCompanions) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) || !s.keep(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	entries, err := fs.ReadDir(s.dir, name)
	return s.filter(name, entries), err
}

func (s fileAndCompanions) filter(dir string, entries []fs.DirEntry) []fs.DirEntry {
	out := entries[:0:0]
	for _, e := range entries {
		if s.keep(path.Join(dir, e.Name())) {
			out = append(out, e)
		}
	}
	return out
}

// filteredDir is a directory of a fileAndCompanions, listing only what it holds.
type filteredDir struct {
	fs.ReadDirFile
	s    fileAndCompanions
	name string
}

func (d filteredDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n > 0 {
		return nil, errors.New("fileAndCompanions: partial directory reads are not supported")
	}
	entries, err := d.ReadDirFile.ReadDir(-1)
	return d.s.filter(d.name, entries), err
}

// sessionLLM returns the session analyzer --llm names: nil for the offline analyzer.
// A claude call is bounded by s.ClaudeTimeout; one still running after
// s.ClaudeProgress is reported to s.Progress while it runs, and its end too.
func sessionLLM(s Settings) (llm.AssessmentLLM, error) {
	switch s.LLM {
	case "offline":
		return nil, nil
	case "claude":
		bin, err := exec.LookPath(s.ClaudePath)
		if err != nil {
			return nil, fmt.Errorf("--llm claude: %w (install Claude Code or pass --claude-path; --llm offline needs no binary)", err)
		}
		cfg := llm.DefaultHarnessConfig()
		cfg.Binary = bin
		cfg.Timeout, cfg.ProgressEvery, cfg.Now = duration.Duration(s.ClaudeTimeout), duration.Duration(s.ClaudeProgress), time.Now
		if s.Progress != nil {
			cfg.Progress = func(c llm.Call) {
				switch {
				case c.Done && c.Elapsed >= cfg.ProgressEvery.Std():
					s.Progress(fmt.Sprintf("claude: %s of session %s ended after %s (%v)", c.Kind, c.SessionID, c.Elapsed.Round(time.Second), errOrOK(c.Err)))
				case !c.Done && c.Elapsed > 0:
					s.Progress(fmt.Sprintf("claude: %s of session %s running for %s", c.Kind, c.SessionID, c.Elapsed.Round(time.Second)))
				}
			}
		}
		return llm.NewHarnessLLM(cfg), nil
	}
	return nil, fmt.Errorf("--llm %q: use offline (default, deterministic, no network) or claude (runs claude --print)", s.LLM)
}

func errOrOK(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
