GO        ?= go
BIN       ?= bin/clawdcode
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/clawdcode/clawdcode/internal/buildinfo.Version=$(VERSION)
FUZZTIME  ?= 20s

.PHONY: build install test test-short bench lint fuzz fuzz-short clean

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

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./...

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
