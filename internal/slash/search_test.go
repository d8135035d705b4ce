package slash

import (
	"errors"
	"strings"
	"testing"
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
