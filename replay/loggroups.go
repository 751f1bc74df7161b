package replay

import (
	"context"
	"hash/fnv"
	"io/fs"
	"slices"
	"sync"
	"time"
)

// logGroups are the session files a replay reads together, as parts of one log: the
// files of a format that names the sessions a file holds (format.sessionKeys) that
// share a session, directly or through other files — a vibes log exported in pieces,
// a session going on at a cut split in two, or exports that overlap. A group is read
// by the replay of its first file in path order (its lead), its parts in the order of
// the log — by the time each starts at (format.sessionKeys; a part that tells none
// keeps its place after the one before it in path order), then by path — whatever
// their names say (day-9 before day-10); each later part delivers only its digest,
// which the lead's read took — as a Claude Code transcript's subagents are read with
// it — and, in its place in path order, the sessions that first appear in it (with
// the problems found in it). A file that holds no session another holds is read
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
	order map[string][]string // a lead → every part (itself too), in the log's order
	lead  map[string]string   // a later part (in path order) → its lead
}

// parts returns the parts of the log whose lead is name, in the log's order (none: a
// file read alone, or a later part).
func (g *logGroups) parts(name string) []string { return g.order[name] }

// isPart reports whether name is a later part of a log, read by its lead.
func (g *logGroups) isPart(name string) bool {
	_, ok := g.lead[name]
	return ok
}

// findLogGroups finds the groups among the files of the table, reading workers files
// at once. Its error is the context's.
func findLogGroups(ctx context.Context, fsys fs.FS, files *fileTable, workers int) (*logGroups, error) {
	g := &logGroups{order: map[string][]string{}, lead: map[string]string{}}
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
		scans := make([]logScan, len(idx))
		var wg sync.WaitGroup
		next := make(chan int)
		for range min(workers, len(idx)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range next {
					scans[k] = scanLog(fsys, files.name(idx[k]), fm)
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
		// The files sharing a session are one group: a union-find over their positions
		// (in path order), each group's root its first file.
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
		for k := range scans {
			for _, h := range scans[k].keys {
				f, ok := first[h]
				if !ok {
					first[h] = k
					continue
				}
				if a, b := find(f), find(k); a != b {
					root[max(a, b)] = min(a, b)
				}
			}
			scans[k].keys = nil
		}
		members := map[int][]int{} // a group's root → its files, in path order
		for k := range idx {
			members[find(k)] = append(members[find(k)], k)
		}
		for r, ks := range members {
			if len(ks) < 2 {
				continue
			}
			lead := files.name(idx[r])
			// A part whose start is unknown keeps its place after the part before it in
			// path order (the first, the earliest place).
			var prev time.Time
			for _, k := range ks {
				if scans[k].first.IsZero() {
					scans[k].first = prev
				}
				prev = scans[k].first
			}
			slices.SortStableFunc(ks, func(a, b int) int { return scans[a].first.Compare(scans[b].first) })
			for _, k := range ks {
				name := files.name(idx[k])
				g.order[lead] = append(g.order[lead], name)
				if k != r {
					g.lead[name] = lead
				}
			}
		}
	}
	return g, nil
}

// logScan is what finding the groups keeps of a file: the hashes of its sessions'
// keys (sorted, each once) and the time its log starts at (zero: unknown).
type logScan struct {
	keys  []uint64
	first time.Time
}

// scanLog names the sessions a file holds; none when the file cannot be read whole
// (it is then read alone, and its own read reports why).
func scanLog(fsys fs.FS, name string, fm *format) logScan {
	f, err := fsys.Open(name)
	if err != nil {
		return logScan{}
	}
	defer f.Close()
	var s logScan
	first, err := fm.sessionKeys(f, func(key []byte) {
		h := fnv.New64a()
		h.Write(key)
		s.keys = append(s.keys, h.Sum64())
	})
	if err != nil {
		return logScan{}
	}
	slices.Sort(s.keys)
	s.keys, s.first = slices.Compact(s.keys), first
	return s
}
