// Package atomicfile writes a file so that readers see either the old content or the
// new, never a part: the data goes to a hidden temporary file beside it, which is
// synced and renamed over it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, with permissions perm. On failure the file is
// unchanged and no temporary file is left behind.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
