package tools

import (
	"os/exec"
	"strings"
	"testing"
)

// sedScripts are scripts with what sedCode must find in them.
var sedScripts = []struct {
	script      string
	runs, files bool
}{
	{"s/hello/world/", false, false},
	{"s/hello/world/g;p", false, false},
	{"/error/p", false, false},
	{"1,5d", false, false},
	{"0~2{s/a/b/2;n}", false, false},
	{`s/a\/e/b/`, false, false},
	{"s|/usr/e|x|g", false, false},
	{"/x/,+3!d", false, false},
	{`\%path%s%x%y%`, false, false},
	{"$a appended e text", false, false},
	{"a\\\nline e\\\nw more", false, false},
	{":a;N;$!ba;s/\\n/ /g", false, false},
	{"y/abc/xyz/", false, false},
	{"# e comment\np", false, false},
	{"1e touch X", true, false},
	{"e", true, false},
	{"s/a/touch X/e", true, false},
	{"s/a/b/w out", false, true},
	{"w out", false, true},
	{"r /etc/passwd", false, true},
	{"/x/{p;e touch X\n}", true, false},
	{"# comment \\\ne touch X", true, false},
	{"p;;e touch X", true, false},
	{"s/a/b/;1e touch X", true, false},
	{"$!{N};P;D;e", true, false},
	{"b00 e", true, false}, // a label ends at a blank (GNU sed 4.9)
	{"bx w out", false, true},
	{":a e touch X", true, false},
	{"k", true, false},              // a command it does not know
	{"s/unterminated", true, false}, // a script it cannot read
}

func TestSedCode(t *testing.T) {
	t.Parallel()
	for _, tt := range sedScripts {
		if runs, files := sedCode(tt.script); runs != tt.runs || files != tt.files {
			t.Errorf("sedCode(%q) = runs %v, files %v; want %v, %v", tt.script, runs, files, tt.runs, tt.files)
		}
	}
}

// FuzzSedCode holds sedCode to GNU sed's own parser: a script it finds
// neither running a command nor naming a file must pass `sed --sandbox`
// (which refuses e, r and w when it reads the script) — or fail for
// another reason, when it does not parse at all.
func FuzzSedCode(f *testing.F) {
	sed, err := exec.LookPath("sed")
	if err != nil || exec.Command(sed, "--sandbox", "-n", "p", "/dev/null").Run() != nil {
		f.Skip("no GNU sed with --sandbox")
	}
	for _, tt := range sedScripts {
		f.Add(tt.script)
	}
	f.Fuzz(func(t *testing.T, script string) {
		if len(script) > 256 || strings.ContainsRune(script, 0) || strings.HasPrefix(script, "-") {
			return
		}
		if runs, files := sedCode(script); runs || files {
			return
		}
		out, err := exec.Command(sed, "--sandbox", "-n", "-e", script, "/dev/null").CombinedOutput()
		if err != nil && strings.Contains(string(out), "sandbox") {
			t.Errorf("sedCode(%q) saw no command that runs or names a file; sed --sandbox: %s", script, out)
		}
	})
}
