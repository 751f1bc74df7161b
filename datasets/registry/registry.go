// Package registry reads loopwatch's dataset registry: the TOML file
// (datasets/registry.toml) that says which datasets nightly regression replays, how,
// and which figures each detector must keep.
//
// A registry holds, per dataset, its input (a folder or file, the built-in sample,
// a synthetic dataset generated on the fly, or a corpus that may be absent), its
// label files, whether quasar runs are labelled from their outcomes, the detectors
// scored and the detector configurations replayed, and per configuration × detector
// × metric a baseline value with a tolerance:
//
//	version = 1
//	corpora = "../../shared/corpora"   # where corpus: inputs live; $LOOPWATCH_CORPORA wins
//
//	[eval]                             # the evaluation every dataset is scored with
//	seed = 1
//	resamples = 2000
//	ci_level = 0.95
//
//	[configs.strict]                   # a named configuration: files or presets
//	description = "a higher struggle threshold"
//	struggle = "configs/strict.json"   # relative to this file
//	assess = "seed"
//
//	[[datasets]]
//	name = "quasar"
//	description = "quasar's own history, labelled from its outcomes"
//	input = "corpus:quasar"
//	derive_labels = true
//	detectors = ["struggle"]
//	configs = ["default", "seed", "strict"]
//
//	[datasets.baselines.default.struggle]
//	recall = { value = 0.8125, tolerance = 0.02 }
//
// Inputs are "builtin:sample" (the embedded sample and its labels),
// "synth:runs=N,sessions=N,vibes=N,seed=S,rerun-every=K,fix-loop-every=K" (generated with the fixed
// seed into a temporary folder, with its ground-truth labels), "corpus:NAME[/PATH]"
// (under the corpora folder; the dataset is skipped with a notice when it is absent —
// unless $LOOPWATCH_CORPORA named the folder, which must then be there:
// [Registry.CheckCorpora]), or a path relative to the registry file. Labels take paths and corpus: paths.
// Configurations are "default" (the detectors' defaults), a preset name ([Presets])
// or a [configs.NAME] table whose struggle and assess members name a preset or a
// JSON file. Baselines are written `metric = { value = V, tolerance = T }` (value
// `nan` when the metric was undefined) so that [Registry.UpdateBaselines] can rewrite
// them in place, keeping every comment and the layout.
//
// Loading is strict: unknown keys, a wrong type, an unknown detector, metric,
// configuration or input scheme, a missing file, a baseline for a configuration or
// detector the dataset does not run — each is an error that names its line.
package registry

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/loopwatch/loopwatch/internal/corpus"
)

// MaxResamples is the most eval.resamples a registry may ask for: eval.MaxResamples,
// which the registry does not import (it would bring the evaluation, and gonum, into
// the datasets' catalogue); package regress holds the two equal
// (TestRegistryResamplesBound).
const MaxResamples = 100_000

// Version is the registry format this package reads.
const Version = 1

// Registry is a loaded, validated registry.
type Registry struct {
	// Path is the registry file; Dir is the folder relative paths resolve against.
	Path, Dir string
	// Corpora is the folder corpus: inputs are found in (absolute; "" when the
	// registry names none and $LOOPWATCH_CORPORA is unset).
	Corpora string
	// CorporaFromEnv says that Corpora is $LOOPWATCH_CORPORA's: named on purpose, so
	// a folder that is not there is an error, not a machine without the corpora.
	CorporaFromEnv bool
	Eval           Eval
	// Configs are the [configs.NAME] tables, by name.
	Configs  map[string]Config
	Datasets []Dataset

	src []byte
	ix  *index
}

// Eval is the evaluation every dataset is scored with; a nil member keeps the
// replay's default.
type Eval struct {
	Seed      *uint64  `toml:"seed"`
	Resamples *int     `toml:"resamples"`
	Level     *float64 `toml:"ci_level"`
}

// Config is one detector configuration: "default", a preset, or a named table.
type Config struct {
	Name        string
	Description string
	// Struggle and Assess are the --struggle-config and --assess-config values: ""
	// (the defaults), a preset name, or an absolute path to a JSON file.
	Struggle, Assess string
	// Line is where the configuration is defined (0: a built-in name).
	Line int
}

// Dataset is one registered dataset.
type Dataset struct {
	Name, Description string
	Input             Input
	// Labels are label files: absolute paths, or corpus: references resolved at run
	// time ([Registry.Resolve]).
	Labels       []string
	DeriveLabels bool
	// PositiveOutcomes and FrictionWindow override the replay's defaults when set.
	PositiveOutcomes string
	FrictionWindow   time.Duration
	// Detectors and Configs are what is scored and replayed, in report order;
	// Detectors begins with [InputCheck], which every dataset has.
	Detectors []string
	Configs   []Config
	// Baselines are the recorded figures.
	Baselines map[Key]Baseline
	// Index is the dataset's position in the file; Line is its [[datasets]] header.
	Index, Line int
}

// Key names one baselined figure of a dataset.
type Key struct{ Config, Detector, Metric string }

func (k Key) String() string { return k.Config + "/" + k.Detector + "/" + k.Metric }

// Baseline is a recorded figure: its value (NaN when it was undefined) and how far
// it may move in the bad direction before that counts.
type Baseline struct {
	Value, Tolerance float64
	Line             int
}

// InputKind is how a dataset's input is found.
type InputKind int

const (
	// InputPath is a file or folder (Path, absolute).
	InputPath InputKind = iota
	// InputBuiltin is the built-in sample with its labels.
	InputBuiltin
	// InputSynth is generated on the fly (Synth).
	InputSynth
	// InputCorpus is a corpus folder or file (Path: NAME[/PATH]), skipped when absent.
	InputCorpus
)

// Input is a dataset's input.
type Input struct {
	Kind InputKind
	// Spec is the input as written in the registry.
	Spec string
	// Path is the absolute path (InputPath) or the corpus reference (InputCorpus).
	Path  string
	Synth SynthSpec
}

// The schemes of inputs and labels.
const (
	BuiltinSample = "builtin:sample"
	synthScheme   = "synth:"
	corpusScheme  = "corpus:"
)

// file is the registry as written.
type file struct {
	Version  int                   `toml:"version"`
	Corpora  string                `toml:"corpora"`
	Eval     Eval                  `toml:"eval"`
	Configs  map[string]configFile `toml:"configs"`
	Datasets []datasetFile         `toml:"datasets"`
}

type configFile struct {
	Description string `toml:"description"`
	Struggle    string `toml:"struggle"`
	Assess      string `toml:"assess"`
}

type datasetFile struct {
	Name             string                                        `toml:"name"`
	Description      string                                        `toml:"description"`
	Input            string                                        `toml:"input"`
	Labels           []string                                      `toml:"labels"`
	DeriveLabels     bool                                          `toml:"derive_labels"`
	PositiveOutcomes string                                        `toml:"positive_outcomes"`
	FrictionWindow   string                                        `toml:"friction_window"`
	Detectors        []string                                      `toml:"detectors"`
	Configs          []string                                      `toml:"configs"`
	Baselines        map[string]map[string]map[string]baselineFile `toml:"baselines"`
}

type baselineFile struct {
	Value     *float64 `toml:"value"`
	Tolerance *float64 `toml:"tolerance"`
}

// Error is a problem with the registry file, at a line (0: the file as a whole).
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// Load reads and validates the registry file at path.
func Load(path string) (*Registry, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Path: path, Msg: unwrapPath(err).Error()}
	}
	return Parse(path, src)
}

// Parse validates src as the registry file at path (relative paths resolve against
// its folder). Every problem found is reported, each with its line. A UTF-8 byte
// order mark at the top is no part of the TOML (a rewrite leaves it out).
func Parse(path string, src []byte) (*Registry, error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	var f file
	dec := toml.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, decodeError(path, err)
	}
	ix, err := newIndex(src)
	if err != nil {
		return nil, &Error{Path: path, Msg: err.Error()}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{Path: path, Msg: err.Error()}
	}
	r := &Registry{Path: path, Dir: filepath.Dir(abs), Eval: f.Eval, Configs: map[string]Config{}, src: src, ix: ix}
	v := &validator{r: r}
	v.check(f)
	if len(v.errs) > 0 {
		return nil, errors.Join(v.errs...)
	}
	return r, nil
}

// decodeError turns go-toml's errors into Errors with their lines.
func decodeError(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var errs []error
		for _, e := range strict.Errors {
			row, _ := e.Position()
			errs = append(errs, &Error{Path: path, Line: row, Msg: fmt.Sprintf("unknown key %s", strings.Join(e.Key(), "."))})
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return &Error{Path: path, Line: row, Msg: de.Error()}
	}
	return &Error{Path: path, Msg: err.Error()}
}

// validator collects every problem of a registry.
type validator struct {
	r    *Registry
	errs []error
}

func (v *validator) fail(path []string, format string, args ...any) {
	v.errs = append(v.errs, &Error{Path: v.r.Path, Line: v.r.ix.line(path...), Msg: fmt.Sprintf(format, args...)})
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func (v *validator) check(f file) {
	r := v.r
	if f.Version != Version {
		v.fail([]string{"version"}, "version = %d: this loopwatch reads registry version %d (write version = %d)", f.Version, Version, Version)
	}
	r.Corpora = os.Getenv(corpus.EnvVar)
	r.CorporaFromEnv = r.Corpora != ""
	if r.Corpora == "" && f.Corpora != "" {
		r.Corpora = r.abs(f.Corpora)
	}
	if e := f.Eval; e.Resamples != nil && (*e.Resamples < 0 || *e.Resamples > MaxResamples) {
		v.fail([]string{"eval", "resamples"}, "eval.resamples = %d: must be between 0 (no bootstrap) and %d", *e.Resamples, MaxResamples)
	}
	if e := f.Eval; e.Level != nil && !(*e.Level > 0 && *e.Level < 1) {
		v.fail([]string{"eval", "ci_level"}, "eval.ci_level = %v: must be between 0 and 1 (e.g. 0.95)", *e.Level)
	}
	for _, name := range sortedKeys(f.Configs) {
		c := f.Configs[name]
		at := []string{"configs", name}
		switch {
		case !nameRE.MatchString(name):
			v.fail(at, "configs.%s: a configuration name is letters, digits, '.', '_' and '-' (it names an output folder)", name)
			continue
		case name == DefaultConfig || slices.Contains(Presets, name):
			v.fail(at, "configs.%s: %q is a built-in configuration; give yours another name", name, name)
			continue
		}
		cfg := Config{Name: name, Description: c.Description, Line: r.ix.line(at...)}
		cfg.Struggle = v.configValue(append(at, "struggle"), c.Struggle)
		cfg.Assess = v.configValue(append(at, "assess"), c.Assess)
		if cfg.Description == "" {
			cfg.Description = describeConfig(c)
		}
		r.Configs[name] = cfg
	}
	names := map[string]int{}
	for i, d := range f.Datasets {
		at := []string{"datasets", strconv.Itoa(i)}
		if prev, dup := names[d.Name]; dup {
			v.fail(append(at, "name"), "dataset %q is registered twice (also at line %d)", d.Name, r.ix.line("datasets", strconv.Itoa(prev), "name"))
			continue
		}
		names[d.Name] = i
		if ds, ok := v.dataset(i, at, d); ok {
			r.Datasets = append(r.Datasets, ds)
		}
	}
	if len(f.Datasets) == 0 {
		v.fail(nil, "no [[datasets]]: register at least one")
	}
}

// configValue checks a --struggle-config or --assess-config value: "", a preset, or
// a JSON file relative to the registry.
func (v *validator) configValue(at []string, s string) string {
	if s == "" || slices.Contains(Presets, s) {
		return s
	}
	if s == DefaultConfig {
		return ""
	}
	p := v.r.abs(s)
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		v.fail(at, "%s = %q: neither a preset (%s) nor a JSON file (looked at %s)", pathKey(at), s, strings.Join(Presets, ", "), p)
	}
	return p
}

func (v *validator) dataset(i int, at []string, d datasetFile) (Dataset, bool) {
	n0 := len(v.errs)
	r := v.r
	field := func(name string) []string { return append(slices.Clone(at), name) }
	ds := Dataset{Name: d.Name, Description: d.Description, DeriveLabels: d.DeriveLabels, PositiveOutcomes: d.PositiveOutcomes,
		Index: i, Line: r.ix.line(at...), Baselines: map[Key]Baseline{}}
	if !nameRE.MatchString(d.Name) {
		v.fail(field("name"), "dataset name %q: letters, digits, '.', '_' and '-' (it names an output folder)", d.Name)
	}
	ds.Input = v.input(field("input"), d.Input)
	switch ds.Input.Kind {
	case InputBuiltin, InputSynth:
		if len(d.Labels) > 0 {
			v.fail(field("labels"), "dataset %s: %s brings its own ground-truth labels; remove labels", d.Name, d.Input)
		}
	}
	for _, l := range d.Labels {
		if strings.HasPrefix(l, corpusScheme) {
			if _, _, err := splitCorpus(l); err != nil {
				v.fail(field("labels"), "dataset %s: labels %q: %v", d.Name, l, err)
			}
			ds.Labels = append(ds.Labels, l)
			continue
		}
		p := r.abs(l)
		if _, err := os.Stat(p); err != nil {
			v.fail(field("labels"), "dataset %s: labels %q: %v (paths are relative to the registry file)", d.Name, l, unwrapPath(err))
		}
		ds.Labels = append(ds.Labels, p)
	}
	if d.FrictionWindow != "" {
		w, err := time.ParseDuration(d.FrictionWindow)
		if err != nil || w <= 0 {
			v.fail(field("friction_window"), "dataset %s: friction_window %q: a positive duration such as \"5m\"", d.Name, d.FrictionWindow)
		}
		ds.FrictionWindow = w
	}
	if len(d.Detectors) == 0 {
		v.fail(at, "dataset %s: detectors: name at least one of %s", d.Name, strings.Join(detectorNames(), ", "))
	}
	ds.Detectors = []string{InputCheck}
	for _, name := range d.Detectors {
		switch {
		case name == InputCheck:
			v.fail(field("detectors"), "dataset %s: %q is checked for every dataset; leave it out of detectors", d.Name, name)
		case slices.Contains(ds.Detectors, name):
			v.fail(field("detectors"), "dataset %s: detector %q listed twice", d.Name, name)
		case !validDetector(name):
			v.fail(field("detectors"), "dataset %s: unknown detector %q (detectors: %s)", d.Name, name, strings.Join(detectorNames(), ", "))
		default:
			ds.Detectors = append(ds.Detectors, name)
		}
	}
	configs := d.Configs
	if len(configs) == 0 {
		configs = []string{DefaultConfig}
	}
	for _, name := range configs {
		if slices.ContainsFunc(ds.Configs, func(c Config) bool { return c.Name == name }) {
			v.fail(field("configs"), "dataset %s: configuration %q listed twice", d.Name, name)
			continue
		}
		c, ok := r.config(name)
		if !ok {
			v.fail(field("configs"), "dataset %s: unknown configuration %q (default, a preset: %s, or a [configs.NAME] table)",
				d.Name, name, strings.Join(Presets, ", "))
			continue
		}
		ds.Configs = append(ds.Configs, c)
	}
	v.baselines(&ds, at, d)
	return ds, len(v.errs) == n0
}

func (v *validator) baselines(ds *Dataset, at []string, d datasetFile) {
	for _, cname := range sortedKeys(d.Baselines) {
		cat := append(slices.Clone(at), "baselines", cname)
		if !slices.ContainsFunc(ds.Configs, func(c Config) bool { return c.Name == cname }) {
			v.fail(cat, "dataset %s: baselines for configuration %q, which the dataset does not replay (configs: %s); remove them",
				ds.Name, cname, strings.Join(ds.configNames(), ", "))
			continue
		}
		for _, dname := range sortedKeys(d.Baselines[cname]) {
			dat := append(slices.Clone(cat), dname)
			det, ok := LookupDetector(dname)
			if !ok || !slices.Contains(ds.Detectors, dname) {
				v.fail(dat, "dataset %s: baselines for detector %q, which the dataset does not score (detectors: %s); remove them",
					ds.Name, dname, strings.Join(listed(ds.Detectors), ", "))
				continue
			}
			for _, mname := range sortedKeys(d.Baselines[cname][dname]) {
				mat := append(slices.Clone(dat), mname)
				b := d.Baselines[cname][dname][mname]
				m, ok := det.Metric(mname)
				if !ok {
					v.fail(mat, "dataset %s: %s has no metric %q (metrics: %s)", ds.Name, dname, mname, strings.Join(det.metricNames(), ", "))
					continue
				}
				if i, ok := v.r.ix.byPath[pathKey(mat)]; !ok || !v.r.ix.kvs[i].inlineTable {
					v.fail(mat, "dataset %s: baseline %s/%s/%s: write it as %s = { value = V, tolerance = T } on one line, so that --update-baseline can rewrite it",
						ds.Name, cname, dname, mname, mname)
					continue
				}
				switch {
				case b.Value == nil || b.Tolerance == nil:
					v.fail(mat, "dataset %s: baseline %s/%s/%s needs both value and tolerance", ds.Name, cname, dname, mname)
					continue
				case m.Check(*b.Value) != nil:
					v.fail(mat, "dataset %s: baseline %s/%s/%s: value %v", ds.Name, cname, dname, mname, m.Check(*b.Value))
					continue
				case !(*b.Tolerance >= 0) || math.IsInf(*b.Tolerance, 0):
					v.fail(mat, "dataset %s: baseline %s/%s/%s: tolerance %v must be a number ≥ 0", ds.Name, cname, dname, mname, *b.Tolerance)
					continue
				}
				ds.Baselines[Key{cname, dname, mname}] = Baseline{Value: *b.Value, Tolerance: *b.Tolerance, Line: v.r.ix.line(mat...)}
			}
		}
	}
}

func validDetector(name string) bool { _, ok := LookupDetector(name); return ok }

// input parses a dataset's input.
func (v *validator) input(at []string, s string) Input {
	in := Input{Spec: s}
	switch {
	case s == "":
		v.fail(at[:2], "dataset: input is required (%s, synth:…, corpus:NAME or a path)", BuiltinSample)
	case s == BuiltinSample:
		in.Kind = InputBuiltin
	case strings.HasPrefix(s, "builtin:"):
		v.fail(at, "input %q: the only built-in dataset is %s", s, BuiltinSample)
	case strings.HasPrefix(s, synthScheme):
		in.Kind = InputSynth
		spec, err := ParseSynth(strings.TrimPrefix(s, synthScheme))
		if err != nil {
			v.fail(at, "input %q: %v", s, err)
		}
		in.Synth = spec
	case strings.HasPrefix(s, corpusScheme):
		in.Kind = InputCorpus
		in.Path = s
		if _, _, err := splitCorpus(s); err != nil {
			v.fail(at, "input %q: %v", s, err)
		}
	default:
		in.Path = v.r.abs(s)
		if _, err := os.Stat(in.Path); err != nil {
			v.fail(at, "input %q: %v (paths are relative to the registry file)", s, unwrapPath(err))
		}
	}
	return in
}

// describeConfig says what a configuration table sets, for reports.
func describeConfig(c configFile) string {
	var parts []string
	if c.Struggle != "" {
		parts = append(parts, "struggle "+c.Struggle)
	}
	if c.Assess != "" {
		parts = append(parts, "assess "+c.Assess)
	}
	if len(parts) == 0 {
		return "the detectors' defaults"
	}
	return strings.Join(parts, ", ")
}

// config returns the configuration a dataset's configs entry names.
func (r *Registry) config(name string) (Config, bool) {
	if name == DefaultConfig {
		return Config{Name: name, Description: "the detectors' defaults"}, true
	}
	if slices.Contains(Presets, name) {
		return Config{Name: name, Description: "the " + name + " preset", Struggle: name, Assess: name}, true
	}
	c, ok := r.Configs[name]
	return c, ok
}

func (d Dataset) configNames() []string {
	var out []string
	for _, c := range d.Configs {
		out = append(out, c.Name)
	}
	return out
}

// abs resolves a path relative to the registry file's folder.
func (r *Registry) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.Dir, filepath.FromSlash(p))
}

// splitCorpus splits "corpus:NAME[/PATH]".
func splitCorpus(s string) (name, rest string, err error) {
	ref := strings.TrimPrefix(s, corpusScheme)
	name, rest, _ = strings.Cut(ref, "/")
	if name == "" || strings.Contains(ref, "..") || filepath.IsAbs(ref) {
		return "", "", fmt.Errorf("a corpus reference is corpus:NAME or corpus:NAME/PATH inside it")
	}
	return name, rest, nil
}

// Select returns the named datasets in registry order (all when names is empty).
func (r *Registry) Select(names []string) ([]Dataset, error) {
	if len(names) == 0 {
		return r.Datasets, nil
	}
	var out []Dataset
	for _, n := range names {
		if !slices.ContainsFunc(r.Datasets, func(d Dataset) bool { return d.Name == n }) {
			var all []string
			for _, d := range r.Datasets {
				all = append(all, d.Name)
			}
			return nil, fmt.Errorf("no dataset %q in %s (datasets: %s)", n, r.Path, strings.Join(all, ", "))
		}
	}
	for _, d := range r.Datasets {
		if slices.Contains(names, d.Name) {
			out = append(out, d)
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
