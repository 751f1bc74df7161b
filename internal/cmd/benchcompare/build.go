package main

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// git runs git in dir and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// baseRef resolves the previous build's commit: ref when given, else the merge-base
// of HEAD and main — where this branch left main — or, when that is HEAD itself (on
// main, or a branch with nothing of its own), HEAD's first parent: main before its
// last landing. It returns the commit and how it was chosen.
func baseRef(ctx context.Context, repo, ref string) (commit, how string, err error) {
	if ref != "" {
		commit, err = git(ctx, repo, "rev-parse", "--verify", ref+"^{commit}")
		return commit, ref, err
	}
	head, err := git(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return "", "", err
	}
	mb, err := git(ctx, repo, "merge-base", "HEAD", "main")
	if err != nil {
		return "", "", fmt.Errorf("no default base (%v); name one with --base", err)
	}
	if mb != head {
		return mb, "merge-base of HEAD and main", nil
	}
	parent, err := git(ctx, repo, "rev-parse", "--verify", "HEAD^1")
	if err != nil {
		return "", "", fmt.Errorf("HEAD is main's merge-base and has no parent: name a base with --base")
	}
	return parent, "HEAD^1 (main before its last landing)", nil
}

// describeHead says which commit the working tree is at and whether it has changes.
func describeHead(ctx context.Context, repo string) (string, error) {
	head, err := git(ctx, repo, "rev-parse", "--short=12", "HEAD")
	if err != nil {
		return "", err
	}
	status, err := git(ctx, repo, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return "", err
	}
	if status != "" {
		return head + " + uncommitted changes", nil
	}
	return head, nil
}

// exportTree writes the files of commit into dir (git archive, unpacked here), so
// the previous build compiles from a clean copy and the repository is left as it
// was: no worktree, no checkout.
func exportTree(ctx context.Context, repo, commit, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", commit)
	cmd.Dir = repo
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	untarErr := untar(out, dir)
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %v: %s", commit, err, strings.TrimSpace(stderr.String()))
	}
	return untarErr
}

// untar unpacks a tar stream of regular files, folders and symbolic links into dir.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive entry %q leaves the folder", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			err = writeFile(p, tr, os.FileMode(h.Mode)&0o777)
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.Symlink(h.Linkname, p)
			}
		case tar.TypeXGlobalHeader:
		default:
			err = fmt.Errorf("archive entry %q: unexpected type %q", h.Name, h.Typeflag)
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(p string, r io.Reader, mode os.FileMode) error {
	return createFile(p, r, mode, os.O_TRUNC)
}

// createFile writes r into p, opened with flag besides O_CREATE|O_WRONLY (O_TRUNC to
// replace a file, O_EXCL to refuse one), making its folder.
func createFile(p string, r io.Reader, mode os.FileMode, flag int) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|flag, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// goBuild builds the commands pkgs (e.g. "./cmd/replay") of the module in src into
// out, and returns the path of each binary by command name.
func goBuild(ctx context.Context, src, out string, pkgs ...string) (map[string]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	args := append([]string{"build", "-o", out + string(filepath.Separator)}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = src
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build in %s failed: %v\n%s", src, err, strings.TrimSpace(output.String()))
	}
	bins := map[string]string{}
	for _, p := range pkgs {
		name := filepath.Base(p)
		bins[name] = filepath.Join(out, name)
	}
	return bins, nil
}
