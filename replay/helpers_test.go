package replay

import (
	"bytes"

	"github.com/loopwatch/loopwatch/replay/input"
	"github.com/loopwatch/loopwatch/replay/trace"
)

func readTrace(name string, b []byte) ([]*input.Run, []input.Problem) {
	return trace.Read(name, bytes.NewReader(b))
}
