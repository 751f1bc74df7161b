package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/loopwatch/loopwatch/internal/tmpname"
)

// File is a member of an output set that is not a Parquet table — an Arrow file, a
// configuration file — committed with the set. Its content is written when the set
// commits, once the set's metadata (its replay id) is known.
type File struct {
	name, path string
	write      func(w io.Writer, metadata map[string]string) error
	f          *os.File
	h          hash.Hash
	size       int64
}

// AddFile adds to o the file "<stem>.<suffix>" (e.g. "sweep.arrow" for the output
// "sweep.parquet" and the suffix "arrow"), named name in the manifest; write writes its
// content at commit, given the set's metadata.
func (o *Output) AddFile(name, suffix string, write func(w io.Writer, metadata map[string]string) error) (*File, error) {
	path := o.stem + "." + suffix
	f, err := tmpname.Create(path)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", path, UnwrapPathError(err))
	}
	file := &File{name: name, path: path, write: write, f: f, h: sha256.New()}
	o.tables = append(o.tables, file)
	return file, nil
}

// Path is where the file goes.
func (f *File) Path() string { return f.path }

func (f *File) close(metadata map[string]string) error {
	if err := f.write(io.MultiWriter(f.f, f.h, countWriter{&f.size}), metadata); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return closeTemp(f.f, f.path)
}

func (f *File) abort() {
	f.f.Close()
	os.Remove(f.f.Name())
}

func (f *File) tmpName() string   { return f.f.Name() }
func (f *File) finalName() string { return f.path }
func (f *File) tableName() string { return f.name }
func (f *File) digest() (int64, string) {
	return f.size, hex.EncodeToString(f.h.Sum(nil))
}

func (f *File) rowCount() (int64, bool) { return 0, false }
