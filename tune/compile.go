package tune

import (
	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/assess/detect"
)

// compileCheck compiles an assessment configuration's detector, which validates
// what Config.Validate does not (its patterns, its lexicon).
func compileCheck(cfg assess.Config) (*detect.Rules, error) { return detect.Compile(cfg.Detect) }
