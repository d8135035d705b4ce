package perf

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// scratch is the run's temporary directory: the built binaries and the
// large fixtures live there, and it is removed when the run ends.
var scratch string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "clawdcode-perf-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// built holds the binaries, compiled on first use so that a plain
// `go test` of this package (no benchmarks) does not pay for the build.
var built struct {
	once      sync.Once
	clawdcode string
	launcher  string
	err       error
}

// binaries returns the clawdcode binary, built with the flags of
// `make build` (-trimpath -ldflags '-s -w'), and the launcher.
func binaries(tb testing.TB) (clawdcode, launcher string) {
	tb.Helper()
	built.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			built.err = err
			return
		}
		built.clawdcode = filepath.Join(scratch, "clawdcode")
		built.launcher = filepath.Join(scratch, "launcher")
		ldflags := "-s -w -X github.com/clawdcode/clawdcode/internal/buildinfo.Version=perf"
		for _, b := range []struct{ out, pkg string }{
			{built.clawdcode, "./cmd/clawdcode"},
			{built.launcher, "./internal/perf/launcher"},
		} {
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", b.out, b.pkg)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				built.err = fmt.Errorf("build %s: %w\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.clawdcode, built.launcher
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a module")
	}
	return filepath.Dir(gomod), nil
}
