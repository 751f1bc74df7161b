package filter

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestUnclaimed(t *testing.T) {
	tests := []struct {
		name              string
		modified, claimed []string
		want              []string
	}{
		{"all claimed", []string{"a.go", "b/c.go"}, []string{"a.go", "b/c.go"}, nil},
		{"one unclaimed", []string{"a.go", "b.go"}, []string{"a.go"}, []string{"b.go"}},
		{"directory claim", []string{"pkg/x.go", "pkg/sub/y.go", "pkgx/z.go"}, []string{"pkg/"}, []string{"pkgx/z.go"}},
		{"glob claim", []string{"pkg/x.go", "pkg/x_test.go", "pkg/sub/y.go"}, []string{"pkg/*.go"}, []string{"pkg/sub/y.go"}},
		{"dot-slash and duplicates cleaned", []string{"./a.go", "a.go", "b.go", "./b.go"}, []string{"./a.go"}, []string{"b.go"}},
		{"sorted", []string{"z.go", "a.go", "m.go"}, nil, []string{"a.go", "m.go", "z.go"}},
		{"blank entries ignored", []string{"", "  ", "a.go"}, []string{"", "a.go"}, nil},
		{"dir claim without slash is exact only", []string{"pkg/x.go"}, []string{"pkg"}, []string{"pkg/x.go"}},
		{"bad pattern never matches", []string{"a.go"}, []string{"[a.go"}, []string{"a.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unclaimed(tt.modified, tt.claimed); !slices.Equal(got, tt.want) {
				t.Errorf("Unclaimed = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClaimsCheck(t *testing.T) {
	tests := []struct {
		name       string
		src        ClaimsFunc
		wantPass   bool
		wantOutput string
		wantErr    error
	}{
		{
			name: "unclaimed files fail with quasar's output",
			src: func(context.Context, string) ([]string, []string, error) {
				return []string{"internal/loop/loop.go", "internal/filter/chain.go", "go.mod"}, []string{"internal/loop/"}, nil
			},
			wantOutput: "Modified files not claimed by task quasar-abc:\n  go.mod\n  internal/filter/chain.go",
		},
		{
			name: "all claimed passes",
			src: func(context.Context, string) ([]string, []string, error) {
				return []string{"a.go"}, []string{"a.go"}, nil
			},
			wantPass: true,
		},
		{
			name: "nothing modified passes",
			src: func(context.Context, string) ([]string, []string, error) {
				return nil, nil, nil
			},
			wantPass: true,
		},
		{
			name: "source error is infrastructure",
			src: func(context.Context, string) ([]string, []string, error) {
				return nil, nil, errors.New("fabric unreachable")
			},
			wantErr: ErrInfrastructure,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Chain{Checks: []Check{ClaimsCheck("quasar-abc", tt.src)}}
			cr, err := c.RunCheck(context.Background(), "", CheckClaims)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if cr.Passed != tt.wantPass || cr.Output != tt.wantOutput {
				t.Errorf("got Passed=%v Output=%q, want %v %q", cr.Passed, cr.Output, tt.wantPass, tt.wantOutput)
			}
		})
	}
}

func TestGitDiffClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("claimed/a.go", "package claimed\n")
	write("other/b.go", "package other\n")
	write(".gitignore", "*.log\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	write("claimed/a.go", "package claimed // edited\n") // modified, claimed
	write("other/b.go", "package other // edited\n")     // modified, not claimed
	write("other/new.go", "package other\n")             // untracked, not claimed
	write("debug.log", "ignored\n")                      // ignored
	write("claimed/staged.go", "package claimed\n")      // staged, claimed
	git("add", "claimed/staged.go")

	// Run from a sub-directory: paths must still be relative to the repository root.
	sub := filepath.Join(dir, "claimed")
	chain := &Chain{Checks: []Check{ClaimsCheck("quasar-xyz", GitDiffClaims{Claimed: []string{"claimed/"}})}}
	cr, err := chain.RunCheck(context.Background(), sub, CheckClaims)
	if err != nil {
		t.Fatal(err)
	}
	want := "Modified files not claimed by task quasar-xyz:\n  other/b.go\n  other/new.go"
	if cr.Passed || cr.Output != want {
		t.Errorf("got Passed=%v Output=%q, want %q", cr.Passed, cr.Output, want)
	}

	// Outside a repository, git fails: infrastructure, not a claims failure.
	_, err = chain.RunCheck(context.Background(), t.TempDir(), CheckClaims)
	if !errors.Is(err, ErrInfrastructure) {
		t.Errorf("outside a repository: err = %v, want ErrInfrastructure", err)
	}
}
