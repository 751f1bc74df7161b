package loopwatch_test

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The snippets of the README's section on running on many machines: a GitHub Actions
// workflow with a matrix of shards, and a Kubernetes indexed Job.

type shardWorkflow struct {
	Jobs map[string]struct {
		RunsOn   string   `yaml:"runs-on"`
		Needs    yamlList `yaml:"needs"`
		Strategy struct {
			Matrix struct {
				Shard []int `yaml:"shard"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []step `yaml:"steps"`
	} `yaml:"jobs"`
}

// yamlList is a YAML string or list of strings.
type yamlList []string

func (l *yamlList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = []string{n.Value}
		return nil
	}
	var s []string
	err := n.Decode(&s)
	*l = s
	return err
}

type indexedJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Completions          int    `yaml:"completions"`
		Parallelism          int    `yaml:"parallelism"`
		CompletionMode       string `yaml:"completionMode"`
		BackoffLimitPerIndex int    `yaml:"backoffLimitPerIndex"`
		Template             struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name         string   `yaml:"name"`
					Image        string   `yaml:"image"`
					Command      []string `yaml:"command"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
						ReadOnly  bool   `yaml:"readOnly"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []volume `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type volume struct {
	Name                  string `yaml:"name"`
	PersistentVolumeClaim struct {
		ClaimName string `yaml:"claimName"`
	} `yaml:"persistentVolumeClaim"`
}

var (
	shardFlag = regexp.MustCompile(`--shard (\$\{\{ [^}]+ \}\}|\S+)/(\d+)(\s|$)`)
	outFlag   = regexp.MustCompile(`--out (\S+)`)
)

func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// checkShardWorkflow: one replay job per shard of the split its command names, each
// uploading its folder; a merge job after them gathering every shard's artifact into
// one folder and running metrics on it.
func checkShardWorkflow(data []byte) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var wf shardWorkflow
	if err := decodeStrict(data, &wf); err != nil {
		return []error{fmt.Errorf("parsing: %w", err)}
	}
	var replayJob, out, artifact string
	for name, job := range wf.Jobs {
		for _, s := range job.Steps {
			m := shardFlag.FindStringSubmatch(s.Run)
			if m == nil || !strings.Contains(s.Run, "replay ") {
				continue
			}
			replayJob = name
			n, _ := strconv.Atoi(m[2])
			if m[1] != "${{ matrix.shard }}" {
				fail("the replay step's shard is %q, not the matrix's", m[1])
			}
			if want := seq(n); !slices.Equal(job.Strategy.Matrix.Shard, want) {
				fail("the matrix %v does not cover every shard of %d (%v)", job.Strategy.Matrix.Shard, n, want)
			}
			if o := outFlag.FindStringSubmatch(s.Run); o == nil || !strings.HasSuffix(o[1], "/") {
				fail("the replay step writes no folder (--out DIR/)")
			} else {
				out = o[1]
			}
		}
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "actions/upload-artifact@") && name == replayJob {
				artifact = strings.TrimSuffix(s.With["name"], "${{ matrix.shard }}")
				if s.With["path"] != out {
					fail("the replay job uploads %q, not its output %q", s.With["path"], out)
				}
				if !strings.HasSuffix(s.With["name"], "${{ matrix.shard }}") {
					fail("the shards' artifacts must be named by shard (got %q): one name would make them collide", s.With["name"])
				}
			}
		}
	}
	if replayJob == "" {
		return append(errs, fmt.Errorf("no step runs replay --shard"))
	}
	merged := false
	for name, job := range wf.Jobs {
		run := slices.IndexFunc(job.Steps, func(s step) bool { return strings.Contains(s.Run, "metrics "+out) })
		if run < 0 {
			continue
		}
		merged = true
		if !slices.Contains(job.Needs, replayJob) {
			fail("job %s merges without waiting for the shards (needs: %s)", name, replayJob)
		}
		dl := slices.IndexFunc(job.Steps, func(s step) bool { return strings.HasPrefix(s.Uses, "actions/download-artifact@") })
		switch {
		case dl < 0 || dl > run:
			fail("job %s: no download-artifact before metrics", name)
		case job.Steps[dl].With["pattern"] != artifact+"*" || job.Steps[dl].With["merge-multiple"] != "true" || job.Steps[dl].With["path"] != out:
			fail("job %s: the download must gather every shard's artifact (pattern %s*, merge-multiple: true) into %s: %v", name, artifact, out, job.Steps[dl].With)
		}
	}
	if !merged {
		fail("no job runs metrics %s", out)
	}
	return errs
}

// checkIndexedJob: an indexed Job with as many completions as the split has shards,
// each pod's shard its completion index, writing into a mounted volume.
func checkIndexedJob(data []byte) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var job indexedJob
	if err := decodeStrict(data, &job); err != nil {
		return []error{fmt.Errorf("parsing: %w", err)}
	}
	spec := job.Spec
	if job.Kind != "Job" || job.APIVersion != "batch/v1" {
		fail("not a batch/v1 Job: %s %s", job.APIVersion, job.Kind)
	}
	if spec.CompletionMode != "Indexed" {
		fail("completionMode %q: only an Indexed Job gives each pod its JOB_COMPLETION_INDEX", spec.CompletionMode)
	}
	if len(spec.Template.Spec.Containers) != 1 {
		return append(errs, fmt.Errorf("%d containers, want 1", len(spec.Template.Spec.Containers)))
	}
	c := spec.Template.Spec.Containers[0]
	cmd := strings.Join(c.Command, " ")
	m := shardFlag.FindStringSubmatch(cmd)
	if m == nil {
		return append(errs, fmt.Errorf("the container runs no replay --shard: %q", cmd))
	}
	n, _ := strconv.Atoi(m[2])
	if m[1] != "$JOB_COMPLETION_INDEX" {
		fail("the shard is %q, not the pod's $JOB_COMPLETION_INDEX", m[1])
	}
	if spec.Completions != n {
		fail("completions %d, but the command names %d shards", spec.Completions, n)
	}
	if spec.Parallelism < 1 || spec.Parallelism > n {
		fail("parallelism %d, want 1 to %d", spec.Parallelism, n)
	}
	if !slices.Contains([]string{"Never", "OnFailure"}, spec.Template.Spec.RestartPolicy) {
		fail("restartPolicy %q: a Job's pods need Never or OnFailure", spec.Template.Spec.RestartPolicy)
	}
	o := outFlag.FindStringSubmatch(cmd)
	if o == nil || !strings.HasSuffix(o[1], "/") {
		return append(errs, fmt.Errorf("the command writes no folder (--out DIR/)"))
	}
	mounted := false
	for _, vm := range c.VolumeMounts {
		if strings.HasPrefix(o[1], strings.TrimSuffix(vm.MountPath, "/")+"/") && !vm.ReadOnly {
			mounted = slices.ContainsFunc(spec.Template.Spec.Volumes, func(v volume) bool { return v.Name == vm.Name })
		}
	}
	if !mounted {
		fail("the output %s is on no writable volume the pods share", o[1])
	}
	return errs
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// readmeYAML returns the YAML blocks of the README's section on running on many
// machines.
func readmeYAML(t *testing.T) [][]byte {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Running on many machines\n")
	if !ok {
		t.Fatal("the README has no section on running on many machines")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks [][]byte
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, []byte(m[1]))
	}
	if len(blocks) != 2 {
		t.Fatalf("found %d YAML blocks in the section, want the workflow and the Job", len(blocks))
	}
	return blocks
}

func TestReadmeShardSnippets(t *testing.T) {
	blocks := readmeYAML(t)
	for _, tt := range []struct {
		name  string
		check func([]byte) []error
		data  []byte
		// broken variants, each of which must be caught
		variants []struct{ old, new, want string }
	}{
		{"GitHub Actions matrix", checkShardWorkflow, blocks[0], []struct{ old, new, want string }{
			{"shard: [0, 1, 2, 3]", "shard: [0, 1, 2]", "does not cover every shard of 4"},
			{"--shard ${{ matrix.shard }}/4", "--shard ${{ matrix.shard }}/3", "does not cover every shard of 3"},
			{"name: shard-${{ matrix.shard }}", "name: shards", "named by shard"},
			{"merge-multiple: true", "merge-multiple: false", "gather every shard"},
			{"needs: replay", "needs: []", "without waiting"},
			{"run: bin/metrics out/", "run: bin/metrics results/", "no job runs metrics"},
			{"runs-on: ubuntu-latest\n    strategy", "run-on: ubuntu-latest\n    strategy", "parsing"},
		}},
		{"Kubernetes indexed Job", checkIndexedJob, blocks[1], []struct{ old, new, want string }{
			{"completionMode: Indexed", "completionMode: NonIndexed", "only an Indexed Job"},
			{"completions: 4", "completions: 5", "completions 5, but the command names 4 shards"},
			{"$JOB_COMPLETION_INDEX/4", "$JOB_INDEX/4", "not the pod's $JOB_COMPLETION_INDEX"},
			{"restartPolicy: Never", "restartPolicy: Always", "restartPolicy"},
			{"mountPath: /results", "mountPath: /scratch", "on no writable volume"},
			{"completionMode: Indexed", "completionMod: Indexed", "parsing"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, err := range tt.check(tt.data) {
				t.Error(err)
			}
			for _, v := range tt.variants {
				if !bytes.Contains(tt.data, []byte(v.old)) {
					t.Errorf("variant %q: the snippet has no %q", v.want, v.old)
					continue
				}
				errs := tt.check(bytes.Replace(tt.data, []byte(v.old), []byte(v.new), 1))
				if !slices.ContainsFunc(errs, func(err error) bool { return strings.Contains(err.Error(), v.want) }) {
					t.Errorf("replacing %q by %q: errors %v, want one saying %q", v.old, v.new, errs, v.want)
				}
			}
		})
	}
}
