package pipeline

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/loopwatch/loopwatch/analyze/assess"
	"github.com/loopwatch/loopwatch/analyze/struggle"
	"github.com/loopwatch/loopwatch/replay/jsonl"
)

// LoadStruggleConfig resolves a --struggle-config value: "" (the defaults), a preset
// name ("loopwatch", "seed"), or a JSON file over the defaults — or over the preset
// its "preset" field names. The result is validated.
func LoadStruggleConfig(value string) (struggle.StruggleConfig, error) {
	cfg, err := loadConfig("--struggle-config", value, struggle.Preset, []string{"loopwatch", "seed"})
	if err == nil {
		if err = cfg.Validate(); err != nil {
			err = fmt.Errorf("--struggle-config %s: %w", value, err)
		}
	}
	return cfg, err
}

// LoadAssessConfig resolves an --assess-config value: "" (the defaults), a preset
// name ("loopwatch", "seed"), or a JSON file over the defaults — or over the preset
// its "preset" field names. The result is validated and compiled (patterns, EMA
// weights, checkpoint policy) the way the replay will, so that a value out of range
// is a usage error here, not a failure of the first session replayed.
func LoadAssessConfig(value string) (assess.Config, error) {
	cfg, err := loadConfig("--assess-config", value, assess.Preset, assess.PresetNames())
	if err == nil {
		if _, err = assess.New(cfg, assess.Options{}); err != nil {
			err = fmt.Errorf("--assess-config %s: %w", value, err)
		}
	}
	return cfg, err
}

// loadConfig resolves a configuration flag's value over the presets.
func loadConfig[T any](flag, value string, preset func(string) (T, error), presets []string) (T, error) {
	def, _ := preset(presets[0])
	if value == "" {
		return def, nil
	}
	for _, p := range presets {
		if value == p {
			return preset(p)
		}
	}
	b, err := os.ReadFile(value)
	if err != nil {
		return def, fmt.Errorf("%s %s: %w (or name a preset: %s)", flag, value, unwrap(err), strings.Join(presets, ", "))
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // an editor's byte order mark is no part of the JSON
	fail := func(err error) (T, error) {
		fields := jsonFields(def)
		return def, fmt.Errorf("%s %s: %w%s (fields: preset, %s)", flag, value, err, didYouMean(err, fields), strings.Join(fields, ", "))
	}
	var fields map[string]json.RawMessage
	if err := DecodeConfig(b, &fields); err != nil {
		return fail(err)
	}
	base := def
	if raw, ok := fields["preset"]; ok {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return fail(fmt.Errorf("preset: %w", err))
		}
		if base, err = preset(name); err != nil {
			return def, fmt.Errorf("%s %s: %w", flag, value, err)
		}
		delete(fields, "preset")
	}
	rest, err := json.Marshal(fields)
	if err != nil {
		return fail(err)
	}
	if err := DecodeConfig(rest, &base); err != nil {
		return fail(err)
	}
	return base, nil
}

// DecodeConfig decodes one JSON object over cfg: unknown fields are an error, and so
// is anything but white space after the object.
func DecodeConfig(b []byte, cfg any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err == io.EOF {
		return errors.New("no JSON object: the file is empty (an empty object, {}, keeps every default)")
	} else if err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the JSON object at offset %d", dec.InputOffset())
	}
	return nil
}

// didYouMean names the field an unknown field of a configuration file is likely a
// misspelling of ("; did you mean breaker.failure_threshold?"), or "": the field of
// that very name in another section, else the closest by the last part of its path
// (jsonl.Fields.NearMiss) — named only when one path ends so.
func didYouMean(err error, fields []string) string {
	name, ok := strings.CutPrefix(err.Error(), `json: unknown field "`)
	if name, ok = strings.CutSuffix(name, `"`); !ok {
		return ""
	}
	byLeaf := map[string][]string{}
	for _, f := range fields {
		leaf := f[strings.LastIndexByte(f, '.')+1:]
		byLeaf[leaf] = append(byLeaf[leaf], f)
	}
	leaf, near := name, len(byLeaf[name]) > 0 // a field's name in the wrong section
	if !near {
		leaf, near = jsonl.NewFields(slices.Collect(maps.Keys(byLeaf))...).NearMiss([]byte(name))
	}
	if !near || len(byLeaf[leaf]) != 1 {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", byLeaf[leaf][0])
}

// jsonFields lists the JSON names of v's fields, nested objects as "name.field",
// so that an error can say what a configuration file may hold.
func jsonFields(v any) []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" && f.Tag.Get("json") != "-" && f.Type.Kind() == reflect.Struct {
				walk(f.Type, prefix) // an embedded struct's fields are its container's, as encoding/json reads them
				continue
			}
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			if f.Type.Kind() == reflect.Struct && f.Type.NumField() > 0 && !implementsText(f.Type) {
				walk(f.Type, prefix+name+".")
				continue
			}
			out = append(out, prefix+name)
		}
	}
	walk(reflect.TypeOf(v), "")
	return out
}

// implementsText reports whether t decodes itself from JSON text (a duration, say).
func implementsText(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// EffectiveConfig is what --print-config prints: the struggle and the assessment
// configuration a replay runs with. Each member is a file --struggle-config and
// --assess-config accept as it is.
type EffectiveConfig struct {
	Struggle struggle.StruggleConfig `json:"struggle"`
	Assess   assess.Config           `json:"assess"`
}

// PrintConfig writes what (both, "struggle" or "assess") of the effective
// configuration of s as indented JSON.
func PrintConfig(w io.Writer, s Settings, what string) error {
	var c EffectiveConfig
	var err error
	if c.Struggle, err = LoadStruggleConfig(s.StruggleConfig); err != nil {
		return UsageError{err}
	}
	if c.Assess, err = LoadAssessConfig(s.AssessConfig); err != nil {
		return UsageError{err}
	}
	var v any
	switch what {
	case "", "both":
		v = c
	case "struggle":
		v = c.Struggle
	case "assess":
		v = c.Assess
	default:
		return usage("--print-config %q: use struggle, assess, or no value for both", what)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ConfigHash identifies a configuration in tables: a short hash of its JSON (the
// metrics table's config_hash).
func ConfigHash(cfg any) string {
	b, err := json.Marshal(cfg)
	if err != nil {
		return "unhashable"
	}
	return shortHash(b)
}
