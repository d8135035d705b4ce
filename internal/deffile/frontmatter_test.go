package deffile

import (
	"errors"
	"slices"
	"testing"
)

func TestFrontMatterNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       []string // nil: tools: not set
	}{
		{"comma-separated", "tools: Read, Grep\n", []string{"Read", "Grep"}},
		{"flow list", "tools: [Read, Grep]\n", []string{"Read", "Grep"}},
		{"block list", "tools:\n  - Read\n  - Grep\n", []string{"Read", "Grep"}},
		{"block list at the key's indent", "tools:\n- Read\n- Grep\n", []string{"Read", "Grep"}},
		{"quoted", "tools: [\"Read\", 'Grep']\n", []string{"Read", "Grep"}},
		{"key in capitals", "Tools: Read\n", []string{"Read"}},
		{"empty list", "tools: []\n", []string{}},
		{"absent", "description: x\n", nil},
	} {
		fm, body, err := SplitFrontMatter("---\n" + tc.text + "---\nbody\n")
		if err != nil || body != "body\n" {
			t.Errorf("%s: body %q, %v", tc.name, body, err)
			continue
		}
		got, set, err := fm.Names("tools")
		if err != nil || set != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q (set %v, %v), want %q", tc.name, got, set, err, tc.want)
		}
	}
}

// A front matter that does not parse, or a tools: that is not a list of
// names, is an error: the caller skips the file rather than read half of
// it (and give a subagent the parent's tools).
func TestFrontMatterThatCannotBeReadIsAnError(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"unclosed list":     "tools: [Read, Grep\n",
		"bad indentation":   "description: x\n  tools: Read\n",
		"two brackets":      "argument-hint: [pr] [priority]\n",
		"not a mapping":     "- Read\n- Grep\n",
		"twice":             "tools: Read\nTools: Grep\n",
		"a control char":    "description: \x1b[31mred\n",
		"tools no value":    "tools:\n",
		"tools a mapping":   "tools: {Read: yes}\n",
		"tools nested list": "tools: [[Read]]\n",
		"text a mapping":    "description:\n  a: b\n",
	} {
		fm, _, err := SplitFrontMatter("---\n" + text + "---\nbody\n")
		if err == nil {
			_, _, err = fm.Names("tools")
		}
		if err == nil {
			_, err = fm.Text("description")
		}
		if err == nil {
			_, err = fm.Text("argument-hint")
		}
		if !errors.Is(err, ErrFrontMatter) {
			t.Errorf("%s: %v, want an error of the front matter", name, err)
		}
	}
}

func TestFrontMatterText(t *testing.T) {
	t.Parallel()
	fm, body, err := SplitFrontMatter("---\r\n" +
		"description: 'the user''s review: of code'\r\n" +
		"argument-hint: [message]\r\n" +
		"model: \"gpt-4o\" # a comment\r\n" +
		"color: blue\r\n" +
		"---\r\n" +
		"Body ---\r\n---\r\nmore\r\n")
	if err != nil {
		t.Fatal(err)
	}
	if body != "Body ---\n---\nmore\n" {
		t.Errorf("body %q: the block ends at its first line \"---\"", body)
	}
	for key, want := range map[string]string{
		"description":   "the user's review: of code",
		"argument-hint": "[message]",
		"model":         "gpt-4o",
		"missing":       "",
	} {
		if got, err := fm.Text(key); got != want || err != nil {
			t.Errorf("%s: %q, %v; want %q", key, got, err, want)
		}
	}
}

// Without a first line "---" and a closing one, the whole text is the body.
func TestNoFrontMatter(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"plain text\n", "---\nno closing line\n", "--- \nnot the first line\n---\n", ""} {
		fm, body, err := SplitFrontMatter(s)
		if err != nil || body != s || len(fm.fields) != 0 {
			t.Errorf("%q: body %q, %d fields, %v", s, body, len(fm.fields), err)
		}
	}
	fm, body, err := SplitFrontMatter("---\n---\nbody")
	if err != nil || body != "body" || len(fm.fields) != 0 {
		t.Errorf("an empty block: body %q, %v", body, err)
	}
}
