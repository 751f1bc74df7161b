package detect

import "strings"

// A test runner closes its output with a line of counts, whatever the language:
//
//	3 examples, 1 failure                                (RSpec)
//	2 runs, 2 assertions, 1 failures, 0 errors, 0 skips  (Minitest)
//	1 failed, 2 passed in 0.12s                          (pytest -q)
//	Tests: 3, Assertions: 3, Failures: 1.                (PHPUnit)
//	OK (3 tests, 3 assertions)                           (PHPUnit)
//	 1 pass / 1 fail                                     (bun, a count a line)
//	FAILED | 1 passed | 1 failed (5ms)                   (Deno)
//	50% tests passed, 1 tests failed out of 2            (CTest)
//	3 passing (5ms)                                      (Mocha)
//
// ReadTestSummary reads such lines in a result's last 16 KiB, so that a run whose
// exit status a pipe hides ("bundle exec rspec | tail -20") still says whether it
// passed, and a runner no toolchain rule knows is read too. It reads structure — a
// count and the word it counts — not any runner's phrasing, and it refuses what is
// not plainly a summary: words before the counts ("Compiled 3 files, 1 error", a
// listing's "rspec ./spec/a_spec.rb:7 # prints 3 passed"), a single count among other
// words ("Found 3 errors in the config"), a label inside a field ("expected
// failures=1"), a count glued to a unit ("5ms"), a percentage, a decimal.

// summaryBytes is how much of a result's end ReadTestSummary reads: the summary and
// what runners print after it (RSpec's list of failed examples, CTest's of failed
// tests), whatever the output's size.
const summaryBytes = 16 << 10

// summaryLineBytes: a line longer than this, not counting its terminal escape
// sequences, is no summary; a line of more than four times as many bytes is not read.
const summaryLineBytes = 256

// countClass is what a counted word counts.
type countClass uint8

const (
	countUnknown countClass = iota // a word no runner's summary counts ("files" is known: countOther)
	countFail                      // failed, failures, failing …
	countError                     // errors: a failure, but a compiler counts them too
	countPass                      // passed, passing, pass …
	countTotal                     // tests, examples, runs, total …
	countOther                     // assertions, skipped, pending, warnings …
)

// countWordClass is what a word a count stands before (or a label before it) counts;
// w is lower case.
func countWordClass(w []byte) countClass {
	switch string(w) {
	case "fail", "fails", "failed", "failing", "failure", "failures", "broken":
		return countFail
	case "error", "errors", "errored":
		return countError
	case "pass", "passes", "passed", "passing", "succeeded":
		return countPass
	case "test", "tests", "example", "examples", "run", "runs", "total", "spec", "specs", "scenario", "scenarios":
		return countTotal
	case "assertion", "assertions", "skip", "skips", "skipped", "pending", "todo", "todos", "warning", "warnings",
		"deselected", "xfailed", "xpassed", "incomplete", "risky", "ignored", "filtered", "measured", "expect", "file",
		"files", "suite", "suites", "notices", "deprecations", "flaky", "snapshots", "rerun", "reruns", "only":
		return countOther
	}
	return countUnknown
}

// summaryWord reports whether w (lower case) may stand beside a single count on a
// summary line: the runner's verdict and labels, time units, "out of".
func summaryWord(w []byte) bool {
	switch string(w) {
	case "in", "s", "ms", "sec", "secs", "seconds", "m", "min", "ok", "fail", "failed", "passed", "pass", "tests",
		"test", "files", "total", "out", "of", "time", "summary", "result", "results", "ran", "calls", "across",
		"suites", "success", "failure":
		return true
	}
	return false
}

// unitWord reports whether w (lower case), in the label before a line's counts, says
// the line counts something other than tests: jest's "Test Suites:", Vitest's "Test
// Files", "Snapshots:" — or as the word of its first count, Cucumber's "10 steps".
func unitWord(w []byte) bool {
	switch string(w) {
	case "suite", "suites", "file", "files", "snapshots", "step", "steps":
		return true
	}
	return false
}

// lowerWord is w in lower case, in buf (a word longer than buf is no count word:
// its first 16 bytes and a space are returned).
func lowerWord(buf *[16]byte, w string) []byte {
	if len(w) > len(buf) {
		buf[0] = ' '
		return buf[:1]
	}
	for i := range len(w) {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return buf[:len(w)]
}

// TestSummary is what a test run's closing counts say.
type TestSummary struct {
	// Failed counts the tests that failed or errored; Passed those that passed;
	// Total the tests run, where the summary says (0 where not): the counts of the
	// last block of count lines that counts failures, or else of the last block.
	Failed, Passed, Total int
	// Found: a summary was read.
	Found bool
	// Tests: the summary counts tests — a pass, a total or a failure word other than
	// "errors" — not only errors (javac's "1 error" closes a build, not a test run).
	Tests bool
	// Weak: the summary's pass is a bare count of passes ("3 passed"): it stands
	// where nothing else reads a failure, and never overrules one.
	Weak bool
	// What the block's lines said: a failure word counted 0, a line opening with "OK".
	zeroFail, okLead bool
}

// Verdict reports whether the summary says the run failed (fail) or passed (pass);
// neither where no summary was read or it counts no outcome ("Ran 3 tests"). It
// failed when any block of count lines counts a failure; it passed when none does and
// its last block counts a pass, states "0 failures" of a total, or opens with "OK".
func (s TestSummary) Verdict() (fail, pass bool) {
	return s.Failed > 0, s.Found && s.Failed == 0 && (s.Passed > 0 || s.strong())
}

// strong reports whether a block without failures says its run passed by more than a
// bare count of passes: "0 failures" of a total, "OK (3 tests)", "2 passed, 0 failed".
func (s TestSummary) strong() bool {
	return (s.zeroFail || s.okLead) && s.Total > 0 || s.Passed > 0 && (s.zeroFail || s.Total > 0)
}

// Full reports whether the summary is a test run's whole account: it counts tests,
// and beside a failure a pass or a total ("1 failed, 2 passed", "3 examples, 1
// failure"), beside no failure a strong pass. A command no rule knows is read by a
// full summary only: "2 errors, 3 warnings" is a script's log.
func (s TestSummary) Full() bool {
	fail, pass := s.Verdict()
	return s.Tests && (fail && (s.Passed > 0 || s.Total > 0) || pass && !s.Weak)
}

// ReadTestSummary reads the count lines of a test run's output (see the comment on
// the forms it reads) in its last 16 KiB: blocks of consecutive summary lines (bun
// and Vitest print their counts over several lines; blank lines may part them). Any
// block that counts failures makes the run failed — a suite that failed before one
// that passed ("cargo test --no-fail-fast", a monorepo's runner), or a failure count
// a listing of the failed tests parts from the passes below it (Playwright) —, and
// the counts are that block's (the last such); otherwise the last block says whether
// it passed. In a block, a line's failures are summed ("1 failures, 1 errors") and
// each count is the largest of its lines. It costs a pass over at most 16 KiB,
// whatever the output's size.
func ReadTestSummary(output string) TestSummary {
	text := output[max(0, len(output)-summaryBytes):]
	// The result; the block being read, its lines that count tests and those that
	// count another unit ("Test Suites: 1 failed, 2 total", Vitest's "Test Files").
	var s, block, units TestSummary
	open := false // a block is being read
	close := func() {
		if !open {
			return
		}
		open = false
		switch {
		case !block.Found:
			block = units
		case block.Failed == 0 && units.Failed > 0:
			block.Failed = units.Failed // a suite that failed to run, its tests' counts all passing
		}
		block.Weak = block.Passed > 0 && !block.strong()
		if block.Failed > 0 || s.Failed == 0 {
			s = block
		}
		block, units = TestSummary{}, TestSummary{}
	}
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		line := text[:i]
		text = text[i:]
		for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
			line = line[:len(line)-1]
		}
		c, ok := readCountLine(line)
		if !ok {
			if !blank(line) {
				close()
			}
			continue
		}
		open = true
		if c.otherUnit {
			units.merge(c)
		} else {
			block.merge(c)
		}
	}
	close()
	return s
}

// merge adds a count line to a block: each count is the largest of its lines'.
func (s *TestSummary) merge(c countLine) {
	s.Found = true
	s.Failed, s.Passed, s.Total = max(s.Failed, c.failed), max(s.Passed, c.passed), max(s.Total, c.total)
	s.zeroFail, s.okLead = s.zeroFail || c.zeroFail, s.okLead || c.okLead
	s.Tests = s.Tests || c.tests
}

// blank reports whether line holds nothing but white space.
func blank(line string) bool {
	for i := range len(line) {
		if b := line[i]; b != ' ' && b != '\t' && b != '\r' {
			return false
		}
	}
	return true
}

// countLine is one summary line's counts.
type countLine struct {
	failed, passed, total int
	zeroFail              bool // a failure word counted 0
	okLead                bool // the line opens with "OK"
	tests                 bool // a count of tests: see TestSummary.Tests
	otherUnit             bool // the line's label counts another unit: "Test Suites:", "Test Files"
}

// add counts n of class.
func (c *countLine) add(class countClass, n int) {
	switch class {
	case countFail, countError:
		c.failed += n
		c.zeroFail = c.zeroFail || n == 0
	case countPass:
		c.passed = max(c.passed, n)
	case countTotal:
		c.total = max(c.total, n)
	}
	c.tests = c.tests || class == countFail || class == countPass || class == countTotal
}

// readCountLine reads one line's counts; ok reports whether the line is a summary:
// two counts of words runners count, or one and nothing but summaryWords beside it.
func readCountLine(line string) (c countLine, ok bool) {
	if len(line) > 4*summaryLineBytes {
		return c, false
	}
	escBytes := 0 // the bytes of terminal escape sequences: a coloured line is no longer
	line = strings.TrimLeft(line, " \t")
	line = line[linePrefix(line):]
	var buf [16]byte
	known, unknown, strays := 0, 0, 0
	first := true // the next word is the line's first
	escEnd := -1  // where the last escape sequence ended: a count may follow it
	for i := 0; i < len(line); {
		b := line[i]
		switch {
		case b == 0x1b: // a terminal escape sequence: ESC [ parameters final-byte
			start := i
			i++
			if i < len(line) && line[i] == '[' {
				i++
				for i < len(line) && !(line[i] >= 0x40 && line[i] <= 0x7e) {
					i++
				}
			}
			i++
			escEnd = i
			escBytes += min(i, len(line)) - start
		case isDigit(b):
			j := i
			for j < len(line) && isDigit(line[j]) {
				j++
			}
			n, word, end, isItem := countItem(&buf, line, i, j, i == escEnd)
			if !isItem {
				// A number that counts nothing: a decimal, "5ms", "50%", "(9)". Its
				// glued letters are a unit, not a word.
				for j < len(line) && (isDigit(line[j]) || isLetter(line[j]) || line[j] == '.') {
					j++
				}
				i = j
				continue
			}
			if known+unknown == 0 && unitWord(word) {
				c.otherUnit = true // "10 steps (1 failed, 9 passed)" below Cucumber's scenarios
			}
			if class := countWordClass(word); class == countUnknown {
				unknown++
			} else {
				c.add(class, n)
				known++
			}
			first = false
			i = end
		case isLetter(b):
			j := i
			for j < len(line) && isLetter(line[j]) {
				j++
			}
			w := lowerWord(&buf, line[i:j])
			if first && line[i:j] == "OK" {
				c.okLead = true
			}
			first = false
			if label := countWordClass(w); label != countUnknown && (fieldStart(line, i) || i == escEnd) {
				// "Failures: 1", "failures=1": a label and its count, opening a field
				// ("OK (skipped=1, expected failures=1)" counts no failure).
				if n, k, isLabel := labelCount(line, j); isLabel {
					c.add(label, n)
					known++
					i = k
					continue
				}
			}
			if known+unknown == 0 && unitWord(w) {
				c.otherUnit = true
			}
			if !summaryWord(w) {
				if known+unknown == 0 {
					// Words before the counts: a test's name, a message, a listing
					// ("rspec ./spec/a_spec.rb:7 # prints 3 passed", "FAILED t::x -
					// AssertionError: 2 errors"), not a summary.
					return c, false
				}
				strays++
			}
			if string(w) == "of" && i >= 4 && line[i-4:i] == "out " {
				// "1 tests failed out of 2": the run's total.
				if n, k, ok := bareCount(line, j); ok {
					c.add(countTotal, n)
					i = k
					continue
				}
			}
			i = j
		default:
			i++
		}
	}
	if len(line)-escBytes > summaryLineBytes {
		return c, false
	}
	if c.okLead {
		c.failed = 0 // "OK (…)" says it passed, whatever it counts
	}
	switch {
	case known >= 2:
		return c, true
	case known == 1 && unknown == 0 && strays == 0:
		return c, true // " 1 fail", "3 passing (5ms)", and bun's " 2 expect() calls" below its counts
	}
	return c, false
}

// countItem reads the count line[i:j] and the word after it: "3 examples", and "1 tests
// failed", where the word counted is the one after "tests". A count glued to letters,
// or followed by "%" or a decimal point, is no item (one right after a terminal escape
// sequence may be). end is where the item ends.
func countItem(buf *[16]byte, line string, i, j int, afterEscape bool) (n int, word []byte, end int, ok bool) {
	if i > 0 && !afterEscape && (isLetter(line[i-1]) || isDigit(line[i-1]) || line[i-1] == '.' || line[i-1] == '-' || line[i-1] == '_') {
		return 0, nil, j, false // part of a name or a number: "v1", "1.2", "x-2"
	}
	if j-i > 9 || j+1 >= len(line) || line[j] != ' ' || !isLetter(line[j+1]) {
		return 0, nil, j, false
	}
	n = digits(line[i:j])
	k := j + 1
	for k < len(line) && isLetter(line[k]) {
		k++
	}
	word = lowerWord(buf, line[j+1:k])
	if countWordClass(word) == countTotal && k+1 < len(line) && line[k] == ' ' && isLetter(line[k+1]) {
		m := k + 1
		for m < len(line) && isLetter(line[m]) {
			m++
		}
		var next [16]byte
		if w := lowerWord(&next, line[k+1:m]); countWordClass(w) == countFail || countWordClass(w) == countError || countWordClass(w) == countPass {
			copy(buf[:], next[:])
			return n, buf[:len(w)], m, true
		}
	}
	return n, word, k, true
}

// digits is the value of s, a run of at most 9 ASCII digits.
func digits(s string) (n int) {
	for _, d := range s {
		n = n*10 + int(d-'0')
	}
	return n
}

// countAt reads a count at line[k:]: at most 9 digits followed by the line's end or
// punctuation — not by a digit, a letter, "%", a decimal point and a digit, or a word
// after a space (then the count is an item of its own: "Tests:  1 failed").
func countAt(line string, k int) (n, end int, ok bool) {
	d := k
	for k < len(line) && isDigit(line[k]) && k-d < 9 {
		k++
	}
	if k == d {
		return 0, d, false
	}
	if k < len(line) {
		switch next := line[k]; {
		case isDigit(next), isLetter(next), next == '%',
			next == '.' && k+1 < len(line) && isDigit(line[k+1]),
			next == ' ' && k+1 < len(line) && isLetter(line[k+1]):
			return 0, d, false
		}
	}
	return digits(line[d:k]), k, true
}

// labelCount reads the count after a label ending at j: ": 3" or "=3" (see countAt).
func labelCount(line string, j int) (n, end int, ok bool) {
	k := j
	switch {
	case k < len(line) && line[k] == '=':
		k++
	case k < len(line) && line[k] == ':':
		k++
		for k < len(line) && line[k] == ' ' {
			k++
		}
	default:
		return 0, j, false
	}
	if n, end, ok = countAt(line, k); !ok {
		return 0, j, false
	}
	return n, end, true
}

// linePrefix returns the length of the prefix a monorepo's runner puts before each
// line of a package's output — "web:test: " (turbo), "packages/api test: " is not
// read, "[api] " — or 0: a first token ending in ":" that has another ":", a "/" or
// an "@" in it, or a bracketed first token.
func linePrefix(line string) int {
	sp := strings.IndexByte(line, ' ')
	if sp <= 0 {
		return 0
	}
	tok := line[:sp]
	switch {
	case tok[0] == '[' && tok[len(tok)-1] == ']',
		len(tok) > 1 && tok[len(tok)-1] == ':' && strings.ContainsAny(tok[:len(tok)-1], ":/@"):
		return sp + 1
	}
	return 0
}

// fieldStart reports whether the word at line[i:] opens a field of the line: only
// white space, "(", "[", ",", ";", "|", "-" or the line's start before it.
func fieldStart(line string, i int) bool {
	for i > 0 && (line[i-1] == ' ' || line[i-1] == '\t') {
		i--
	}
	return i == 0 || strings.IndexByte("([,;|-", line[i-1]) >= 0
}

// bareCount reads " N" at line[j:] (see countAt).
func bareCount(line string, j int) (n, end int, ok bool) {
	if j >= len(line) || line[j] != ' ' {
		return 0, j, false
	}
	if n, end, ok = countAt(line, j+1); !ok {
		return 0, j, false
	}
	return n, end, true
}

func isDigit(b byte) bool  { return b >= '0' && b <= '9' }
func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
