package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/toolcall"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Derive reads the session file at path from offset from (the start of a
// record: 0 for all of it) and returns the memories its records suggest, without a model, each with the uuids of the records it
// came from:
//   - the last command that ran the tests and succeeded (a Bash call whose
//     command runs a test runner — go test, cargo test, npm test, pytest,
//     make test… — answered without an error);
//   - the last build command that succeeded, likewise;
//   - the files most worked on (changed by Write or Edit at least twice,
//     the calls read by toolcall.Classify);
//   - each correction the user made to the agent: a message right after
//     the agent acted that begins "no, use …" or says "don't …, use …".
func Derive(ctx context.Context, path string, from int64, root string) ([]Suggestion, error) {
	d := deriver{root: root, calls: map[string]*storage.Record{}, edits: map[string][]string{}}
	err := storage.ReadFrom(ctx, path, from, func(_ int64, r *storage.Record) error {
		d.observe(r)
		return nil
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("derive memories: %w", err)
	}
	return d.suggestions(), nil
}

type deriver struct {
	root    string
	session string
	calls   map[string]*storage.Record // tool_use records by call id
	test    *Suggestion
	build   *Suggestion
	edits   map[string][]string // file → the refs of its successful changes
	order   []string            // files in the order first changed
	fixes   []Suggestion
	// lastActed is the uuid of the last assistant or tool record: a user
	// message right after it answers an action of the agent.
	lastActed string
}

func (d *deriver) observe(r *storage.Record) {
	if d.session == "" {
		d.session = r.SessionID
	}
	switch {
	case r.Type == storage.TypeToolUse && r.Tool != nil:
		d.calls[r.Tool.ID] = r
		d.lastActed = r.UUID
	case r.Type == storage.TypeToolResult && r.ToolResult != nil:
		if call := d.calls[r.ToolResult.ID]; call != nil && r.ToolResult.Error == "" {
			d.succeeded(call, r)
		}
		d.lastActed = r.UUID
	case r.Type == storage.TypeAssistant:
		d.lastActed = r.UUID
	case r.Type == storage.TypeUser && r.Message != nil && !r.IsCompactSummary:
		if d.lastActed != "" && isCorrection(r.Message.Content) {
			d.fixes = append(d.fixes, Suggestion{
				Text:   "The user corrected the agent: " + firstLine(r.Message.Content, 200),
				Kind:   KindCorrection,
				Source: Source{Kind: SourceSuggested, Session: r.SessionID, Refs: []string{d.lastActed, r.UUID}},
			})
		}
		d.lastActed = ""
	}
}

// succeeded notes a call that ran without an error.
func (d *deriver) succeeded(call, result *storage.Record) {
	c := toolcall.Classify(call.Tool.Name, call.Tool.Input)
	refs := []string{call.UUID, result.UUID}
	src := Source{Kind: SourceSuggested, Session: call.SessionID, Refs: refs}
	switch {
	case c.Tool == toolcall.Bash:
		cmd := strings.Join(strings.Fields(c.Command), " ")
		if cmd == "" || len(cmd) > 200 {
			return
		}
		kind := classify(cmd)
		switch kind {
		case KindTest:
			d.test = &Suggestion{Text: "Run the tests with `" + cmd + "`", Kind: kind, Source: src}
		case KindBuild:
			d.build = &Suggestion{Text: "Build with `" + cmd + "`", Kind: kind, Source: src}
		}
	case c.Effect == toolcall.Changes:
		if c.Path == "" {
			return
		}
		// A path the call gave relative to its working directory (a
		// subdirectory of the repository) is named from the root.
		path := c.Path
		if !filepath.IsAbs(path) && call.CWD != "" {
			path = filepath.Join(call.CWD, path)
		}
		p := toolcall.Rel(d.root, path)
		if _, ok := d.edits[p]; !ok {
			d.order = append(d.order, p)
		}
		d.edits[p] = append(d.edits[p], call.UUID)
	}
}

func (d *deriver) suggestions() []Suggestion {
	var out []Suggestion
	for _, s := range []*Suggestion{d.test, d.build} {
		if s != nil {
			out = append(out, *s)
		}
	}
	if s, ok := d.files(); ok {
		out = append(out, s)
	}
	return append(out, d.fixes...)
}

// files suggests the (at most three) files changed most, at least twice.
func (d *deriver) files() (Suggestion, bool) {
	files := slices.Clone(d.order)
	slices.SortStableFunc(files, func(a, b string) int { return len(d.edits[b]) - len(d.edits[a]) })
	var names, refs []string
	for _, f := range files {
		if len(d.edits[f]) < 2 || len(names) == 3 {
			break
		}
		names = append(names, f)
		refs = append(refs, d.edits[f][len(d.edits[f])-1])
	}
	if len(names) == 0 {
		return Suggestion{}, false
	}
	return Suggestion{
		Text:   "Files most worked on: " + strings.Join(names, ", "),
		Kind:   KindFiles,
		Source: Source{Kind: SourceSuggested, Session: d.session, Refs: refs},
	}, true
}

// Test runners and build commands, as the first words of a command (after
// wrappers: see tools.Commands).
var (
	testRunners = [][]string{
		{"go", "test"}, {"cargo", "test"}, {"cargo", "nextest"}, {"npm", "test"}, {"npm", "t"}, {"npm", "run", "test"},
		{"yarn", "test"}, {"pnpm", "test"}, {"bun", "test"}, {"pytest"}, {"python", "-m", "pytest"},
		{"python3", "-m", "pytest"}, {"make", "test"}, {"make", "check"}, {"mvn", "test"}, {"gradle", "test"},
		{"./gradlew", "test"}, {"rspec"}, {"bundle", "exec", "rspec"}, {"jest"}, {"vitest"}, {"npx", "jest"},
		{"npx", "vitest"}, {"ctest"}, {"dotnet", "test"}, {"mix", "test"}, {"tox"},
	}
	builders = [][]string{
		{"go", "build"}, {"cargo", "build"}, {"npm", "run", "build"}, {"yarn", "build"}, {"pnpm", "build"},
		{"make", "build"}, {"make", "all"}, {"mvn", "package"}, {"gradle", "build"}, {"./gradlew", "build"},
		{"tsc"}, {"dotnet", "build"},
	}
)

// classify says whether cmd runs the tests (KindTest), builds (KindBuild)
// or neither (""); a command that does both counts as the tests.
func classify(cmd string) string {
	kind := ""
	for _, part := range tools.Commands(cmd) {
		words := strings.Fields(part)
		switch {
		case startsWithAny(words, testRunners):
			return KindTest
		case startsWithAny(words, builders):
			kind = KindBuild
		}
	}
	return kind
}

func startsWithAny(words []string, prefixes [][]string) bool {
	for _, p := range prefixes {
		if len(words) >= len(p) && slices.Equal(words[:len(p)], p) {
			return true
		}
	}
	return false
}

// A correction: "no, use X", "no — run Y instead", "don't X, use Y",
// "do not X; use Y", "use X instead". Compiled on first use: its counted
// repetition makes it half of this package's init, which every start of
// clawdcode would pay.
var correction = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(no|nope|not that|wrong)\b[\s,.!:;—–-]+(please\s+)?(use|run|call|try)\b|\b(don'?t|do not|never)\b[^.?!]{1,80}?[,;:—–-]\s*(use|run|call)\b|\buse\s+\S+.*\binstead\b`)
})

func isCorrection(text string) bool {
	first := firstLine(text, 400)
	return correction().MatchString(first)
}

// firstLine is text's first non-empty line, cut to at most n bytes at a
// word.
func firstLine(text string, n int) string {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(line) > n {
			cut := line[:n]
			if i := strings.LastIndexByte(cut, ' '); i > n/2 {
				cut = cut[:i]
			}
			line = strings.ToValidUTF8(cut, "") + "…"
		}
		return line
	}
	return ""
}
