package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	flag "github.com/spf13/pflag"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/internal/plural"
	"github.com/loopwatch/loopwatch/internal/tmpname"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/reports"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `Usage: datagen --out DIR [--runs N] [--sessions N] [--vibes N] [--seed S] [--rerun-every K] [--fix-loop-every K]
       datagen --sample --out DIR

Writes synthetic quasar run traces, Claude Code transcripts and vibes event logs with
their ground-truth labels into DIR/inputs and DIR/labels, and prints the command that
replays them (DIR/inputs with --labels DIR/labels/runs.csv and DIR/labels/sessions.csv,
those it wrote). The same flags always write the same bytes. --sample writes the
built-in sample that make demo replays, replacing an earlier sample's inputs/ and
labels/ (refused, exit 2, when they hold a file the sample does not write).

The dataset is written into a hidden temporary folder in DIR, which replay never
reads, and renamed into place once whole: a failure (exit 1) or an interrupt
(exit 130) leaves nothing at DIR.

Examples:
  datagen --sample --out sample
  datagen --runs 1000 --seed 7 --out synth
  datagen --runs 0 --sessions 50 --vibes 5 --out sessions
  datagen --runs 200 --rerun-every 5 --seed 3 --out reruns
  datagen --runs 200 --fix-loop-every 2 --out fixloop

Flags:
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("datagen", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write inputs/ and labels/ into (required)")
	runs := fs.Int("runs", 100, "number of quasar runs, scenarios drawn uniformly")
	sessions := fs.Int("sessions", 0, "number of Claude Code sessions, scenarios drawn uniformly")
	vibes := fs.Int("vibes", 0, "number of vibes event logs (two sessions each)")
	seed := fs.Uint64("seed", 1, "random seed")
	rerun := fs.Int("rerun-every", 0, "make every k-th run a re-run (the next epoch) of the previous run's task; 0 disables")
	fixLoop := fs.Int("fix-loop-every", 0, "record every k-th run with quasar's inner filter fix loop on (its fix attempts and verdicts); 0 disables")
	sample := fs.Bool("sample", false, "write the built-in sample dataset (ignores the other flags but --out)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "datagen: unexpected argument %q (every setting is a flag; see datagen --help)\n", fs.Arg(0))
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "datagen: --out is required")
		return 2
	}
	if *runs < 0 || *sessions < 0 || *vibes < 0 || *rerun < 0 || *fixLoop < 0 {
		fmt.Fprintln(stderr, "datagen: --runs, --sessions, --vibes, --rerun-every and --fix-loop-every must not be negative")
		return 2
	}
	if !*sample && *runs+*sessions+*vibes == 0 {
		fmt.Fprintln(stderr, "datagen: nothing to generate: give --runs, --sessions or --vibes a count above 0")
		return 2
	}
	// --sample writes its fixed files over an earlier sample's: how datasets/sample is
	// regenerated. It replaces inputs/ and labels/ only when they hold nothing but
	// files of the sample: any other file there is someone's, which it never removes.
	var replaces map[string][]byte
	if *sample {
		replaces = synth.SampleFiles()
	}
	p, err := earlierDataset(*out)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "datagen: --out %s: %v\n", *out, err)
		return 2
	case p != "" && !*sample:
		fmt.Fprintf(stderr, "datagen: %s already exists: write into a folder without %s/ and %s/ (remove them, or choose another --out)\n",
			p, synth.InputsDir, labelsDir)
		return 2
	case p != "":
		if err := replaceable(*out, replaces); err != nil {
			fmt.Fprintf(stderr, "datagen: %v\n", err)
			return 2
		}
	}
	write := func(dest synth.Dest) (synth.Written, error) {
		// Streamed: each run, session and log is written as it is generated.
		return synth.WriteDataset(dest, synth.DatasetConfig{Runs: *runs, Sessions: *sessions, VibesLogs: *vibes, Seed: *seed, RerunEvery: *rerun,
			FixLoopEvery: *fixLoop})
	}
	if *sample {
		write = writeSample
	}
	w, stale, err := generate(ctx, *out, replaces, write)
	for _, p := range stale {
		fmt.Fprintf(stderr, "datagen: removed %s, the temporary folder of a datagen that was killed\n", p)
	}
	var oe outError
	var fe foreignError
	var lt leftTemp
	switch {
	case errors.As(err, &lt):
		fmt.Fprintf(stderr, "datagen: warning: %v\n", lt)
	case err != nil && ctx.Err() != nil:
		fmt.Fprintf(stderr, "datagen: interrupted; nothing was written to %s\n", *out)
		return pipeline.ExitInterrupted
	case errors.As(err, &oe):
		fmt.Fprintf(stderr, "datagen: --out %s: %v\n", *out, oe.error)
		return 2
	case errors.As(err, &fe):
		fmt.Fprintf(stderr, "datagen: %v\n", fe)
		return 2
	case errors.Is(err, errLeftMixed):
		fmt.Fprintf(stderr, "datagen: %v\n", err)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "datagen: %v; nothing was written to %s\n", err, *out)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s, %s, %s and their labels to %s\n",
		plural.Count(w.Runs, "run file"), plural.Count(w.Sessions, "session file"), plural.Count(w.Vibes, "vibes log"), *out)
	// The replay of what was written, with the label files written.
	replayCmd := "replay --in " + filepath.Join(*out, synth.InputsDir)
	for _, l := range w.Labels {
		replayCmd += " --labels " + filepath.Join(*out, filepath.FromSlash(l))
	}
	fmt.Fprintf(stdout, "replay it: %s --out %s\n", replayCmd, filepath.Join(*out, "results.parquet"))
	return 0
}

// labelsDir is the folder of a dataset's labels.
var labelsDir = path.Dir(synth.RunLabelsFile)

// earlierDataset returns the path of an earlier dataset's inputs/ or labels/ in dir,
// "" when there is neither, or why dir cannot hold a dataset (a file, say).
func earlierDataset(dir string) (string, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return "", errors.New("is a file, not a folder")
	}
	for _, part := range []string{synth.InputsDir, labelsDir} {
		p := filepath.Join(dir, filepath.FromSlash(part))
		switch _, err := os.Lstat(p); {
		case err == nil:
			return p, nil
		case !errors.Is(err, os.ErrNotExist):
			return "", err
		}
	}
	return "", nil
}

// foreignError names a file in an earlier dataset's inputs/ or labels/ that the
// dataset written would not replace: --sample refuses to remove it.
type foreignError struct{ path string }

func (e foreignError) Error() string {
	return fmt.Sprintf("%s is no file of the sample, which replaces %s/ and %s/ whole: --sample never removes a file it did not write (move it out of the way, or choose another --out)",
		e.path, synth.InputsDir, labelsDir)
}

// replaceable checks that the inputs/ and labels/ in dir hold nothing but files
// whose slash-separated paths relative to dir are keys of files (and the folders
// holding them), or returns a foreignError naming the first other entry: a file, a
// symbolic link, anything that is not a folder.
func replaceable(dir string, files map[string][]byte) error {
	return replaceableAt(dir, dir, files)
}

// replaceableAt is replaceable of the inputs/ and labels/ in dir, named as if they
// were in shown (where they were before commit moved them aside).
func replaceableAt(dir, shown string, files map[string][]byte) error {
	for _, part := range []string{synth.InputsDir, labelsDir} {
		root := filepath.Join(dir, filepath.FromSlash(part))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root && errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if _, ok := files[filepath.ToSlash(rel)]; !ok || !d.Type().IsRegular() {
				return foreignError{filepath.Join(shown, rel)}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeSample writes the built-in sample into dest.
func writeSample(dest synth.Dest) (w synth.Written, err error) {
	files := synth.SampleFiles()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f, err := dest.Create(name)
		if err != nil {
			return w, err
		}
		_, err = f.Write(files[name])
		if err = errors.Join(err, f.Close()); err != nil {
			return w, err
		}
		if name == synth.RunLabelsFile || name == synth.SessionLabelsFile {
			w.Labels = append(w.Labels, name) // in sorted order: runs, then sessions, as WriteDataset lists them
		}
		if part, _, ok := strings.Cut(strings.TrimPrefix(name, synth.InputsDir+"/"), "/"); ok && strings.HasPrefix(name, synth.InputsDir+"/") {
			switch part {
			case "runs":
				w.Runs++
			case "sessions":
				w.Sessions++
			case "vibes":
				w.Vibes++
			}
		}
	}
	return w, nil
}

// outError is a failure to make the --out folder or a temporary folder in it: a
// usage error.
type outError struct{ error }

func (e outError) Unwrap() error { return e.error }

// generate has write write a dataset into a temporary folder in out (made if need be)
// and, once it is whole, renames its inputs/ and labels/ into out, as a set: an
// earlier dataset's (--sample's) are moved aside first and removed last — only if
// they hold nothing but the files of replaces (keyed as synth.SampleFiles), else they
// are put back and generate fails with a foreignError — and if a rename fails what was
// moved is moved back. First it removes the temporary folders of datagens that were
// killed (SIGKILL) in out, and returns them (stale). A failure of write, or ctx done while it
// writes (every file created and every write checks it), removes the temporary folder,
// and out if generate made it: nothing appears at out. The dataset is streamed to
// disk, never held in memory.
func generate(ctx context.Context, out string, replaces map[string][]byte, write func(synth.Dest) (synth.Written, error)) (w synth.Written, stale []string, err error) {
	made, err := mkdirs(out)
	if err != nil {
		return w, nil, outError{err}
	}
	stale, err = reports.CleanStaleFolders(out, tmpFolder)
	if err != nil {
		return w, stale, errors.Join(outError{fmt.Errorf("removing a killed datagen's temporary folder: %w", err)}, removeMade(made))
	}
	tmp, err := tmpname.MkdirTemp(out, tmpFolder)
	if err != nil {
		return w, stale, errors.Join(outError{err}, removeMade(made))
	}
	committed := false
	defer func() {
		switch {
		case errors.Is(err, errLeftMixed): // what could not be put back is in tmp: keep it
		case committed: // the dataset is in place: a temporary folder left is a warning
			if rerr := os.RemoveAll(tmp); rerr != nil {
				err = leftTemp{tmp, rerr}
			}
		default:
			err = errors.Join(err, os.RemoveAll(tmp))
			if err != nil {
				err = errors.Join(err, removeMade(made))
			}
		}
	}()
	if w, err = write(cancelDest{ctx: ctx, done: ctx.Done(), dest: synth.DirDest(tmp)}); err != nil {
		return w, stale, err
	}
	if err := ctx.Err(); err != nil {
		return w, stale, err
	}
	if err := commit(tmp, out, replaces); err != nil {
		return w, stale, err
	}
	committed = true
	return w, stale, nil
}

// leftTemp says that the dataset is in place but datagen's temporary folder could not
// be removed: a warning, naming it (replay never reads it; the next datagen removes
// it).
type leftTemp struct {
	path string
	err  error
}

func (e leftTemp) Error() string {
	return fmt.Sprintf("could not remove its temporary folder %s (%v); replay does not read it, and the next datagen here removes it", e.path, e.err)
}

// tmpFolder names datagen's temporary folder, ".datagen.tmp-<pid>-<random>", which
// replay never reads (tmpname.Parse recognises it).
const tmpFolder = "datagen"

// commit renames tmp's inputs/ and labels/ into out, an earlier dataset's moved aside
// into tmp first — and checked there, where no one else writes, to hold only files of
// replaces (a file added since run checked them is put back, never removed); if a
// rename fails, or the check does, every one done is undone.
func commit(tmp, out string, replaces map[string][]byte) error {
	type rename struct{ from, to string }
	var done []rename
	move := func(from, to string) error {
		if err := os.Rename(from, to); err != nil {
			return err
		}
		done = append(done, rename{from, to})
		return nil
	}
	undo := func(err error) error { // every rename is tried; what stays where it was moved is named
		var failed []string
		for i := len(done) - 1; i >= 0; i-- {
			if uerr := os.Rename(done[i].to, done[i].from); uerr != nil {
				failed = append(failed, fmt.Sprintf("moving %s back to %s failed (%v)", done[i].to, done[i].from, uerr))
			}
		}
		if failed != nil {
			return fmt.Errorf("%w; and %s — %s is kept as it is: %w", err, strings.Join(failed, "; "), tmp, errLeftMixed)
		}
		return err
	}
	parts := []string{synth.InputsDir, labelsDir}
	previous := filepath.Join(tmp, "previous")
	if err := os.Mkdir(previous, 0o755); err != nil {
		return err
	}
	for _, part := range parts {
		if _, err := os.Lstat(filepath.Join(out, part)); err == nil {
			if replaces == nil { // none was there when datagen began: someone made it since
				return undo(fmt.Errorf("%s appeared while datagen wrote: nothing was replaced", filepath.Join(out, part)))
			}
			if err := move(filepath.Join(out, part), filepath.Join(previous, part)); err != nil {
				return undo(err)
			}
		}
	}
	if err := replaceableAt(previous, out, replaces); err != nil {
		return undo(err)
	}
	for _, part := range parts {
		from := filepath.Join(tmp, part)
		if _, err := os.Lstat(from); errors.Is(err, os.ErrNotExist) {
			continue // nothing of the part was generated
		}
		if err := move(from, filepath.Join(out, part)); err != nil {
			return undo(err)
		}
	}
	return nil
}

// errLeftMixed says that a failed commit could not put back what it had moved.
var errLeftMixed = errors.New("the folder is left mixed")

// mkdirs makes dir and the folders above it that are missing, and returns those it
// made, the deepest last.
func mkdirs(dir string) (made []string, err error) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, os.ErrNotExist) {
			break
		}
		made = append([]string{d}, made...)
		if filepath.Dir(d) == d {
			break
		}
	}
	return made, os.MkdirAll(dir, 0o755)
}

// removeMade removes the folders mkdirs made, the deepest first, each if empty.
func removeMade(made []string) error {
	var errs []error
	for i := len(made) - 1; i >= 0; i-- {
		if err := os.Remove(made[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cancelDest is a synth.Dest that fails with ctx's error once it is done: at the next
// file created or written to.
type cancelDest struct {
	ctx  context.Context
	done <-chan struct{}
	dest synth.Dest
}

func (d cancelDest) err() error {
	select {
	case <-d.done:
		return d.ctx.Err()
	default:
		return nil
	}
}

// Create implements synth.Dest.
func (d cancelDest) Create(name string) (io.WriteCloser, error) {
	if err := d.err(); err != nil {
		return nil, err
	}
	f, err := d.dest.Create(name)
	if err != nil {
		return nil, err
	}
	return cancelFile{f, d}, nil
}

type cancelFile struct {
	io.WriteCloser
	d cancelDest
}

func (f cancelFile) Write(p []byte) (int, error) {
	if err := f.d.err(); err != nil {
		return 0, err
	}
	return f.WriteCloser.Write(p)
}
