# loopwatch — the two set-up commands are `make demo` and `make test`.
GO      ?= go
BIN     := bin
PKGS    := ./...
FUZZTIME ?= 30s

.PHONY: all build test demo bench bench-compare bench-scale regress fuzz lint interop-deps clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

## demo: replay the built-in sample dataset into demo/ and print the summary, then tune its thresholds
demo: build
	@mkdir -p demo
	$(BIN)/replay --out demo/results.parquet
	$(BIN)/tune --out demo/sweep.parquet

## test: vet, unit/golden/end-to-end tests with the race detector, the DuckDB interop test and the
## headless Chromium test of the HTML report (both required here, skipped by a plain go test), then the
## tests over the real corpora (../shared/corpora, skipped when absent) without the race detector
test: interop-deps
	$(GO) vet $(PKGS)
	LOOPWATCH_INTEROP=required LOOPWATCH_BROWSER=required $(GO) test -race -short -count=1 $(PKGS)
	LOOPWATCH_INTEROP=required $(GO) test -count=1 -run Corpus $(PKGS)

## bench: benchmarks of the detectors and the replay
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## bench-compare: the previous and the current replay side by side, alternating, with paired ratios of wall
## time, CPU time and peak RSS (BASE=<git ref> for the previous, default where this branch left main;
## BENCH_FLAGS for more, e.g. --workloads sample,runs --reps 3); reports in bench-out/
bench-compare:
	$(GO) run ./internal/cmd/benchcompare $(if $(BASE),--base $(BASE)) $(BENCH_FLAGS)

## bench-scale: the current replay's time and peak RSS at 10k and 100k synthetic runs and sessions, metrics' merging 4 shards of the runs, its merging 2,000 runs in 4, 64 and 512 shards, and one shard of 10k sessions, of 10k runs, and of 5,000 vibes logs (10k sessions), split in 2, 8 and 32; datagen writing 10k and 100k runs and sessions; a page of assess history over 10k and 100k sessions replayed; and tune with its default grids over 10k and 100k sessions and their labels
## (BENCH_FLAGS, e.g. --kinds runs --sizes 10000,100000 --max-rss-growth 1.5); reports in bench-out/
bench-scale:
	$(GO) run ./internal/cmd/benchcompare scale $(BENCH_FLAGS)

## regress: replay every dataset of datasets/registry.toml and fail when a metric regressed, is missing or has no baseline
## (outputs in regress-out/: regress.md, regress.json, regress.html and each replay's tables)
regress: build
	$(BIN)/regress --registry datasets/registry.toml --out regress-out --report regress-out/regress.html --strict

## fuzz: run every fuzz target for FUZZTIME each (a duration, or a count of runs such as 1000x); a failing
## target does not stop the others, and the sweep fails naming each (internal/cmd/fuzzsweep)
fuzz:
	$(GO) run ./internal/cmd/fuzzsweep --go $(GO) --fuzztime $(FUZZTIME) $(PKGS)

## lint: gofmt and go vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

## interop-deps: install DuckDB's Node package (an independent Parquet reader) into interop/node_modules
interop-deps: interop/node_modules/.installed

# `npm install` with the committed lock, not `npm ci`: npm 11 leaves other platforms'
# optional DuckDB bindings out of the lock, and `npm ci` then refuses to install.
interop/node_modules/.installed: interop/package.json interop/package-lock.json
	cd interop && npm install --no-audit --no-fund --loglevel=error
	@touch $@

clean:
	rm -rf $(BIN) demo regress-out bench-out interop/node_modules
