package detect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopwatch/loopwatch/analyze"
)

// parseCases are command lines and their reading: each simple command's step, its
// target, and * where its status can be the line's.
var parseCases = []struct{ line, want string }{
	{"go test ./...", "test(go test)*"},
	{"cd /repo && go build ./... && go test -race ./...", "explore* build(go build)* test(go test)*"},
	{"go test ./... 2>&1 | tail -30", "test(go test) explore*"},
	{"go test ./... ; echo done", "test(go test) explore*"},
	{"go vet ./... || true", "lint(go lint) explore*"},
	{"a && go test ./x | grep FAIL", "other(a)* test(go test) explore*"},
	{"CGO_ENABLED=0 GOOS=linux go build -o bin/ ./cmd/...", "build(go build)*"},
	{"timeout 300 go test -run TestX ./pkg/", "test(go test)*"},
	{"sudo -E env FOO=1 cargo +nightly test", "test(cargo test)*"},
	{"sudo -u app npm test", "test(npm test)*"},
	{"nice -n 10 make test", "test(make test)*"},
	{"timeout -s KILL 60 pytest -x", "test(python test)*"},
	{"dotenv -e .env.test -- jest --ci", "test(node test)*"},
	{"env -u CI -C web npm run build", "build(npm build)*"},
	{"cargo clippy -- -D warnings", "lint(cargo lint)*"},
	{"npx --yes jest --ci", "test(node test)*"},
	{"./node_modules/.bin/vitest run", "test(node test)*"},
	{"pnpm run lint", "lint(npm lint)*"},
	{"npm test", "test(npm test)*"},
	{"npm t", "test(npm test)*"},
	{"npm run " + strings.Repeat("é", 40), "other(npm " + strings.Repeat("é", 30) + ")*"},
	{"docker compose run --rm app pytest -x", "test(python test)*"},
	{"docker compose exec -T -e RAILS_ENV=test web bundle exec rspec", "test(ruby test)*"},
	{"docker-compose run -w /app/web --rm node npm test", "test(npm test)*"},
	{"docker exec -it api go test ./...", "test(go test)*"},
	{"docker run --rm -v $(pwd):/src -w /src golang:1.23 go build ./...", "build(go build)*"},
	{"kubectl exec -n staging deploy/api -- python manage.py test", "test(python test)*"},
	{"docker compose up -d", "other(docker compose)*"},
	{"docker run --rm alpine", "other(docker run)*"},
	{"docker compose exec db", "other(docker compose)*"},
	{"docker compose -f docker-compose.test.yml run --rm app pytest", "test(python test)*"},
	{"kubectl -n staging exec api-0 -- go test ./...", "test(go test)*"},
	{"env -S 'pytest -x'", "test(python test)*"},
	{"dotenv -c jest", "test(node test)*"},
	{"ninja -d explain test", "test(ninja test)*"},
	{"yarn install && yarn build", "other(yarn install)* build(npm build)*"},
	{"pnpm vitest run src/", "test(node test)*"},
	{"yarn jest --ci", "test(node test)*"},
	{"bun webpack --mode production", "build(node build)*"},
	{"pnpm dev", "other(pnpm dev)*"},
	{"npm install jest", "other(npm install)*"},
	{"npm ci", "other(npm ci)*"},
	{"pnpm install --frozen-lockfile && pnpm test", "other(pnpm install)* test(npm test)*"},
	{"npm run ci", "test(npm test)*"},
	{"just pytest -x", "test(python test)*"},
	{"uv run pytest -q tests/", "test(python test)*"},
	{"hatch run test", "test(python test)*"},
	{"hatch run test:cov -x", "test(python test)*"},
	{"hatch test -x", "test(python test)*"},
	{"hatch run python -m pytest tests/", "test(python test)*"},
	{"pdm run lint", "lint(python lint)*"},
	{"pdm test", "test(python test)*"},
	{"pdm install", "other(pdm install)*"},
	{"pipenv run tests", "test(python test)*"},
	{"rye run mypy src", "lint(python lint)*"},
	{"pdm run python script.py", "other(python script.py)*"},
	{"pipenv run python scripts/b.py", "other(python scripts/b.py)*"},
	{"pdm run timeout 60 pytest", "test(python test)*"},
	{"poetry run pytest", "test(python test)*"},
	{"coverage run -m pytest -x", "test(python test)*"},
	{"coverage run --source=app -m pytest", "test(python test)*"},
	{"coverage run --branch manage.py test", "test(python test)*"},
	{"./manage.py test app", "test(python test)*"},
	{"uv run --with pytest-xdist pytest -n 4", "test(python test)*"},
	{"uv run --frozen -- pytest", "test(python test)*"},
	{"tox -e lint", "lint(python lint)*"},
	{"script/test", "test(script test)*"},
	{"./scripts/lint-all.sh", "lint(script lint)*"},
	{"bash ci/run-tests.sh --fast", "test(script test)*"},
	{"python scripts/build.py", "build(script build)*"},
	{"python scripts/test-data-gen.py", "other(python scripts/test-data-gen.py)*"},
	{"./setup.sh", "other(setup.sh)*"},
	{"test -f go.mod", "explore*"},
	{"[ -d build ]", "explore*"},
	{"nox -s tests-3.12", "test(python test)*"},
	{"tox -e py311", "test(python test)*"},
	{"rspec --version", "explore*"},
	{"git commit -m 'document --help'", "other(git commit)*"},
	{"go test ./... -- --help", "explore*"},
	{"ruby -c spec/models/user_spec.rb", "other(ruby spec/models/user_spec.rb)*"},
	{"bash -e ci/test.sh", "test(script test)*"},
	{"node --check scripts/build.js", "other(node scripts/build.js)*"},
	{"php -l scripts/test.php", "lint(php lint)*"},
	{"python -m scripts.test", "other(scripts.test)*"},
	{"ruby -Itest db/seeds.rb", "other(ruby db/seeds.rb)*"},
	{"cucumber --dry-run", "explore*"},
	{"pytest --co -q", "explore*"},
	{"dotnet test --list-tests", "explore*"},
	{"php-cs-fixer fix --dry-run --diff", "lint(php lint)*"},
	{"npm run export", "other(npm export)*"},
	{"npm run dev -- --port 3000", "other(npm dev)*"},
	{"python tmp/test.py", "other(python tmp/test.py)*"},
	{"bash -n scripts/test.sh", "other(bash scripts/test.sh)*"},
	{"./scripts/test.sh --help", "other(test.sh)*"},
	{"uv run -p 3.12 pytest", "test(python test)*"},
	{"coverage run -p -m pytest", "test(python test)*"},
	{"tox -e typing", "lint(python lint)*"},
	{"bin/rails test:prepare", "other(rails test:prepare)*"},
	{"bin/rails test:system", "test(ruby test)*"},
	{"php -d memory_limit=-1 vendor/bin/phpstan analyse", "lint(php lint)*"},
	{"php -dxdebug.mode=coverage vendor/bin/phpunit", "test(php test)*"},
	{"composer -d api test", "test(php test)*"},
	{"deno task --cwd web test", "test(deno test)*"},
	{`sbt "runMain app.Main test"`, `other(sbt "runMain app.Main test")*`},
	{"sbt clean test", "test(sbt test)*"},
	{"stack build --test --fast", "test(haskell test)*"},
	{"stack --stack-yaml stack-9.6.yaml test", "test(haskell test)*"},
	{"lein new app test-app", "other(lein new)*"},
	{"lein with-profile +dev test", "test(clojure test)*"},
	{"zig build run", "other(zig build)*"},
	{"zig build run -- test", "other(zig build)*"},
	{"zig build install --prefix test", "build(zig build)*"},
	{"cmake --build build --target test", "test(cmake test)*"},
	{"cmake --build build --target test -j8", "test(cmake test)*"},
	{"tox -e py311 -- -s tests/test_format.py", "test(python test)*"},
	{"nox -s tests -- -s tests/test_style.py", "test(python test)*"},
	{"tox -e py311,lint", "lint(python lint)*"},
	{"tox -e flake8-plugins", "test(python test)*"},
	{"npm run lint:t", "lint(npm lint)*"},
	{"ninja -t clean", "other(ninja clean)*"},
	{"ninja -C build -t compdb", "other(ninja compdb)*"},
	{"ninja -C build clean", "other(ninja clean)*"},
	{"terraform -chdir=infra validate", "lint(terraform lint)*"},
	{"pnpm nx test web", "test(nx test)*"},
	{"bun turbo test", "test(turbo test)*"},
	{"pnpm lerna run test", "test(lerna test)*"},
	{"nx run test-utils:build", "build(nx build)*"},
	{"turbo run @acme/test-utils#build", "build(turbo build)*"},
	{"bundle exec rspec spec/models/user_spec.rb:12", "test(ruby test)*"},
	{"bin/rails test test/models", "test(ruby test)*"},
	{"ruby -Itest test/user_test.rb", "test(ruby test)*"},
	{"bundle exec rubocop -A", "lint(ruby lint)*"},
	{"rails server", "other(rails server)*"},
	{"vendor/bin/phpunit --filter UserTest", "test(php test)*"},
	{"php vendor/bin/pest", "test(php test)*"},
	{"php artisan test", "test(php test)*"},
	{"composer test", "test(php test)*"},
	{"composer exec phpunit", "test(php test)*"},
	{"composer install", "other(composer install)*"},
	{"composer check-platform-reqs", "other(composer check-platform-reqs)*"},
	{"vendor/bin/phpstan analyse src", "lint(php lint)*"},
	{"deno test -A", "test(deno test)*"},
	{"deno task test", "test(deno test)*"},
	{"deno run main.ts", "other(deno run)*"},
	{"bazel test //...", "test(bazel test)*"},
	{"bazelisk --output_base=/tmp/b build //src:all", "build(bazel build)*"},
	{"bazel run //cmd:server", "other(bazel run)*"},
	{`sbt "testOnly com.acme.FooSpec"`, "test(sbt test)*"},
	{"sbt clean compile", "build(sbt build)*"},
	{"sbt test:compile", "build(sbt build)*"},
	{"stack test --fast", "test(haskell test)*"},
	{"cabal build all", "build(haskell build)*"},
	{"zig build test", "test(zig test)*"},
	{"zig build -Doptimize=ReleaseFast", "build(zig build)*"},
	{"ctest --test-dir build --output-on-failure", "test(cmake test)*"},
	{"cmake --build build -j8", "build(cmake build)*"},
	{"ninja -C build", "build(ninja build)*"},
	{"ninja -C build test", "test(ninja test)*"},
	{"flutter test test/widget_test.dart", "test(dart test)*"},
	{"flutter run", "other(flutter run)*"},
	{"dart analyze", "lint(dart lint)*"},
	{"lein test", "test(clojure test)*"},
	{"clojure -X:test", "test(clojure test)*"},
	{"opam exec -- dune runtest", "test(ocaml test)*"},
	{"rebar3 ct", "test(erlang test)*"},
	{"gleam test", "test(gleam test)*"},
	{"crystal spec", "test(crystal test)*"},
	{"nimble test", "test(nim test)*"},
	{"prove -lr t/", "test(perl test)*"},
	{"gotestsum --format testname -- ./...", "test(go test)*"},
	{"pnpm --filter web test", "test(npm test)*"},
	{"pnpm -C packages/api run lint", "lint(npm lint)*"},
	{"yarn workspace web build", "build(npm build)*"},
	{"yarn workspace web add left-pad", "other(yarn add)*"},
	{"npx nx run web:test", "test(nx test)*"},
	{"nx affected -t lint", "lint(nx lint)*"},
	{"nx run-many --target=build --all", "build(nx build)*"},
	{"nx graph", "other(nx graph)*"},
	{"pnpm nx graph", "other(nx graph)*"},
	{"uv run python scripts/a.py", "other(python scripts/a.py)*"},
	{"turbo run test --filter web", "test(turbo test)*"},
	{"turbo --filter web build", "build(turbo build)*"},
	{"lerna run test --stream", "test(lerna test)*"},
	{"shellcheck scripts/*.sh", "lint(shell lint)*"},
	{"pre-commit run --all-files", "lint(pre-commit lint)*"},
	{"terraform fmt -check -recursive", "lint(terraform lint)*"},
	{"terraform plan", "other(terraform plan)*"},
	{"python3 -m pytest -x", "test(python test)*"},
	{"python -m unittest discover", "test(python test)*"},
	{".venv/bin/mypy src", "lint(python lint)*"},
	{"ruff check . --fix", "lint(python lint)*"},
	{"python script.py --fast", "other(python script.py)*"},
	{"mise run test:integration", "test(mise test)*"},
	{"mise run fmt && mise run lint && mise run test:ci", "lint(mise lint)* lint(mise lint)* test(mise test)*"},
	{"mise run dup", "other(mise dup)*"},
	{"make", "build(make build)*"},
	{"make -j8 -C sub test", "test(make test)*"},
	{"make install", "other(make install)*"},
	{"mix test test/foo_test.exs", "test(mix test)*"},
	{"MIX_ENV=test mix compile --warnings-as-errors", "build(mix build)*"},
	{"mix credo --strict", "lint(mix lint)*"},
	{"./gradlew test --tests CalcTest", "test(gradle test)*"},
	{"mvn -q -DskipTests compile", "build(maven build)*"},
	{"dotnet test tests/Calc.Tests", "test(dotnet test)*"},
	{"swift build -c release", "build(swift build)*"},
	{"xcodebuild -scheme App test", "test(swift test)*"},
	{"grep -rn foo . | head", "explore explore*"},
	{"git status && git diff --stat", "explore* explore*"},
	{"git -C ../other log --oneline -5", "explore*"},
	{"git push origin main", "other(git push)*"},
	{"gh api repos/x/y/pulls/1", "explore*"},
	{"command -v go", "explore*"},
	{"command rg -n foo", "explore*"},
	{`git commit -m "$(cat <<'EOF'
fix(parser): handle "quotes" && pipes | here
EOF
)"`, "other(git commit)*"},
	{"cat > main.go <<'EOF'\npackage main; go test\nEOF\ngo build ./...", "explore build(go build)*"},
	{"for f in a b; do go test ./$f; done", "test(go test)"},
	{"(cd web && npm test) && echo ok", "explore* test(npm test)* explore*"},
	{"go test ./... &> out.txt", "test(go test)*"},
	{"go test ./... 2>&1 >/dev/null", "test(go test)*"},
	{"sleep 5 & go test ./...", "explore test(go test)*"},
	{"# just a comment", ""},
	{"", ""},
	{"FOO=bar", ""},
}

func TestParseCommand(t *testing.T) {
	m, err := newCommandMatcher(DefaultCommandRules(), DefaultTaskWords())
	if err != nil {
		t.Fatal(err)
	}
	render := func(steps []commandStep) string {
		var parts []string
		for _, s := range steps {
			p := s.step.String()
			if s.target != "" {
				p += "(" + s.target + ")"
			}
			if s.tail {
				p += "*"
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, " ")
	}
	for _, tt := range parseCases {
		if got := render(m.parse(tt.line)); got != tt.want {
			t.Errorf("parse(%q)\n got %s\nwant %s", tt.line, got, tt.want)
		}
	}
}

func TestTaskWords(t *testing.T) {
	w := DefaultTaskWords()
	for task, want := range map[string]Step{"test": StepTest, "test:ci": StepTest, "lint:go": StepLint, "build-all": StepBuild,
		"typecheck": StepLint, "check": StepLint, "install": StepOther, "dev": StepOther, "TEST_E2E": StepTest, "": StepOther} {
		if got := w.step(task); got != want {
			t.Errorf("step(%q) = %v, want %v", task, got, want)
		}
	}
}

func TestClassifyCommand(t *testing.T) {
	rules := MustCompile(DefaultConfig())
	ok, bad, unk := analyze.ToolStatusOK, analyze.ToolStatusError, analyze.ToolStatusUnknown
	tests := []struct {
		name, tool, cmd, out string
		status               analyze.ToolStatus
		exit                 int // -1: not recorded
		want                 string
	}{
		{"go test passes by its exit", "Bash", "go test ./...", "ok  \tx\t0.1s", ok, -1, "test_success@go test"},
		{"go build passes silently", "Bash", "go build ./...", "", ok, -1, "build_success@go build"},
		{"go test fails by its exit without telling text", "Bash", "go test ./...", "Exit code 1\npanic: boom", bad, 1, "test_failure@go test"},
		{"a compile error in a test run is a build failure of the test", "Bash", "go test ./...", "Exit code 1\n# x\n./a.go:3:1: undefined: y\nFAIL\tx [build failed]", bad, 1, "test_failure@go test, build_failure@go test"},
		{"piped: the text decides, failure", "Bash", "go test ./... 2>&1 | tail -5", "--- FAIL: TestX (0.00s)\nFAIL\tx\t0.1s", ok, -1, "test_failure@go test"},
		{"piped: the text decides, success", "Bash", "go test ./... 2>&1 | tail -5", "ok  \tx\t0.1s", ok, -1, "test_success@go test"},
		{"two suites in a line: the failure is the runner's whose rule read it", "Bash", "go test ./... ; npx jest", "Exit code 1\nok  \tx\t0.1s\n FAIL  src/a.test.js\n  ● adds\nTests:       1 failed, 2 passed, 3 total", bad, 1, "test_failure@node test"},
		{"… and the first's where it failed", "Bash", "go test ./... ; npx jest", "--- FAIL: TestX (0.00s)\nFAIL\tx\t0.1s\nTests:       3 passed, 3 total", ok, 0, "test_failure@go test, test_success@node test"},
		{"… a runner's test run, whoever's rule read its failure", "Bash", "go vet ./... && just test", "Exit code 1\n--- FAIL: TestX (0.00s)\nFAIL\tx\t0.1s", bad, 1, "test_failure@just test"},
		{"… a lint before a runner's test", "Bash", "uv run mypy src && make test", "Exit code 1\nFAILED t.py::test_a - assert 1 == 2\n1 failed, 2 passed in 0.1s", bad, 1, "test_failure@make test"},
		{"golangci-lint's issues in the compiler's form are its own", "Bash", "make lint && go test ./...", "Exit code 2\nx.go:12:2: ineffectual assignment to err (ineffassign)\n\terr = f()\n\t^\n1 issues:\n* ineffassign: 1\nmake: *** [Makefile:3: lint] Error 1", bad, 2, "lint_error@make lint"},
		{"… a compile error beside a clean lint stays the build's", "Bash", "golangci-lint run && go build ./...", "Exit code 1\n0 issues.\n# x\n./a.go:3:1: undefined: y", bad, 1, "build_failure@go build"},
		{"a type check's errors and a linter's in one line are both", "Bash", "npx tsc --noEmit; npx eslint .", "Exit code 1\nsrc/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n\n/r/src/b.ts\n  1:1  error  'x' is unused  no-unused-vars\n\n✖ 2 problems (2 errors, 0 warnings)", bad, 1, "build_failure@node build, lint_error@node lint"},
		{"… a compile error and golangci-lint's issues", "Bash", "go build ./... ; golangci-lint run", "Exit code 1\n# x\n./a.go:3:1: undefined: y\nb.go:4:2: ineffectual assignment to err (ineffassign)\n1 issues:\n* ineffassign: 1", bad, 1, "build_failure@go build, lint_error@go lint"},
		{"a monorepo runner's failure is node's, the line's go test passed", "Bash", "nx test web; go test ./...", "Tests:       1 failed, 2 passed, 3 total\nok  \tx\t0.1s", ok, 0, "test_failure@nx test, test_success@go test"},
		{"make's own failure is its step's, whatever the step", "Bash", "make lint && go test ./...", "Exit code 2\nsrc/x.py:1:1: E501 line too long\nmake: *** [Makefile:3: lint] Error 1", bad, 2, "lint_error@make lint"},
		{"… npm's script is node's run", "Bash", "cargo test; npm test", "Exit code 1\ntest result: ok. 3 passed; 0 failed\n FAIL  src/a.test.js\nTests:       1 failed, 2 passed, 3 total", bad, 1, "test_failure@npm test"},
		{"an inline program is its own command", "Bash", "python3 -c 'import yaml; print(yaml.__version__)'", "Exit code 1\nModuleNotFoundError: No module named 'yaml'", bad, 1, "tool_failure@python3 -c import yaml; print(yaml.__version__)"},
		{"a flag's value elsewhere is no program", "Bash", "git -c core.hooksPath=/dev/null push origin main", "Exit code 1\nrejected", bad, 1, "tool_failure@git"},
		{"… cut at 64 bytes", "Bash", `node -e "const x = require('./dist/index.js'); console.log(Object.keys(x).length, x.version)"`, "Exit code 1\nError: Cannot find module", bad, 1, `tool_failure@node -e "const x = require('./dist/index.js'); console.log(Objec`},
		{"killed by timeout(1): no verdict", "Bash", "timeout 10 python app.py", "Exit code 124\n * Running on http://127.0.0.1:5000", bad, 124, "tool_inconclusive@python app.py"},
		{"… under a runner's script too", "Bash", "pdm run timeout 60 pytest", "Exit code 124\n", bad, 124, "tool_inconclusive@python test"},
		{"killed by Claude Code's deadline: no verdict but its text's", "Bash", "npm run dev", "Command timed out after 2m 0.0s\n  VITE v5 ready in 300 ms", bad, 143, "tool_inconclusive@npm dev"},
		{"a test run cut at its deadline still says what failed", "Bash", "timeout 60 go test ./...", "Exit code 124\n--- FAIL: TestX\nFAIL\tx", bad, 124, "test_failure@go test"},
		{"exit 124 without timeout(1) is a failure", "Bash", "./deploy.sh", "Exit code 124", bad, 124, "tool_failure@deploy.sh"},
		{"piped: another command's outcome behind the pipe is no verdict", "Bash", "bundle exec rspec 2>&1 | tail -20", "Finished in 0.1 seconds", ok, -1, "tool_inconclusive@ruby test"},
		{"… nor is a summary counting no outcome", "Bash", "python -m unittest 2>&1 | tail -2", "Ran 3 tests in 0.001s", ok, -1, "tool_inconclusive@python test"},
		{"piped: no telling text, no verdict", "Bash", "go test ./... 2>&1 | grep -c PASS", "0", ok, -1, "tool_inconclusive@go test"},
		{"piped: a pytest -q pass is read by its closing counts", "Bash", "pytest -q 2>&1 | tail -3", "....\n4 passed in 0.01s", ok, -1, "test_success@python test"},
		{"piped: rspec's counts say it failed", "Bash", "bundle exec rspec 2>&1 | tail -20", "Finished in 0.02 seconds\n3 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/a_spec.rb:7 # A works", ok, -1, "test_failure@ruby test"},
		{"piped: a script no rule knows, read by its whole summary", "Bash", "./script/cibuild 2>&1 | tail -20", "Finished in 0.02 seconds\n3 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/a_spec.rb:7 # A works", ok, -1, "test_failure@cibuild"},
		{"piped: rspec's counts say it passed", "Bash", "bundle exec rspec | tail -3", "Finished in 0.02 seconds\n3 examples, 0 failures", ok, -1, "test_success@ruby test"},
		{"piped: minitest, failures and errors", "Bash", "bin/rails test 2>&1 | tail", "2 runs, 2 assertions, 0 failures, 1 errors, 0 skips", ok, -1, "test_failure@ruby test"},
		{"piped: phpunit passes", "Bash", "vendor/bin/phpunit | tail -3", "Time: 00:00.010, Memory: 8.00 MB\n\nOK (3 tests, 3 assertions)", ok, -1, "test_success@php test"},
		{"piped: bun's counts a line, failing", "Bash", "bun test 2>&1 | tail -8", "✗ subtracts [0.31ms]\n\n 1 pass\n 1 fail\n 2 expect() calls\nRan 2 tests across 1 files. [14.00ms]", ok, -1, "test_failure@npm test"},
		{"piped: ctest passes, the total after 'out of'", "Bash", "./ci/run.sh 2>&1 | tail -4", "100% tests passed, 0 tests failed out of 2\n\nTotal Test time (real) =   0.03 sec", ok, -1, "test_success@run.sh"},
		{"piped: ctest passes", "Bash", "ctest 2>&1 | tail -4", "100% tests passed, 0 tests failed out of 2\n\nTotal Test time (real) =   0.03 sec", ok, -1, "test_success@cmake test"},
		{"piped: a script's log saying error: is no verdict", "Bash", "./deploy.sh 2>&1 | tail", "error: retrying\ndone", ok, -1, "tool_inconclusive@deploy.sh"},
		{"one count among other words is no summary", "Bash", "./sync.sh | tail -1", "Found 3 errors in the config, fixing", ok, -1, "tool_inconclusive@sync.sh"},
		{"a passing summary beats a log's error:", "Bash", "bundle exec rspec 2>&1 | tail -3", "error: connection refused (retried)\n3 examples, 0 failures", ok, -1, "test_success@ruby test"},
		{"… a bare count of passes does not", "Bash", "pytest -q 2>&1 | tail -3", "error: connection refused (retried)\n3 passed in 0.2s", ok, -1, "build_failure@python test"},
		{"an unknown command's failing summary counts passes or a total too", "Bash", "python scripts/import.py | tail", "2 errors, 3 warnings", ok, -1, "tool_inconclusive@python scripts/import.py"},
		{"unittest's expected failures are no failure", "Bash", "python -m unittest 2>&1 | tail -3", "Ran 3 tests in 0.001s\n\nOK (skipped=1, expected failures=1)", ok, -1, "test_success@python test"},
		{"Playwright's failures listed between its counts", "Bash", "npx playwright test 2>&1 | tail", "  1 failed\n    tests/a.spec.js:3:1 › subtracts\n  1 skipped\n  2 passed (6.3s)", ok, -1, "test_failure@node test"},
		{"… and reads as a test failure when whole", "Bash", "./run-tests.sh | tail", "12 tests, 2 failures", ok, -1, "test_failure@script test"},
		{"a compiler's count under a test step stays the build's", "Bash", "./gradlew test 2>&1 | tail", "Calc.java:2: error: cannot find symbol\n1 error", ok, -1, "build_failure@gradle test"},
		{"grep finding nothing in a test run's output is no failure", "Bash", "go test ./... | grep FAIL", "Exit code 1", bad, 1, "none"},
		{"&& chain: the text names the failing step", "Bash", "go build ./... && go test ./...", "Exit code 1\n--- FAIL: TestX\nFAIL\tx", bad, 1, "test_failure@go test"},
		{"&& chain: both succeed", "Bash", "go build ./... && go vet ./...", "", ok, -1, "build_success@go build, lint_success@go lint"},
		{"vet output reads as compiler positions but is a lint error", "Bash", "go vet ./...", "Exit code 1\na.go:5:32: fmt.Printf format %s has arg n of wrong type int", bad, 1, "lint_error@go lint"},
		{"an exit code alone says failure", "Bash", "npm test", "boom", unk, 2, "test_failure@npm test"},
		{"exploration misses are no failure", "Bash", "ls nothere", "Exit code 2\nls: cannot access 'nothere': No such file or directory", bad, 2, "none"},
		{"exploration text is never a build failure", "Bash", "cat build.log", "error: could not compile `x`\ntest result: FAILED", ok, -1, "none"},
		{"git log showing error: is nothing", "Bash", "git log -5", "fix error: handling", ok, -1, "none"},
		{"another command failing is a tool failure of it", "Bash", "git push origin main", "Exit code 1\n! [rejected] main -> main (non-fast-forward)", bad, 1, "tool_failure@git push"},
		{"another command succeeding ends its streak", "Bash", "git push origin main", "To github.com:x/y.git", ok, -1, "tool_success@git push"},
		{"a script's test output names its kind", "Bash", "./run-tests.sh", "Exit code 1\nRan 3 tests in 0.1s\n\nFAILED (failures=1)", bad, 1, "test_failure@script test"},
		{"a project's test script is a test run, not the shell's test", "Bash", "bin/test", "Exit code 1\n3 examples, 1 failure", bad, 1, "test_failure@script test"},
		{"… the shell's test by its path is none", "Bash", "/usr/bin/test -f go.mod", "Exit code 1", bad, 1, "none"},
		{"unknown status, other command: only text failures, else no verdict", "Bash", "./deploy.sh", "all good", unk, -1, "tool_inconclusive@deploy.sh"},
		{"a rejected call is a rejection", "Bash", "rm -rf build", "The user doesn't want to proceed with this tool use. The tool use was rejected", bad, -1, "tool_rejected"},
		{"a sibling's cancellation is nothing", "Bash", "go test ./...", "<tool_use_error>Sibling tool call errored</tool_use_error>", bad, -1, "none"},
		{"a run the human interrupted is no failed test", "Bash", "pytest tests/", "[Request interrupted by user for tool use]", bad, -1, "none"},
		{"a Read of source with error: is nothing", "Read", "", "return fmt.Errorf(\"error: %w\", err)\nFAILED", unk, -1, "none"},
		{"a Read of a missing file is exploration", "Read", "", "<tool_use_error>File does not exist.</tool_use_error>", bad, -1, "none"},
		{"an Edit slip is quiet", "Edit", "", "<tool_use_error>String to replace not found in file.</tool_use_error>", bad, -1, "none"},
		{"an MCP tool's error is its failure", "mcp__linear__create_issue", "", "Received non-uuid id", bad, -1, "tool_failure@mcp__linear__create_issue"},
		{"a Task's text is never a build log", "Task", "", "the tests fail: test result: FAILED", unk, -1, "none"},
		{"a Bash result without a command reads its text", "Bash", "", "Exit code 1\n--- FAIL: TestX\nFAIL\tx", bad, -1, "test_failure@go test"},
		{"BashOutput of a background test run reads its text", "BashOutput", "", "ok  \tx\t1.2s", ok, -1, "test_success@go test"},
	}
	for _, tt := range tests {
		ev := analyze.Event{Kind: analyze.KindToolResult, ToolName: tt.tool, ToolCommand: tt.cmd, ToolOutput: tt.out, ToolStatus: tt.status}
		if tt.exit >= 0 {
			ev.ExitCode, ev.HasExitCode = tt.exit, true
		}
		if got := renderSignals(rules.Signals(&ev)); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestSeedToolsLiteral checks that WithSeedTools reads every result as the seed's
// detect_tool_signals does: the text alone, every rule, the status and the command
// ignored.
func TestSeedToolsLiteral(t *testing.T) {
	seed := MustCompile(WithSeedTools(DefaultConfig()))
	for _, tt := range []struct {
		ev   analyze.Event
		want string
	}{
		{analyze.Event{Kind: analyze.KindToolResult, ToolName: "Read", ToolOutput: "error: x", ToolStatus: analyze.ToolStatusOK}, "build_failure"},
		{analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolCommand: "ls x", ToolOutput: "Exit code 2\nno such file", ToolStatus: analyze.ToolStatusError, HasExitCode: true, ExitCode: 2}, "none"},
		{analyze.Event{Kind: analyze.KindToolResult, ToolOutput: "test result: ok\ntest result: FAILED"}, "build_failure, test_failure, test_success"},
		{analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolOutput: "The user doesn't want to proceed with this tool use"}, "none"},
	} {
		if got := renderSignals(seed.Signals(&tt.ev)); got != tt.want {
			t.Errorf("%+v: got %s, want %s", tt.ev, got, tt.want)
		}
	}
}

// TestClassifyBoundedCost checks that a huge output is read through a bounded window:
// a marker in the middle of 4 MB is not seen, the summary at its end is.
func TestClassifyBoundedCost(t *testing.T) {
	rules := MustCompile(DefaultConfig())
	mid := strings.Repeat("x", 2<<20)
	ev := analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolOutput: mid + "\n--- FAIL: TestHidden\n" + mid + "\nok  \tx\t1s"}
	if got := renderSignals(rules.Signals(&ev)); got != "test_success@go test" {
		t.Errorf("got %s", got)
	}
	if got := fmt.Sprint(len(MustCompile(WithSeedTools(DefaultConfig())).Signals(&ev))); got != "0" {
		t.Errorf("seed reading of a go log: %s signals", got)
	}
}

// FuzzParseCommand checks that any command line parses without panicking, within
// the bounds, and that classifying it as a tool result never panics either.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"go test ./... 2>&1 | tail", "cd x && make -j8 test", "git commit -m \"$(cat <<'EOF'\nx\nEOF\n)\"",
		"a '' \"\" $( ( ) ) `b` <<- E\nE\n", "FOO=1 env -i timeout 5 npx --yes jest", "\\\n&&||;|&(", "mise run test:ci",
		"npm run " + strings.Repeat("é", 60), "docker compose run -e A=1 app pdm run pytest", "bin/test --fast", "kubectl exec p -- sudo -u x make t"} {
		f.Add(s)
	}
	m, err := newCommandMatcher(DefaultCommandRules(), DefaultTaskWords())
	if err != nil {
		f.Fatal(err)
	}
	rules := MustCompile(DefaultConfig())
	f.Fuzz(func(t *testing.T, line string) {
		steps := m.parse(line)
		if len(steps) > maxSimpleCommands {
			t.Fatalf("%d steps", len(steps))
		}
		for _, st := range steps {
			if st.step > StepExplore || len(st.target) > 64+len("gradle build") {
				t.Fatalf("step %+v", st)
			}
		}
		ev := analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolCommand: line, ToolOutput: line, ToolStatus: analyze.ToolStatusError, HasExitCode: true, ExitCode: 1}
		rules.Signals(&ev)
	})
}

// BenchmarkClassifyCommand measures the command reading of one Bash result: a
// typical line, and pathological ones at the MaxCommandBytes bound.
func BenchmarkClassifyCommand(b *testing.B) {
	rules := MustCompile(DefaultConfig())
	for name, line := range map[string]string{
		"typical":  "cd /repo && go build ./... && go test -race ./... 2>&1 | tail -30",
		"heredocs": strings.Repeat("cat <<a <<b <<c <<d <<e <<f <<g <<h <<i\n", MaxCommandBytes/40),
		"quotes":   strings.Repeat(`"$(echo 'x' "$(y)")" && `, MaxCommandBytes/24),
		"pipes":    strings.Repeat("go test | ", MaxCommandBytes/10),
		// exit 124 has the line read for timeout(1): a heredoc of 1 MB costs what 8 KiB do.
		"timeout_1MB": "timeout 60 python - <<'EOF'\n" + strings.Repeat("print('x')\n", 1<<20/11) + "EOF",
	} {
		code := 1
		if strings.HasPrefix(name, "timeout") {
			code = 124
		}
		ev := analyze.Event{Kind: analyze.KindToolResult, ToolName: "Bash", ToolCommand: line, ToolOutput: "Exit code 1\n--- FAIL: TestX\nFAIL\tx",
			ToolStatus: analyze.ToolStatusError, HasExitCode: true, ExitCode: code}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				rules.Signals(&ev)
			}
		})
	}
}

func TestParseCommandBounds(t *testing.T) {
	m, _ := newCommandMatcher(DefaultCommandRules(), DefaultTaskWords())
	steps := m.parse(strings.Repeat("echo x && ", 100) + "go test ./...")
	if len(steps) != maxSimpleCommands {
		t.Fatalf("%d steps", len(steps))
	}
	for _, st := range steps {
		if st.tail {
			t.Fatalf("a truncated line's status was taken for %+v", st)
		}
	}
	if got := m.parse(strings.Repeat("x", MaxCommandBytes+10) + " && go test"); len(got) != 1 || got[0].step != StepOther {
		t.Errorf("beyond MaxCommandBytes: %+v", got)
	}
}

func TestLiteralPrefixes(t *testing.T) {
	for re, want := range map[string]string{
		`^go\s+test\b`:              "[go]",
		`^(?:jest|vitest|mocha)\b`:  "[jest vitest mocha]",
		`^mvnw?\s+test`:             "[mvn]",
		`^(?:ls|ll|cd)(?:\s|$)`:     "[ll ls cd]",
		`^(?:ctest|cmake\s+x)\b`:    "[ctest cmake]",
		`^(?i)go`:                   "[]",
		`go test`:                   "[]",
		`^(?:npm|.*)\s+x`:           "[]",
		`^(?:tsc|vue-tsc)\b`:        "[tsc vue-tsc]",
		`^command\s+-[vV]|^sqlite3`: "[]",
		`^(?:grep|[a-z]+)\b`:        "[]",
		`^x(`:                       "[]",
	} {
		if got := fmt.Sprint(literalPrefixes(re)); got != want {
			t.Errorf("literalPrefixes(%q) = %s, want %s", re, got, want)
		}
	}
	// Every default rule must agree with its regexp on the simple commands of
	// parseCases, and the first-byte dispatch must read each line as trying every
	// rule in order does.
	m, _ := newCommandMatcher(DefaultCommandRules(), DefaultTaskWords())
	every := *m
	for b := range every.byFirst {
		every.byFirst[b] = nil
		for i := range m.rules {
			every.byFirst[b] = append(every.byFirst[b], uint16(i))
		}
	}
	for _, tc := range parseCases {
		if got, want := fmt.Sprint(m.parse(tc.line)), fmt.Sprint(every.parse(tc.line)); got != want {
			t.Errorf("parse(%q): dispatched %s, every rule %s", tc.line, got, want)
		}
	}
	for _, tc := range parseCases {
		for _, sc := range splitCommands(tc.line) {
			cmd, _, _ := normalise(sc.words)
			for _, r := range m.rules {
				if r.re.MatchString(cmd) && r.prefixes != nil && !hasAnyPrefix(cmd, r.prefixes) {
					t.Errorf("rule %s matches %q but its prefixes %v do not", r.name, cmd, r.prefixes)
				}
			}
		}
	}
}
