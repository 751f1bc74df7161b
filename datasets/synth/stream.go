package synth

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A Dest receives the files of a dataset as [WriteDataset] generates them.
type Dest interface {
	// Create opens the file name — slash-separated, relative to the dataset's folder —
	// for writing. Each file is written whole and closed before the next is created,
	// and no name is created twice.
	Create(name string) (io.WriteCloser, error)
}

// DirDest writes a dataset's files under the folder it names, creating folders as
// needed; a file already there is overwritten.
type DirDest string

// Create implements [Dest].
func (d DirDest) Create(name string) (io.WriteCloser, error) {
	p := filepath.Join(string(d), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &bufferedFile{Writer: bufio.NewWriterSize(f, 64<<10), f: f}, nil
}

type bufferedFile struct {
	*bufio.Writer
	f *os.File
}

func (b *bufferedFile) Close() error {
	return errors.Join(b.Flush(), b.f.Close())
}

// memDest keeps a dataset's files in memory.
type memDest map[string][]byte

func (m memDest) Create(name string) (io.WriteCloser, error) { return &memFile{m: m, name: name}, nil }

type memFile struct {
	bytes.Buffer
	m    memDest
	name string
}

func (f *memFile) Close() error {
	f.m[f.name] = f.Bytes()
	return nil
}

// Written is what [WriteDataset] wrote.
type Written struct {
	// Runs, Sessions and Vibes count the input files of each part: run traces,
	// Claude Code transcripts (subagents included) and vibes event logs.
	Runs, Sessions, Vibes int
	// Labels lists the label files written (RunLabelsFile, SessionLabelsFile).
	Labels []string
}

// WriteDataset generates the dataset of cfg into dest, laid out by [Layout], one run,
// session and log at a time: each is written as soon as it is played out and then
// dropped, so memory holds one of them and the labels of those written so far (a
// few dozen bytes a run, a few hundred a session), however large the dataset. The
// files are byte for byte those of [DatasetFiles].
func WriteDataset(dest Dest, cfg DatasetConfig) (Written, error) {
	var w Written
	if cfg.Runs > 0 {
		if err := writeRuns(dest, Config{Runs: cfg.Runs, Seed: cfg.Seed, RerunEvery: cfg.RerunEvery}, &w); err != nil {
			return w, err
		}
	}
	var labels []keptLabel
	if cfg.Sessions > 0 {
		for s := range Sessions(SessionConfig{Sessions: cfg.Sessions, Seed: cfg.Seed}) {
			for _, name := range slices.Sorted(maps.Keys(s.Files)) {
				if err := writeFile(dest, path.Join(InputsDir, name), s.Files[name]); err != nil {
					return w, err
				}
				w.Sessions++
			}
			labels = append(labels, keepLabel(s))
		}
	}
	for i := range cfg.VibesLogs {
		l := GenerateVibesLog(datasetVibesConfig(cfg, i))
		if err := writeFile(dest, path.Join(InputsDir, l.File), l.Data); err != nil {
			return w, err
		}
		w.Vibes++
		for k := range l.Labels {
			labels = append(labels, keptLabel{id: l.Labels[k].SessionID, whole: &l.Labels[k]})
		}
	}
	if len(labels) > 0 {
		if err := writeWith(dest, SessionLabelsFile, func(out io.Writer) error { return writeKeptLabels(out, labels) }); err != nil {
			return w, err
		}
		w.Labels = append(w.Labels, SessionLabelsFile)
	}
	return w, nil
}

// keptLabel is a session's label as WriteDataset keeps it until the labels file is
// written: a generated session's without what its scenario gives (the file's folder,
// the outcome, the notes), a vibes log session's whole.
type keptLabel struct {
	id       string
	scenario SessionScenario
	humans   int
	friction []string
	whole    *SessionLabel // a vibes log session's label; nil for a generated session
}

func keepLabel(s Session) keptLabel {
	k := keptLabel{id: s.Label.SessionID, scenario: s.Scenario, humans: s.Label.HumanMsgs, friction: s.Label.Friction}
	if full := k.label(); full.File != s.Label.File || full.Notes != s.Label.Notes || full.Outcome != s.Label.Outcome {
		panic("synth: a session's label is not the one its scenario gives") // playSession and label disagree
	}
	return k
}

// fileParts returns the label's file as two parts to be joined.
func (k *keptLabel) fileParts() (string, string) {
	if k.whole != nil {
		return k.whole.File, ""
	}
	return sessionDir(k.scenario) + "/", k.id + ".jsonl"
}

// sessionDir is the folder of a scenario's session files, relative to the inputs.
func sessionDir(sc SessionScenario) string { return "sessions/" + sessionScripts[sc].project.dir() }

// label returns the whole label.
func (k *keptLabel) label() SessionLabel {
	if k.whole != nil {
		return *k.whole
	}
	script := sessionScripts[k.scenario]
	dir, file := k.fileParts()
	return SessionLabel{SessionID: k.id, File: dir + file, Outcome: script.outcome, Confidence: "high", HumanMsgs: k.humans,
		Friction: k.friction, Notes: "Synthetic " + string(k.scenario) + ": " + script.notes}
}

// writeKeptLabels writes labels as SessionLabels renders them, in the same order: it
// sorts them by the same keys (file, then session id) over the same input, so the
// sort makes the same moves.
func writeKeptLabels(out io.Writer, labels []keptLabel) error {
	slices.SortFunc(labels, func(a, b keptLabel) int {
		a1, a2 := a.fileParts()
		b1, b2 := b.fileParts()
		if c := compareJoined(a1, a2, b1, b2); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	w := csv.NewWriter(out)
	w.Write(sessionLabelHeader)
	for i := range labels {
		w.Write(sessionLabelRow(labels[i].label()))
	}
	w.Flush()
	return w.Error()
}

// compareJoined compares a1+a2 with b1+b2 without joining them.
func compareJoined(a1, a2, b1, b2 string) int {
	for {
		switch {
		case a1 == "" && a2 == "":
			if b1 == "" && b2 == "" {
				return 0
			}
			return -1
		case b1 == "" && b2 == "":
			return 1
		case a1 == "":
			a1, a2 = a2, ""
			continue
		case b1 == "":
			b1, b2 = b2, ""
			continue
		}
		n := min(len(a1), len(b1))
		if c := strings.Compare(a1[:n], b1[:n]); c != 0 {
			return c
		}
		a1, b1 = a1[n:], b1[n:]
	}
}

// datasetVibesConfig is the configuration of a dataset's i-th vibes log.
func datasetVibesConfig(cfg DatasetConfig, i int) VibesConfig {
	vc := VibesConfig{Seed: cfg.Seed + uint64(i), Start: SampleVibesConfig().Start.Add(time.Duration(i) * 2 * time.Hour)}
	if cfg.VibesLogs > 1 {
		vc.File = fmt.Sprintf("vibes/vibes-events-%04d.jsonl", i+1)
	}
	return vc
}

// writeRuns writes the runs of cfg as trace files, and their labels. The runs of one
// file follow each other (a re-run joins the file of the run just before it), so one
// file is open at a time.
func writeRuns(dest Dest, cfg Config, w *Written) (err error) {
	var (
		out    io.WriteCloser
		file   string
		enc    *json.Encoder
		labels []runLabel
	)
	closeOut := func() {
		if out != nil {
			err = errors.Join(err, out.Close())
			out = nil
		}
	}
	defer closeOut()
	for r := range Runs(cfg) {
		if out == nil || r.File != file {
			if closeOut(); err != nil {
				return err
			}
			if out, err = dest.Create(path.Join(InputsDir, "runs", r.File)); err != nil {
				return err
			}
			file = r.File
			w.Runs++
			enc = json.NewEncoder(out)
			enc.SetEscapeHTML(false)
		}
		for _, ev := range r.Events {
			if err := enc.Encode(ev); err != nil {
				return fmt.Errorf("synth: writing %s: %w", r.File, err)
			}
		}
		labels = append(labels, labelOf(r))
	}
	if closeOut(); err != nil {
		return err
	}
	if err := writeWith(dest, RunLabelsFile, func(out io.Writer) error { return writeRunLabels(out, labels) }); err != nil {
		return err
	}
	w.Labels = append(w.Labels, RunLabelsFile)
	return nil
}

func writeFile(dest Dest, name string, data []byte) error {
	return writeWith(dest, name, func(out io.Writer) error {
		_, err := out.Write(data)
		return err
	})
}

// writeWith creates name in dest and has write fill it.
func writeWith(dest Dest, name string, write func(io.Writer) error) error {
	f, err := dest.Create(name)
	if err != nil {
		return err
	}
	return errors.Join(write(f), f.Close())
}
