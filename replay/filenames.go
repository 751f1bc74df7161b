package replay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// fileNames are the input's file paths, in path order, as a replay keeps them to its
// end: each a folder, held once per folder, and a base name. The base names are back
// to back, in one string — some 50 bytes a file for a transcript's path where a string
// of its own takes 96 — or, given a scratch file, in it: then a replay holds 12 bytes
// a file, and at reads a name back from the part of the file it read last (the replay
// asks for names nearly in order) or, past it, reads the next part. at builds a path
// when it is needed.
type fileNames struct {
	dirs []string // distinct folders, each with its trailing slash ("" for the root)
	dir  []uint32 // file i's folder in dirs
	end  []int    // where file i's base name ends in the base names (starts where i-1's ends)

	bases string // every file's base name, back to back, when kept in memory

	// The base names in a scratch file: the part of it read last, from off, under mu.
	file  *os.File
	mu    sync.Mutex
	part  []byte
	off   int
	err   error // the first failure to read the file: the replay fails with it
	reads int   // parts read, for tests
}

// namesPart is how much of the scratch file at reads at a time.
const namesPart = 64 << 10

// newFileNames holds names (slash-separated paths) compactly: their base names in the
// file scratch returns when scratch is not nil, in memory otherwise.
func newFileNames(names []string, scratch func(name string) (*os.File, error)) (*fileNames, error) {
	f := &fileNames{dir: make([]uint32, len(names)), end: make([]int, len(names))}
	n := 0
	for _, name := range names {
		n += len(name) - strings.LastIndexByte(name, '/') - 1
	}
	var bases interface {
		io.Writer
		io.StringWriter
	}
	var mem strings.Builder
	var buf *bufio.Writer
	if scratch != nil && n > 0 {
		file, err := scratch("names")
		if err != nil {
			return nil, fmt.Errorf("keeping the file names aside: %w", err)
		}
		f.file, buf = file, bufio.NewWriterSize(file, namesPart)
		bases = buf
	} else {
		mem.Grow(n)
		bases = &mem
	}
	index := map[string]uint32{}
	at := 0
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
		at += len(base)
		f.end[i] = at
	}
	if buf != nil {
		if err := buf.Flush(); err != nil {
			return nil, fmt.Errorf("keeping the file names aside: %w", err)
		}
		return f, nil
	}
	f.bases = mem.String()
	return f, nil
}

// len returns the number of files.
func (f *fileNames) len() int { return len(f.end) }

// at returns file i's path. Kept in a scratch file, a name that cannot be read back
// is "" and the failure is kept for failed.
func (f *fileNames) at(i int) string {
	start := 0
	if i > 0 {
		start = f.end[i-1]
	}
	if f.file == nil {
		return f.dirs[f.dir[i]] + f.bases[start:f.end[i]]
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if start < f.off || f.end[i] > f.off+len(f.part) {
		if f.err != nil {
			return ""
		}
		n := max(namesPart, f.end[i]-start)
		if cap(f.part) < n {
			f.part = make([]byte, n)
		}
		got, err := f.file.ReadAt(f.part[:n], int64(start))
		f.reads++
		if got < f.end[i]-start {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			f.err = fmt.Errorf("reading back the file names from %s: %w", f.file.Name(), err)
			f.part, f.off = f.part[:0], 0
			return ""
		}
		f.part, f.off = f.part[:got], start
	}
	return f.dirs[f.dir[i]] + string(f.part[start-f.off:f.end[i]-f.off])
}

// failed returns the first failure to read a name back, nil if none.
func (f *fileNames) failed() error {
	if f == nil || f.file == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
