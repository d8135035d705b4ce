package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestPlanModeInPrint (issue 36, item 3): in -p, plan mode offers
// ExitPlanMode; a plan handed over with it is the run's answer, printed,
// and the run stops there, saying how to carry it out (nobody can approve
// it); a plan can be researched first, with a read-only subagent (Task,
// explore) and a page a rule allows (WebFetch); outside plan mode the tool
// is not offered.
func TestPlanModeInPrint(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	site := newPageServer(t)

	plan := `# Plan\n1. write a.txt\n2. check it`
	r := w.MustRun("-p", "--permission-mode", "plan", "exit-plan "+plan)
	if want := "# Plan\n1. write a.txt\n2. check it\n"; r.Stdout != want {
		t.Fatalf("-p's answer in plan mode is %q, want the plan %q\n%s", r.Stdout, want, r)
	}
	if !strings.Contains(r.Stderr, "the answer is the model's plan, not carried out") || !strings.Contains(r.Stderr, "--permission-mode acceptEdits") {
		t.Errorf("-p does not say how to carry the plan out:\n%s", r.Stderr)
	}
	reqs := w.Server.Requests()
	if len(reqs) != 1 {
		t.Errorf("the run went on after the plan: %d model calls", len(reqs))
	}
	if names := requestTools(reqs[0]); !slices.Contains(names, "ExitPlanMode") {
		t.Errorf("plan mode does not offer ExitPlanMode: %v", names)
	}
	if _, err := os.Stat(filepath.Join(w.Project, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("the plan was carried out in plan mode (stat: %v)", err)
	}

	// Researching a plan: a read-only subagent runs, a general one does not.
	w.MustRun("-p", "--permission-mode", "plan", "task explore look for the parser")
	if got := toolResults(w); len(got) != 1 || strings.Contains(got[0], "plan mode is on") || !strings.Contains(got[0], "You said: look for the parser") {
		t.Errorf("an explore Task in plan mode: %q", got)
	}
	w.MustRun("-p", "--permission-mode", "plan", "task general change the parser")
	if got := toolResults(w); len(got) != 1 || !strings.Contains(got[0], "plan mode is on") {
		t.Errorf("a general Task ran in plan mode: %q", got)
	}
	w.MustRun("-p", "--permission-mode", "plan", "--allowed-tools", "WebFetch(domain:127.0.0.1)", "webfetch "+site.URL+"/page")
	if got := toolResults(w); len(got) != 1 || !strings.Contains(got[0], "# Version 2.0") {
		t.Errorf("WebFetch of an allowed page in plan mode: %q", got)
	}

	// Outside plan mode there is nothing to hand over.
	w.MustRun("-p", "hello")
	if names := requestTools(w.Server.LastRequest()); slices.Contains(names, "ExitPlanMode") {
		t.Errorf("ExitPlanMode offered outside plan mode: %v", names)
	}
}

func requestTools(r llmtest.Request) []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}
