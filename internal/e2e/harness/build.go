package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ModuleRoot is the directory of the go.mod of the module under test, as
// the go command sees it from the test's working directory.
func ModuleRoot() (string, error) {
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

// Build compiles pkg, a package path relative to the module root such as
// "./cmd/clawdcode", into the executable out. flags go to `go build` as
// they are (say -trimpath or -ldflags). It builds as `make build` does,
// static and without cgo (CGO_ENABLED=0), so the tests and benchmarks run
// the binary users get. It never adds -race: the race detector is for the
// test process, and a race-built child would make every run, kill and
// timing test several times slower.
func Build(out, pkg string, flags ...string) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	args := append([]string{"build"}, flags...)
	args = append(args, "-o", out, pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// TestBinaryEnv names the variable that points every end-to-end test at a
// clawdcode binary built elsewhere (an older main, to see which tests it
// fails) instead of the one built from the module under test.
const TestBinaryEnv = "CLAWDCODE_TEST_BINARY"

// TestBinary returns the binary TestBinaryEnv names, made absolute, or ""
// when it is unset. A set variable that names no executable file is an
// error, so a typo cannot silently test the fresh build instead.
func TestBinary() (string, error) {
	p := os.Getenv(TestBinaryEnv)
	if p == "" {
		return "", nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", TestBinaryEnv, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", TestBinaryEnv, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s: %s is not an executable file", TestBinaryEnv, abs)
	}
	return abs, nil
}

// BuildBinary builds ./cmd/clawdcode into dir as "clawdcode" (see Build)
// and returns its path; when TestBinaryEnv is set it builds nothing and
// returns that binary.
func BuildBinary(dir string, extraArgs ...string) (path string, err error) {
	if p, err := TestBinary(); p != "" || err != nil {
		return p, err
	}
	path = filepath.Join(dir, "clawdcode")
	if err := Build(path, "./cmd/clawdcode", extraArgs...); err != nil {
		return "", err
	}
	return path, nil
}

// binary is the clawdcode that Main built for this test process. Main
// writes it before any test starts, so reading it needs no lock.
var binary string

// Main is the body of a TestMain whose tests run the clawdcode binary: it
// builds the binary into a fresh temporary directory for NewWorld, runs m,
// removes the directory and returns the exit code for os.Exit. A failure
// to build is reported on stderr, prefixed with name, and fails the run
// before any test starts. TestBinaryEnv, when set, names a binary to run
// instead (another build, say the base commit's), and nothing is built.
func Main(m *testing.M, stderr io.Writer, name string) int {
	defer RemoveSlowMCPServer()
	if p, err := TestBinary(); p != "" || err != nil {
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		binary = p
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "clawdcode-"+name+"-bin-")
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binary, err = BuildBinary(dir); err != nil {
		fmt.Fprintf(stderr, "%s: build clawdcode: %v\n", name, err)
		return 1
	}
	return m.Run()
}
