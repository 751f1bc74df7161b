package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/internal/benchcmp"
)

// workload is one input every variant replays.
type workload struct {
	name   string
	about  string
	in     string   // the folder replayed
	labels []string // label files
	files  int
	bytes  int64
}

// replayArgs are the arguments of a replay of w writing into out.
func (w workload) replayArgs(out string, workers int) []string {
	return w.replayTo(filepath.Join(out, "results.parquet"), workers)
}

// replayTo is the replay's arguments with --out path.
func (w workload) replayTo(path string, workers int, more ...string) []string {
	args := []string{"--in", w.in}
	for _, l := range w.labels {
		args = append(args, "--labels", l)
	}
	return append(append(args, "--out", path, "--workers", strconv.Itoa(workers)), more...)
}

// generated writes a dataset with datagen into dir and returns it as a workload:
// dir/inputs replayed, with every label file datagen wrote.
func generated(ctx context.Context, datagen, dir, name, about string, args ...string) (workload, error) {
	cmd := exec.CommandContext(ctx, datagen, append(args, "--out", dir)...)
	cmd.Stdout = nil
	if _, err := benchcmp.Run(cmd); err != nil {
		return workload{}, fmt.Errorf("workload %s: %w", name, err)
	}
	labels, err := filepath.Glob(filepath.Join(dir, "labels", "*.csv"))
	if err != nil {
		return workload{}, err
	}
	w := workload{name: name, about: about + " (datagen " + strings.Join(args, " ") + ")", in: filepath.Join(dir, "inputs"), labels: labels}
	return w, w.measure()
}

// measure counts the workload's files and bytes.
func (w *workload) measure() error {
	w.files, w.bytes = 0, 0
	err := filepath.WalkDir(w.in, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		w.files++
		w.bytes += info.Size()
		return nil
	})
	if err == nil {
		w.about += fmt.Sprintf("; %d files, %s", w.files, benchcmp.Bytes(float64(w.bytes)))
	}
	return err
}

// copyIDs returns b with every uuid (8-4-4-4-12 lower-case hex digits, the ids
// Claude Code transcripts carry: session ids, record uuids, parent uuids) mapped to its
// nth copy: its first 32 bits XORed with a mask that is different for every copy
// (copy 0 keeps them). Within a copy the mapping is one-to-one, so references between
// records stay intact, while copies share no session id (the replay skips a session
// it has read before).
func copyIDs(b []byte, nth int) []byte {
	if nth == 0 {
		return b
	}
	out := slices.Clone(b)
	mask := uint32(nth) * 0x9e3779b1 // odd: distinct for every copy
	// A uuid starts 8 bytes before a '-': visit those starts, in order.
	for i := 0; i+36 <= len(out); {
		j := bytes.IndexByte(out[i+8:], '-')
		if j < 0 {
			break
		}
		i += j
		if i+36 > len(out) || !isUUID(out[i:i+36]) {
			i++
			continue
		}
		v, _ := strconv.ParseUint(string(out[i:i+8]), 16, 32)
		copy(out[i:i+8], fmt.Sprintf("%08x", uint32(v)^mask))
		i += 36
	}
	return out
}

// isUUID reports whether b (36 bytes) is a lower-case hex uuid.
func isUUID(b []byte) bool {
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}

// corpusCopies writes copies of the Claude Code corpus in src into dir/copy-NN/, each
// with its ids mapped by [copyID], and their labels into dir/labels.csv, and returns
// the workload. Only the transcripts (*.jsonl) and labels.csv are read.
func corpusCopies(src, dir string, copies int) (workload, error) {
	var transcripts []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			transcripts = append(transcripts, p)
		}
		return err
	})
	if err != nil {
		return workload{}, err
	}
	labelsIn, err := os.ReadFile(filepath.Join(src, "labels.csv"))
	if err != nil {
		return workload{}, err
	}
	rows, err := csv.NewReader(bytes.NewReader(labelsIn)).ReadAll()
	if err != nil || len(rows) < 2 {
		return workload{}, fmt.Errorf("%s: labels.csv: %v (%d rows)", src, err, len(rows))
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	idCol, fileCol, frictionCol := col("session_id"), col("file"), col("friction_uuids")
	if idCol < 0 || fileCol < 0 || frictionCol < 0 {
		return workload{}, fmt.Errorf("%s: labels.csv lacks session_id, file or friction_uuids", src)
	}
	in := filepath.Join(dir, "inputs")
	labels := [][]string{rows[0]}
	for c := range copies {
		prefix := fmt.Sprintf("copy-%02d", c)
		for _, p := range transcripts {
			rel, _ := filepath.Rel(src, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return workload{}, err
			}
			out := filepath.Join(in, prefix, string(copyIDs([]byte(rel), c)))
			if err := writeFile(out, bytes.NewReader(copyIDs(data, c)), 0o644); err != nil {
				return workload{}, err
			}
		}
		for _, r := range rows[1:] {
			r = slices.Clone(r)
			r[idCol] = string(copyIDs([]byte(r[idCol]), c))
			r[fileCol] = prefix + "/" + string(copyIDs([]byte(r[fileCol]), c))
			r[frictionCol] = string(copyIDs([]byte(r[frictionCol]), c))
			labels = append(labels, r)
		}
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	if err := cw.WriteAll(labels); err != nil {
		return workload{}, err
	}
	labelFile := filepath.Join(dir, "labels.csv")
	if err := os.WriteFile(labelFile, buf.Bytes(), 0o644); err != nil {
		return workload{}, err
	}
	w := workload{
		name: fmt.Sprintf("corpus-x%d", copies), in: in, labels: []string{labelFile},
		about: fmt.Sprintf("the Claude Code corpus (%s), %d copies with their ids remapped per copy, %d labelled sessions", src, copies, len(labels)-1),
	}
	return w, w.measure()
}
