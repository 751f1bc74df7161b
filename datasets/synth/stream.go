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
	var labels []SessionLabel
	if cfg.Sessions > 0 {
		for s := range Sessions(SessionConfig{Sessions: cfg.Sessions, Seed: cfg.Seed}) {
			for _, name := range slices.Sorted(maps.Keys(s.Files)) {
				if err := writeFile(dest, path.Join(InputsDir, name), s.Files[name]); err != nil {
					return w, err
				}
				w.Sessions++
			}
			labels = append(labels, s.Label)
		}
	}
	for i := range cfg.VibesLogs {
		l := GenerateVibesLog(datasetVibesConfig(cfg, i))
		if err := writeFile(dest, path.Join(InputsDir, l.File), l.Data); err != nil {
			return w, err
		}
		w.Vibes++
		labels = append(labels, l.Labels...)
	}
	if len(labels) > 0 {
		if err := writeFile(dest, SessionLabelsFile, SessionLabels(labels)); err != nil {
			return w, err
		}
		w.Labels = append(w.Labels, SessionLabelsFile)
	}
	return w, nil
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
	if err := writeFile(dest, RunLabelsFile, runLabelsCSV(labels)); err != nil {
		return err
	}
	w.Labels = append(w.Labels, RunLabelsFile)
	return nil
}

func writeFile(dest Dest, name string, data []byte) error {
	f, err := dest.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}
