package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"
)

// Fingerprint folds the content digests of input files, in path order, into an input
// fingerprint ([Summary.Fingerprint]): a SHA-256 over each file's path and the hex
// SHA-256 of its content. Folding the digests a split replay's shards hand over
// ([Options.Digest]) in path order gives the whole replay's fingerprint.
type Fingerprint struct{ h hash.Hash }

// NewFingerprint returns an empty fingerprint.
func NewFingerprint() *Fingerprint { return &Fingerprint{h: sha256.New()} }

// Add folds in the file at path file (slash separated, relative to the input root)
// whose content's hex SHA-256 is digest; files come in path order.
func (f *Fingerprint) Add(file, digest string) {
	io.WriteString(f.h, file)
	io.WriteString(f.h, "\x00")
	io.WriteString(f.h, digest)
	io.WriteString(f.h, "\n")
}

// Sum returns the fingerprint of the files added so far, in hex.
func (f *Fingerprint) Sum() string { return hex.EncodeToString(f.h.Sum(nil)) }

// hashingFS fingerprints the files a source opens itself while it reads them (a
// Claude Code transcript reads its subagent transcripts), so that no file is read a
// second time only to be fingerprinted. A file read to its end, or read in part and
// closed (the rest is then hashed on Close, as a reader that stopped early still
// fingerprints the whole file), has its digest in digests; a file whose reading
// failed has none, and the engine hashes it again to report the error where it always
// did — but for a reader that reports the failure itself (a log's part): partial
// holds the digest of what was read of it, as a file read alone gets when its read
// fails; and failed why a file could not be opened, for such a reader to report.
type hashingFS struct {
	fsys    fs.FS
	digests map[string]string // name → hex SHA-256 of the file's content
	partial map[string]string // name → hex SHA-256 of what was read before a read failed
	failed  map[string]error  // name → why it could not be opened
}

func newHashingFS(fsys fs.FS) *hashingFS {
	return &hashingFS{fsys: fsys, digests: map[string]string{}, partial: map[string]string{}, failed: map[string]error{}}
}

func (h *hashingFS) Open(name string) (fs.File, error) {
	f, err := h.fsys.Open(name)
	if err != nil {
		h.failed[name] = err
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
	} else {
		f.owner.partial[f.name] = hex.EncodeToString(f.h.Sum(nil))
	}
	return f.File.Close()
}
