package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopwatch/loopwatch/internal/benchcmp"
)

// variant is one command measured on a workload.
type variant struct {
	name string
	// command returns the command to run, writing whatever it writes into out (an
	// empty folder).
	command func(out string) *exec.Cmd
	// outputs: the files it writes are its result, and must be the same in every
	// repetition (a replay); false for anchors, whose output is not compared.
	outputs bool
	// rssSum: the command is on-cores, whose processes run at once: its peak RSS is
	// the sum of theirs, which it writes, not the largest one wait4 gives.
	rssSum bool
}

// digest maps each file in dir to the SHA-256 of its content.
type digest map[string]string

func digestDir(dir string) (digest, error) {
	d := digest{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			sub, err := digestDir(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			for k, v := range sub {
				d[e.Name()+"/"+k] = v
			}
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		d[e.Name()] = hex.EncodeToString(h.Sum(nil))
	}
	return d, nil
}

// diff names the files that are not the same in a and b: "identical" when none.
func (a digest) diff(b digest) (string, bool) {
	var differ []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			differ = append(differ, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			differ = append(differ, k)
		}
	}
	if len(differ) == 0 {
		return "identical", true
	}
	slices.Sort(differ)
	return "differ: " + strings.Join(differ, ", "), false
}

// measured is what running a workload's variants gave.
type measured struct {
	variants []benchcmp.Variant
	digests  []digest // per variant (nil for anchors): its outputs, the same in every repetition
}

// mustMatch names two variants whose outputs must be identical, and what it means
// when they are not.
type mustMatch struct {
	a, b int
	why  string
}

// runWorkload runs the variants on the workload in the order of benchcmp.Schedule —
// warm-ups, then reps repetitions with the order rotating — each into a fresh folder
// under tmp, removed after its outputs are hashed. A run that fails, a variant whose
// outputs differ between two of its runs, or two variants of same whose outputs
// differ is an error, returned as soon as it is known (after the warm-ups at the
// latest, when there are any).
func runWorkload(name string, vs []variant, reps, warmups int, same []mustMatch, tmp string, log io.Writer) (measured, error) {
	m := measured{variants: make([]benchcmp.Variant, len(vs)), digests: make([]digest, len(vs))}
	for i, v := range vs {
		m.variants[i].Name = v.name
	}
	sched := benchcmp.Schedule(len(vs), reps, warmups)
	for i, slot := range sched {
		v := vs[slot.Variant]
		out := filepath.Join(tmp, fmt.Sprintf("%s-%02d-%s", name, i, safeName(v.name)))
		if err := os.MkdirAll(out, 0o755); err != nil {
			return m, err
		}
		cmd := v.command(out)
		if m.variants[slot.Variant].Command == "" {
			m.variants[slot.Variant].Command = strings.Join(cmd.Args, " ")
		}
		what := "warm-up"
		if !slot.Warmup {
			what = fmt.Sprintf("rep %d/%d", slot.Rep+1, reps)
		}
		sumFile := out + ".rss-sum"
		if v.rssSum {
			cmd.Env = append(os.Environ(), rssSumEnv+"="+sumFile)
		}
		meas, err := benchcmp.Run(cmd)
		if err != nil {
			return m, fmt.Errorf("%s, %s, %s: %w", name, v.name, what, err)
		}
		if v.rssSum {
			b, err := os.ReadFile(sumFile)
			if err != nil {
				return m, fmt.Errorf("%s, %s, %s: its processes' summed peak RSS: %w", name, v.name, what, err)
			}
			if meas.MaxRSS, err = strconv.ParseInt(string(b), 10, 64); err != nil {
				return m, fmt.Errorf("%s, %s, %s: its processes' summed peak RSS %q: %w", name, v.name, what, b, err)
			}
		}
		fmt.Fprintf(log, "%s %s %s: wall %s, cpu %s, peak rss %s\n", name, what, v.name,
			benchcmp.Seconds(meas.Wall.Seconds()), benchcmp.Seconds(meas.CPU().Seconds()), benchcmp.Bytes(float64(meas.MaxRSS)))
		if v.outputs {
			d, err := digestDir(out)
			if err != nil {
				return m, err
			}
			if len(d) == 0 {
				return m, fmt.Errorf("%s, %s, %s: wrote no output", name, v.name, what)
			}
			if prev := m.digests[slot.Variant]; prev == nil {
				m.digests[slot.Variant] = d
			} else if desc, ok := prev.diff(d); !ok {
				return m, fmt.Errorf("%s, %s: the outputs of its %s and of an earlier run of the same command %s — the replay is not deterministic", name, v.name, what, desc)
			}
			for _, mm := range same {
				if da, db := m.digests[mm.a], m.digests[mm.b]; da != nil && db != nil {
					if desc, ok := da.diff(db); !ok {
						return m, fmt.Errorf("%s: the outputs of %s and %s %s: %s", name, vs[mm.a].name, vs[mm.b].name, desc, mm.why)
					}
				}
			}
		}
		if err := os.RemoveAll(out); err != nil {
			return m, err
		}
		if !slot.Warmup {
			m.variants[slot.Variant].Samples = append(m.variants[slot.Variant].Samples, meas)
		}
	}
	return m, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, s)
}
