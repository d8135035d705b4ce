package slash

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// rulesEngine is the test engine with a real permission policy.
type rulesEngine struct {
	fakeEngine
	perms *tools.Permissions
}

func (e *rulesEngine) SessionRules() []tools.Rule          { return e.perms.SessionRules() }
func (e *rulesEngine) AddSessionRule(r tools.Rule)         { e.perms.AddSessionRule(r) }
func (e *rulesEngine) RemoveSessionRule(r tools.Rule) bool { return e.perms.RemoveSessionRule(r) }
func (e *rulesEngine) Summary() tools.PermissionSummary    { return e.perms.Summary() }

func TestPermissionsAddAndRemoveSessionRule(t *testing.T) {
	t.Parallel()
	e := &rulesEngine{perms: tools.NewPermissions(tools.PermissionsConfig{Root: t.TempDir()})}
	env, out := testEnv(e)
	r := Default()
	for _, line := range []string{"/permissions add Bash(go test:*)", "/permissions add Write", "/permissions rm 1", "/permissions"} {
		if err := r.Run(t.Context(), env, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	got := out.String()
	if !strings.Contains(got, "Removed Bash(go test:*).") || !strings.Contains(got, "1. allow Write") || strings.Contains(got, "2. allow") {
		t.Fatalf("output:\n%s", got)
	}
}
