package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"
)

// hashingFS fingerprints the files a source opens itself while it reads them (a
// Claude Code transcript reads its subagent transcripts), so that no file is read a
// second time only to be fingerprinted. A file read to its end, or read in part and
// closed (the rest is then hashed on Close, as a reader that stopped early still
// fingerprints the whole file), has its digest in digests; a file whose reading
// failed has none, and the engine hashes it again to report the error where it always
// did.
type hashingFS struct {
	fsys    fs.FS
	digests map[string]string // name → hex SHA-256 of the file's content
}

func newHashingFS(fsys fs.FS) *hashingFS {
	return &hashingFS{fsys: fsys, digests: map[string]string{}}
}

func (h *hashingFS) Open(name string) (fs.File, error) {
	f, err := h.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return &hashingFile{File: f, name: name, owner: h, h: sha256.New()}, nil
}

func (h *hashingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(h.fsys, name) }
func (h *hashingFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(h.fsys, name) }

type hashingFile struct {
	fs.File
	name  string
	owner *hashingFS
	h     hash.Hash
	eof   bool  // read to its end
	err   error // a read failed
}

func (f *hashingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.h.Write(p[:n])
	switch {
	case err == io.EOF:
		f.eof = true
	case err != nil:
		f.err = err
	}
	return n, err
}

// Close hashes what is left of the file and records its digest, unless a read
// failed.
func (f *hashingFile) Close() error {
	if !f.eof && f.err == nil {
		if _, err := io.Copy(f.h, f.File); err != nil {
			f.err = err
		} else {
			f.eof = true
		}
	}
	if f.eof && f.err == nil {
		f.owner.digests[f.name] = hex.EncodeToString(f.h.Sum(nil))
	}
	return f.File.Close()
}
