package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
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
// dropped. The labels files, sorted by run key and by file, are gathered a few
// thousand rows at a time, each batch sorted and spilled to a scratch file in the
// system's temporary folder, and merged when the file is written: memory holds one
// run, session or log and at most heldLabels label rows, however large the dataset.
// The files are byte for byte those of [DatasetFiles].
func WriteDataset(dest Dest, cfg DatasetConfig) (Written, error) {
	return writeDataset(dest, cfg, heldLabels)
}

// writeDataset is WriteDataset holding at most held label rows of each labels file in
// memory (the rest spilled, sorted, to a scratch file until the file is written).
func writeDataset(dest Dest, cfg DatasetConfig, held int) (w Written, err error) {
	if cfg.Runs > 0 {
		if err := writeRuns(dest, Config{Runs: cfg.Runs, Seed: cfg.Seed, RerunEvery: cfg.RerunEvery, FixLoopEvery: cfg.FixLoopEvery}, held, &w); err != nil {
			return w, err
		}
	}
	labels := newLabelSorter(held)
	defer func() { err = errors.Join(err, labels.close()) }()
	if cfg.Sessions > 0 {
		for s := range Sessions(SessionConfig{Sessions: cfg.Sessions, Seed: cfg.Seed}) {
			for _, name := range slices.Sorted(maps.Keys(s.Files)) {
				if err := writeFile(dest, path.Join(InputsDir, name), s.Files[name]); err != nil {
					return w, err
				}
				w.Sessions++
			}
			if err := labels.add(sessionLabelKey(s.Label), sessionLabelRow(s.Label)); err != nil {
				return w, err
			}
		}
	}
	for i := range cfg.VibesLogs {
		l := GenerateVibesLog(datasetVibesConfig(cfg, i))
		if err := writeFile(dest, path.Join(InputsDir, l.File), l.Data); err != nil {
			return w, err
		}
		w.Vibes++
		for _, label := range l.Labels {
			if err := labels.add(sessionLabelKey(label), sessionLabelRow(label)); err != nil {
				return w, err
			}
		}
	}
	if !labels.empty() {
		if err := writeWith(dest, SessionLabelsFile, func(out io.Writer) error { return labels.writeTo(out, sessionLabelHeader) }); err != nil {
			return w, err
		}
		w.Labels = append(w.Labels, SessionLabelsFile)
	}
	return w, nil
}

// sessionLabelKey is what a session's label row is sorted by in its file: the file,
// then the session id (SessionLabels' order; no file or id holds a NUL).
func sessionLabelKey(l SessionLabel) string { return l.File + "\x00" + l.SessionID }

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
func writeRuns(dest Dest, cfg Config, held int, w *Written) (err error) {
	var (
		out    io.WriteCloser
		file   string
		enc    *json.Encoder
		labels = newLabelSorter(held)
	)
	defer func() { err = errors.Join(err, labels.close()) }()
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
		if err := labels.add(r.Key, labelOf(r).row()); err != nil {
			return err
		}
	}
	if closeOut(); err != nil {
		return err
	}
	if err := writeWith(dest, RunLabelsFile, func(out io.Writer) error { return labels.writeTo(out, runLabelHeader) }); err != nil {
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
