package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// partPlaceholder stands, in the arguments of an on-cores command, for the number of
// the process (0 to N-1).
const partPlaceholder = "{i}"

// splitInput links the files of the folder in into n folders, dir/part-0 to
// dir/part-(n-1), each file at its own relative path, and returns dir/part-{i}: the
// same input split in n, whose parts are replayed by processes that share nothing. A
// session's files stay together — a Claude Code transcript X.jsonl and every file
// under the folder X/ beside it (its subagents) — and the groups go, largest first,
// to the part that holds the fewest bytes so far, so that the parts weigh the same. A
// file is hard-linked, or copied where it cannot be.
func splitInput(in, dir string, n int) (string, error) {
	type file struct {
		rel  string // slash separated, relative to in
		size int64
	}
	var files []file
	err := filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(in, p)
		if err != nil {
			return err
		}
		files = append(files, file{filepath.ToSlash(rel), info.Size()})
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", fmt.Errorf("%s: no file to split", in)
	}
	isFile := make(map[string]bool, len(files))
	for _, f := range files {
		isFile[f.rel] = true
	}
	// A file's group: the transcript X.jsonl of the shallowest folder X above it that
	// has one, or the file itself.
	groupOf := func(rel string) string {
		for i, c := range rel {
			if c == '/' && isFile[rel[:i]+".jsonl"] {
				return rel[:i] + ".jsonl"
			}
		}
		return rel
	}
	type group struct {
		key   string
		size  int64
		files []string
	}
	byKey := map[string]*group{}
	var groups []*group
	for _, f := range files {
		k := groupOf(f.rel)
		g := byKey[k]
		if g == nil {
			g = &group{key: k}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.size += f.size
		g.files = append(g.files, f.rel)
	}
	slices.SortFunc(groups, func(a, b *group) int {
		return cmp.Or(cmp.Compare(b.size, a.size), strings.Compare(a.key, b.key))
	})
	weight := make([]int64, n)
	for _, g := range groups {
		part := 0
		for i := range weight {
			if weight[i] < weight[part] {
				part = i
			}
		}
		weight[part] += g.size
		for _, rel := range g.files {
			if err := link(filepath.Join(in, filepath.FromSlash(rel)), filepath.Join(dir, "part-"+strconv.Itoa(part), filepath.FromSlash(rel))); err != nil {
				return "", err
			}
		}
	}
	return filepath.Join(dir, "part-"+partPlaceholder), nil
}

// link makes dst, which must not exist, the file src: a hard link, or a copy where a
// link cannot be made. An existing dst is an error, never overwritten: it may be src
// itself (a link made before), which a copy would truncate.
func link(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	err := os.Link(src, dst)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return createFile(dst, in, 0o644, os.O_EXCL)
}

// partArgs returns args with the placeholder replaced by i in every argument.
func partArgs(args []string, i int) []string {
	out := make([]string, len(args))
	for k, a := range args {
		out[k] = strings.ReplaceAll(a, partPlaceholder, strconv.Itoa(i))
	}
	return out
}
