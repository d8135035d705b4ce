package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// call runs the named tool of a fresh set on env with input marshalled to JSON
// (a string input is passed through as raw JSON).
func call(t *testing.T, env *Env, name string, input any) Result {
	t.Helper()
	return callCtx(t, context.Background(), env, name, input)
}

func callCtx(t *testing.T, ctx context.Context, env *Env, name string, input any) Result {
	t.Helper()
	tl, ok := Lookup(Set(env), name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	var raw []byte
	switch v := input.(type) {
	case string:
		raw = []byte(v)
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	return tl.Run(ctx, raw)
}

type obj = map[string]any

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantOK(t *testing.T, r Result) {
	t.Helper()
	if r.Error != "" {
		t.Fatalf("unexpected error result: %q (output %q)", r.Error, r.Output)
	}
}

func wantError(t *testing.T, r Result, substrs ...string) {
	t.Helper()
	if r.Error == "" {
		t.Fatalf("want error containing %q, got success: %q", substrs, r.Output)
	}
	for _, s := range substrs {
		if !strings.Contains(r.Error, s) {
			t.Fatalf("error %q does not contain %q", r.Error, s)
		}
	}
}

// clip shortens long outputs in failure messages.
func clip(s string) string {
	return CapText(s, 600)
}
