package reports

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// ReadRows reads the rows of a table file that keep accepts (nil: every row),
// streaming row group by row group so that only the kept rows are held in memory.
func ReadRows[T any](path string, keep func(*T) bool) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rd := parquet.NewGenericReader[T](pf)
	defer rd.Close()
	var out []T
	buf := make([]T, 1024)
	for {
		clear(buf) // kept rows own their slices and pointers: never let the reader reuse them
		n, err := rd.Read(buf)
		for i := range buf[:n] {
			if keep == nil || keep(&buf[i]) {
				out = append(out, buf[i])
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// FileMetadata returns the value of a key of a Parquet file's key-value metadata ("" when
// the file has none), reading only the file's footer.
func FileMetadata(path, key string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	v, _ := pf.Lookup(key)
	return v, nil
}
