package repl

import "testing"

// The queued line: characters and pastes, Backspace and Ctrl-W undone.
func TestTypedPreview(t *testing.T) {
	t.Parallel()
	keys := func(s string) []key {
		var out []key
		for _, r := range s {
			out = append(out, key{kind: keyRune, r: r})
		}
		return out
	}
	tests := []struct {
		keys []key
		want string
	}{
		{keys("fix it"), "fix it"},
		{append(keys("fix itx"), key{kind: keyBackspace}), "fix it"},
		{append(keys("fix the bug "), key{kind: keyWordBack}), "fix the "},
		{append(keys("a"), key{kind: keyPaste, text: "b\nc"}, key{kind: keyEnter}), "ab↵c↵"},
		{[]key{{kind: keyBackspace}, {kind: keyUp}}, ""},
	}
	for _, tt := range tests {
		if got := typedPreview(tt.keys); got != tt.want {
			t.Errorf("typedPreview = %q, want %q", got, tt.want)
		}
	}
}
