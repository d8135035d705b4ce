package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/sandbox"
)

// TestSandboxProjectNarrowsOnly: CONTRACT §13. The user's file sets the
// sandbox; a project's file may make it stricter, never wider: what would
// widen it is ignored with one warning naming the file.
func TestSandboxProjectNarrowsOnly(t *testing.T) {
	for _, tc := range []struct {
		name, user, project string
		want                Sandbox
		warns               []string
	}{
		{name: "defaults", want: Sandbox{Mode: sandbox.WorkspaceWrite}},
		{
			name:    "project narrows",
			user:    "[sandbox]\nnetwork = true\nallow_domains = [\"a.example\"]\n",
			project: "[sandbox]\nmode = \"read-only\"\nnetwork = false\ndeny_read = [\"secrets\"]\n",
			want:    Sandbox{Mode: sandbox.ReadOnly, Network: false, AllowDomains: []string{"a.example"}, DenyRead: []string{"secrets"}},
		},
		{
			name:    "project cannot widen",
			user:    "[sandbox]\nmode = \"read-only\"\n",
			project: "[sandbox]\nmode = \"off\"\nnetwork = true\nallow_domains = [\"evil.example\"]\nwritable = [\"/\"]\n",
			want:    Sandbox{Mode: sandbox.ReadOnly},
			warns:   []string{`mode = off`, `network = true`, `allow_domains "evil.example"`, `writable "/"`},
		},
		{
			name: "the user widens",
			user: "[sandbox]\nmode = \"off\"\nnetwork = true\nallow_domains = [\"a.example\"]\nwritable = [\"~/.cache\"]\n",
			want: Sandbox{Mode: sandbox.Off, Network: true, AllowDomains: []string{"a.example"}, Writable: []string{"~/.cache"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			user, project := filepath.Join(dir, "home", "config.toml"), filepath.Join(dir, "proj", ".clawdcode", "config.toml")
			for path, text := range map[string]string{user: tc.user, project: tc.project} {
				if text == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var warnings []string
			c, err := Resolve(Sources{UserFile: user, ProjectFile: project, Warn: func(s string) { warnings = append(warnings, s) }})
			if err != nil {
				t.Fatal(err)
			}
			got := c.Sandbox
			got.ModeSource = ""
			if got.Mode != tc.want.Mode || got.Network != tc.want.Network || !slices.Equal(got.AllowDomains, tc.want.AllowDomains) ||
				!slices.Equal(got.Writable, tc.want.Writable) || !slices.Equal(got.DenyRead, tc.want.DenyRead) {
				t.Errorf("sandbox %+v, want %+v", got, tc.want)
			}
			all := strings.Join(warnings, "\n")
			for _, w := range tc.warns {
				if !strings.Contains(all, w) || !strings.Contains(all, project) {
					t.Errorf("no warning naming %s and %s: %q", w, project, warnings)
				}
			}
			if len(tc.warns) == 0 && len(warnings) > 0 {
				t.Errorf("unexpected warnings: %q", warnings)
			}
		})
	}
}

// TestSandboxFlagAndBadValues: --sandbox wins over the files; a bad mode
// in a file is an error naming its line.
func TestSandboxFlagAndBadValues(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(user, []byte("[sandbox]\nmode = \"read-only\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	off := "off"
	c, err := Resolve(Sources{UserFile: user, Flags: Flags{Sandbox: &off}})
	if err != nil || c.Sandbox.Mode != sandbox.Off || c.Sandbox.ModeSource != "--sandbox" {
		t.Fatalf("--sandbox off over a read-only file: %+v, %v", c.Sandbox, err)
	}
	if err := os.WriteFile(user, []byte("\n[sandbox]\nmode = \"open\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(Sources{UserFile: user}); err == nil || !strings.Contains(err.Error(), ":3:") {
		t.Errorf("a bad sandbox mode: %v, want an error at line 3", err)
	}
}
