// Package tmpname is loopwatch's naming of its temporary output files, shared by the
// writer (package reports), which creates them and cleans up the stale ones, and the
// replay (package replay), which never takes them for input.
//
// A temporary file is hidden and names its destination and the process that made
// it: ".<destination base>.tmp-<pid>-<random>", e.g. ".results.parquet.tmp-4242-81723";
// the writability probe of an output folder is ".loopwatch-probe-<pid>-<random>";
// a temporary folder (datagen's, which it renames its dataset out of) is
// ".<name>.tmp-<pid>-<random>" for a name of [Folders], e.g. ".datagen.tmp-4242-81723".
// Carrying the pid lets a later run tell a temporary whose writer is gone (killed
// before it could clean up) from one a concurrent run is still writing.
package tmpname

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// probePrefix starts the name of an output folder's writability probe.
const probePrefix = ".loopwatch-probe-"

// Create creates a new temporary file for the destination path dest, in dest's
// folder, named ".<base>.tmp-<pid>-<random>".
func Create(dest string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
}

// CreateLabelled is [Create] with a label between the pid and the random part,
// ".<base>.tmp-<pid>-<label>-<random>", for a temporary that is never renamed into
// place (a scratch file): [Parse] reads it as Create's. label must not contain a
// path separator.
func CreateLabelled(dest, label string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-"+strconv.Itoa(os.Getpid())+"-"+label+"-*")
}

// Folders are the names of loopwatch's temporary folders, which [MkdirTemp] makes and
// [Parse] recognises: datagen's, the dataset it writes before renaming its inputs/ and
// labels/ into place.
var Folders = []string{"datagen"}

// MkdirTemp makes a new temporary folder in dir, named ".<name>.tmp-<pid>-<random>";
// name must be one of [Folders].
func MkdirTemp(dir, name string) (string, error) {
	if !slices.Contains(Folders, name) {
		return "", fmt.Errorf("tmpname: %q is no temporary folder's name", name)
	}
	return os.MkdirTemp(dir, "."+name+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
}

// IsFolder reports whether base (a folder's name) is one of loopwatch's temporary
// folders, as [MkdirTemp] names them: a folder no reader takes for input.
func IsFolder(base string) bool {
	dest, _, ok := Parse(base)
	return ok && slices.Contains(Folders, dest)
}

// CreateProbe creates a writability probe in dir.
func CreateProbe(dir string) (*os.File, error) {
	return os.CreateTemp(dir, probePrefix+strconv.Itoa(os.Getpid())+"-*")
}

// Parse reports whether base (a file name without its folder) is one of loopwatch's
// temporaries, and returns the destination base it stands for ("" for a probe) and
// the pid of the process that made it (0 when the name carries none: the naming of
// versions before pids were added, ".<base>.tmp-<random>"). For a temporary folder
// the destination is its name of [Folders] ("datagen").
func Parse(base string) (dest string, pid int, ok bool) {
	if rest, found := strings.CutPrefix(base, probePrefix); found {
		pid, _ = leadingPid(rest)
		return "", pid, true
	}
	if !strings.HasPrefix(base, ".") {
		return "", 0, false
	}
	i := strings.LastIndex(base, ".tmp-")
	if i <= 1 {
		return "", 0, false
	}
	dest = base[1:i]
	if !strings.HasSuffix(dest, ".parquet") && !strings.HasSuffix(dest, ".json") && !slices.Contains(Folders, dest) {
		return "", 0, false
	}
	pid, _ = leadingPid(base[i+len(".tmp-"):])
	return dest, pid, true
}

// leadingPid reads "<pid>-…".
func leadingPid(s string) (int, bool) {
	digits, _, found := strings.Cut(s, "-")
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}
