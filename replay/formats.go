package replay

import (
	"io"
	"path"
	"strings"

	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/trace"
)

// sniffSize is how much of a file's start format detection looks at.
const sniffSize = 64 << 10

// A format is one input format the engine can read.
type format struct {
	name string
	// sniff reports whether a file with this slash-separated path and these opening
	// bytes is in the format.
	sniff func(name string, head []byte) bool
	// read reads the runs of one file.
	read func(name string, r io.Reader) ([]*input.Run, []input.Problem)
}

// formats lists the formats in the order detection tries them.
var formats = []format{
	{name: trace.SourceName, sniff: func(_ string, head []byte) bool { return trace.Sniff(head) }, read: trace.Read},
}

// FormatNames returns the names of the input formats the engine recognises.
func FormatNames() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return names
}

// detect returns the format of a file, or nil.
func detect(name string, head []byte) *format {
	for i := range formats {
		if formats[i].sniff(name, head) {
			return &formats[i]
		}
	}
	return nil
}

// ignorable reports whether an unrecognised file is documentation or repository
// furniture rather than data, so that it is counted as ignored instead of reported.
func ignorable(name string) bool {
	base := strings.ToUpper(path.Base(name))
	for _, prefix := range []string{"LICENSE", "LICENCE", "COPYING", "NOTICE", "README", "AUTHORS", "CHANGELOG"} {
		if strings.HasPrefix(base, prefix) {
			return true
		}
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".txt", ".rst", ".html", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".gitignore", ".gitattributes":
		return true
	}
	return strings.HasPrefix(path.Base(name), ".git")
}
