package replay

import (
	"io/fs"
	"os"
)

// DirFS returns the files under dir as os.DirFS does — the same names, files, errors
// and methods (ReadFile, ReadDir, Stat, Lstat, ReadLink) — but for a cheaper Open on
// Unix (see leanOpen): a replay opens every input file twice, once to recognise it and
// once to read it.
func DirFS(dir string) fs.FS {
	return dirFS{FS: os.DirFS(dir), dir: dir}
}

// dirFS is os.DirFS with leanOpen for Open.
type dirFS struct {
	fs.FS // os.DirFS(dir)
	dir   string
}

func (d dirFS) Open(name string) (fs.File, error) {
	if f, err, ok := leanOpen(d.dir, name); ok {
		return f, err
	}
	return d.FS.Open(name)
}

func (d dirFS) ReadFile(name string) ([]byte, error) { return d.FS.(fs.ReadFileFS).ReadFile(name) }

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return d.FS.(fs.ReadDirFS).ReadDir(name)
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) { return d.FS.(fs.StatFS).Stat(name) }

func (d dirFS) Lstat(name string) (fs.FileInfo, error) { return d.FS.(fs.ReadLinkFS).Lstat(name) }

func (d dirFS) ReadLink(name string) (string, error) { return d.FS.(fs.ReadLinkFS).ReadLink(name) }
