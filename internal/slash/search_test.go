package slash

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/search"
)

func TestSearchCommand(t *testing.T) {
	t.Parallel()
	proj, ids := seedProject(t, "fix the parser", "add a flag", "parser docs")
	e := &fakeEngine{project: proj, id: ids[0]}
	env, out := testEnv(e)
	if err := Default().Run(t.Context(), env, "/search parser"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, id := range []string{ids[0], ids[2]} {
		if !strings.Contains(got, id+"  ") {
			t.Errorf("/search parser does not list session %s:\n%s", id, got)
		}
	}
	if strings.Contains(got, ids[1]) || !strings.Contains(got, "    fix the parser\n") {
		t.Errorf("/search parser printed:\n%s", got)
	}
	out.Reset()
	if err := Default().Run(t.Context(), env, `/search "the parser" fix`); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n    ") != 1 {
		t.Errorf("phrase search printed:\n%s", out)
	}
	out.Reset()
	if err := Default().Run(t.Context(), env, "/search zeppelin"); err != nil || !strings.HasPrefix(out.String(), "No match for zeppelin") {
		t.Errorf("no match: %v %q", err, out)
	}
	if err := Default().Run(t.Context(), env, "/search   "); !errors.Is(err, ErrUsage) {
		t.Errorf("/search without a query: %v, want a usage error", err)
	}
}

// TestSearchPickOpensTheHit: with a picker, /search asks for a hit
// instead of printing the list; the hit chosen switches to its session
// and is shown there; a hit in the current session only shows it; a
// choice of none changes nothing.
func TestSearchPickOpensTheHit(t *testing.T) {
	t.Parallel()
	proj, ids := seedProject(t, "fix the parser", "add a flag", "parser docs")
	e := &fakeEngine{project: proj, id: ids[1]}
	env, out := testEnv(e)
	var shown []search.Hit
	choose := -1
	env.PickHit = func(_ context.Context, query string, hits []search.Hit) (int, error) {
		if query != "parser" || len(hits) != 2 {
			t.Fatalf("asked to pick among %d hits for %q", len(hits), query)
		}
		for i, h := range hits {
			if choose >= 0 && h.SessionID == ids[choose] {
				return i, nil
			}
		}
		return -1, nil
	}
	env.ShowHit = func(_ context.Context, _ string, h search.Hit) { shown = append(shown, h) }

	if err := Default().Run(t.Context(), env, "/search parser"); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || len(e.resumed) != 0 || len(shown) != 0 {
		t.Fatalf("no choice changed something: printed %q, resumed %v, shown %v", out, e.resumed, shown)
	}
	choose = 2
	if err := Default().Run(t.Context(), env, "/search parser"); err != nil {
		t.Fatal(err)
	}
	if len(e.resumed) != 1 || e.resumed[0] != ids[2] || len(shown) != 1 || shown[0].SessionID != ids[2] ||
		!strings.HasPrefix(out.String(), "Switched to session") {
		t.Fatalf("the hit was not opened: printed %q, resumed %v, shown %v", out, e.resumed, shown)
	}
	out.Reset()
	if err := Default().Run(t.Context(), env, "/search parser"); err != nil {
		t.Fatal(err)
	}
	if len(e.resumed) != 1 || len(shown) != 2 || out.Len() != 0 {
		t.Fatalf("a hit in the current session: printed %q, resumed %v, shown %d", out, e.resumed, len(shown))
	}
}
