package pipeline

import (
	"container/heap"
	"context"
	"fmt"
	"os"

	"github.com/loopwatch/loopwatch/replay"
	"github.com/loopwatch/loopwatch/reports"
)

// mergeBatch is how many rows of each shard's table the merge reads at a time.
const mergeBatch = 256

// mergeFanIn is how many shards' parts of a table the merge reads at once (each
// holds a batch and a page a column, some 1 MB): a set of more shards is merged in
// groups of this many into scratch files first, then those, so that what the merge
// holds does not grow with the number of shards.
const mergeFanIn = 16

// eachInReplayOrder calls f with the rows of every shard's part of table, in the order
// a replay not split delivers their units — the unit's file path, then its key — with
// a unit's rows together, as each shard wrote them. Each shard's part is read a batch
// at a time, after its content is checked against its manifest, and at most
// set.fanIn() parts at once: past that, groups of them are merged into scratch files
// (made by scratch) that are merged in turn. What the merge holds is a batch per
// part it reads, whatever the replay's size and the number of shards. unit gives a
// row's unit.
//
// It checks what the order rests on, and refuses the set otherwise: each shard's rows
// come in that order, and each unit's key is its shard's (a shard replays only the
// units whose key hashes to it), so no unit comes from two shards.
func eachInReplayOrder[T any](ctx context.Context, set *shardSet, scratch func(name string) (*os.File, error), table string, unit func(*T) (kind, file, key string), f func(*T) error) error {
	return eachInOrder(ctx, set, scratch, table, true, unit, f)
}

// eachInOrder is eachInReplayOrder, checking that each row's key is its shard's only
// when byKey (a table of units; the inputs table's rows go by file, each the shard's
// that reports on the file).
func eachInOrder[T any](ctx context.Context, set *shardSet, scratch func(name string) (*os.File, error), table string, byKey bool, unit func(*T) (kind, file, key string), f func(*T) error) error {
	count := len(set.manifests)
	parts := make([]func() (*shardRows[T], error), count)
	for i, m := range set.manifests {
		parts[i] = func() (*shardRows[T], error) {
			path, err := verifiedPart(set, m, table)
			if err != nil {
				return nil, err
			}
			rd, err := reports.OpenRows[T](path, mergeBatch)
			if err != nil {
				return nil, err
			}
			s := &shardRows[T]{path: path, rd: rd}
			if byKey {
				s.shard = &replay.Shard{Index: shardIndex(m), Count: count}
			}
			return s, nil
		}
	}
	for fanIn := set.fanIn(); len(parts) > fanIn; {
		var merged []func() (*shardRows[T], error)
		for g := 0; g < len(parts); g += fanIn {
			path, err := mergeInto(ctx, set.dir, scratch, table, parts[g:min(g+fanIn, len(parts))], unit)
			if err != nil {
				return err
			}
			merged = append(merged, func() (*shardRows[T], error) {
				rd, err := reports.OpenRows[T](path, mergeBatch)
				return &shardRows[T]{path: path, rd: rd}, err
			})
		}
		parts = merged
	}
	return mergeParts(ctx, set.dir, parts, unit, f)
}

// mergeInto merges parts into a scratch file and returns its path.
func mergeInto[T any](ctx context.Context, dir string, scratch func(name string) (*os.File, error), table string, parts []func() (*shardRows[T], error), unit func(*T) (kind, file, key string)) (string, error) {
	file, err := scratch("merge." + table)
	if err != nil {
		return "", err
	}
	w := reports.NewRowFile[T](file)
	if err := mergeParts(ctx, dir, parts, unit, func(r *T) error { return w.Write(*r) }); err != nil {
		return "", err
	}
	return file.Name(), w.Close()
}

// mergeParts opens parts and calls f with their rows merged in unit order.
func mergeParts[T any](ctx context.Context, dir string, parts []func() (*shardRows[T], error), unit func(*T) (kind, file, key string), f func(*T) error) error {
	h := &unitHeap[T]{unit: unit, dir: dir}
	defer func() {
		for _, s := range h.all {
			s.rd.Close()
		}
	}()
	for _, open := range parts {
		s, err := open()
		if err != nil {
			return err
		}
		h.all = append(h.all, s)
		if err := h.advance(s); err != nil {
			return err
		}
		if s.head != nil {
			heap.Push(h, s)
		}
	}
	for n := 0; h.Len() > 0; n++ {
		if n%4096 == 0 && ctx.Err() != nil { // a merge stopped is an error, never part of the metrics
			return ctx.Err()
		}
		s := h.streams[0]
		if err := f(s.head); err != nil {
			return err
		}
		if err := h.advance(s); err != nil {
			return err
		}
		if s.head == nil {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return nil
}

// shardRows is one shard's rows of a table being merged, or those of a group of shards
// merged into a scratch file (shard nil): the row next in line.
type shardRows[T any] struct {
	shard     *replay.Shard
	path      string
	rd        *reports.RowReader[T]
	head      *T
	file, key string // head's unit
}

// unitHeap orders the shards by their next row's unit.
type unitHeap[T any] struct {
	dir     string // the set's folder, for errors
	unit    func(*T) (kind, file, key string)
	streams []*shardRows[T]
	all     []*shardRows[T]
}

// advance moves s to its next row (head nil at its end), checking that it comes in
// order and is of a unit of s's shard.
func (h *unitHeap[T]) advance(s *shardRows[T]) error {
	r := s.rd.Next()
	if r == nil {
		s.head = nil
		return s.rd.Err()
	}
	kind, file, key := h.unit(r)
	if s.head != nil && (file < s.file || file == s.file && key < s.key) {
		return &SetError{Dir: h.dir, Reason: fmt.Sprintf("%s: %s %s of %s comes after %s of %s: not in the order the replay writes, file path then key",
			s.path, kind, key, file, s.key, s.file)}
	}
	if s.shard != nil && !s.shard.Owns(key) {
		return &SetError{Dir: h.dir, Reason: fmt.Sprintf("%s: %s %s is not shard %s's to replay: its key hashes to shard %d",
			s.path, kind, key, s.shard, replay.ShardOf(key, s.shard.Count))}
	}
	s.head, s.file, s.key = r, file, key
	return nil
}

func (h *unitHeap[T]) Len() int { return len(h.streams) }
func (h *unitHeap[T]) Less(i, j int) bool {
	a, b := h.streams[i], h.streams[j]
	return a.file < b.file || a.file == b.file && a.key < b.key
}
func (h *unitHeap[T]) Swap(i, j int) { h.streams[i], h.streams[j] = h.streams[j], h.streams[i] }
func (h *unitHeap[T]) Push(x any)    { h.streams = append(h.streams, x.(*shardRows[T])) }
func (h *unitHeap[T]) Pop() any {
	n := len(h.streams)
	s := h.streams[n-1]
	h.streams = h.streams[:n-1]
	return s
}

// spillShards reads every shard's predictions and fix-loop cases in the order a
// replay not split delivers them into scratch files of out, as a replay to a file
// spills them (n configurations scored): what the derivation reads, the same as that
// replay's. A unit's predictions must come once each, their configurations in order.
func spillShards(ctx context.Context, set *shardSet, out *reports.Output, n int) (*predSpill, caseSource, error) {
	preds, err := newPredSpill(out, n)
	if err != nil {
		return nil, caseSource{}, err
	}
	var last struct {
		file, key string
		config    int32
		started   bool
	}
	err = eachInReplayOrder(ctx, set, out.Scratch, tablePredictions, func(r *reports.PredictionRow) (string, string, string) { return r.Kind, r.File, r.RunKey },
		func(r *reports.PredictionRow) error {
			if last.started && r.File == last.file && r.RunKey == last.key && r.ConfigIndex <= last.config {
				return &SetError{Dir: set.dir, Reason: fmt.Sprintf("predictions: %s %s appears twice", r.Kind, r.RunKey)}
			}
			last.file, last.key, last.config, last.started = r.File, r.RunKey, r.ConfigIndex, true
			return preds.write(r)
		})
	if err == nil {
		err = preds.flush()
	}
	if err != nil {
		return nil, caseSource{}, err
	}

	cases, err := newCaseSpill(out)
	if err != nil {
		return nil, caseSource{}, err
	}
	var run []reports.FixCaseRow // the rows of the run being read: consecutive rows of one run make its case
	addRun := func() error {
		if len(run) == 0 {
			return nil
		}
		c, err := reports.FixCases(run)
		if err != nil {
			return err
		}
		run = run[:0]
		return cases.add(c[0])
	}
	err = eachInReplayOrder(ctx, set, out.Scratch, tableFixCases, func(r *reports.FixCaseRow) (string, string, string) { return "run", r.File, r.RunKey },
		func(r *reports.FixCaseRow) error {
			if len(run) > 0 && (run[0].File != r.File || run[0].RunKey != r.RunKey) {
				if err := addRun(); err != nil {
					return err
				}
			}
			run = append(run, *r)
			return nil
		})
	if err == nil {
		err = addRun()
	}
	if err != nil {
		return nil, caseSource{}, err
	}
	src, err := cases.source()
	return preds, src, err
}

// inputFingerprint folds the shards' inputs tables, in path order, into the input
// fingerprint of the whole replay (replay.Fingerprint): the one a replay not split
// computes. It refuses a set whose shards list a file twice, or list another number of
// files than their summaries count read (files).
func inputFingerprint(ctx context.Context, set *shardSet, scratch func(name string) (*os.File, error), files int) (string, error) {
	fp := replay.NewFingerprint()
	var last string
	n := 0
	err := eachInOrder(ctx, set, scratch, tableInputs, false, func(r *reports.InputRow) (string, string, string) { return "input", r.File, "" },
		func(r *reports.InputRow) error {
			if n > 0 && r.File == last {
				return &SetError{Dir: set.dir, Reason: fmt.Sprintf("the shards' inputs tables list %s twice", r.File)}
			}
			fp.Add(r.File, r.SHA256)
			last = r.File
			n++
			return nil
		})
	if err != nil {
		return "", err
	}
	if n != files {
		return "", &SetError{Dir: set.dir, Reason: fmt.Sprintf("the shards' inputs tables list %d files, their summaries count %d read", n, files)}
	}
	return fp.Sum(), nil
}
