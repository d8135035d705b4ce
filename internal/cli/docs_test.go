package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docs/cli.md is the reference a user reads: every command, flag and
// slash command the binary has must be in it, so one added without its
// documentation fails here.
func TestDocsCoverTheCLI(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(fixtures.Root(t), "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	ios, _, _, _ := iostreams.Test()
	root := NewCmdRoot(NewFactory(ios))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if c != root {
			// "clawdcode sessions show" is documented as `clawdcode sessions show …`
			// or, in the sessions table, as `sessions show …`.
			path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
			if !strings.Contains(doc, "`clawdcode "+path) && !strings.Contains(doc, "`"+path) {
				t.Errorf("docs/cli.md does not document the command %q", c.CommandPath())
			}
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(doc) {
				t.Errorf("docs/cli.md does not document the flag --%s of %q", f.Name, c.CommandPath())
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, c := range slash.Default().Commands() {
		if !regexp.MustCompile("`/" + regexp.QuoteMeta(c.Name) + `\b`).MatchString(doc) {
			t.Errorf("docs/cli.md does not document the slash command /%s", c.Name)
		}
	}
}

// The hook example of docs/extending.md is the configuration that
// hooks_example.txtar runs: a change to one without the other fails.
func TestDocsHookExampleIsTested(t *testing.T) {
	t.Parallel()
	root := fixtures.Root(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "extending.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "<!-- hooks example:")
	if !ok {
		t.Fatal("docs/extending.md has no hooks example")
	}
	_, after, _ = strings.Cut(after, "```toml\n")
	example, _, _ := strings.Cut(after, "```")
	ar, err := txtar.ParseFile(filepath.Join(root, "internal", "cli", "testdata", "script", "hooks_example.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "home/config.toml" {
			if string(f.Data) != example {
				t.Errorf("docs/extending.md's hook example differs from hooks_example.txtar's:\n%s\n---\n%s", example, f.Data)
			}
			return
		}
	}
	t.Fatal("hooks_example.txtar has no home/config.toml")
}
