package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// TestSandboxAllows: CONTRACT §13's part of the policy. In accept-edits
// mode a Bash command runs without asking when the sandbox contains it,
// and asks when there is no sandbox; one asked to run outside it is
// allowed by no mode, bypass included, only by a rule or an answer; a
// deny rule wins over the sandbox.
func TestSandboxAllows(t *testing.T) {
	t.Parallel()
	bash, _ := Lookup(Set(NewEnv(t.TempDir())), NameBash)
	inside := json.RawMessage(`{"command":"make test"}`)
	outside := json.RawMessage(`{"command":"make test","sandbox":false}`)
	rule, _ := ParseRule("Bash(make test)")
	deny, _ := ParseRule("Bash(make:*)")
	for _, tc := range []struct {
		name      string
		mode      Mode
		contained bool
		allow     []Rule
		deny      []Rule
		input     json.RawMessage
		runs      bool
	}{
		{"acceptEdits, contained", ModeAcceptEdits, true, nil, nil, inside, true},
		{"acceptEdits, no sandbox", ModeAcceptEdits, false, nil, nil, inside, false},
		{"default, contained", ModeDefault, true, nil, nil, inside, false},
		{"acceptEdits, outside", ModeAcceptEdits, true, nil, nil, outside, false},
		{"bypass, outside", ModeBypass, true, nil, nil, outside, false},
		{"bypass, inside", ModeBypass, false, nil, nil, inside, true},
		{"a rule, outside", ModeDefault, true, []Rule{rule}, nil, outside, true},
		{"a deny wins", ModeAcceptEdits, true, nil, []Rule{deny}, inside, false},
	} {
		p := NewPermissions(PermissionsConfig{Root: t.TempDir(), Mode: tc.mode, ModeGiven: true, SkipAll: tc.mode == ModeBypass,
			Allow: tc.allow, Deny: tc.deny, Contained: func() bool { return tc.contained }})
		denied, err := p.Check(context.Background(), bash, tc.input)
		if err != nil {
			t.Fatal(err)
		}
		if runs := denied == ""; runs != tc.runs {
			t.Errorf("%s: runs = %v, want %v (%s)", tc.name, runs, tc.runs, denied)
		}
	}
}

// TestAllowsHost: the proxy's hosts are the WebFetch(domain:…) rules',
// this session's included, and a deny rule wins.
func TestAllowsHost(t *testing.T) {
	t.Parallel()
	allow, _ := ParseRule("WebFetch(domain:docs.example.com)")
	deny, _ := ParseRule("WebFetch(domain:evil.example.com)")
	p := NewPermissions(PermissionsConfig{Allow: []Rule{allow}, Deny: []Rule{deny}})
	later, _ := ParseRule("WebFetch(domain:api.example.org)")
	p.AddSessionRule(later)
	for host, want := range map[string]bool{"docs.example.com": true, "DOCS.example.com": true, "api.example.org": true,
		"evil.example.com": false, "other.example": false} {
		if got := p.AllowsHost(host); got != want {
			t.Errorf("AllowsHost(%s) = %v, want %v", host, got, want)
		}
	}
	if !p.DeniesHost("evil.example.com") || p.DeniesHost("docs.example.com") {
		t.Errorf("DeniesHost disagrees with the deny rule")
	}
}
