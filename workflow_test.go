package loopwatch_test

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The workflow's shape, as far as the checks need it. Decoding rejects unknown
// fields, so a misspelt key (`if` as `iff`, `runs-on` as `run-on`) fails the test
// instead of being ignored by GitHub.
type workflow struct {
	Name string `yaml:"name"`
	On   struct {
		Schedule []struct {
			Cron string `yaml:"cron"`
		} `yaml:"schedule"`
		WorkflowDispatch *map[string]any `yaml:"workflow_dispatch"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Jobs map[string]struct {
		RunsOn          string            `yaml:"runs-on"`
		TimeoutMinutes  int               `yaml:"timeout-minutes"`
		Env             map[string]string `yaml:"env"`
		ContinueOnError bool              `yaml:"continue-on-error"`
		Steps           []step            `yaml:"steps"`
	} `yaml:"jobs"`
}

type step struct {
	Name            string            `yaml:"name"`
	Uses            string            `yaml:"uses"`
	Run             string            `yaml:"run"`
	If              string            `yaml:"if"`
	With            map[string]string `yaml:"with"`
	Env             map[string]string `yaml:"env"`
	ContinueOnError bool              `yaml:"continue-on-error"`
}

var (
	makeRegress = regexp.MustCompile(`(^|[\s;&|(])make\s+(\S+\s+)*regress(\s|$)`)
	cronField   = regexp.MustCompile(`^[0-9*/,\-]+$`)
)

// checkWorkflow checks the nightly workflow: triggered on a schedule and on demand,
// Go set up from go.mod, a step running make regress whose failure fails the job,
// and an upload of the report and the Parquet outputs that runs even then.
func checkWorkflow(data []byte) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var wf workflow
	if err := dec.Decode(&wf); err != nil {
		return []error{fmt.Errorf("parsing: %w", err)}
	}
	if wf.Name == "" {
		fail("no name")
	}
	if len(wf.On.Schedule) == 0 {
		fail("no schedule trigger")
	}
	for _, s := range wf.On.Schedule {
		fields := strings.Fields(s.Cron)
		if len(fields) != 5 || slices.ContainsFunc(fields, func(f string) bool { return !cronField.MatchString(f) }) {
			fail("schedule cron %q is not five cron fields", s.Cron)
		}
	}
	if wf.On.WorkflowDispatch == nil {
		fail("no workflow_dispatch trigger: the regression cannot be run on demand")
	}
	if len(wf.Jobs) == 0 {
		fail("no jobs")
	}
	regressJobs := 0
	for name, job := range wf.Jobs {
		if job.RunsOn == "" {
			fail("job %s: no runs-on", name)
		}
		idx := func(pred func(step) bool) int { return slices.IndexFunc(job.Steps, pred) }
		run := idx(func(s step) bool { return makeRegress.MatchString(s.Run) })
		if run < 0 {
			continue
		}
		regressJobs++
		checkout := idx(func(s step) bool { return strings.HasPrefix(s.Uses, "actions/checkout@") })
		setup := idx(func(s step) bool { return strings.HasPrefix(s.Uses, "actions/setup-go@") })
		upload := idx(func(s step) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") })
		switch {
		case checkout < 0 || checkout > run:
			fail("job %s: no checkout before make regress", name)
		case setup < 0 || setup > run:
			fail("job %s: no actions/setup-go step before make regress", name)
		case job.Steps[setup].With["go-version-file"] != "go.mod":
			fail("job %s: setup-go does not take the Go version from go.mod (go-version-file: go.mod)", name)
		}
		if r := job.Steps[run]; r.If != "" || r.ContinueOnError || job.ContinueOnError {
			fail("job %s: a failing make regress must fail the job (no if, no continue-on-error)", name)
		}
		if upload < 0 || upload < run {
			fail("job %s: no upload-artifact step after make regress", name)
			continue
		}
		u := job.Steps[upload]
		if strings.ReplaceAll(u.If, " ", "") != "always()" {
			fail("job %s: the upload step must have if: always() (got %q): a regression is when the report matters most", name, u.If)
		}
		path := u.With["path"]
		for _, want := range []string{"regress.md", "regress.json", ".html", ".parquet"} {
			if !strings.Contains(path, want) {
				fail("job %s: the upload's path does not include %s", name, want)
			}
		}
	}
	if regressJobs == 0 {
		fail("no step runs make regress")
	}
	return errs
}

func TestNightlyWorkflow(t *testing.T) {
	data, err := os.ReadFile(".github/workflows/nightly.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range checkWorkflow(data) {
		t.Error(err)
	}

	// Each broken variant must be caught.
	for _, tt := range []struct{ old, new, want string }{
		{"  workflow_dispatch: {}\n", "", "no workflow_dispatch"},
		{"  schedule:\n    - cron: \"23 3 * * *\" # every night at 03:23 UTC\n", "", "no schedule"},
		{`"23 3 * * *"`, `"nightly"`, "not five cron fields"},
		{"run: make regress", "run: make test", "no step runs make regress"},
		{"run: make regress", "continue-on-error: true\n        run: make regress", "must fail the job"},
		{"        if: always()\n        uses: actions/upload", "        uses: actions/upload", "if: always()"},
		{"go-version-file: go.mod", "go-version: stable", "go.mod"},
		{"uses: actions/setup-go@v5", "uses: actions/setup-node@v4", "setup-go"},
		{"/regress.json\n", "/\n", "regress.json"},
		{"if: always()", "iff: always()", "parsing"},
	} {
		if !bytes.Contains(data, []byte(tt.old)) {
			t.Errorf("variant %q: the workflow has no %q", tt.want, tt.old)
			continue
		}
		broken := bytes.Replace(data, []byte(tt.old), []byte(tt.new), 1)
		errs := checkWorkflow(broken)
		if !slices.ContainsFunc(errs, func(err error) bool { return strings.Contains(err.Error(), tt.want) }) {
			t.Errorf("replacing %q by %q: errors %v, want one saying %q", tt.old, tt.new, errs, tt.want)
		}
	}
}
