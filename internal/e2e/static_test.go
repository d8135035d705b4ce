package e2e

import (
	"debug/elf"
	"runtime"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The binary the tests run is built as `make build` builds it: static and
// without cgo (README, Platforms). A dynamically linked one loads the
// dynamic loader and the C library on every start, and stops where the
// system's libc is another version than the build machine's.
func TestBinaryIsStatic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("static linking is checked on Linux; macOS always links libSystem")
	}
	w := newWorld(t, llmtest.Options{})
	f, err := elf.Open(w.Binary)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader (PT_INTERP): it is not static", w.Binary)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("%s links shared libraries %v (%v): it is not static", w.Binary, libs, err)
	}
}
