package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/datasets/synth"
	"github.com/loopwatch/loopwatch/internal/corpus"
	"github.com/loopwatch/loopwatch/internal/plural"
)

// SynthSpec is a synthetic dataset's generator parameters:
// "synth:runs=N,sessions=N,vibes=N,seed=S,rerun-every=K,fix-loop-every=K" (seed
// required; vibes counts event logs of two sessions each).
type SynthSpec struct {
	Runs, Sessions, Vibes int
	Seed                  uint64
	RerunEvery            int
	FixLoopEvery          int
}

// ParseSynth reads the parameters after "synth:".
func ParseSynth(s string) (SynthSpec, error) {
	var spec SynthSpec
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return spec, fmt.Errorf("%q: parameters are key=value, separated by commas (runs, sessions, vibes, seed, rerun-every, fix-loop-every)", kv)
		}
		if seen[k] {
			return spec, fmt.Errorf("%s given twice", k)
		}
		seen[k] = true
		val = strings.TrimSpace(val)
		var dst *int
		switch k {
		case "runs":
			dst = &spec.Runs
		case "sessions":
			dst = &spec.Sessions
		case "vibes":
			dst = &spec.Vibes
		case "rerun-every":
			dst = &spec.RerunEvery
		case "fix-loop-every":
			dst = &spec.FixLoopEvery
		case "seed":
			seed, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				return spec, fmt.Errorf("seed=%s: not a whole number ≥ 0", val)
			}
			spec.Seed = seed
			continue
		default:
			return spec, fmt.Errorf("unknown parameter %q (runs, sessions, vibes, seed, rerun-every, fix-loop-every)", k)
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return spec, fmt.Errorf("%s=%s: not a whole number ≥ 0", k, val)
		}
		*dst = n
	}
	switch {
	case !seen["seed"]:
		return spec, errors.New("seed is required: a synthetic dataset is generated with a fixed seed")
	case spec.Runs+spec.Sessions+spec.Vibes == 0:
		return spec, errors.New("nothing to generate: give runs, sessions or vibes")
	}
	return spec, nil
}

func (s SynthSpec) String() string {
	var every string
	if s.RerunEvery > 0 {
		every += ", " + everyRun(s.RerunEvery) + " a re-run"
	}
	if s.FixLoopEvery > 0 {
		every += ", " + everyRun(s.FixLoopEvery) + " recorded with the inner fix loop on"
	}
	return fmt.Sprintf("%s, %s and %s (seed %d%s)", plural.Count(s.Runs, "run"), plural.Count(s.Sessions, "session"), plural.Count(s.Vibes, "vibes log"), s.Seed, every)
}

// Write generates the dataset into dir (which should be empty) and returns its input
// folder and label files.
func (s SynthSpec) Write(dir string) (in string, labels []string, err error) {
	w, err := synth.WriteDataset(synth.DirDest(dir), synth.DatasetConfig{Runs: s.Runs, Sessions: s.Sessions, VibesLogs: s.Vibes, Seed: s.Seed, RerunEvery: s.RerunEvery,
		FixLoopEvery: s.FixLoopEvery})
	if err != nil {
		return "", nil, err
	}
	for _, l := range w.Labels {
		labels = append(labels, filepath.Join(dir, filepath.FromSlash(l)))
	}
	return filepath.Join(dir, synth.InputsDir), labels, nil
}

// Source is where a dataset's replay reads from, resolved for one run.
type Source struct {
	// In is the input folder or file; "" is the built-in sample (with its labels).
	In     string
	Labels []string
	// Note says what the input is, for the report.
	Note string
}

// SkipError says why a dataset is skipped: the corpora folder is not on this machine.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// Resolve finds the dataset's input and labels. A synthetic dataset is generated
// into scratch, an empty folder the caller removes afterwards. A *SkipError means the
// corpora folder is absent; any other error that the input could not be prepared
// (among them a corpus, or a path in one, missing from a corpora folder that is there).
func (r *Registry) Resolve(ds Dataset, scratch string) (Source, error) {
	src := Source{Labels: slices.Clone(ds.Labels)}
	if ds.Input.Kind == InputCorpus {
		if _, err := r.corpusPath(ds.Input.Path); err != nil {
			return Source{}, err // the corpus itself first: its labels are in it
		}
	}
	for i, l := range src.Labels {
		if strings.HasPrefix(l, corpusScheme) {
			p, err := r.corpusPath(l)
			if err != nil {
				return Source{}, err
			}
			src.Labels[i] = p
		}
	}
	switch ds.Input.Kind {
	case InputBuiltin:
		src.Note = "the built-in sample with its labels"
	case InputSynth:
		in, labels, err := ds.Input.Synth.Write(scratch)
		if err != nil {
			return Source{}, fmt.Errorf("dataset %s: generating %s: %w", ds.Name, ds.Input.Spec, err)
		}
		src.In, src.Labels = in, labels
		src.Note = "synthetic: " + ds.Input.Synth.String() + " with their ground truth"
	case InputCorpus:
		p, err := r.corpusPath(ds.Input.Path)
		if err != nil {
			return Source{}, err
		}
		src.In, src.Note = p, ds.Input.Spec
	default:
		src.In, src.Note = ds.Input.Path, ds.Input.Spec
	}
	return src, nil
}

// corpusPath resolves "corpus:NAME[/PATH]" under the corpora folder. Only a machine
// without the corpora folder skips (a *SkipError); where the folder is, a corpus or a
// path in it that is not there is an error — a misspelt name must not skip a dataset
// night after night. So is a corpora folder $LOOPWATCH_CORPORA names that is not
// there ([Registry.CheckCorpora]).
func (r *Registry) corpusPath(ref string) (string, error) {
	name, rest, err := splitCorpus(ref)
	if err != nil {
		return "", err
	}
	if r.Corpora == "" {
		return "", &SkipError{fmt.Sprintf("%s: no corpora folder (set %s, or corpora = \"…\" in the registry)", ref, corpus.EnvVar)}
	}
	if err := r.corporaFolder(); err != nil {
		return "", fmt.Errorf("%s: %w", ref, err)
	}
	if fi, err := os.Stat(r.Corpora); err != nil || !fi.IsDir() {
		return "", &SkipError{fmt.Sprintf("%s: no corpora folder at %s on this machine (set %s to the corpora folder)", ref, r.Corpora, corpus.EnvVar)}
	}
	dir := filepath.Join(r.Corpora, name)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s: the corpora folder %s holds no corpus %q (it holds: %s)", ref, r.Corpora, name, corpusNames(r.Corpora))
	}
	p := filepath.Join(dir, filepath.FromSlash(rest))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s: not in corpus %s: %w", ref, name, err)
	}
	return p, nil
}

// corporaFolder returns an error when $LOOPWATCH_CORPORA names the corpora folder
// and it is not one.
func (r *Registry) corporaFolder() error {
	if !r.CorporaFromEnv {
		return nil
	}
	var why error
	switch fi, err := os.Stat(r.Corpora); {
	case err != nil:
		why = err
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			why = pe.Err // the path is named already
		}
	case !fi.IsDir():
		why = errors.New("not a folder")
	default:
		return nil
	}
	return fmt.Errorf("%s=%s names no corpora folder: %w (fix it, or unset it to skip the corpus datasets on a machine without the corpora)",
		corpus.EnvVar, r.Corpora, why)
}

// CheckCorpora returns an error when one of datasets reads a corpus (its input or a
// label file) and $LOOPWATCH_CORPORA names a corpora folder that is not there: a
// folder named on purpose that is missing (a typo, a volume not mounted) is a
// mistake to fix, not a machine without the corpora, whose corpus datasets are
// skipped — a nightly run would pass, skipping them, night after night.
func (r *Registry) CheckCorpora(datasets []Dataset) error {
	var readers []string
	for _, ds := range datasets {
		reads := ds.Input.Kind == InputCorpus
		for _, l := range ds.Labels {
			reads = reads || strings.HasPrefix(l, corpusScheme)
		}
		if reads {
			readers = append(readers, ds.Name)
		}
	}
	if len(readers) == 0 {
		return nil
	}
	if err := r.corporaFolder(); err != nil {
		return fmt.Errorf("%w; %s %s %s it", err, plural.Form(len(readers), "the dataset", "the datasets"), strings.Join(readers, ", "), plural.Form(len(readers), "reads", "read"))
	}
	return nil
}

// corpusNames lists the corpora of a corpora folder, for a message.
func corpusNames(dir string) string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

// Shorten rewrites the paths of a resolved source in text — the scratch folder a
// synthetic dataset was generated into, the corpora folder — as "synth:" and
// "corpus:", so that what a report says does not depend on the machine or the run.
func (r *Registry) Shorten(text, scratch string) string {
	if scratch != "" {
		text = strings.ReplaceAll(text, scratch+string(filepath.Separator), synthScheme)
	}
	if r.Corpora != "" {
		text = strings.ReplaceAll(text, r.Corpora+string(filepath.Separator), corpusScheme)
	}
	return text
}

// everyRun says every n-th run in words: "every run", "every 2nd run", "every 11th run".
func everyRun(n int) string {
	if n == 1 {
		return "every run"
	}
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("every %d%s run", n, suffix)
}
