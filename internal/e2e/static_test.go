package e2e

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The binary is static and without cgo (README, Platforms): the one
// `make build` gives a user who follows the README, and the one the tests
// run. A dynamically linked one loads the dynamic loader and the C library
// on every start, and stops where the system's libc is another version
// than the build machine's.
func TestBinaryIsStatic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("static linking is checked on Linux; macOS always links libSystem")
	}
	t.Run("the tests' binary", func(t *testing.T) {
		checkStatic(t, newWorld(t, llmtest.Options{}).Binary)
	})
	t.Run("make build", func(t *testing.T) {
		if _, err := exec.LookPath("make"); err != nil {
			fixtures.Missing(t, "make is not installed")
		}
		root, err := harness.ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(t.TempDir(), "clawdcode")
		cmd := exec.Command("make", "-s", "build", "BIN="+bin)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make build: %v\n%s", err, out)
		}
		checkStatic(t, bin)
	})
}

func checkStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader (PT_INTERP): it is not static", bin)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("%s links shared libraries %v (%v): it is not static", bin, libs, err)
	}
}
