package perf

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/sandbox"
)

// scratch is the run's temporary directory: the built binaries and the
// large fixtures live there, and it is removed when the run ends.
var scratch string

func TestMain(m *testing.M) {
	// An in-process run (inprocess_bench_test.go) starts its sandbox host
	// from this binary.
	if code, ok := sandbox.Helper(); ok {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "clawdcode-perf-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	scaleTable.print(os.Stdout)
	os.RemoveAll(dir)
	os.Exit(code)
}

// program is a binary of this module built on first use, so that a plain
// `go test` of this package (no benchmarks) builds only what its tests need.
type program struct {
	once sync.Once
	pkg  string
	path string
	err  error
}

var (
	clawdcodeProgram = &program{pkg: "./cmd/clawdcode"}
	launcherProgram  = &program{pkg: "./internal/perf/launcher"}
)

// build compiles the package with the flags of `make build` (-trimpath
// -ldflags '-s -w', a fixed version string) into the run's scratch dir.
func (p *program) build(tb testing.TB) string {
	tb.Helper()
	p.once.Do(func() {
		if p == clawdcodeProgram {
			// harness.TestBinaryEnv measures another build (an older
			// main, side by side with this one) instead.
			if p.path, p.err = harness.TestBinary(); p.path != "" || p.err != nil {
				return
			}
		}
		p.path = filepath.Join(scratch, filepath.Base(p.pkg))
		ldflags := "-s -w -X github.com/clawdcode/clawdcode/internal/buildinfo.Version=perf"
		p.err = harness.Build(p.path, p.pkg, "-trimpath", "-ldflags", ldflags)
	})
	if p.err != nil {
		tb.Fatal(p.err)
	}
	return p.path
}

// binaries returns the clawdcode binary and the launcher, built once.
func binaries(tb testing.TB) (clawdcode, launcher string) {
	tb.Helper()
	return clawdcodeProgram.build(tb), launcherProgram.build(tb)
}
