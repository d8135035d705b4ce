package ctxbench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// memProject is one project of the multi-session corpus (memory across
// sessions, CONTRACT §11): a first session does work in it — runs its
// tests and its build through Bash, which clawdcode derives suggestions
// from — the user keeps memories (typed with /memory add, one accepted
// from the suggestions), then the project changes (a file and a make
// target some memories name are removed) and a new session starts.
type memProject struct {
	name    string
	files   map[string]string // the tree of the first session
	after   map[string]string // files rewritten before the second session
	removed []string          // files removed before the second session

	prompt  string          // the first session's task
	replies []llmtest.Reply // its scripted agent

	carried []string // memory texts the next session must get
	stale   []string // memory texts that name what is removed: withheld
	typed   []string // the /memory add texts, in order (carried and stale)

	accept  string // the suggestion the user accepts (carried)
	pending string // the suggestion the user never answers
}

// memCorpus is n projects of the multi-session corpus of seed.
func memCorpus(seed uint64, n int) []*memProject {
	var out []*memProject
	for i := range n {
		out = append(out, newMemProject(seed, i))
	}
	return out
}

// newMemProject makes project i: its names come from a random source of
// seed and i, so every project's memories are its own (a leak to another
// project is visible) and the same on every run.
func newMemProject(seed uint64, i int) *memProject {
	rng := rand.New(rand.NewPCG(seed, 1000+uint64(i)))
	id := fmt.Sprintf("m%02d", i)
	word := func() string { return words[rng.IntN(len(words))] + "-" + id }
	host, suite, gen := word(), word(), "gen-"+id
	legacy := "legacy/loader_" + id + ".go"
	notes := "docs/notes-" + id + ".md"
	makefile := func(extra string) string {
		return "test:\n\t@echo \"suite $(SUITE) passes\"\nbuild:\n\t@echo \"built $(SUITE)\"\n" + extra
	}
	p := &memProject{
		name: id,
		files: map[string]string{
			"Makefile": makefile(gen + ":\n\t@echo generated\n"),
			legacy:     "package legacy\n",
			notes:      "# Release notes\n",
		},
		after:   map[string]string{"Makefile": makefile("")},
		removed: []string{legacy},
		prompt: fmt.Sprintf("The staging host is %s and release notes go in %s. Run the %s tests, then build it.",
			host, notes, suite),
		accept:  "Run the tests with `make test SUITE=" + suite + "`",
		pending: "Build with `make build SUITE=" + suite + "`",
	}
	p.replies = []llmtest.Reply{
		llmtest.ToolCalls(llmtest.Call("Bash", bashArgs("make test SUITE="+suite))),
		llmtest.ToolCalls(llmtest.Call("Bash", bashArgs("make build SUITE="+suite))),
		llmtest.Text("The " + suite + " tests pass and it builds."),
	}
	p.carried = []string{"The staging host is " + host, "Release notes go in ./" + notes}
	p.stale = []string{"The old loader is in ./" + legacy, "Regenerate the fixtures with `make " + gen + "`"}
	p.typed = append(append([]string(nil), p.carried...), p.stale...)
	p.carried = append(p.carried, p.accept)
	return p
}

// bashArgs is the Bash tool's arguments running command.
func bashArgs(command string) string {
	return fmt.Sprintf(`{"command":%q}`, command)
}

// memFacts are the project's memories as facts the probe looks for: each
// memory's whole text, which only a memory brings into a request.
func (p *memProject) memFacts() []llmtest.Fact {
	var facts []llmtest.Fact
	for _, text := range append(append(append([]string(nil), p.carried...), p.stale...), p.pending) {
		facts = append(facts, llmtest.Fact{Class: llmtest.FactRecall, Kind: "memory", Key: text, Text: text})
	}
	return facts
}

// suggestionNumber finds text among the suggestions /memory lists (they
// are numbered from 1 under their own heading) and returns its number, 0
// when it is not there.
func suggestionNumber(list, text string) int {
	_, rest, ok := strings.Cut(list, "\nSuggestions (")
	if !ok && strings.HasPrefix(list, "Suggestions (") {
		rest, ok = list, true
	}
	if !ok {
		return 0
	}
	for _, line := range strings.Split(rest, "\n") {
		var n int
		num, item, ok := strings.Cut(line, ". ")
		if !ok || item != text {
			continue
		}
		if _, err := fmt.Sscanf(num, "%d", &n); err == nil {
			return n
		}
	}
	return 0
}
