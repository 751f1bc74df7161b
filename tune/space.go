package tune

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/pipeline"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// Family is the detector configuration a parameter belongs to: struggle detection
// (runs) or the assessment (sessions: detector, EMA, breaker).
type Family string

// The families.
const (
	Struggle Family = "struggle"
	Assess   Family = "assess"
)

// Kind is the type of a parameter's values.
type Kind string

// The kinds of parameter values.
const (
	Number   Kind = "number"   // a float; ranges lo:hi:step
	Integer  Kind = "integer"  // ranges lo:hi:step with integral bounds and step
	Duration Kind = "duration" // ranges of durations (0s:10m:1m)
	Bool     Kind = "bool"     // true, false
	String   Kind = "string"   // listed values
	Section  Kind = "section"  // an object or list: values are preset names (seed, loopwatch)
)

// assessTunable lists the top-level fields of the assessment configuration that
// decide interventions; the rest (checkpoints, buffer, sampling, the offline
// analyzer, polling) never change them and are not tuned.
var assessTunable = []string{"detect", "breaker", "inactivity_timeout", "end_hooks", "end_system_events"}

// Param is one parameter of a sweep and the values it takes.
type Param struct {
	// Name is the parameter's full path: the family, then its JSON path in the
	// configuration file ("struggle.weights.budget_burn", "assess.breaker.cooldown").
	Name   string
	Family Family
	Kind   Kind
	// Spec is the grid specification it was given (lo:hi:step or a,b,c).
	Spec   string
	Values []Value
	path   []string // JSON path within the family's configuration
}

// Column is the parameter's column name in the sweep table: its JSON path with "_"
// for ".", without the family ("breaker_frustration_threshold"); a duration's column
// holds seconds and says so ("breaker_cooldown_seconds").
func (p *Param) Column() string {
	c := strings.Join(p.path, "_")
	if p.Kind == Duration {
		c += "_seconds"
	}
	return c
}

// Value is one value of a parameter.
type Value struct {
	Text string          // as the user wrote it (or as a range generated it)
	JSON json.RawMessage // as it is written into the configuration file
	// One of these holds the value for the sweep table, by the parameter's Kind.
	Num   float64
	Int   int64
	Flag  bool
	Label string // durations (as written), strings, preset names
}

// paramInfo is what the base configuration says of a tunable path.
type paramInfo struct {
	family Family
	path   []string
	kind   Kind
	base   any // the base configuration's value at the path (generic JSON)
}

func (pi paramInfo) name() string { return string(pi.family) + "." + strings.Join(pi.path, ".") }

// Space is the configurations a sweep may choose from: the base configuration of
// each family (the default every choice is compared with) and the parameters varied
// over it.
type Space struct {
	Params []Param
	// BaseStruggle and BaseAssess are the configurations the parameters vary (the
	// --struggle-config and --assess-config of the sweep; the loopwatch presets by
	// default).
	BaseStruggle struggle.StruggleConfig
	BaseAssess   assess.Config
	params       map[string]paramInfo
}

// NewSpace returns a space over the base configurations with no parameter yet.
func NewSpace(baseStruggle struggle.StruggleConfig, baseAssess assess.Config) (*Space, error) {
	sp := &Space{BaseStruggle: baseStruggle, BaseAssess: baseAssess, params: map[string]paramInfo{}}
	if err := sp.discover(Struggle, baseStruggle, nil); err != nil {
		return nil, err
	}
	if err := sp.discover(Assess, baseAssess, assessTunable); err != nil {
		return nil, err
	}
	return sp, nil
}

// discover walks the JSON of a family's base configuration and records every path
// as a parameter: leaves by their type, objects and lists as sections.
func (sp *Space) discover(f Family, base any, top []string) error {
	tree, err := toTree(base)
	if err != nil {
		return err
	}
	var walk func(path []string, v any) error
	walk = func(path []string, v any) error {
		pi := paramInfo{family: f, path: slices.Clone(path), base: v}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(x) {
				if len(path) == 0 && top != nil && !slices.Contains(top, k) {
					continue
				}
				if err := walk(append(path, k), x[k]); err != nil {
					return err
				}
			}
			if len(path) == 0 {
				return nil
			}
			pi.kind = Section
		case []any, nil:
			pi.kind = Section
		case bool:
			pi.kind = Bool
		case json.Number:
			pi.kind = Number
			if k, ok := goKind(reflect.TypeOf(base), path); ok && k >= reflect.Int && k <= reflect.Uint64 {
				pi.kind = Integer
			}
		case string:
			pi.kind = String
			if _, err := time.ParseDuration(x); err == nil {
				pi.kind = Duration
			}
		default:
			return fmt.Errorf("tune: %s: unexpected %T in the configuration", strings.Join(path, "."), v)
		}
		sp.params[pi.name()] = pi
		return nil
	}
	return walk(nil, tree)
}

// Tunable lists every parameter the space knows, by full name, with its kind and its
// base value: what --list-params prints.
func (sp *Space) Tunable() []string {
	var out []string
	for _, name := range sortedKeys(sp.params) {
		pi := sp.params[name]
		base := "(section: values are presets: loopwatch, seed)"
		if pi.kind != Section {
			b, _ := json.Marshal(pi.base)
			base = string(b)
		}
		out = append(out, fmt.Sprintf("%s\t%s\t%s", name, pi.kind, base))
	}
	return out
}

// resolve finds the parameter a name given on the command line means: its full name,
// or a suffix of it at a dot ("composite_threshold", "breaker.cooldown") that only one
// parameter has.
func (sp *Space) resolve(name string) (paramInfo, error) {
	if pi, ok := sp.params[name]; ok {
		return pi, nil
	}
	var matches []string
	for full := range sp.params {
		if strings.HasSuffix(full, "."+name) {
			matches = append(matches, full)
		}
	}
	slices.Sort(matches)
	switch len(matches) {
	case 1:
		return sp.params[matches[0]], nil
	case 0:
		var near []string
		last := name[strings.LastIndex(name, ".")+1:]
		lasts := jsonl.NewFields()
		for _, full := range sortedKeys(sp.params) {
			if strings.Contains(full, last) {
				near = append(near, full)
			}
			lasts[full[strings.LastIndex(full, ".")+1:]] = true
		}
		if misspelt, ok := lasts.NearMiss([]byte(last)); ok && len(near) == 0 {
			for _, full := range sortedKeys(sp.params) { // a misspelling: "composite_treshold"
				if full == misspelt || strings.HasSuffix(full, "."+misspelt) {
					near = append(near, full)
				}
			}
		}
		hint := "tune --list-params lists them"
		if len(near) > 0 && len(near) <= 8 {
			hint = "did you mean " + strings.Join(near, ", ") + "? (tune --list-params lists them all)"
		}
		return paramInfo{}, fmt.Errorf("unknown parameter %q: %s", name, hint)
	}
	return paramInfo{}, fmt.Errorf("parameter %q is ambiguous: %s (give more of its path)", name, strings.Join(matches, ", "))
}

// MaxValues bounds the values of one parameter.
const MaxValues = 10000

// Add parses a grid specification "name=lo:hi:step" or "name=a,b,c" and adds the
// parameter to the space. A range's step must divide it; every value must be valid
// for the parameter on its own (applied to the base configuration). A parameter
// given twice is an error.
func (sp *Space) Add(spec string) error {
	if strings.ContainsFunc(spec, unicode.IsControl) {
		return fmt.Errorf("--grid %q: a control character in the specification", spec)
	}
	name, values, ok := strings.Cut(spec, "=")
	name, values = strings.TrimSpace(name), strings.TrimSpace(values)
	if !ok || name == "" || values == "" {
		return fmt.Errorf("--grid %q: write name=lo:hi:step or name=a,b,c", spec)
	}
	pi, err := sp.resolve(name)
	if err != nil {
		return fmt.Errorf("--grid %s: %w", spec, err)
	}
	for _, p := range sp.Params {
		if p.Name == pi.name() {
			return fmt.Errorf("--grid %s: %s is already in the grid (as %s)", spec, p.Name, p.Spec)
		}
		if p.Family == pi.family && (isPrefix(p.path, pi.path) || isPrefix(pi.path, p.path)) {
			return fmt.Errorf("--grid %s: %s overlaps %s, already in the grid: vary a section or its fields, not both", spec, pi.name(), p.Name)
		}
	}
	p := Param{Name: pi.name(), Family: pi.family, Kind: pi.kind, Spec: values, path: pi.path}
	if strings.Count(values, ":") == 2 && !strings.Contains(values, ",") {
		p.Values, err = rangeValues(pi.kind, values)
	} else {
		p.Values, err = sp.listValues(pi, values)
	}
	if err != nil {
		return fmt.Errorf("--grid %s: %w", spec, err)
	}
	seen := map[string]bool{}
	for _, v := range p.Values {
		if seen[string(v.JSON)] {
			return fmt.Errorf("--grid %s: the value %s is listed twice", spec, v.Text)
		}
		seen[string(v.JSON)] = true
		cfg, err := sp.decode(pi.family, patchOf(pi.path, v.JSON), pi.path)
		if a, ok := cfg.(assess.Config); ok && err == nil {
			if err = a.Validate(); err == nil {
				_, err = compileCheck(a)
			}
		}
		if err != nil {
			return fmt.Errorf("--grid %s: %s=%s: %w", spec, p.Name, v.Text, err)
		}
	}
	sp.Params = append(sp.Params, p)
	return nil
}

// AddFile reads grid specifications from r, one per line; blank lines and lines
// starting with # are skipped. A file with no specification is an error: an empty or
// cut-off file must not turn into the default grids.
func (sp *Space) AddFile(name string, r io.Reader) error {
	sc := bufio.NewScanner(r)
	line, specs := 0, 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if line == 1 { // a byte order mark, as editors on Windows write: the labels and holdout readers skip it too
			t = strings.TrimPrefix(t, "\ufeff")
		}
		t = strings.TrimSpace(t)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if err := sp.Add(t); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		specs++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if specs == 0 {
		return fmt.Errorf("%s: no grid specification (one NAME=VALUES a line; blank lines and # comments are skipped)", name)
	}
	return nil
}

// rangeValues expands lo:hi:step.
func rangeValues(kind Kind, spec string) ([]Value, error) {
	parts := strings.Split(spec, ":")
	switch kind {
	case Number, Integer:
		var x [3]float64
		for i, s := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%q is not a number", s)
			}
			x[i] = v
		}
		if kind == Integer && (x[0] != math.Trunc(x[0]) || x[1] != math.Trunc(x[1]) || x[2] != math.Trunc(x[2])) {
			return nil, fmt.Errorf("the parameter is an integer: bounds and step must be whole numbers")
		}
		n, err := steps(x[0], x[1], x[2])
		if err != nil {
			return nil, err
		}
		out := make([]Value, 0, n+1)
		for i := 0; i <= n; i++ {
			v := round(x[0] + float64(i)*x[2])
			if kind == Integer {
				out = append(out, intValue(int64(math.Round(v))))
			} else {
				out = append(out, numValue(v))
			}
		}
		return out, nil
	case Duration:
		var x [3]time.Duration
		for i, s := range parts {
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("%q is not a duration (e.g. 30s, 5m)", s)
			}
			x[i] = d
		}
		n, err := steps(float64(x[0]), float64(x[1]), float64(x[2]))
		if err != nil {
			return nil, err
		}
		out := make([]Value, 0, n+1)
		for i := 0; i <= n; i++ {
			out = append(out, durationValue(x[0]+time.Duration(i)*x[2]))
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %s parameter takes a list of values (a,b,c), not a range", kind)
}

// steps returns how many steps of step lead from lo to hi.
func steps(lo, hi, step float64) (int, error) {
	switch {
	case !(step > 0):
		return 0, fmt.Errorf("the step must be positive")
	case lo > hi:
		return 0, fmt.Errorf("empty range: %v is above %v", lo, hi)
	}
	n := (hi - lo) / step
	k := math.Round(n)
	if math.Abs(n-k) > 1e-9*math.Max(1, k) {
		return 0, fmt.Errorf("the step does not divide the range (%g steps)", n)
	}
	if k+1 > MaxValues {
		return 0, fmt.Errorf("%g values: a parameter takes at most %d, whatever --samples and --max-configs (give a coarser step)", k+1, MaxValues)
	}
	return int(k), nil
}

// round removes floating-point noise from a range's values (0.1·3 = 0.30000000000000004).
func round(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

func numValue(v float64) Value {
	t := strconv.FormatFloat(v, 'g', -1, 64)
	return Value{Text: t, JSON: json.RawMessage(t), Num: v}
}

func intValue(v int64) Value {
	t := strconv.FormatInt(v, 10)
	return Value{Text: t, JSON: json.RawMessage(t), Int: v}
}

func durationValue(d time.Duration) Value {
	b, _ := json.Marshal(d.String())
	return Value{Text: d.String(), JSON: b, Label: d.String()}
}

// listValues parses a,b,c for the parameter: numbers, booleans, durations, strings,
// or preset names (loopwatch, seed), which take the preset's value at the path.
func (sp *Space) listValues(pi paramInfo, spec string) ([]Value, error) {
	var out []Value
	for _, s := range strings.Split(spec, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, fmt.Errorf("an empty value in the list")
		}
		if v, ok, err := sp.presetValue(pi, s); err != nil {
			return nil, err
		} else if ok {
			out = append(out, v)
			continue
		}
		switch pi.kind {
		case Number:
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%q is not a number", s)
			}
			out = append(out, numValue(x))
		case Integer:
			x, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a whole number", s)
			}
			out = append(out, intValue(x))
		case Bool:
			x, err := strconv.ParseBool(s)
			if err != nil {
				return nil, fmt.Errorf("%q is not true or false", s)
			}
			out = append(out, Value{Text: strconv.FormatBool(x), JSON: json.RawMessage(strconv.FormatBool(x)), Flag: x})
		case Duration:
			d, err := time.ParseDuration(s)
			if err != nil {
				return nil, fmt.Errorf("%q is not a duration (e.g. 30s, 5m)", s)
			}
			out = append(out, durationValue(d))
		case String:
			b, _ := json.Marshal(s)
			out = append(out, Value{Text: s, JSON: b, Label: s})
		case Section:
			return nil, fmt.Errorf("%q: a section's values are presets (%s)", s, strings.Join(presetNames, ", "))
		}
	}
	return out, nil
}

// presetNames are the presets a value may name.
var presetNames = []string{assess.PresetLoopwatch, assess.PresetSeed}

// presetValue returns the named preset's value at the parameter's path.
func (sp *Space) presetValue(pi paramInfo, name string) (Value, bool, error) {
	if !slices.Contains(presetNames, name) {
		return Value{}, false, nil
	}
	var preset any
	var err error
	switch pi.family {
	case Struggle:
		preset, err = struggle.Preset(name)
	case Assess:
		preset, err = assess.Preset(name)
	}
	if err != nil {
		return Value{}, false, err
	}
	tree, err := toTree(preset)
	if err != nil {
		return Value{}, false, err
	}
	v := tree
	for _, k := range pi.path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Value{}, false, err
	}
	val := Value{Text: name, JSON: b, Label: name}
	switch x := v.(type) {
	case json.Number:
		val.Num, _ = x.Float64()
		val.Int, _ = x.Int64()
	case bool:
		val.Flag = x
	case string:
		val.Label = x
		if pi.kind == Duration {
			val.Label = x
		}
	}
	return val, true, nil
}

// toTree returns v's JSON as generic values (objects, lists, json.Number, …).
func toTree(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// patchOf returns {"a":{"b":value}} for path a.b.
func patchOf(path []string, value json.RawMessage) json.RawMessage {
	out := value
	for i := len(path) - 1; i >= 0; i-- {
		k, _ := json.Marshal(path[i])
		out = json.RawMessage(`{` + string(k) + `:` + string(out) + `}`)
	}
	return out
}

// decode applies a patch (over paths) to a copy of the family's base configuration
// and validates what a patch can change. A patch whose paths all lead to scalars
// through plain structs is decoded into a shallow copy, which it cannot write
// through; any other (a section's list or object) into a deep copy.
func (sp *Space) decode(f Family, patch json.RawMessage, paths ...[]string) (any, error) {
	switch f {
	case Struggle:
		cfg, err := copyFor(sp.BaseStruggle, paths)
		if err == nil {
			err = pipeline.DecodeConfig(patch, &cfg)
		}
		if err == nil {
			err = cfg.Validate()
		}
		return cfg, err
	case Assess:
		cfg, err := copyFor(sp.BaseAssess, paths)
		if err == nil {
			err = pipeline.DecodeConfig(patch, &cfg)
		}
		if err == nil {
			err = validateTunable(cfg)
		}
		return cfg, err
	}
	return nil, fmt.Errorf("tune: unknown family %q", f)
}

// validateTunable validates the parts of an assessment configuration a sweep may
// change (assessTunable) short of compiling its detector, which each detection group
// does once: the breaker, the EMA, the inactivity timeout. The rest is the base's,
// validated when it was loaded.
func validateTunable(cfg assess.Config) error {
	if err := cfg.Breaker.Validate(); err != nil {
		return err
	}
	if err := cfg.Detect.EMA.Validate(); err != nil {
		return err
	}
	if cfg.InactivityTimeout <= 0 {
		return fmt.Errorf("assess: inactivity_timeout must be > 0")
	}
	return nil
}

// copyFor returns a copy of base that decoding a patch over paths cannot alias: a
// shallow copy when every path runs through plain structs to a scalar, else a deep one.
func copyFor[T any](base T, paths [][]string) (T, error) {
	if len(paths) > 0 && !slices.ContainsFunc(paths, func(p []string) bool { return !scalarPath(reflect.TypeOf(base), p) }) {
		return base, nil
	}
	return cloneConfig(base)
}

// scalarPath reports whether path leads through struct fields only (no pointer, map,
// slice or interface) to a bool, number or string.
func scalarPath(t reflect.Type, path []string) bool {
	for _, name := range path {
		if t.Kind() != reflect.Struct {
			return false
		}
		f, ok := jsonField(t, name)
		if !ok {
			return false
		}
		t = f.Type
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// cloneConfig returns a deep copy of cfg (through its JSON, so that decoding a patch
// into it never writes into the base's lists).
func cloneConfig[T any](cfg T) (T, error) {
	var out T
	b, err := json.Marshal(cfg)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, err
}

// isPrefix reports whether a is a prefix of b.
func isPrefix(a, b []string) bool { return len(a) <= len(b) && slices.Equal(a, b[:len(a)]) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Size is the number of grid points of a family's parameters (1 when it has none),
// and false when it overflows.
func (sp *Space) Size(f Family) (uint64, bool) {
	n := uint64(1)
	for _, p := range sp.Params {
		if p.Family != f {
			continue
		}
		k := uint64(len(p.Values))
		if n > math.MaxUint64/k {
			return 0, false
		}
		n *= k
	}
	return n, true
}

// Has reports whether the space varies a family.
func (sp *Space) Has(f Family) bool {
	return slices.ContainsFunc(sp.Params, func(p Param) bool { return p.Family == f })
}

// Point is one configuration of a family's grid: the index of each of the family's
// parameters' values, in the order of Space.Params restricted to the family.
type Point []int

// points returns the family's grid points: all of them in order, or — with samples
// > 0 and fewer than the grid — samples distinct points drawn uniformly with seed
// (listed in grid order).
func (sp *Space) points(f Family, samples int, seed uint64) ([]Point, error) {
	var radix []int
	for _, p := range sp.Params {
		if p.Family == f {
			radix = append(radix, len(p.Values))
		}
	}
	size, ok := sp.Size(f)
	if !ok || size > 1<<62 {
		return nil, fmt.Errorf("the %s grid is too large to index; narrow it", f)
	}
	var idx []uint64
	if samples > 0 && uint64(samples) < size {
		rng := rand.New(rand.NewPCG(seed, 0x73616d706c6573)) // "samples"
		seen := map[uint64]bool{}
		for len(idx) < samples {
			i := rng.Uint64N(size)
			if !seen[i] {
				seen[i] = true
				idx = append(idx, i)
			}
		}
		slices.Sort(idx)
	} else {
		idx = make([]uint64, size)
		for i := range idx {
			idx[i] = uint64(i)
		}
	}
	out := make([]Point, len(idx))
	for j, i := range idx {
		pt := make(Point, len(radix))
		for k := len(radix) - 1; k >= 0; k-- {
			pt[k] = int(i % uint64(radix[k]))
			i /= uint64(radix[k])
		}
		out[j] = pt
	}
	return out, nil
}

// patch returns the configuration patch of a point of family f.
func (sp *Space) patch(f Family, pt Point) (json.RawMessage, error) {
	tree := map[string]any{}
	k := 0
	for _, p := range sp.Params {
		if p.Family != f {
			continue
		}
		m := tree
		for _, key := range p.path[:len(p.path)-1] {
			sub, ok := m[key].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[key] = sub
			}
			m = sub
		}
		m[p.path[len(p.path)-1]] = p.Values[pt[k]].JSON
		k++
	}
	b, err := json.Marshal(tree)
	return b, err
}

// goKind returns the Go kind of the field at a JSON path of a configuration type,
// looking into embedded structs whose fields JSON puts at their parent's level.
func goKind(t reflect.Type, path []string) (reflect.Kind, bool) {
	for _, name := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return 0, false
		}
		f, ok := jsonField(t, name)
		if !ok {
			return 0, false
		}
		t = f.Type
	}
	return t.Kind(), true
}

// jsonField finds the field JSON names name in struct type t.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && tag == "" {
			if inner, ok := jsonField(f.Type, name); ok {
				return inner, true
			}
			continue
		}
		if tag == name || tag == "" && f.Name == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
