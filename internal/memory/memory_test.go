package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/storage"
)

func newBook(t *testing.T) *Book {
	t.Helper()
	root := t.TempDir()
	p, err := storage.NewStore(t.TempDir()).Project(root)
	if err != nil {
		t.Fatal(err)
	}
	return Open(p)
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, "Makefile", "VAR := x\nbuild test: deps\n\t@echo recipe: not a target\nlint::\n")
	write(t, root, "package.json", `{"scripts": {"lint": "eslint ."}}`)
	write(t, root, "internal/storage/doc.go", "package storage\nfunc Open() {}\n")
	write(t, root, "scripts/x.sh", "")
	write(t, root, "web/package.json", `{"scripts": {"build": "vite build"}}`)
	write(t, root, "web/build.sh", "")
	tests := []struct{ text, stale string }{
		{"Run the tests with `make test`", ""},
		{"Run `make lint` before a commit", ""},
		{"`make vet` checks the code", `Makefile has no target "vet"`},
		{"`make recipe` is no target", `Makefile has no target "recipe"`},
		{"make sure the build is clean", ""}, // English, not a command
		{"`npm run lint` lints", ""},
		{"npm run format formats the code", `package.json has no script "format"`},
		{"`npm test` runs the tests", `package.json has no script "test"`},
		{"The store is in internal/storage/", ""},
		{"The store's doc is internal/storage/doc.go.", ""},
		{"The index is in internal/index/", "internal/index does not exist"},
		{"Use ./scripts/x.sh to release", ""},
		{"Use ./scripts/y.sh to release", "scripts/y.sh does not exist"},
		{"See (CONTRIBUTING.md) first", "CONTRIBUTING.md does not exist"},
		{"Tests: `go test ./...`", ""},
		{"Write and/or read, e.g. files", ""},
		{"Go 1.22 or later, see https://go.dev/x.go", ""},
		{"`npm run build`", `package.json has no script "build"`},
		{"Open stores with `storage.Open()`", ""},
		{"Use `OpenStore()` for that", "OpenStore() is not in the project"},
		{"`Ope()` is a prefix only", "Ope() is not in the project"},
		{"`cd web && npm run build`", ""},
		{"`cd web && npm run deploy`", `package.json has no script "deploy"`},
		{"`cd api && go test ./...`", "api does not exist"},
		{"`cd web && ./build.sh`", ""},
		{"`cd web && ./deploy.sh`", "web/deploy.sh does not exist"},
		{"Release with `./scripts/y.sh`", "scripts/y.sh does not exist"},
	}
	for _, tt := range tests {
		if got := Check(root, tt.text); got != tt.stale {
			t.Errorf("Check(%q) = %q, want %q", tt.text, got, tt.stale)
		}
	}
	if got := Check(t.TempDir(), "`make test`"); got != "the project has no Makefile" {
		t.Errorf("no Makefile: %q", got)
	}
}

func TestClassifyAndCorrections(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"go test ./...":                 KindTest,
		"cd web && npm test":            KindTest,
		"FOO=1 timeout 60 pytest -x":    KindTest,
		"go build ./... && go test ./x": KindTest,
		"go build ./...":                KindBuild,
		"make":                          "",
		"git status":                    "",
		"echo go test":                  "",
	} {
		if got := classify(cmd); got != want {
			t.Errorf("classify(%q) = %q, want %q", cmd, got, want)
		}
	}
	for text, want := range map[string]bool{
		"no, use pnpm":            true,
		"No. Run make lint first": true,
		"don't edit the generated file, use the template": true,
		"use rg instead":     true,
		"no problem, thanks": false,
		"now add a test":     false,
		"I don't know":       false,
	} {
		if got := isCorrection(text); got != want {
			t.Errorf("isCorrection(%q) = %v", text, got)
		}
	}
	if got := firstLine("\n  "+strings.Repeat("é", 300), 21); !utf8.ValidString(got) || len(got) > 24 {
		t.Errorf("firstLine cut badly: %q", got)
	}
}

func TestAddRemoveAcceptRetire(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBook(t)
	changes := 0
	b.OnChange(func() { changes++ })
	if _, _, err := b.Add(ctx, Project, "  one\n two "); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Add(ctx, User, "mine"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Add(ctx, Project, " "); err == nil {
		t.Fatal("an empty memory was kept")
	}
	src := Source{Kind: SourceSuggested, Session: "s", Refs: []string{"r1", "r2"}}
	kept, err := b.Suggest(ctx, []Suggestion{
		{Text: "Run the tests with `go test ./...`", Kind: KindTest, Source: src},
		{Text: "ONE two", Kind: KindCorrection, Source: src}, // already a memory
	})
	if err != nil || len(kept) != 1 {
		t.Fatalf("Suggest kept %v, %v", kept, err)
	}
	if changes != 2 {
		t.Fatalf("%d changes after two adds and a suggestion", changes)
	}
	if _, _, err := b.Accept(ctx, 1, ""); err != nil {
		t.Fatal(err)
	}
	if kept, _ := b.Suggest(ctx, []Suggestion{{Text: "Run the tests with `go test ./x`", Kind: KindTest, Source: src}}); len(kept) != 1 {
		t.Fatal("a new test command was not suggested")
	}
	m, retired, err := b.Accept(ctx, 1, "Run the tests with `go test -race ./x`")
	if err != nil || len(retired) != 1 || m.Text != "Run the tests with `go test -race ./x`" {
		t.Fatalf("Accept = %+v, retired %+v, %v", m, retired, err)
	}
	v, err := b.View()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range v.Memories {
		texts = append(texts, string(m.Scope)+":"+m.Text)
	}
	want := "project:one two|project:Run the tests with `go test -race ./x`|user:mine"
	if got := strings.Join(texts, "|"); got != want {
		t.Fatalf("memories %q, want %q", got, want)
	}
	if len(v.Retired) != 1 || v.Retired[0].Text != "Run the tests with `go test ./...`" {
		t.Fatalf("retired %+v", v.Retired)
	}
	if v.Memories[1].Source.Refs[0] != "r1" {
		t.Fatalf("the accepted memory lost its refs: %+v", v.Memories[1])
	}
	if _, err := b.Remove(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Remove(ctx, 3); err == nil {
		t.Fatal("removed a memory that does not exist")
	}
	// Rejected: never suggested again.
	b.Suggest(ctx, []Suggestion{{Text: "Files most worked on: a.go", Kind: KindFiles, Source: src}})
	if _, err := b.Reject(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if kept, _ := b.Suggest(ctx, []Suggestion{{Text: "files most worked on:  a.go", Kind: KindFiles}}); len(kept) != 0 {
		t.Fatal("a rejected suggestion came back")
	}
}

// countWords is a token counter for tests: one token a word.
type countWords struct{}

func (countWords) Text(s string) int { return len(strings.Fields(s)) }

func TestPromptBudgetOrderAndStale(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBook(t)
	for _, text := range []string{"old but used", "stale one names gone.go", "newest"} {
		if _, _, err := b.Add(ctx, Project, text); err != nil {
			t.Fatal(err)
		}
	}
	v, _ := b.View()
	if err := b.RecordUse(ctx, []string{v.Memories[0].ID}); err != nil {
		t.Fatal(err)
	}
	b.Suggest(ctx, []Suggestion{{Text: "a pending suggestion", Kind: KindCorrection}})
	g, err := b.Prompt(countWords{}, 1000, "")
	if err != nil {
		t.Fatal(err)
	}
	used, newest := strings.Index(g.Text, "old but used"), strings.Index(g.Text, "newest")
	if used < 0 || newest < used || strings.Contains(g.Text, "gone.go") || strings.Contains(g.Text, "pending") {
		t.Fatalf("prompt:\n%s", g.Text)
	}
	if !strings.Contains(g.Text, "1 stale memory was withheld") || len(g.IDs) != 2 {
		t.Fatalf("prompt (ids %v):\n%s", g.IDs, g.Text)
	}
	head := countWords{}.Text(promptHead) + 40
	g, _ = b.Prompt(countWords{}, head+10, "")
	if len(g.IDs) != 1 || !strings.Contains(g.Text, "(1 more memory was left out to stay within") {
		t.Fatalf("a tight budget gave %v:\n%s", g.IDs, g.Text)
	}
}

func TestExportKeepsTheRestOfAgentsMD(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBook(t)
	b.Add(ctx, Project, "Run `go vet` first")
	b.Add(ctx, User, "personal, not exported")
	agents := filepath.Join(b.Root(), "AGENTS.md")
	write(t, b.Root(), "AGENTS.md", "# Team rules\n\nBe kind.") // no final newline
	if _, n, err := b.Export(); err != nil || n != 1 {
		t.Fatalf("Export: %d, %v", n, err)
	}
	first, _ := os.ReadFile(agents)
	if !strings.HasPrefix(string(first), "# Team rules\n\nBe kind.\n\n"+exportBegin+"\n") || strings.Contains(string(first), "personal") {
		t.Fatalf("AGENTS.md:\n%s", first)
	}
	// Edited by hand after the section; a second export replaces only it.
	os.WriteFile(agents, append(first, "\nAfter.\n"...), 0o644)
	b.Add(ctx, Project, "Second")
	if _, _, err := b.Export(); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(agents)
	want := "# Team rules\n\nBe kind.\n\n" + exportBegin + "\n## Project memory\n\n- Run `go vet` first\n- Second\n" + exportEnd + "\n\nAfter.\n"
	if string(second) != want {
		t.Fatalf("AGENTS.md:\n%q\nwant\n%q", second, want)
	}
	os.WriteFile(agents, []byte("x\n"+exportEnd+"\n"), 0o644)
	if _, _, err := b.Export(); err == nil {
		t.Fatal("a half-marked AGENTS.md was changed")
	}
}

func TestApplyEdit(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBook(t)
	b.Add(ctx, Project, "keep")
	b.Add(ctx, Project, "change me")
	b.Add(ctx, Project, "drop")
	b.Add(ctx, User, "mine")
	text, err := b.EditText()
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer("2. change me", "2. changed", "3. drop\n", "", "4. mine", "4. mine\nnew for me").Replace(text)
	ch, err := b.ApplyEdit(ctx, edited)
	if err != nil || ch != (Changes{Added: 1, Edited: 1, Removed: 1}) {
		t.Fatalf("ApplyEdit = %+v, %v\n%s", ch, err, edited)
	}
	v, _ := b.View()
	var got []string
	for _, m := range v.Memories {
		got = append(got, string(m.Scope)+":"+m.Text)
	}
	if strings.Join(got, "|") != "project:keep|project:changed|user:mine|user:new for me" {
		t.Fatalf("after the edit: %v", got)
	}
	if _, err := b.ApplyEdit(ctx, "[project]\n9. nine\n"); err == nil {
		t.Fatal("an unknown number was accepted")
	}
}

// In a subdirectory of a repository the book is the root's: its memories,
// checked against the root, with those an earlier run kept for the
// subdirectory itself; what is added goes to the root's.
func TestBookOfASubdirectoryIsTheRepositorys(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	write(t, root, ".git/HEAD", "ref: refs/heads/main\n")
	write(t, root, "Makefile", "test:\n")
	store := storage.NewStore(t.TempDir())
	rp, err := store.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "pkg", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	sp, err := store.Project(sub)
	if err != nil {
		t.Fatal(err)
	}
	// An earlier run kept one in the subdirectory's own log.
	below := &Book{root: sub, project: projectJournal(sp), now: time.Now}
	if _, _, err := below.Add(ctx, Project, "kept below"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(rp).Add(ctx, Project, "Run the tests with `make test`"); err != nil {
		t.Fatal(err)
	}
	b := Open(sp)
	if b.Root() != root {
		t.Fatalf("the subdirectory's book is checked against %s, not the root", b.Root())
	}
	if _, _, err := b.Add(ctx, Project, "added below"); err != nil {
		t.Fatal(err)
	}
	v, err := b.View()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range v.Memories {
		if m.Stale != "" {
			t.Errorf("%q is stale in a subdirectory: %s", m.Text, m.Stale)
		}
		texts = append(texts, m.Text)
	}
	if got := strings.Join(texts, " | "); got != "kept below | Run the tests with `make test` | added below" {
		t.Fatalf("the subdirectory's memories: %s", got)
	}
	v, err = Open(rp).View()
	if err != nil || len(v.Memories) != 2 || v.Memories[1].Text != "added below" {
		t.Fatalf("the root's memories after an add below: %+v, %v", v.Memories, err)
	}
}
