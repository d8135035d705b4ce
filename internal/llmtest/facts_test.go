package llmtest

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

var planted = []Fact{
	{Class: FactRecall, Key: "heron-7", Text: "The host is heron-7."},
	{Class: FactArtifact, Kind: "path", Key: "src/a_1.txt", Text: "Read src/a_1.txt."},
	{Class: FactArtifact, Kind: "exit", Key: "exit status 41", Text: "It failed with exit status 41."},
	{Class: FactContinuation, Key: "handler-9", Text: "Next: port handler-9."},
	{Class: FactDecision, Key: "bolt-3", Text: "Decision: bolt-3."},
}

func conversation() Request {
	return Request{Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: "You are a summariser."},
		{Role: chat.RoleUser, Content: "The host is heron-7.\nDecision:   bolt-3. Next, port handler-9."},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "Read", Arguments: `{"file_path":"src/a_1.txt"}`}}},
		{Role: chat.RoleTool, ToolCallID: "c1", Content: "exit status 41"},
	}}
}

func TestSummarisersKeepWhatTheirModeSays(t *testing.T) {
	t.Parallel()
	for mode, want := range map[SummaryMode][]string{
		SummaryFaithful:      {"heron-7", "src/a_1.txt", "exit status 41", "handler-9", "bolt-3"},
		SummaryLossy:         {"heron-7", "bolt-3"},
		SummaryHallucinating: {"heron-7", "src/a_1.txt", "exit status 41", "bolt-3", "every task is done"},
	} {
		got := Summariser(mode, planted)(conversation()).Text
		for _, f := range planted {
			if strings.Contains(got, f.Key) != contains(want, f.Key) {
				t.Errorf("%s: summary %q: key %s kept = %v", mode, got, f.Key, !contains(want, f.Key))
			}
		}
		if !strings.HasPrefix(got, "<summary>") || !strings.Contains(got, want[len(want)-1]) {
			t.Errorf("%s: summary %q", mode, got)
		}
	}
	if r := Summariser(SummaryFail500, planted)(conversation()); r.Status != 500 {
		t.Errorf("fail-500 answered %d", r.Status)
	}
	if r := Summariser(SummaryOverflow, planted)(conversation()); r.Status != 400 || !strings.Contains(r.Body, "context_length_exceeded") {
		t.Errorf("fail-overflow answered %d %s", r.Status, r.Body)
	}
	if r := Summariser(SummaryEmpty, planted)(conversation()); r.Text != "" || r.Status != 0 {
		t.Errorf("fail-empty answered %+v", r)
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestProbeFindsFactsAnywhereInTheRequest(t *testing.T) {
	t.Parallel()
	facts := append(planted, Fact{Class: FactRecall, Key: "absent-1"})
	keys, ok := ParseProbe(Probe(facts)(conversation()).Text)
	if !ok {
		t.Fatal("the probe's answer does not parse")
	}
	for _, f := range planted {
		if !keys[f.Key] {
			t.Errorf("the probe missed %s", f.Key)
		}
	}
	if keys["absent-1"] {
		t.Error("the probe found a key the request does not hold")
	}
}

func TestReorienterFetchesUntilItSeesItsNeeds(t *testing.T) {
	t.Parallel()
	edit := Call("Edit", `{"file_path":"src/b.txt"}`)
	fetch := []ToolCall{Call("Grep", `{"pattern":"limit"}`), Call("Read", `{"file_path":"src/b.txt"}`)}
	ro := Reorienter([]Need{{Key: "src/b.txt", Fetch: fetch}}, edit, "edited")
	r := Request{Messages: []chat.Message{{Role: chat.RoleUser, Content: "resume"}}}
	for i, want := range []string{"Grep", "Read", "Edit"} {
		reply := ro(r)
		if len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Name != want {
			t.Fatalf("step %d: %+v, want a %s call", i, reply, want)
		}
		c := reply.ToolCalls[0]
		id := "c" + string(rune('0'+i))
		r.Messages = append(r.Messages,
			chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: id, Name: c.Name, Arguments: c.Arguments}}},
			chat.Message{Role: chat.RoleTool, ToolCallID: id, Content: "nothing"})
	}
	if got := ro(r).Text; got != "edited" {
		t.Errorf("after the edit: %q", got)
	}
	if n := ReorientCalls(r, "Edit"); n != 2 {
		t.Errorf("ReorientCalls = %d, want 2 (the fetches did not bring the path)", n)
	}
	seen := Request{Messages: []chat.Message{{Role: chat.RoleUser, Content: "we edit src/b.txt"}}}
	if reply := ro(seen); len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Name != "Edit" {
		t.Errorf("with the need in the request: %+v, want the edit at once", reply)
	}
}

func TestViolatorActsOnlyWithoutTheRule(t *testing.T) {
	t.Parallel()
	v := Violator("never run touch x.flag", Call("Bash", `{"command":"touch x.flag"}`), "refused", "done")
	with := Request{Messages: []chat.Message{{Role: chat.RoleUser, Content: "Rule: never  run touch x.flag.\nGo."}}}
	if got := v(with); got.Text != "refused" {
		t.Errorf("with the rule: %+v", got)
	}
	without := Request{Messages: []chat.Message{{Role: chat.RoleUser, Content: "Go."}}}
	if got := v(without); len(got.ToolCalls) != 1 {
		t.Errorf("without the rule: %+v, want the forbidden call", got)
	}
}

// A summary asked apart offers no tools; one asked at the end of the
// agent's request offers its tools with tool_choice "none"; an agent
// request offers tools and no tool_choice.
func TestIsSummaryRequest(t *testing.T) {
	t.Parallel()
	tools := []chat.ToolDef{{Name: "Read"}}
	for _, c := range []struct {
		r    Request
		want bool
	}{
		{Request{}, true},
		{Request{Tools: tools, ToolChoice: "none"}, true},
		{Request{Tools: tools}, false},
		{Request{Tools: tools, ToolChoice: "auto"}, false},
	} {
		if got := IsSummaryRequest(c.r); got != c.want {
			t.Errorf("IsSummaryRequest(%d tools, tool_choice %q) = %v", len(c.r.Tools), c.r.ToolChoice, got)
		}
	}
}
