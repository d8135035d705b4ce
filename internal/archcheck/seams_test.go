package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeModule writes a module of files (path → source) under a new
// directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, src := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const engineSrc = `package agent

type Engine struct{ shells Shells }

func (e *Engine) Shells() *Shells { return &e.shells }

type Shells struct{}

func (*Shells) List() []string { return nil }

func (*Shells) Stop() {}

type Sink interface{ Text(string) }
`

// A front end that asserts a type on an engine part, on a value of the
// engine or to a type of the engine is refused, naming the line; one
// that uses the interface it declares, or asserts on its own values, is
// not.
func TestCheckSeams(t *testing.T) {
	t.Parallel()
	root := writeModule(t, map[string]string{
		"internal/agent/agent.go": engineSrc,
		"internal/front/front.go": `package front

import "example.com/m/internal/agent"

// shells is what the front end lists (the engine's Shells part).
type shells interface{ List() []string }

var _ shells = (*agent.Shells)(nil)

type stopper interface{ Stop() }

type own interface{ Name() string }

func Fine(s shells, o own, x any) int {
	n := len(s.List())
	if _, ok := o.(interface{ Close() }); ok {
		n++
	}
	if _, ok := x.(string); ok {
		n++
	}
	return n
}

func OnAPart(s shells) {
	if st, ok := s.(stopper); ok {
		st.Stop()
	}
}

func ToTheEngine(x any) bool {
	_, ok := x.(*agent.Engine)
	return ok
}

func SwitchOnAPart(s shells) {
	switch s.(type) {
	case stopper:
	}
}

func CaseOfTheEngine(x any) {
	switch x.(type) {
	case *agent.Shells:
	}
}

func OnTheEngine(e *agent.Engine, k agent.Sink) {
	_, _ = any(e).(stopper)
	_, _ = k.(stopper)
}
`,
	})
	mod, err := listModule(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := checkSeams(root, mod)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"internal/front/front.go:26: a type assertion on an engine part",
		"internal/front/front.go:32: a type assertion to a type of the engine",
		"internal/front/front.go:37: a type switch on an engine part",
		"internal/front/front.go:44: a type switch case of a type of the engine",
		"internal/front/front.go:50: a type assertion on an engine part",
	}
	if len(got) != len(want) {
		t.Fatalf("faults:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("fault %d = %q, want %q", i, got[i], w)
		}
	}
}

// The module itself keeps its seams and its map: what `make lint` runs.
func TestThisModule(t *testing.T) {
	if testing.Short() {
		t.Skip("lists and type-checks the whole module")
	}
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := run(root); err != nil {
		t.Fatal(err)
	}
}
