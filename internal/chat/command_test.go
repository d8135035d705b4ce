package chat

import "testing"

func TestCommandText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>": "/model opus",
		"<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>":                                                 "/init",
		"<local-command-stdout>Reconnected to tidewave.</local-command-stdout>":                                                                    "Reconnected to tidewave.",
		"<local-command-caveat>Caveat: do not respond.</local-command-caveat>":                                                                     "",
		"<command-name>/review</command-name><command-args>a &amp; b</command-args>":                                                               "/review a & b",
	} {
		got, ok := CommandText(in)
		if !ok || got != want {
			t.Errorf("CommandText(%.40q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"hello", "<command-name>/x</command-name> and my words", "<b>bold</b>"} {
		if got, ok := CommandText(in); ok || got != in {
			t.Errorf("CommandText(%q) = %q, %v; want it unchanged", in, got, ok)
		}
	}
}
