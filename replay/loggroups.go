package replay

import (
	"context"
	"hash/fnv"
	"io/fs"
	"slices"
	"sync"
)

// logGroups are the session files a replay reads together, as parts of one log: the
// files of a format that names the sessions a file holds (format.sessionKeys) that
// share a session, directly or through other files — a vibes log exported in pieces,
// a session going on at a cut split in two, or exports that overlap. A group is read,
// in path order, by the replay of its first file (its lead); each later part delivers
// only its digest, which the lead's read took — as a Claude Code transcript's
// subagents are read with it. A file that holds no session another holds is read
// alone. In a split replay every shard finds the same groups, and a group's problems
// and notes go by its lead's path.
//
// Finding them reads every such file once more before the replay, naming its
// sessions and decoding nothing else of them, when the input holds two files of the
// format or more; what it keeps is a 64-bit hash of each session key (two keys of
// equal hashes only join two groups that need not have been joined) and the group of
// each file. A file that cannot be read then, and a special file (read once, as a
// stream), is read alone.
type logGroups struct {
	more map[string][]string // a lead → its later parts, in path order
	lead map[string]string   // a later part → its lead
}

// parts returns the later parts of the log whose first file is name (none: a file
// read alone, or a later part).
func (g *logGroups) parts(name string) []string { return g.more[name] }

// isPart reports whether name is a later part of a log, read by its lead.
func (g *logGroups) isPart(name string) bool {
	_, ok := g.lead[name]
	return ok
}

// findLogGroups finds the groups among the files of the table, reading workers files
// at once. Its error is the context's.
func findLogGroups(ctx context.Context, fsys fs.FS, files *fileTable, workers int) (*logGroups, error) {
	g := &logGroups{more: map[string][]string{}, lead: map[string]string{}}
	byFormat := map[*format][]int{}
	for i := range files.len() {
		sn := files.file(i)
		if fm := sn.format; fm != nil && fm.sessionKeys != nil && !sn.ignored && sn.stream() == nil && sn.problem() == nil {
			byFormat[fm] = append(byFormat[fm], i)
		}
	}
	for fm, idx := range byFormat {
		if len(idx) < 2 {
			continue
		}
		hashes := make([][]uint64, len(idx)) // each file's sessions' hashes, sorted, once each
		var wg sync.WaitGroup
		next := make(chan int)
		for range min(workers, len(idx)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range next {
					hashes[k] = sessionHashes(fsys, files.name(idx[k]), fm)
				}
			}()
		}
		for k := range idx {
			if ctx.Err() != nil {
				break
			}
			next <- k
		}
		close(next)
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The files sharing a session are one group: a union-find over their positions,
		// each group's root its first file.
		root := make([]int, len(idx))
		for k := range root {
			root[k] = k
		}
		find := func(k int) int {
			for root[k] != k {
				root[k] = root[root[k]]
				k = root[k]
			}
			return k
		}
		first := map[uint64]int{} // a session's hash → the first file that holds it
		for k, hs := range hashes {
			for _, h := range hs {
				f, ok := first[h]
				if !ok {
					first[h] = k
					continue
				}
				if a, b := find(f), find(k); a != b {
					root[max(a, b)] = min(a, b)
				}
			}
			hashes[k] = nil
		}
		for k := range idx {
			if r := find(k); r != k {
				lead, part := files.name(idx[r]), files.name(idx[k])
				g.more[lead] = append(g.more[lead], part)
				g.lead[part] = lead
			}
		}
	}
	return g, nil
}

// sessionHashes returns the hashes of the keys of the sessions a file holds, sorted,
// each once; none when the file cannot be read whole (it is then read alone, and its
// own read reports why).
func sessionHashes(fsys fs.FS, name string, fm *format) []uint64 {
	f, err := fsys.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	var hs []uint64
	if err := fm.sessionKeys(f, func(key []byte) {
		h := fnv.New64a()
		h.Write(key)
		hs = append(hs, h.Sum64())
	}); err != nil {
		return nil
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}
