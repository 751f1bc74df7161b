package filter

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
)

// ClaimsSource reports, for a work directory, the files the coder modified and the
// files (or patterns) the task has claimed.
type ClaimsSource interface {
	ModifiedAndClaimed(ctx context.Context, workDir string) (modified, claimed []string, err error)
}

// ClaimsFunc adapts a function to [ClaimsSource].
type ClaimsFunc func(ctx context.Context, workDir string) (modified, claimed []string, err error)

// ModifiedAndClaimed calls f.
func (f ClaimsFunc) ModifiedAndClaimed(ctx context.Context, workDir string) ([]string, []string, error) {
	return f(ctx, workDir)
}

// GitDiffClaims is a [ClaimsSource] whose modified files are what git reports as
// changed against Base — `git diff --name-only --no-relative <Base>` (tracked files,
// staged or not) plus `git ls-files --others --exclude-standard --full-name -- :/`
// (untracked, not ignored) — and whose claims are the fixed list Claimed. Paths are
// relative to the repository root.
type GitDiffClaims struct {
	Base    string   // revision to diff against; "" means HEAD
	Claimed []string // claimed paths: exact files, "dir/" prefixes, or path.Match patterns
}

// ModifiedAndClaimed runs git in workDir. A git failure wraps [ErrInfrastructure].
func (g GitDiffClaims) ModifiedAndClaimed(ctx context.Context, workDir string) ([]string, []string, error) {
	base := g.Base
	if base == "" {
		base = "HEAD"
	}
	diff, err := runCommand(ctx, workDir, "git", []string{"diff", "--name-only", "--no-relative", base, "--"})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: git diff: %v: %s", ErrInfrastructure, err, diff)
	}
	untracked, err := runCommand(ctx, workDir, "git", []string{"ls-files", "--others", "--exclude-standard", "--full-name", "--", ":/"})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: git ls-files: %v: %s", ErrInfrastructure, err, untracked)
	}
	var modified []string
	for _, out := range []string{diff, untracked} {
		for line := range strings.SplitSeq(out, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				modified = append(modified, line)
			}
		}
	}
	return modified, g.Claimed, nil
}

// ClaimsCheck returns the claims check: it fails when a modified file is not covered
// by a claim, with quasar's output
//
//	Modified files not claimed by task <taskID>:
//	  <file>
//
// one unclaimed file per line, sorted, each indented by two spaces. A source error is
// an infrastructure error (the check could not run).
func ClaimsCheck(taskID string, src ClaimsSource) Check {
	return Check{Name: CheckClaims, Fn: func(ctx context.Context, workDir string) (string, error) {
		modified, claimed, err := src.ModifiedAndClaimed(ctx, workDir)
		if err != nil {
			return "", fmt.Errorf("%w: claims source: %w", ErrInfrastructure, err)
		}
		unclaimed := Unclaimed(modified, claimed)
		if len(unclaimed) == 0 {
			return "", nil
		}
		var b strings.Builder
		b.WriteString(ClaimsHeader(taskID))
		for _, f := range unclaimed {
			b.WriteString("\n  ")
			b.WriteString(f)
		}
		return b.String(), fmt.Errorf("filter: %d modified file(s) not claimed by task %s", len(unclaimed), taskID)
	}}
}

// ClaimsHeader returns the first line of a failing claims check's output.
func ClaimsHeader(taskID string) string {
	return "Modified files not claimed by task " + taskID + ":"
}

// Unclaimed returns the modified files that no claim covers, cleaned, de-duplicated and
// sorted. A claim covers a file when, after cleaning both (path.Clean, leading "./"
// removed), it equals the file, or ends in "/" and is a prefix of it, or is a
// path.Match pattern that matches it.
func Unclaimed(modified, claimed []string) []string {
	var out []string
	for _, f := range modified {
		f = cleanRel(f)
		if f == "" || f == "." || covered(f, claimed) {
			continue
		}
		out = append(out, f)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func covered(file string, claimed []string) bool {
	for _, c := range claimed {
		dir := strings.HasSuffix(c, "/")
		c = cleanRel(c)
		switch {
		case c == "":
		case c == file:
			return true
		case dir && (c == "." || strings.HasPrefix(file, c+"/")):
			return true
		case strings.ContainsAny(c, "*?["):
			if ok, err := path.Match(c, file); err == nil && ok {
				return true
			}
		}
	}
	return false
}

func cleanRel(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, "\\", "/"))
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean(p), "./")
}
