package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKindOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ text, kind string }{
		{"Run the tests with `make check`", KindTest},
		{"tests: pytest -x", KindTest},
		{"run tests with go test ./... -race", KindTest},
		{"Build with `go build ./cmd/app`", KindBuild},
		{"The build uses cargo build --release", KindBuild},
		{"Don't run go test in CI", ""},
		{"Run the tests with `make check`, not make test", KindTest},
		{"Never use npm test; tests run with `make check`", KindTest},
		{"`make test` is slow", ""}, // names the runner, not the tests
		{"Use tabs, never spaces", ""},
	} {
		if got := kindOf(tt.text); got != tt.kind {
			t.Errorf("kindOf(%q) = %q, want %q", tt.text, got, tt.kind)
		}
	}
}

// A typed memory and an accepted one that state the test command
// contradict each other: the newer retires the older, whichever was
// typed; a memory of another kind, or of the other scope, stays.
func TestTypedAndAcceptedContradict(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBook(t)
	if _, _, err := b.Add(ctx, Project, "Use tabs"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Add(ctx, User, "tests: go test ./..."); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Suggest(ctx, []Suggestion{{Text: "Run the tests with `make test`", Kind: KindTest}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Accept(ctx, 1, ""); err != nil {
		t.Fatal(err)
	}
	_, retired, err := b.Add(ctx, Project, "Run the tests with `make check`")
	if err != nil || len(retired) != 1 || retired[0].Text != "Run the tests with `make test`" {
		t.Fatalf("a typed test command retired %+v (%v), want the accepted one", retired, err)
	}
	if _, err := b.Suggest(ctx, []Suggestion{{Text: "Run the tests with `make ci`", Kind: KindTest}}); err != nil {
		t.Fatal(err)
	}
	if _, retired, err = b.Accept(ctx, 1, ""); err != nil || len(retired) != 1 || retired[0].Text != "Run the tests with `make check`" {
		t.Fatalf("an accepted test command retired %+v (%v), want the typed one", retired, err)
	}
	v, _ := b.View()
	var live []string
	for _, m := range v.Memories {
		live = append(live, m.Text)
	}
	if got := strings.Join(live, " | "); got != "Use tabs | Run the tests with `make ci` | tests: go test ./..." {
		t.Fatalf("live memories: %s", got)
	}
}

// A memory exported into AGENTS.md reaches the model with the
// instructions: the prompt's memory section leaves it out, and so does an
// update during the session.
func TestExportedMemoriesAreGivenOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBook(t)
	b.Add(ctx, Project, "Exported rule")
	b.Add(ctx, Project, "Kept apart")
	if _, _, err := b.Export(); err != nil {
		t.Fatal(err)
	}
	agents, err := os.ReadFile(filepath.Join(b.Root(), "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	b.Remove(ctx, 2) // not in the book any more: the file still has it
	b.Add(ctx, Project, "Later")
	g, err := b.Prompt(countWords{}, 1000, string(agents))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(g.Text, "Exported rule") || !strings.Contains(g.Text, "Later") || !strings.Contains(g.Text, "1 more is in the project's instructions") {
		t.Fatalf("prompt after export:\n%s", g.Text)
	}
	b.Add(ctx, Project, "During the session")
	note, err := b.Update(g)
	if err != nil || strings.Contains(note, "Exported rule") || !strings.Contains(note, "During the session") || strings.Contains(note, "Later") {
		t.Fatalf("update:\n%s (%v)", note, err)
	}
	b.Remove(ctx, 2) // Later
	if note, _ = b.Update(g); !strings.Contains(note, "No longer to be followed") || !strings.Contains(note, "- Later") {
		t.Fatalf("update after a removal:\n%s", note)
	}
}
