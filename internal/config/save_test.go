package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/tools"
)

func mustRule(t *testing.T, s string) tools.Rule {
	t.Helper()
	r, err := tools.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSaveRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string // "" = no file
		want string
	}{
		{"no file", "", "[permissions]\nallow = [\"Bash(git status:*)\"]\n"},
		{"no permissions table",
			"# mine\nmodel = \"m\"  # keep\n",
			"# mine\nmodel = \"m\"  # keep\n\n[permissions]\nallow = [\"Bash(git status:*)\"]\n"},
		{"table without allow",
			"model = \"m\"\n[permissions] # rules\ndeny = [\"Bash(rm:*)\"]\n[mcp_servers.x]\ncommand = \"y\"\n",
			"model = \"m\"\n[permissions] # rules\nallow = [\"Bash(git status:*)\"]\ndeny = [\"Bash(rm:*)\"]\n[mcp_servers.x]\ncommand = \"y\"\n"},
		{"allow with elements and comments",
			"[permissions]\nallow = [\n  \"Edit\", # edits\n  'Bash(go test:*)',\n] # end\n",
			"[permissions]\nallow = [\n  \"Edit\", # edits\n  'Bash(go test:*)', \"Bash(git status:*)\",\n] # end\n"},
		{"empty allow", "[permissions]\nallow = [ ]\n", "[permissions]\nallow = [\"Bash(git status:*)\" ]\n"},
		{"already there", "[permissions]\nallow = [\"Bash(git status:*)\"]\n", "[permissions]\nallow = [\"Bash(git status:*)\"]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), ".clawdcode", "config.toml")
			if tt.doc != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(tt.doc), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := SaveRule(path, mustRule(t, "Bash(git status:*)")); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
			if tt.doc != "" {
				if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want the file's own 0600", info.Mode().Perm())
				}
			}
		})
	}
}

func TestSaveRuleLeavesWhatItCannotEdit(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		"permissions = { allow = [\"Edit\"] }\n",
		"permissions.allow = [\"Edit\"]\n",
		"model = \n",
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		os.WriteFile(path, []byte(doc), 0o644)
		err := SaveRule(path, mustRule(t, "Write"))
		if !errors.Is(err, ErrCannotSave) && !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: err = %v", doc, err)
		}
		if got, _ := os.ReadFile(path); string(got) != doc {
			t.Errorf("%q changed to %q", doc, got)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("multi-line error %q", err)
		}
	}
}
