package replay

import "strings"

// fileNames are the input's file paths, in path order, as a replay keeps them to its
// end: each a folder, held once per folder, and a base name, the base names back to
// back in one string — some 50 bytes a file for a transcript's path where a string
// of its own takes 96. at builds a path when it is needed.
type fileNames struct {
	dirs  []string // distinct folders, each with its trailing slash ("" for the root)
	bases string   // every file's base name, back to back
	dir   []uint32 // file i's folder in dirs
	end   []int    // where file i's base name ends in bases (starts where i-1's ends)
}

// newFileNames holds names (slash-separated paths) compactly.
func newFileNames(names []string) *fileNames {
	f := &fileNames{dir: make([]uint32, len(names)), end: make([]int, len(names))}
	n := 0
	for _, name := range names {
		n += len(name) - strings.LastIndexByte(name, '/') - 1
	}
	var bases strings.Builder
	bases.Grow(n)
	index := map[string]uint32{}
	for i, name := range names {
		cut := strings.LastIndexByte(name, '/') + 1
		d, base := name[:cut], name[cut:]
		k, ok := index[d]
		if !ok {
			k = uint32(len(f.dirs))
			f.dirs = append(f.dirs, strings.Clone(d))
			index[f.dirs[k]] = k
		}
		f.dir[i] = k
		bases.WriteString(base)
		f.end[i] = bases.Len()
	}
	f.bases = bases.String()
	return f
}

// len returns the number of files.
func (f *fileNames) len() int { return len(f.end) }

// at returns file i's path.
func (f *fileNames) at(i int) string {
	start := 0
	if i > 0 {
		start = f.end[i-1]
	}
	return f.dirs[f.dir[i]] + f.bases[start:f.end[i]]
}
