package repl

import "testing"

// Shift-Tab in each encoding a terminal may send switches the permission
// mode; plain Tab still completes.
func TestDecodeShiftTab(t *testing.T) {
	tests := []struct {
		name, in string
		want     keyKind
	}{
		{"xterm back tab", "\x1b[Z", keyBackTab},
		{"kitty", "\x1b[9;2u", keyBackTab},
		{"modifyOtherKeys", "\x1b[27;2;9~", keyBackTab},
		{"tab", "\t", keyTab},
		{"kitty tab", "\x1b[9u", keyTab},
	}
	for _, tt := range tests {
		var got []key
		var d keyDecoder
		d.feed([]byte(tt.in), func(k key) { got = append(got, k) })
		if len(got) != 1 || got[0].kind != tt.want {
			t.Errorf("%s: %q decodes to %+v, want one key of kind %d", tt.name, tt.in, got, tt.want)
		}
	}
}
