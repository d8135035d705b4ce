GO        ?= go
BIN       ?= bin/clawdcode
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/clawdcode/clawdcode/internal/buildinfo.Version=$(VERSION)
FUZZTIME  ?= 20s
# staticcheck, pinned; `go run` fetches it through the module proxy on
# first use, so a fresh clone needs nothing installed beforehand.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

# The tests that drive the built clawdcode binary (which is never built
# with -race, see harness.Build) run without -race: the detector would
# only watch the test process's own harness, at several times the cost.
# Everything else, the testscript runner and the REPL's pty tests
# included (their children are the race-built test binary), runs with it.
E2E_PKGS  = ./internal/e2e/... ./internal/perf/... ./internal/ctxbench/...
UNIT_PKGS = $(shell $(GO) list ./... | grep -v -e /internal/e2e -e /internal/perf -e /internal/ctxbench)

.PHONY: build cross install test test-short bench bench-context bench-context-floors bench-scale lint fuzz fuzz-short clean mcp-server acp-sdk seaweedfs otelcol

# Static and without cgo, as on every platform `make cross` builds: with a
# C compiler on the machine, Go would otherwise link the system's C library
# dynamically (for its DNS resolver), and each start would pay the dynamic
# loader and libc's pages (1.4 MiB of RSS, see BENCHMARKS.md).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/clawdcode

# The supported platforms (README, Platforms): every one must build,
# statically (CGO_ENABLED=0). Windows is not supported: the tools run
# commands through bash and process groups.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
cross:
	@for p in $(PLATFORMS); do \
		echo "build $$p"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -o /dev/null ./cmd/clawdcode || exit 1; \
	done

# go install puts the binary in GOBIN, else the first GOPATH entry's bin;
# say which, and whether the shell will find it there.
install:
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/clawdcode
	@dir=$$($(GO) env GOBIN); \
	if [ -z "$$dir" ]; then dir=$$($(GO) env GOPATH); dir=$${dir%%:*}/bin; fi; \
	echo "installed $$dir/clawdcode"; \
	case ":$$PATH:" in \
	*":$$dir:"*) echo "$$dir is on your PATH: run clawdcode";; \
	*) echo "$$dir is NOT on your PATH; add it, e.g.:"; \
	   echo "  echo 'export PATH=\"\$$PATH:$$dir\"' >> ~/.profile && export PATH=\"\$$PATH:$$dir\"";; \
	esac

# The sweeps that import one scenario again at every place a file can be
# cut or split (hundreds of sequential imports) skip under -race, which
# would quadruple their CPU for nothing the other tests under the detector
# miss: they run in the step without it.
NORACE_SWEEPS = -run '^(TestImportResumesAfterACutAtAnyPlace|TestCodexImportedInTwoPassesAsInOne)$$' ./internal/importer/

# The whole suite: vet, format check, staticcheck, every test (race-enabled
# but for the binary-driving packages above and the sweeps), and a short
# pass of every fuzz target (their seed corpora already ran as unit tests).
# Every go test has a -timeout far above what a loaded 2-core machine
# needs (a package's binary, not the step, is bounded): a hang fails its
# package instead of running on.
test: lint
	$(GO) test -race -count=1 -timeout=20m $(UNIT_PKGS)
	$(GO) test -count=1 -timeout=30m $(E2E_PKGS)
	$(GO) test -count=1 -timeout=10m $(NORACE_SWEEPS)
	$(MAKE) fuzz-short

# The fast loop: the unit and in-process tests, without the end-to-end
# packages, -race or fuzzing; tests that take seconds skip under -short.
test-short:
	$(GO) test -short -count=1 -timeout=10m $(UNIT_PKGS)

# Every benchmark, bounded for a 2-core machine (see BENCHMARKS.md). The
# package benchmarks run with the default -benchtime; internal/perf drives
# the built binary and the whole engine, so its ops are fixed counts: 20
# runs each for processes and turns, 3 for the 30-turn play and the 200 MB
# replay. Its fixtures (a 1 GiB session, a 200 MB one) are built once per
# invocation in a temporary directory. A failing step does not hide the
# figures of the others; make still fails at the end.
bench:
	status=0; \
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 -timeout=30m $$($(GO) list ./... | grep -v /internal/perf) || status=1; \
	$(GO) test -run='^$$' -bench='Version|OneShot|FirstCommand|ReadRoundTrip|SessionsList|Resume1GB|TurnLocal|CompactLocal|Recall1GB|Fork1GB' -benchtime=20x -benchmem -count=1 -timeout=30m ./internal/perf/ || status=1; \
	$(GO) test -run='^$$' -bench='ContinuedTurn|Replay|HugeStdin|HugeRecord' -benchtime=3x -benchmem -count=1 -timeout=30m ./internal/perf/ || status=1; \
	$(GO) test -run='^$$' -bench='Search1GB|Import1GB|Usage1GB' -benchtime=5x -count=1 -timeout=60m ./internal/perf/ || status=1; \
	exit $$status

# The cold paths at scale (docs/bench-scale.md): cold and warm list,
# resume and search over 10,000 small sessions, a 1 GiB session and
# 10 GiB of sessions, through this tree's binary and a baseline build
# (BENCH_SCALE_BASE, a commit, main by default, built in a temporary
# directory) side by side, and ripgrep's scans of the same files, in one
# run; it prints a table. The corpora are generated once into SCALE_CACHE
# and kept (about 12 GB, the free space checked first); SCALE_CORPORA
# picks some of them (small, 1g, 10g).
BENCH_SCALE_BASE ?= main
SCALE_CACHE ?= $(CURDIR)/.cache/bench-scale
SCALE_CORPORA ?= small,1g,10g
bench-scale:
	@base=$$(mktemp -d) && trap 'rm -rf "$$base"' EXIT && \
	git archive $(BENCH_SCALE_BASE) | tar -x -C "$$base" && \
	(cd "$$base" && CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o "$$base/clawdcode" ./cmd/clawdcode) && \
	echo "baseline: $(BENCH_SCALE_BASE) = $$(git rev-parse --short $(BENCH_SCALE_BASE)); tree: $$(git rev-parse --short HEAD)$$(git diff --quiet || echo ' (modified)')" && \
	SCALE_BASE="$$base/clawdcode" SCALE_CACHE="$(SCALE_CACHE)" SCALE_CORPORA="$(SCALE_CORPORA)" \
		$(GO) test -run '^$$' -bench '^BenchmarkScale$$' -benchtime=1x -timeout=240m ./internal/perf/

# The context bench (docs/context-bench.md): the built binary against
# scripted summarisers, a probe, a re-orienter and a violator, over a
# generated corpus at three windows, and a multi-session corpus for
# memory; prints the tables. The test binary is run directly so that the
# tables reach stdout. Every row's sessions share one pool of
# CTXBENCH_PARALLEL at once (the longest first): the cores plus one, as a
# session is mostly CPU (clawdcode's and the scripted server's), with some
# process start-up and, with the failing summarisers, retry back-off
# (BENCHMARKS.md: 3 and 4 at once on 2 cores). CTXBENCH_FLAGS adds
# flags, e.g. CTXBENCH_FLAGS='-ctxbench.sessions=4 -ctxbench.windows=8000'.
# CTXBENCH_SUITE picks the rows (main, or ladder: issue 22's small
# windows); CTXBENCH_BASELINE=/path/to/clawdcode runs every row for that
# build too, in the same pool, its row printed above the tree's.
CTXBENCH_FLAGS ?=
CTXBENCH_SUITE ?= main
CTXBENCH_BASELINE ?=
CTXBENCH_PARALLEL ?= $(shell echo $$(( $$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2) + 1 )))
bench-context:
	$(GO) test -c -o bin/ctxbench.test ./internal/ctxbench
	bin/ctxbench.test -test.run '^TestContextBench$$' -test.parallel $(CTXBENCH_PARALLEL) -test.timeout 30m -ctxbench.full \
		-ctxbench.suite=$(CTXBENCH_SUITE) $(if $(CTXBENCH_BASELINE),-ctxbench.baseline=$(CTXBENCH_BASELINE)) $(CTXBENCH_FLAGS)

# The bench's short form and its floors (three sessions at 8k, three
# memory projects): a change that makes what reaches the model worse fails
# it. Hundreds of clawdcode runs, so not in make test, which runs
# TestContextBenchSmoke (the bench's machinery, one session) instead.
bench-context-floors:
	$(GO) test -c -o bin/ctxbench.test ./internal/ctxbench
	bin/ctxbench.test -test.run '^(TestContextBenchShort|TestMemoryBenchShort)$$' -test.parallel $(CTXBENCH_PARALLEL) -test.timeout 30m -ctxbench.floors

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run $(STATICCHECK) ./...
	$(GO) run ./internal/codebudget
	$(GO) run ./internal/archcheck

# Each fuzz target for FUZZTIME (make fuzz FUZZTIME=5m for a longer run).
fuzz:
	@./scripts/fuzz.sh $(FUZZTIME)

# The short pass in `make test` gives each target a count of inputs, not a
# time: with a duration, Go 1.26's fuzz coordinator can fail a target with a
# bare "context deadline exceeded" when -fuzztime ends while a loaded
# machine's worker is still busy (golang/go#75804, fixed in Go 1.27), and
# CI hit it. A count has no deadline to race. It starts from the seed
# corpora alone (FUZZ_FRESH_CACHE): the cache of interesting inputs every
# run adds to made each later pass's baseline longer (10,000 inputs a
# target: 114 s of CPU with the cache grown by a day's runs, 87 s from the
# seeds). 2,000 inputs a target, 30 s of CPU for the 19 targets, is a
# smoke; make fuzz is the search, with the cache kept.
fuzz-short:
	@FUZZ_FRESH_CACHE=1 ./scripts/fuzz.sh 2000x

clean:
	rm -rf bin

# The MCP reference server the MCP tests run against (they skip, saying
# so, without it). Needs node and npm; .ci/run calls this when they exist.
MCP_EVERYTHING ?= 2026.8.31
mcp-server:
	npm install --no-audit --no-fund --loglevel=error --prefix .cache/mcp @modelcontextprotocol/server-everything@$(MCP_EVERYTHING)

# The official TypeScript SDK of the Agent Client Protocol, the client
# internal/e2e/acp's TypeScript test drives `clawdcode acp` with (it is
# skipped, saying so, without it; under CI it fails). zod is the SDK's
# peer dependency, pinned too. Needs node and npm; .ci/run calls this.
ACP_TS_SDK ?= 2.4.0
ACP_TS_ZOD ?= 4.6.7
acp-sdk:
	npm install --no-audit --no-fund --loglevel=error --prefix .cache/acp @agentclientprotocol/sdk@$(ACP_TS_SDK) zod@$(ACP_TS_ZOD)

# The S3 server the sync tests run against (SeaweedFS's weed, at the
# version tools/seaweedfs/go.mod pins), built once into a cache directory;
# the tests find it there (or at $CLAWDCODE_WEED) and skip without it,
# except under CI, where .ci/run builds it first.
seaweedfs:
	@./scripts/seaweedfs.sh

# The OpenTelemetry Collector the telemetry tests send to (they skip,
# saying so, without it; under CI they fail): built from its Go modules in
# tools/otelcol, a module of its own so that none of its dependencies
# reach clawdcode's. .ci/run calls this. Minutes on a 2-core machine.
otelcol:
	cd tools/otelcol && CGO_ENABLED=0 $(GO) build -trimpath -o ../../.cache/otelcol/otelcol .
