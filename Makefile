GO        ?= go
BIN       ?= bin/clawdcode
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/clawdcode/clawdcode/internal/buildinfo.Version=$(VERSION)
FUZZTIME  ?= 20s

.PHONY: build install test test-short bench lint fuzz fuzz-short clean mcp-server

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/clawdcode

install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/clawdcode

# The whole suite: vet, format check, race-enabled tests, and a short pass
# of every fuzz target.
test: lint
	$(GO) test -race -count=1 ./...
	$(MAKE) fuzz-short

test-short:
	$(GO) test -count=1 ./...

# Every benchmark, bounded for a 2-core machine (see BENCHMARKS.md). The
# package benchmarks run with the default -benchtime; internal/perf drives
# the built binary and the whole engine, so its ops are fixed counts: 20
# runs each for processes and turns, 3 for the 30-turn play and the 200 MB
# replay. Its fixtures (a 1 GiB session, a 200 MB one) are built once per
# invocation in a temporary directory. A failing step does not hide the
# figures of the others; make still fails at the end.
bench:
	status=0; \
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 $$($(GO) list ./... | grep -v /internal/perf) || status=1; \
	$(GO) test -run='^$$' -bench='Version|OneShot|ReadRoundTrip|SessionsList|Resume1GB|TurnLocal|CompactLocal|Recall1GB|Fork1GB' -benchtime=20x -benchmem -count=1 -timeout=30m ./internal/perf/ || status=1; \
	$(GO) test -run='^$$' -bench='ContinuedTurn|Replay|HugeStdin|HugeRecord' -benchtime=3x -benchmem -count=1 -timeout=30m ./internal/perf/ || status=1; \
	$(GO) test -run='^$$' -bench='Search1GB|Import1GB' -benchtime=5x -count=1 -timeout=60m ./internal/perf/ || status=1; \
	exit $$status

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Each fuzz target for FUZZTIME (make fuzz FUZZTIME=5m for a longer run).
fuzz:
	@./scripts/fuzz.sh $(FUZZTIME)

fuzz-short:
	@./scripts/fuzz.sh 3s

clean:
	rm -rf bin

# The MCP reference server the MCP tests run against (they skip, saying
# so, without it). Needs node and npm; .ci/run calls this when they exist.
MCP_EVERYTHING ?= 2026.8.31
mcp-server:
	npm install --no-audit --no-fund --loglevel=error --prefix .cache/mcp @modelcontextprotocol/server-everything@$(MCP_EVERYTHING)
