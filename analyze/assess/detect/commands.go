package detect

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Step is what a command does, as far as its outcome goes: it decides which signal a
// failure or a success of the command raises.
type Step uint8

// The steps. The zero Step is "unset" in a [CommandRule] (the step is read from the
// rule's task words) and "other" everywhere else.
const (
	// StepOther: anything else — a program or script run, git push, an installer.
	// Its failure is a ToolFailure, its success a ToolSuccess.
	StepOther Step = iota
	// StepBuild: a compile or type check that builds ("go build", "cargo build",
	// "tsc", "mvn compile", "make").
	StepBuild
	// StepTest: a test run ("go test", "pytest", "npm test", "mix test").
	StepTest
	// StepLint: a linter, vet, format check or type checker run as a check
	// ("golangci-lint", "eslint", "ruff", "mypy", "cargo clippy").
	StepLint
	// StepExplore: a look around or a shell built-in ("grep", "ls", "cat", "find",
	// "cd", "git status", "gh api"). A non-zero exit of one is no failure: grep
	// finding nothing, a file that is not there yet.
	StepExplore
)

var stepNames = [...]string{"other", "build", "test", "lint", "explore"}

// String returns the step's name.
func (s Step) String() string {
	if int(s) < len(stepNames) {
		return stepNames[s]
	}
	return fmt.Sprintf("step(%d)", uint8(s))
}

// MarshalText encodes a step by name.
func (s Step) MarshalText() ([]byte, error) {
	if int(s) >= len(stepNames) {
		return nil, fmt.Errorf("detect: invalid step %d", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a step name.
func (s *Step) UnmarshalText(b []byte) error {
	for i, n := range stepNames {
		if n == string(b) {
			*s = Step(i)
			return nil
		}
	}
	return fmt.Errorf("detect: unknown step %q (want other, build, test, lint or explore)", b)
}

// failureKind is the signal a failing step raises.
func (s Step) failureKind() Kind {
	switch s {
	case StepBuild:
		return BuildFailure
	case StepTest:
		return TestFailure
	case StepLint:
		return LintError
	}
	return ToolFailure
}

// successKind is the signal a succeeding step raises.
func (s Step) successKind() Kind {
	switch s {
	case StepBuild:
		return BuildSuccess
	case StepTest:
		return TestSuccess
	case StepLint:
		return LintSuccess
	}
	return ToolSuccess
}

// stepOf is the step whose failure or success kind k is.
func stepOf(k Kind) Step {
	switch k {
	case BuildFailure, BuildSuccess:
		return StepBuild
	case TestFailure, TestSuccess:
		return StepTest
	case LintError, LintSuccess:
		return StepLint
	}
	return StepOther
}

// isToolchain reports whether s is a build, test or lint step.
func (s Step) isToolchain() bool { return s == StepBuild || s == StepTest || s == StepLint }

// CommandRule recognises one kind of simple command. A command line is split into
// simple commands at &&, ||, ;, |, & and new lines; each is normalised — leading
// VAR=value assignments, control words (if, then, do, !) and wrappers (sudo, env,
// time, timeout N, nohup, npx, bunx, pnpm exec, uv run, poetry run, bundle exec,
// python -m) removed, the program's directory dropped ("./node_modules/.bin/jest" is
// "jest") — and matched against the rules in order; the first match wins.
type CommandRule struct {
	// Name identifies the rule.
	Name string `json:"name"`
	// Toolchain names the toolchain or runner ("go", "cargo", "npm", "make"); with the
	// step it makes the signal's Target ("go test").
	Toolchain string `json:"toolchain,omitempty"`
	// Step is what the command does. Left unset ("other") on a task runner's rule, the
	// step is read from the words of the regexp's group named "task" (see TaskWords):
	// "mise run test:ci" is a test, "npm run lint" a lint; a task no word names is
	// read as the program of that name where a rule without a task knows it ("pnpm
	// vitest run" is vitest's test run, as "npx vitest run" is).
	Step Step `json:"step,omitempty"`
	// EmptyStep is a task runner's step when the "task" group is empty ("make" alone
	// builds).
	EmptyStep Step `json:"empty_step,omitempty"`
	// Regexp is matched against the normalised simple command.
	Regexp string `json:"regexp"`
}

// TaskWords say what a task runner's task does from the words of its name, split at
// any character that is not a letter or digit ("test:integration" → test,
// integration). The first word found in Test, then Build, then Lint decides; a task
// with none is StepOther.
type TaskWords struct {
	Test  []string `json:"test"`
	Build []string `json:"build"`
	Lint  []string `json:"lint"`
}

// DefaultTaskWords returns the common task names: "check" is a lint (npm's "check"
// scripts type-check; autotools' make check is the exception), "ci" and "verify" are
// tests (they run the suite), "install" is none (it installs dependencies).
func DefaultTaskWords() TaskWords {
	return TaskWords{
		Test:  []string{"test", "tests", "spec", "specs", "e2e", "integration", "unit", "ci", "verify", "coverage", "cov"},
		Build: []string{"build", "compile", "assemble", "package", "bundle", "dist", "release", "all"},
		Lint: []string{"lint", "vet", "fmt", "format", "check", "credo", "dialyzer", "clippy", "typecheck", "types",
			"tsc", "style", "quality", "prettier", "eslint", "ruff", "mypy", "staticcheck"},
	}
}

func (w TaskWords) step(task string) Step {
	for _, set := range [...]struct {
		words []string
		step  Step
	}{{w.Test, StepTest}, {w.Build, StepBuild}, {w.Lint, StepLint}} {
		// The task's words: runs of ASCII letters and digits.
		for i := 0; i < len(task); {
			for i < len(task) && !isLetter(task[i]) && !isDigit(task[i]) {
				i++
			}
			j := i
			for j < len(task) && (isLetter(task[j]) || isDigit(task[j])) {
				j++
			}
			if j > i && anyEqualFold(set.words, task[i:j]) {
				return set.step
			}
			i = j
		}
	}
	return StepOther
}

// anyEqualFold reports whether word is one of words, ASCII case folded.
func anyEqualFold(words []string, word string) bool {
	for _, t := range words {
		if strings.EqualFold(t, word) {
			return true
		}
	}
	return false
}

// DefaultCommandRules returns loopwatch's command rules: the toolchains of issue 10
// (Go, Rust, Node with npm/pnpm/yarn/bun scripts, jest, vitest, tsc and eslint,
// Python with pytest, unittest, mypy and ruff, Swift and Xcode, Java with Maven and
// Gradle, .NET, Elixir's mix), Deno, Python's project managers' scripts (hatch, pdm,
// pipenv, rye), Ruby, PHP with composer's scripts, Scala's sbt, Haskell, Clojure,
// OCaml, Erlang, Gleam, Crystal, Nim, Perl's prove, Dart and Flutter, Zig, C and C++
// (CTest, CMake, Meson), Bazel and the checks any repository runs (shellcheck,
// pre-commit, terraform validate, hadolint), the task runners (make, just, mise,
// task, rake, ninja, and a monorepo's nx, turbo and lerna), then explorations and
// shell built-ins. Everything else is StepOther — a command no rule knows, read by
// its program and first argument, and by a whole test summary — unless it is a
// project's own script of a task (see ToolConfig.ProjectScripts).
func DefaultCommandRules() []CommandRule {
	r := func(name, tc string, step Step, re string) CommandRule {
		return CommandRule{Name: name, Toolchain: tc, Step: step, Regexp: re}
	}
	task := func(name, tc string, empty Step, re string) CommandRule {
		return CommandRule{Name: name, Toolchain: tc, EmptyStep: empty, Regexp: re}
	}
	return []CommandRule{
		// Go.
		r("go.test", "go", StepTest, `^(?:go\s+test|gotestsum)\b`),
		r("go.build", "go", StepBuild, `^go\s+(?:build|install)\b`),
		r("go.vet", "go", StepLint, `^go\s+vet\b`),
		r("go.lint", "go", StepLint, `^(?:golangci-lint|staticcheck|revive|govulncheck)\b`),
		// Rust.
		r("cargo.test", "cargo", StepTest, `^cargo\s+(?:\+\S+\s+)?(?:test|t|nextest)\b`),
		r("cargo.build", "cargo", StepBuild, `^cargo\s+(?:\+\S+\s+)?(?:build|b|check|c)\b`),
		r("cargo.lint", "cargo", StepLint, `^cargo\s+(?:\+\S+\s+)?(?:clippy|fmt\b.*--check)\b`),
		// Node.
		r("node.test", "node", StepTest, `^(?:jest|vitest|mocha|ava|tap|playwright\s+test|cypress\s+run|node\s+(?:.*\s)?--test\b)`),
		r("node.tsc", "node", StepBuild, `^(?:tsc|vue-tsc)\b`),
		r("node.build", "node", StepBuild, `^(?:vite\s+build|next\s+build|webpack|rollup|esbuild|tsup|parcel\s+build)\b`),
		r("node.lint", "node", StepLint, `^(?:eslint|oxlint|stylelint|biome\s+(?:check|lint|ci)|prettier\s+(?:.*\s)?--check|svelte-check)\b`),
		// A package manager's own commands are no script: "npm ci" installs.
		r("node.pm", "", StepOther, `^(?:npm|pnpm|yarn|bun)\s+(?:ci|install|i|add|audit|init|create|publish|update|upgrade|up|`+
			`uninstall|remove|rm|un|link|ln|outdated|ls|list|pack|version|view|info|config|cache|dedupe|prune|rebuild|why|`+
			`login|logout|whoami|fund|doctor|import|patch|store|env|pm|set|get)\b`),
		// A monorepo's task runners, run as they are or by a package manager: "nx test
		// web", "nx run web:test" (a project's target), "nx affected -t lint", "pnpm
		// turbo run build --filter web", "turbo run @acme/ui#build", "lerna run test".
		task("nx.target", "nx", StepOther, `^(?:(?:pnpm|yarn|bun)\s+)?nx\s+(?:run\s+(?:[^\s:]+:)?|(?:run-many|affected)\s+(?:\S+\s+)*?(?:-t|--targets?)[\s=])?`+
			runnerOptions+`(?P<task>[^-\s]\S*)`),
		task("turbo.task", "turbo", StepOther, `^(?:(?:pnpm|yarn|bun)\s+)?turbo\s+(?:run\s+)?`+runnerOptions+`(?:[^\s#]+#)?(?P<task>[^-\s#]\S*)`),
		task("lerna.task", "lerna", StepOther, `^(?:(?:pnpm|yarn|bun)\s+)?lerna\s+run\s+`+runnerOptions+`(?P<task>[^-\s]\S*)`),
		r("node.t", "npm", StepTest, `^(?:npm|pnpm)\s+t(?:\s|$)`), // npm's own alias of test
		task("node.script", "npm", StepOther, `^(?:npm|pnpm|yarn|bun)\s+(?:workspace\s+\S+\s+)?`+runnerOptions+
			`(?:(?:run|run-script)\s+)?`+runnerOptions+`(?P<task>\S+)`),
		// Deno.
		r("deno.test", "deno", StepTest, `^deno\s+test\b`),
		r("deno.build", "deno", StepBuild, `^deno\s+(?:check|compile)\b`),
		r("deno.lint", "deno", StepLint, `^deno\s+(?:lint|fmt\s+(?:.*\s)?--check)\b`),
		task("deno.task", "deno", StepOther, `^deno\s+task\s+`+runnerOptions+`(?P<task>\S+)`),
		// Python.
		// tox's and nox's environments named for a check are lints ("tox -e lint").
		r("python.toxlint", "python", StepLint, `^(?:tox|nox)\s+(?:(?:[^-\s]|-[^-\s]|--\S)\S*\s+)*?(?:-e|-s|--env|--session|--sessions)[\s=](?:[^\s,]*,)*`+
			`(?:lint|mypy|ruff|flake8|pylint|pyright|typecheck|types|typing|format|fmt|style|black|isort|pre-commit)(?:[,\s]|$)`),
		r("python.test", "python", StepTest, `^(?:pytest|py\.test|unittest|tox|nox|hatch\s+test|(?:python[\d.]*\s+)?(?:\S+/)?manage\.py\s+test)\b`),
		// A project manager's scripts ("hatch run test", "pdm lint", "pipenv run
		// tests"): its script table's names, read as the program of that name where
		// no task word names them ("hatch run pytest -x").
		task("python.script", "python", StepOther, `^(?:(?:hatch|pipenv|rye)\s+run|pdm(?:\s+run)?)\s+(?:-\S+\s+)*(?P<task>\S+)`),
		r("python.lint", "python", StepLint, `^(?:mypy|ruff|flake8|pylint|pyright|black\s+(?:.*\s)?--check|isort\s+(?:.*\s)?--check)\b`),
		// Swift and Xcode.
		r("swift.test", "swift", StepTest, `^(?:swift\s+test|xcodebuild\s+(?:.*\s)?test(?:-without-building)?)\b`),
		r("swift.build", "swift", StepBuild, `^(?:swift\s+build|xcodebuild)\b`),
		r("swift.lint", "swift", StepLint, `^(?:swiftlint|swift-format\s+lint|swiftformat\s+(?:.*\s)?--lint)\b`),
		// Java.
		r("maven.test", "maven", StepTest, `^mvnw?\s+(?:.*\s)?(?:test|verify|install|package|integration-test)\b`),
		r("maven.build", "maven", StepBuild, `^mvnw?\s+(?:.*\s)?(?:compile|test-compile)\b`),
		r("maven.lint", "maven", StepLint, `^mvnw?\s+(?:.*\s)?(?:checkstyle:\S+|spotless:check|pmd:\S+|spotbugs:\S+)`),
		r("gradle.test", "gradle", StepTest, `^gradlew?\s+(?:.*\s)?(?:test|check|build|\S*Test)\b`),
		r("gradle.build", "gradle", StepBuild, `^gradlew?\s+(?:.*\s)?(?:assemble|compile\S*|jar|classes)\b`),
		r("gradle.lint", "gradle", StepLint, `^gradlew?\s+(?:.*\s)?(?:lint\S*|spotlessCheck|checkstyle\S*|detekt|ktlintCheck)\b`),
		// .NET.
		r("dotnet.test", "dotnet", StepTest, `^dotnet\s+test\b`),
		r("dotnet.build", "dotnet", StepBuild, `^dotnet\s+(?:build|msbuild|publish|pack)\b`),
		r("dotnet.lint", "dotnet", StepLint, `^dotnet\s+format\b`),
		// Elixir.
		task("mix.task", "mix", StepOther, `^mix\s+(?:--?\S+\s+)*(?P<task>\S+)`),
		// Ruby.
		r("ruby.test", "ruby", StepTest, `^(?:rspec|cucumber|rails\s+test(?::(?:system|all|models|controllers|integration|units|functionals|mailers|helpers|jobs|channels))?(?:\s|$)|`+
			`ruby\s+(?:-I\s+\S+\s+|-[^c\s]\S*\s+)*\S*_(?:test|spec)\.rb\b)`),
		r("ruby.lint", "ruby", StepLint, `^(?:rubocop|standardrb|reek|brakeman)\b`),
		// PHP, with composer's scripts ("composer test").
		r("php.test", "php", StepTest, `^(?:phpunit|pest|paratest|codecept\s+run|php\s+(?:-d\s*\S+\s+)*(?:artisan\s+test|(?:\S+/)?(?:phpunit|pest|paratest)))\b`),
		r("php.lint", "php", StepLint, `^(?:phpstan|psalm|phpcs|php-cs-fixer\s+(?:.*\s)?--dry-run|pint\s+(?:.*\s)?--test|php\s+-l|`+
			`php\s+(?:-d\s*\S+\s+)*(?:\S+/)?(?:phpstan|psalm|phpcs))\b`),
		r("php.pm", "", StepOther, `^composer\s+(?:install|i|update|u|upgrade|require|r|remove|rm|dump-autoload|dumpautoload|validate|show|`+
			`outdated|config|create-project|diagnose|self-update|selfupdate|check-platform-reqs|audit|init|global|why|depends|why-not|`+
			`prohibits|licenses|fund|search|reinstall|bump)\b`),
		task("php.script", "php", StepOther, `^composer\s+(?:(?:-d|--working-dir)[\s=]\S+\s+|-\S+\s+)*(?:(?:run-script|run|exec)\s+)?(?:-\S+\s+)*(?P<task>\S+)`),
		// Scala, Haskell, Clojure, OCaml, Erlang, Gleam, Crystal, Nim, Perl, Dart and Flutter, Zig.
		// sbt's commands are its arguments, whole or quoted ("sbt clean test", sbt
		// "testOnly Foo"); a word inside another's quotes is no command ('run test').
		r("sbt.test", "sbt", StepTest, `^sbt\s+`+sbtArgs+`["']?(?:\S+/)?(?:test|testOnly|testQuick|it:test)(?:\s|["']|$)`),
		r("sbt.build", "sbt", StepBuild, `^sbt\s+`+sbtArgs+`["']?(?:\S+/)?(?:compile|test:compile|package|assembly)(?:\s|["']|$)`),
		r("sbt.lint", "sbt", StepLint, `^sbt\s+`+sbtArgs+`["']?(?:\S+/)?scalafmtCheck`),
		r("haskell.test", "haskell", StepTest, `^(?:stack|cabal)\s+(?:--stack-yaml\s+\S+\s+|-\S+\s+)*(?:(?:v2-)?test\b|build\s+(?:.*\s)?--test\b)`),
		r("haskell.build", "haskell", StepBuild, `^(?:stack|cabal)\s+(?:--stack-yaml\s+\S+\s+|-\S+\s+)*(?:v2-)?build\b`),
		r("haskell.lint", "haskell", StepLint, `^hlint\b`),
		r("clojure.test", "clojure", StepTest, `^(?:lein\s+(?:-\S+\s+|with-profiles?\s+\S+\s+)*test(?:\s|$)|(?:clojure|clj)\s+(?:.*\s)?-[XM]:test\S*|bb\s+test\b)`),
		r("ocaml.test", "ocaml", StepTest, `^dune\s+(?:test|runtest|build\s+(?:.*\s)?@runtest)\b`),
		r("ocaml.build", "ocaml", StepBuild, `^dune\s+build\b`),
		r("erlang.test", "erlang", StepTest, `^rebar3\s+(?:.*\s)?(?:eunit|ct|proper)\b`),
		r("erlang.build", "erlang", StepBuild, `^rebar3\s+(?:compile|release|escriptize)\b`),
		r("erlang.lint", "erlang", StepLint, `^rebar3\s+(?:dialyzer|xref|lint)\b`),
		r("gleam.test", "gleam", StepTest, `^gleam\s+test\b`),
		r("gleam.build", "gleam", StepBuild, `^gleam\s+(?:build|check)\b`),
		r("crystal.test", "crystal", StepTest, `^crystal\s+spec\b`),
		r("nim.test", "nim", StepTest, `^nimble\s+test\b`),
		r("perl.test", "perl", StepTest, `^(?:prove|yath)\b`),
		r("dart.test", "dart", StepTest, `^(?:dart|flutter)\s+test\b`),
		r("dart.build", "dart", StepBuild, `^(?:flutter\s+build|dart\s+compile)\b`),
		r("dart.lint", "dart", StepLint, `^(?:dart|flutter)\s+(?:analyze|format\s+(?:.*\s)?--set-exit-if-changed)\b`),
		r("zig.run", "", StepOther, `^zig\s+(?:build\s+(?:-\S+\s+)*run|run)\b`),
		r("zig.test", "zig", StepTest, `^zig\s+(?:build\s+(?:-\S+\s+)*test|test)\b`),
		r("zig.build", "zig", StepBuild, `^zig\s+(?:build|build-exe|build-lib|build-obj)\b`),
		// C and C++.
		r("cmake.test", "cmake", StepTest, `^(?:(?:ctest|meson\s+test)\b|cmake\s+(?:.*\s)?--build\s+(?:.*\s)?(?:--target|-t)\s+(?:test|check)(?:\s|$))`),
		r("cmake.build", "cmake", StepBuild, `^(?:cmake\s+(?:.*\s)?--build|meson\s+compile|scons)\b`),
		r("c.lint", "c", StepLint, `^(?:clang-tidy|cppcheck|clang-format\s+(?:.*\s)?--dry-run)\b`),
		// Build systems of any language.
		r("bazel.test", "bazel", StepTest, `^(?:bazel|bazelisk)\s+(?:-\S+\s+)*(?:test|coverage)\b`),
		r("bazel.build", "bazel", StepBuild, `^(?:bazel|bazelisk)\s+(?:-\S+\s+)*build\b`),
		// Checks of any repository.
		r("shell.lint", "shell", StepLint, `^(?:shellcheck|shfmt\s+(?:.*\s)?-d)\b`),
		r("precommit.lint", "pre-commit", StepLint, `^(?:pre-commit|prek|lefthook)\s+run\b`),
		r("terraform.lint", "terraform", StepLint, `^(?:(?:terraform|tofu)\s+(?:-\S+\s+)*(?:validate|fmt\s+(?:.*\s)?-check)|tflint)\b`),
		r("docker.lint", "docker", StepLint, `^hadolint\b`),
		r("kotlin.lint", "kotlin", StepLint, `^(?:ktlint|detekt)\b`),
		// Task runners.
		task("make.target", "make", StepBuild, `^(?:make|gmake)\b(?:\s+(?:-[CfIjlo]\s*\S+|-\S+|\w+=\S*))*(?:\s+(?P<task>[^-\s]\S*))?`),
		task("just.recipe", "just", StepOther, `^just\b(?:\s+-\S+)*(?:\s+(?P<task>\S+))?`),
		task("mise.task", "mise", StepOther, `^mise\s+(?:run|r)\b(?:\s+-\S+)*(?:\s+(?P<task>\S+))?`),
		task("task.task", "task", StepOther, `^task\b(?:\s+-\S+)*(?:\s+(?P<task>\S+))?`),
		task("rake.task", "rake", StepOther, `^rake\b(?:\s+-\S+)*(?:\s+(?P<task>\S+))?`),
		// ninja's target, or its tool ("ninja -t clean": no build).
		task("ninja.target", "ninja", StepBuild, `^(?:ninja|samu)\b(?:\s+(?:-[Cfjkld]\s*\S+|-[^t\s]\S*))*(?:\s+(?:-t\s*)?(?P<task>[^-\s]\S*))?`),
		// Explorations and shell built-ins: a non-zero exit of these is no failure.
		r("shell.explore", "", StepExplore, `^(?:grep|egrep|fgrep|rg|ag|ack|find|fd|ls|ll|tree|cat|bat|head|tail|less|more|wc|`+
			`which|whereis|type|file|stat|du|df|pwd|cd|pushd|popd|echo|printf|true|false|:|sleep|wait|export|set|unset|`+
			`source|\.|readlink|realpath|basename|dirname|sort|uniq|cut|tr|diff|cmp|test|\[|\[\[|jq|yq|sed|awk|xargs|`+
			`tee|date|printenv|history|alias|mkdir|touch|ps|pgrep|lsof|id|whoami|uname|hostname|open|code|clear|`+
			`command\s+-[vV]|sqlite3|curl\s+(?:.*\s)?-[sSI]*I|tmux\s+(?:capture-pane|list))(?:\s|$)`),
		r("git.explore", "", StepExplore, `^git\s+(?:-C\s+\S+\s+|--no-pager\s+|-c\s+\S+\s+)*(?:status|log|diff|show|branch|ls-files|ls-tree|`+
			`blame|grep|rev-parse|remote|config|merge-base|describe|reflog|shortlog|cat-file|rev-list|for-each-ref|`+
			`fetch|worktree\s+list|stash\s+(?:list|show))\b`),
		r("gh.explore", "", StepExplore, `^gh\s+(?:api|search|(?:pr|issue|run|repo|release|workflow)\s+(?:view|list|diff|status))\b`),
	}
}

// runnerOptions matches a package manager's or a monorepo runner's options before its
// script: the ones whose value is the next word ("--filter web", "-C packages/api")
// and the rest.
const runnerOptions = `(?:(?:--filter|-F|--dir|-C|--prefix|--cwd|--workspace|--scope)[\s=]\S+\s+|--?\S+\s+)*`

// sbtArgs matches sbt's arguments before a command: whole words or quoted commands.
const sbtArgs = `(?:(?:"[^"]*"|'[^']*'|[^\s"']\S*)\s+)*`

// commandMatcher is a compiled list of [CommandRule]s.
type commandMatcher struct {
	rules []compiledCommand
	words TaskWords
	// byFirst lists, for each first byte of a command, the rules that may match it,
	// in order: a rule whose literal prefixes are known is tried only on commands
	// opening with one of their first bytes.
	byFirst [256][]uint16
	// projectScripts: read a project's own scripts (ToolConfig.ProjectScripts).
	projectScripts bool
}

type compiledCommand struct {
	name, toolchain string
	step, empty     Step
	re              *regexp.Regexp
	task            int      // index of the "task" group, or -1
	prefixes        []string // a match starts with one of these; nil: unknown
}

func newCommandMatcher(rules []CommandRule, words TaskWords) (*commandMatcher, error) {
	m := &commandMatcher{words: words, projectScripts: true}
	for _, r := range rules {
		if r.Name == "" {
			return nil, errors.New("detect: command rule without a name")
		}
		if int(r.Step) >= len(stepNames) || int(r.EmptyStep) >= len(stepNames) {
			return nil, fmt.Errorf("detect: command rule %q: invalid step", r.Name)
		}
		if r.Regexp == "" {
			return nil, fmt.Errorf("detect: command rule %q has no regexp", r.Name)
		}
		re, err := regexp.Compile(r.Regexp)
		if err != nil {
			return nil, fmt.Errorf("detect: command rule %q: %w", r.Name, err)
		}
		c := compiledCommand{name: r.Name, toolchain: r.Toolchain, step: r.Step, empty: r.EmptyStep, re: re, task: re.SubexpIndex("task"),
			prefixes: literalPrefixes(r.Regexp)}
		if c.step == StepOther && c.task < 0 && r.EmptyStep != StepOther {
			return nil, fmt.Errorf("detect: command rule %q has an empty_step but no \"task\" group", r.Name)
		}
		m.rules = append(m.rules, c)
	}
	if len(m.rules) > 1<<16 {
		return nil, errors.New("detect: more than 65536 command rules")
	}
	for i, c := range m.rules {
		var first [256]bool
		any := c.prefixes == nil
		for _, p := range c.prefixes {
			if p == "" {
				any = true
				break
			}
			first[p[0]] = true
		}
		for b := range m.byFirst {
			if any || first[b] {
				m.byFirst[b] = append(m.byFirst[b], uint16(i))
			}
		}
	}
	return m, nil
}

// commandStep is one simple command of a command line, recognised.
type commandStep struct {
	step   Step
	target string // "go test", "git push", …
	// tail: the command's own exit status can be the line's (see splitCommands), so a
	// line that succeeded says it succeeded, and a line that failed may have failed
	// with it.
	tail bool
	// timed: the command ran under timeout(1), whose exit status 124 says it was
	// killed at its deadline.
	timed bool
}

// classify recognises one normalised simple command.
func (m *commandMatcher) classify(cmd string) commandStep { return m.classifyAs(cmd, false) }

// classifyAs is classify; task says cmd is a runner's task, which the runners' own
// rules do not read again (a task is one program, not another runner's task).
func (m *commandMatcher) classifyAs(cmd string, task bool) commandStep {
	if cmd == "" {
		return commandStep{step: StepOther}
	}
	for _, i := range m.byFirst[cmd[0]] {
		r := &m.rules[i]
		if task && r.task >= 0 {
			continue
		}
		if r.prefixes != nil && !hasAnyPrefix(cmd, r.prefixes) {
			continue
		}
		loc := r.re.FindStringSubmatchIndex(cmd)
		if loc == nil {
			continue
		}
		step := r.step
		if r.task >= 0 && step == StepOther {
			if loc[2*r.task] < 0 || loc[2*r.task] == loc[2*r.task+1] {
				step = r.empty
			} else if step = m.words.step(cmd[loc[2*r.task]:loc[2*r.task+1]]); step == StepOther && !task {
				// A runner that runs a package's program by its name ("pnpm vitest
				// run", "yarn jest", "bun tsc"): the program, when a rule knows it.
				// The task's words are normalised again: "hatch run python -m pytest".
				prog, _, timed := normalise(strings.Fields(cmd[loc[2*r.task]:]))
				st := m.classifyAs(prog, true)
				st.timed = timed
				if st.step.isToolchain() {
					return st
				}
				// Another task or program: a command of its own, named by the runner
				// and its task ("mise dup", "ninja clean", "pnpm dev"; a task runner by
				// its rule's name: "pnpm nx graph" is "nx graph"), or by the program an
				// interpreter runs, as a wrapper's would be ("pipenv run python
				// scripts/a.py" is "python scripts/a.py", as under "uv run") — not by
				// the runner's own words ("pipenv run").
				if prog != "" {
					name := cmd[loc[2*r.task]:loc[2*r.task+1]]
					if interpreter(name) {
						return commandStep{step: StepOther, target: otherTarget(prog), timed: timed}
					}
					runner, _, _ := strings.Cut(cmd, " ")
					if taskRunner(r.toolchain) {
						runner = r.toolchain
					}
					return commandStep{step: StepOther, target: capTarget(runner + " " + name), timed: timed}
				}
			}
		}
		if step == StepOther {
			break // a runner's task that is neither build, test nor lint: another command
		}
		if step == StepExplore {
			return commandStep{step: StepExplore}
		}
		if runsNothing(cmd, step) {
			return commandStep{step: StepExplore}
		}
		return commandStep{step: step, target: r.toolchain + " " + step.String()}
	}
	return commandStep{step: StepOther, target: otherTarget(cmd)}
}

// runsNothing reports whether a toolchain's command of step asks for its version or
// help ("rspec --version"), or a test runner to list or plan its tests without running
// them ("pytest --co", "dotnet test --list-tests", "cucumber --dry-run"): a look, not a
// run of the suite. A lint's --dry-run ("php-cs-fixer fix --dry-run") is its check.
func runsNothing(cmd string, step Step) bool {
	if !strings.Contains(cmd, " --") {
		return false
	}
	if hasArg(cmd, "--version") || hasArg(cmd, "--help") {
		return true
	}
	return step == StepTest && (hasArg(cmd, "--dry-run") || hasArg(cmd, "--init") || hasArg(cmd, "--collect-only") ||
		hasArg(cmd, "--co") || hasArg(cmd, "--list-tests") || hasArg(cmd, "--listTests") || hasArg(cmd, "--list"))
}

// hasArg reports whether arg is one of cmd's words after its first.
func hasArg(cmd, arg string) bool {
	for rest := cmd; ; {
		i := strings.Index(rest, " "+arg)
		if i < 0 {
			return false
		}
		end := i + 1 + len(arg)
		if end == len(rest) || rest[end] == ' ' {
			return true
		}
		rest = rest[end:]
	}
}

// interpreterFlag reads flag of an interpreter program: program is one (python,
// node, ruby, perl, php, deno, bun, sh, bash, zsh, pwsh, with or without a version);
// code, flag makes it read a program from the argument after it (python -c, node -e
// and -p, ruby and perl -e, php -r, sh -c); check, it checks a script's syntax or runs
// a module instead of a script (bash -n, ruby -c, node --check, php -l, python -m).
func interpreterFlag(program, flag string) (interp, code, check bool) {
	name := strings.TrimRight(program[strings.LastIndexByte(program, '/')+1:], "0123456789.")
	switch name {
	case "python", "node", "ruby", "perl", "php", "deno", "bun", "sh", "bash", "zsh", "pwsh":
	default:
		return false, false, false
	}
	shell := name == "sh" || name == "bash" || name == "zsh"
	switch flag {
	case "-c":
		return true, name != "ruby" && name != "perl", name == "ruby" || name == "perl"
	case "-e", "-p":
		return true, !shell, false // sh -e exits on errors, -p is privileged
	case "-r", "--eval", "--print":
		return true, true, false
	case "-n":
		return true, false, shell
	case "--check", "-l", "-m":
		return true, false, flag != "-l" || name == "php"
	}
	return true, false, false
}

// interpreter reports whether program runs the script its arguments name.
func interpreter(program string) bool {
	interp, _, _ := interpreterFlag(program, "")
	return interp
}

// inlineCode reports whether flag makes program, an interpreter, read a program
// from the argument after it.
func inlineCode(program, flag string) bool {
	_, code, _ := interpreterFlag(program, flag)
	return code
}

// otherTarget names another command by its program and its first argument that is
// not a flag ("git push", "python script.py"); by its program alone when that
// argument is a long path; by the command's opening when it is code (after an
// interpreter's inline-code flag, "python3 -c 'import yaml'", or quoted): inline
// programs are each their own command, so five different probes are no streak, and
// the same one run five times is. At most 64 bytes.
func otherTarget(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	t, flag := f[0], ""
	for _, w := range f[1:] {
		if strings.HasPrefix(w, "-") {
			flag = w
			continue
		}
		switch {
		case inlineCode(f[0], flag) || strings.ContainsAny(w, "\"'`"):
			t = strings.Join(f, " ")
		case len(w) <= 40 && !strings.ContainsAny(w, "$(){}[]<>|;&*?="):
			t += " " + w
		}
		break
	}
	return capTarget(t)
}

// capTarget cuts a target to 64 bytes, at a character's start.
func capTarget(t string) string {
	if len(t) > 64 {
		t = t[:64]
		for len(t) > 0 && !utf8.ValidString(t) {
			t = t[:len(t)-1]
		}
	}
	return t
}

// MaxCommandBytes bounds how much of a command line is read (8 KiB): the rest of a
// longer one (a heredoc writing a file, say) is not looked at.
const MaxCommandBytes = 8 << 10

// maxSimpleCommands bounds the simple commands read from one command line, and
// maxHeredocs the heredocs whose bodies are skipped on one line.
const (
	maxSimpleCommands = 24
	maxHeredocs       = 8
)

// parse splits a command line into its simple commands and recognises each. It reads
// at most MaxCommandBytes and maxSimpleCommands (a longer line's status is then
// taken to speak for none of them); quoting, $(…), heredocs, comments
// and redirections are followed well enough for the commands agents write, never
// perfectly: it is a reading, not a shell.
func (m *commandMatcher) parse(line string) []commandStep {
	if len(line) > MaxCommandBytes {
		line = line[:MaxCommandBytes]
	}
	var out []commandStep
	for _, sc := range splitCommands(line) {
		cmd, path, timed := normalise(sc.words)
		if cmd == "" {
			continue
		}
		st := m.classify(cmd)
		if m.projectScripts && (st.step == StepOther || st.step == StepExplore) {
			if ps, ok := m.projectScript(cmd, path); ok {
				st = ps
			}
		}
		st.tail, st.timed = sc.tail, st.timed || timed
		out = append(out, st)
	}
	return out
}

// scriptWords may stand beside task words in a project script's name ("run-tests",
// "test-all", "lint_fast").
var scriptWords = []string{"run", "all", "local", "quick", "fast", "full"}

// projectScript reads a project's own script of a task — "bin/test", "script/test",
// "./scripts/lint.sh", "bash ci/run-tests.sh", "python scripts/build.py" — as that
// task's step, its target "script test" (a task runner's, see SameSuite): a script
// given by a relative path whose name, without an extension, is task words only
// ("test-data-gen.py" is no test run). cmd is the normalised command, path its
// program as written.
func (m *commandMatcher) projectScript(cmd, path string) (commandStep, bool) {
	if runsNothing(cmd, StepTest) {
		return commandStep{}, false // "scripts/test.sh --help"
	}
	if path == "" {
		// An interpreter running a script: "bash scripts/test.sh", "python x/build.py";
		// not checking its syntax (bash -n, ruby -c, node --check) nor running code
		// given inline (node -e).
		prog, rest, _ := strings.Cut(cmd, " ")
		if !interpreter(prog) {
			return commandStep{}, false
		}
		for rest != "" {
			var w string
			w, rest, _ = strings.Cut(strings.TrimLeft(rest, " "), " ")
			if w == "" {
				continue
			}
			if strings.HasPrefix(w, "-") {
				if _, code, check := interpreterFlag(prog, w); code || check {
					return commandStep{}, false
				}
				continue
			}
			path = w
			break
		}
	}
	// A script of the project's: in a folder scripts are kept in ("bin/test",
	// "scripts/lint.sh", "ci/run-tests.sh") or at its top ("./test", "./run-tests.sh");
	// "tmp/test.py" or "src/build.js" is not. A scratch "./test.js" is read as one, but
	// its target is "script test", whose pass ends no other suite's streak.
	slash := strings.LastIndexByte(path, '/')
	if slash < 0 || path[0] == '/' || path[0] == '~' {
		return commandStep{}, false
	}
	name := path[slash+1:]
	dir := strings.TrimPrefix(path[:slash], "./")
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		dir = dir[i+1:]
	}
	switch dir {
	case "bin", "script", "scripts", "ci", ".ci", "tools", "hack", "dev", "tasks", ".", "":
	default:
		return commandStep{}, false
	}
	if dot := strings.IndexByte(name, '.'); dot > 0 {
		switch name[dot+1:] {
		case "sh", "bash", "zsh", "ps1", "bat", "cmd", "py", "rb", "js", "mjs", "ts", "pl":
			name = name[:dot]
		default:
			return commandStep{}, false
		}
	}
	step := StepOther
	for rest := name; rest != ""; {
		i := strings.IndexAny(rest, "-_")
		if i < 0 {
			i = len(rest)
		}
		w := rest[:i]
		rest = rest[min(i+1, len(rest)):]
		if w == "" {
			continue
		}
		if anyEqualFold(scriptWords, w) {
			continue // "lint-all" lints
		}
		st := m.words.step(w)
		if st == StepOther {
			return commandStep{}, false
		}
		if step == StepOther || st == StepTest || st == StepBuild && step == StepLint {
			step = st // the first of test, build, lint, as TaskWords decide
		}
	}
	if !step.isToolchain() {
		return commandStep{}, false
	}
	return commandStep{step: step, target: projectScripts + " " + step.String()}, true
}

// simpleCommand is the words of one simple command and whether only && follow it.
type simpleCommand struct {
	words []string
	op    string // the operator after it: "&&", "||", "|", ";", "&" or "" (the end)
	tail  bool
}

// splitCommands splits a command line into simple commands.
func splitCommands(line string) []simpleCommand {
	var cmds []simpleCommand
	var words []string
	truncated := false
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCmd := func(op string) {
		endWord()
		if len(words) > 0 && len(cmds) == maxSimpleCommands {
			truncated = true
		} else if len(words) > 0 {
			cmds = append(cmds, simpleCommand{words: words, op: op})
		} else if len(words) == 0 && len(cmds) > 0 && op != ";" && op != "" {
			cmds[len(cmds)-1].op = op // "a && \n b": the operator before the line break counts
		}
		words = nil
	}
	var heredocs []string // delimiters waiting for the end of the line
	n := len(line)
	for i := 0; i < n; i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < n:
			if line[i+1] == '\n' {
				i++
				continue
			}
			word.WriteByte(line[i+1])
			inWord = true
			i++
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = n - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"' || c == '$' && i+1 < n && line[i+1] == '(' || c == '`':
			j := skipQuoted(line, i)
			word.WriteString(line[i:j])
			inWord = true
			i = j - 1
		case c == '#' && !inWord:
			for i < n && line[i] != '\n' {
				i++
			}
			i--
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
		case c == '\n':
			endCmd(";")
			for _, d := range heredocs {
				i = skipHeredoc(line, i+1, d) - 1
			}
			heredocs = nil
		case c == ';':
			endCmd(";")
		case c == '&' && i+1 < n && line[i+1] == '&':
			endCmd("&&")
			i++
		case c == '|' && i+1 < n && line[i+1] == '|':
			endCmd("||")
			i++
		case c == '|':
			endCmd("|")
			if i+1 < n && line[i+1] == '&' {
				i++
			}
		case c == '&' && (i+1 >= n || line[i+1] != '>') && !(inWord && strings.HasSuffix(word.String(), ">")) && !(i > 0 && (line[i-1] == '>' || line[i-1] == '<')):
			endCmd("&")
		case (c == '(' || c == ')') && !inWord:
			endWord()
		case c == '<' && i+1 < n && line[i+1] == '<' && (i+2 >= n || line[i+2] != '<'):
			endWord()
			j := i + 2
			if j < n && line[j] == '-' {
				j++
			}
			for j < n && (line[j] == ' ' || line[j] == '\t') {
				j++
			}
			k := j
			for k < n && !strings.ContainsRune(" \t\n;&|<>()", rune(line[k])) {
				k++
			}
			if d := strings.Trim(line[j:k], `'"\`); d != "" && len(heredocs) < maxHeredocs {
				heredocs = append(heredocs, d)
			}
			i = k - 1
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCmd("")
	if k := len(cmds) - 1; k >= 0 && cmds[k].op == ";" {
		cmds[k].op = "" // a final new line or ;
	}
	// A command's own exit status can be the line's when && alone follows it up to a
	// pipeline or the end ("a && b | c" runs as "a && (b | c)": a's status counts, b's
	// does not); a ; || or & after it, or after the pipeline it feeds, hides it.
	reach := !truncated // past the bound, the line's status is some unread command's
	for i := len(cmds) - 1; i >= 0; i-- {
		op := cmds[i].op
		cmds[i].tail = reach && (op == "&&" || op == "")
		if op != "&&" && op != "|" && op != "" {
			reach = false
		}
	}
	return cmds
}

// skipQuoted returns the index just past the double-quoted string, $(…) or `…` that
// starts at i (the end of the line if it does not close).
func skipQuoted(line string, i int) int {
	n := len(line)
	switch {
	case line[i] == '`':
		j := strings.IndexByte(line[i+1:], '`')
		if j < 0 {
			return n
		}
		return i + j + 2
	case line[i] == '$':
		depth := 0
		for j := i + 1; j < n; j++ {
			switch line[j] {
			case '\\':
				j++
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					return j + 1
				}
			case '\'':
				if k := strings.IndexByte(line[j+1:], '\''); k >= 0 {
					j += k + 1
				}
			case '"':
				j = skipQuoted(line, j) - 1
			}
		}
		return n
	}
	for j := i + 1; j < n; j++ {
		switch line[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '$':
			if j+1 < n && line[j+1] == '(' {
				j = skipQuoted(line, j) - 1
			}
		}
	}
	return n
}

// skipHeredoc returns the index just past the line that closes a heredoc with
// delimiter d, the body starting at i (the end of the line if it never closes).
func skipHeredoc(line string, i int, d string) int {
	for i < len(line) {
		end := strings.IndexByte(line[i:], '\n')
		if end < 0 {
			if strings.TrimSpace(line[i:]) == d {
				return len(line)
			}
			return len(line)
		}
		if strings.TrimSpace(line[i:i+end]) == d {
			return i + end + 1
		}
		i += end + 1
	}
	return len(line)
}

// wrappers are programs that run the command after them; the value says how many of
// the words after its options (see optionValues) to skip: timeout's duration.
var wrappers = map[string]int{
	"sudo": 0, "doas": 0, "nohup": 0, "exec": 0, "time": 0, "nice": 0, "ionice": 0, "stdbuf": 0,
	"xvfb-run": 0, "caffeinate": 0, "env": 0, "timeout": 1, "npx": 0, "bunx": 0, "pnpx": 0,
	"dotenv": 0, "then": 0, "do": 0, "else": 0, "if": 0, "elif": 0, "while": 0, "until": 0, "!": 0,
	"{": 0, "command": 0, "builtin": 0,
}

// optionValues are the options whose value is the next word, of each wrapper
// ("sudo", "uv run"), container runtime ("docker", "docker compose", "kubectl") and
// their global options ("docker compose -f x.yml run").
var optionValues = map[string][]string{
	"sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group", "--chdir"},
	"doas": {"-u", "-C"}, "nice": {"-n", "--adjustment"}, "ionice": {"-c", "-n", "--class", "--classdata"},
	"timeout": {"-s", "-k", "--signal", "--kill-after"}, "env": {"-u", "-C", "--unset", "--chdir"},
	"stdbuf": {"-i", "-o", "-e"}, "dotenv": {"-e", "-v", "-f"}, "xvfb-run": {"-s", "-n", "-f", "-e", "-w", "--server-args"},
	"caffeinate": {"-t", "-w"},
	"uv run": {"--with", "--with-requirements", "--python", "-p", "--directory", "--project", "--package", "--extra",
		"--group", "--env-file", "--index"},
	"poetry run":   {"-C", "-P", "--directory", "--project"},
	"coverage run": {"--source", "--rcfile", "--omit", "--include", "--data-file", "--context"},
	"bundle exec":  {"--gemfile"},
	"docker": {"-e", "--env", "-w", "--workdir", "-u", "--user", "-v", "--volume", "-p", "--publish", "--name",
		"--entrypoint", "--network", "--platform", "-l", "--label", "--env-file", "--mount", "-m", "--memory", "--cpus",
		"--add-host", "--hostname", "--gpus", "--pull", "--ulimit", "--cap-add", "--cap-drop", "--device", "--tmpfs",
		"--shm-size", "--restart", "--index", "--detach-keys"},
	"docker compose": {"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory"},
	"kubectl":        {"-n", "--namespace", "-c", "--container", "--context", "--kubeconfig", "--cluster", "--user"},
}

// skipOptions returns words past the options at their start (words opening with
// "-"), an option's value too where valued lists it and it is not written
// "--opt=value", and past "--", after which no word is an option.
func skipOptions(words, valued []string) []string {
	for len(words) > 0 && strings.HasPrefix(words[0], "-") {
		opt := words[0]
		words = words[1:]
		if opt == "--" {
			break
		}
		if len(words) > 0 && !strings.HasPrefix(words[0], "-") && !strings.Contains(opt, "=") && slices.Contains(valued, opt) {
			words = words[1:] // "sudo -u app", "uv run -p 3.12"
		}
	}
	return words
}

// containerPrefix returns how many of words run the command after them in a
// container — "docker compose run --rm app", "docker exec -it web", "podman run
// image", "kubectl exec pod --" — or 0: not such a command, or one naming no command
// to run ("docker compose up", "docker run image" running its own).
func containerPrefix(words []string) int {
	var rest []string
	switch {
	case len(words) > 2 && (words[0] == "docker" || words[0] == "podman") && words[1] == "compose",
		len(words) > 1 && words[0] == "docker-compose":
		n := 2
		if words[0] == "docker-compose" {
			n = 1
		}
		rest = skipOptions(words[n:], optionValues["docker compose"])
		if len(rest) == 0 || rest[0] != "run" && rest[0] != "exec" {
			return 0
		}
		rest = skipOptions(rest[1:], optionValues["docker"])
	case len(words) > 1 && (words[0] == "docker" || words[0] == "podman") && (words[1] == "run" || words[1] == "exec"):
		rest = skipOptions(words[2:], optionValues["docker"])
	case len(words) > 1 && words[0] == "kubectl":
		// kubectl [options] exec POD -- CMD: the command is after "--".
		rest = skipOptions(words[1:], optionValues["kubectl"])
		if len(rest) == 0 || rest[0] != "exec" {
			return 0
		}
		i := slices.Index(rest, "--")
		if i < 0 || i+1 == len(rest) {
			return 0
		}
		return len(words) - len(rest) + i + 1
	default:
		return 0
	}
	if len(rest) < 2 {
		return 0 // no command after the service, container or image
	}
	rest = rest[1:]
	if rest[0] == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return 0
	}
	return len(words) - len(rest)
}

// twoWordWrappers run the command after their two words ("uv run pytest"). The
// runners with a script table of their own (hatch, pdm, pipenv, rye) are task rules:
// "hatch run test" runs the project's test script, not the shell's test.
var twoWordWrappers = map[string]bool{
	"uv run": true, "poetry run": true,
	"bundle exec": true, "pnpm exec": true, "pnpm dlx": true, "yarn exec": true, "yarn dlx": true, "npm exec": true,
	"mise exec": true, "mise x": true, "direnv exec": true, "opam exec": true, "coverage run": true,
}

// normalise joins a simple command's words after removing assignments, wrappers and
// redirections, with the program's directory dropped; "" for a command that runs
// nothing (a lone assignment, "done", "fi"). path is the program as written where it
// had a directory ("bin/test", "./scripts/lint.sh"); timed reports that timeout(1) was
// among the wrappers removed.
func normalise(words []string) (cmd, path string, timed bool) {
	// Redirections: "2>&1", ">out", "> out" (the target word too).
	kept := words[:0:0]
	for i := 0; i < len(words); i++ {
		w := words[i]
		j := 0
		for j < len(w) && w[j] >= '0' && w[j] <= '9' {
			j++
		}
		if j < len(w) && (w[j] == '>' || w[j] == '<' || w[j] == '&' && j+1 < len(w) && w[j+1] == '>') {
			if strings.TrimLeft(w[j:], "<>&|") == "" && i+1 < len(words) {
				i++ // the target is the next word
			}
			continue
		}
		kept = append(kept, w)
	}
	words = kept
	for len(words) > 0 {
		w := words[0]
		if isAssignment(w) {
			words = words[1:]
			continue
		}
		if len(words) > 1 && twoWordWrappers[w+" "+words[1]] {
			// The wrapper's options ("uv run --with x pytest", "coverage run
			// --source=app -m pytest": -m takes no value, the module is the command).
			words = skipOptions(words[2:], optionValues[w+" "+words[1]])
			if len(words) > 0 && words[0] == "." {
				words = words[1:]
			}
			continue
		}
		if w == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
			break
		}
		if n := containerPrefix(words); n > 0 {
			words = words[n:] // "docker compose run --rm app pytest" runs pytest
			continue
		}
		if args, ok := wrappers[w]; ok {
			timed = timed || w == "timeout"
			words = skipOptions(words[1:], optionValues[w]) // "sudo -u app", "timeout -s KILL"
			if args > 0 && len(words) > 0 {
				words = words[min(args, len(words)):]
			}
			if len(words) > 0 && words[0] == "--" {
				words = words[1:]
			}
			continue
		}
		if strings.HasPrefix(w, "python") && len(words) > 2 && words[1] == "-m" {
			words = words[2:]
			continue
		}
		break
	}
	if len(words) == 0 {
		return "", "", timed
	}
	switch words[0] {
	case "done", "fi", "esac", "}", "for", "case", "function", "select":
		return "", "", timed
	}
	prog := words[0]
	if i := strings.LastIndexByte(prog, '/'); i >= 0 && i < len(prog)-1 {
		path, prog = prog, prog[i+1:]
	}
	if len(words) == 1 {
		return prog, path, timed
	}
	return prog + " " + strings.Join(words[1:], " "), path, timed
}

// isAssignment reports whether w is a VAR=value word.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// literalPrefixes returns literal strings one of which every match of the anchored
// regexp re starts with (case-sensitively), or nil when it cannot tell: a cheap test
// that spares most rules their regexp.
func literalPrefixes(re string) []string {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return nil
	}
	t = t.Simplify()
	if t.Op != syntax.OpConcat || len(t.Sub) < 2 || t.Sub[0].Op != syntax.OpBeginText {
		return nil
	}
	return prefixesOf(&syntax.Regexp{Op: syntax.OpConcat, Sub: t.Sub[1:]})
}

func prefixesOf(t *syntax.Regexp) []string {
	switch t.Op {
	case syntax.OpLiteral:
		if t.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(t.Rune)}
	case syntax.OpCharClass:
		// A small class of single characters, as the parser makes of "ls|ll".
		var out []string
		for i := 0; i+1 < len(t.Rune); i += 2 {
			for r := t.Rune[i]; r <= t.Rune[i+1]; r++ {
				if len(out) == 16 {
					return nil
				}
				out = append(out, string(r))
			}
		}
		return out
	case syntax.OpCapture:
		return prefixesOf(t.Sub[0])
	case syntax.OpConcat:
		if len(t.Sub) == 0 {
			return nil
		}
		head := prefixesOf(t.Sub[0])
		// A literal followed by a part with prefixes of its own (the parser makes
		// "c(?:test|make)" of "ctest|cmake"): the literal with each of them, so that
		// "cd" is not tried against every rule of a program opening with "c".
		if len(t.Sub) > 1 && len(head) == 1 && (t.Sub[0].Op == syntax.OpLiteral || t.Sub[0].Op == syntax.OpCharClass) {
			if tail := prefixesOf(&syntax.Regexp{Op: syntax.OpConcat, Sub: t.Sub[1:]}); tail != nil && len(tail) <= 16 {
				out := make([]string, len(tail))
				for i, p := range tail {
					out[i] = head[0] + p
				}
				return out
			}
		}
		return head
	case syntax.OpAlternate:
		var out []string
		for _, sub := range t.Sub {
			p := prefixesOf(sub)
			if p == nil {
				return nil
			}
			out = append(out, p...)
		}
		return out
	}
	return nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
