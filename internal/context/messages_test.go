package contextmgr

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

func userRec(text string) *storage.Record {
	return &storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: text}}
}

func asstRec(text string) *storage.Record {
	return &storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: text}}
}

func useRec(id, name, input string) *storage.Record {
	return &storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: id, Name: name, Input: json.RawMessage(input)}}
}

func resultRec(id, out, errText string) *storage.Record {
	return &storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: id, Output: out, Error: errText}}
}

func summaryRec(text string) *storage.Record {
	return &storage.Record{Type: storage.TypeUser, IsCompactSummary: true, Message: &storage.Message{Role: "user", Content: text}}
}

func titleRec(title string) *storage.Record {
	return &storage.Record{Type: storage.TypeTitle, Title: title}
}

func boundaryRec() *storage.Record {
	return &storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeCompactBoundary, Message: &storage.Message{Role: "system", Content: "Conversation compacted"}}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	u := func(s string) chat.Message { return chat.Message{Role: chat.RoleUser, Content: s} }
	a := func(s string, calls ...chat.ToolCall) chat.Message {
		return chat.Message{Role: chat.RoleAssistant, Content: s, ToolCalls: calls}
	}
	call := func(id, name, args string) chat.ToolCall { return chat.ToolCall{ID: id, Name: name, Arguments: args} }
	tool := func(id, s string) chat.Message { return chat.Message{Role: chat.RoleTool, Content: s, ToolCallID: id} }
	interrupted := "Error: " + interruptedText

	tests := []struct {
		name string
		recs []*storage.Record
		want []chat.Message
	}{
		{"empty", nil, []chat.Message{}},
		{"plain turn", []*storage.Record{userRec("hi"), asstRec("hello")}, []chat.Message{u("hi"), a("hello")}},
		{
			"tool calls answered in call order",
			[]*storage.Record{userRec("go"), asstRec("two calls"), useRec("c1", "Read", `{"file_path":"a"}`), useRec("c2", "Glob", `{"pattern":"*"}`),
				resultRec("c2", "b", ""), resultRec("c1", "a", ""), asstRec("done")},
			[]chat.Message{u("go"), a("two calls", call("c1", "Read", `{"file_path":"a"}`), call("c2", "Glob", `{"pattern":"*"}`)),
				tool("c1", "a"), tool("c2", "b"), a("done")},
		},
		{
			"failed tool result carries the error",
			[]*storage.Record{userRec("go"), asstRec(""), useRec("c1", "Read", `{}`), resultRec("c1", "", "no such file")},
			[]chat.Message{u("go"), a("", call("c1", "Read", `{}`)), tool("c1", "Error: no such file")},
		},
		{
			"call without a result is answered as interrupted",
			[]*storage.Record{userRec("go"), asstRec("x"), useRec("c1", "Bash", `{"command":"sleep 9"}`)},
			[]chat.Message{u("go"), a("x", call("c1", "Bash", `{"command":"sleep 9"}`)), tool("c1", interrupted)},
		},
		{
			"call interrupted by a new user turn",
			[]*storage.Record{userRec("go"), asstRec("x"), useRec("c1", "Bash", `{}`), userRec("stop"), resultRec("c1", "late", "")},
			[]chat.Message{u("go"), a("x", call("c1", "Bash", `{}`)), tool("c1", interrupted), u("stop")},
		},
		{
			"result without a call is dropped",
			[]*storage.Record{userRec("go"), resultRec("ghost", "boo", ""), asstRec("ok")},
			[]chat.Message{u("go"), a("ok")},
		},
		{
			"orphan user turns merge",
			[]*storage.Record{userRec("first"), userRec("second"), asstRec("ok"), userRec("third")},
			[]chat.Message{u("first\n\nsecond"), a("ok"), u("third")},
		},
		{
			"latest summary first, older ones and boundaries dropped",
			[]*storage.Record{summaryRec("old"), userRec("kept"), asstRec("reply"), boundaryRec(), summaryRec("new"), userRec("next")},
			[]chat.Message{u("new"), summaryAck, u("kept"), a("reply"), u("next")},
		},
		{
			"the summary and the next message are two messages, however the next one came",
			[]*storage.Record{boundaryRec(), summaryRec("sum"), userRec("next"), userRec("and more")},
			[]chat.Message{u("sum"), summaryAck, u("next\n\nand more")},
		},
		{
			"summary then retained reply inside a turn",
			[]*storage.Record{useRec("c0", "Read", `{}`), asstRec("mid"), useRec("c1", "Read", `{}`), resultRec("c1", "r", ""), summaryRec("sum")},
			[]chat.Message{u("sum"), a("", call("c0", "Read", `{}`)), tool("c0", interrupted), a("mid", call("c1", "Read", `{}`)), tool("c1", "r")},
		},
		{
			"empty assistant without calls is left out",
			[]*storage.Record{userRec("a"), asstRec(""), userRec("b")},
			[]chat.Message{u("a\n\nb")},
		},
		{
			"repeated call id and empty id",
			[]*storage.Record{userRec("go"), asstRec("x"), useRec("c1", "Read", `{}`), useRec("c1", "Read", `{"again":1}`), useRec("", "Read", `{}`), resultRec("c1", "one", ""), resultRec("c1", "two", "")},
			[]chat.Message{u("go"), a("x", call("c1", "Read", `{}`)), tool("c1", "one")},
		},
		{
			"a learnt context window is no message, even inside a tool round",
			[]*storage.Record{userRec("go"), asstRec("x"), useRec("c1", "Read", `{}`),
				{Type: storage.TypeSystem, Subtype: storage.SubtypeContextWindow, ContextWindow: 9000}, resultRec("c1", "r", "")},
			[]chat.Message{u("go"), a("x", call("c1", "Read", `{}`)), tool("c1", "r")},
		},
		{
			"title records and unknown types are not messages, even inside a tool round",
			[]*storage.Record{titleRec("first"), userRec("go"), asstRec("x"), useRec("c1", "Read", `{}`), titleRec("renamed"),
				{Type: "future_kind"}, resultRec("c1", "r", ""), asstRec("done")},
			[]chat.Message{u("go"), a("x", call("c1", "Read", `{}`)), tool("c1", "r"), a("done")},
		},
		{
			// vLLM and SGLang parse historical arguments and answer 400 when
			// one does not parse; the result already quotes the bad text.
			"malformed arguments are replayed as an empty object",
			[]*storage.Record{userRec("go"), asstRec("x"), useRec("c1", "Read", string(toolInput(`{"file_path": "a`))), resultRec("c1", "r", "bad")},
			[]chat.Message{u("go"), a("x", call("c1", "Read", `{}`)), tool("c1", "r\n\nError: bad")},
		},
		{
			"arguments that are valid JSON but no object are replayed as an empty object",
			[]*storage.Record{userRec("go"), asstRec("x"), useRec("c1", "Read", `[1,2]`), useRec("c2", "Read", `null`), useRec("c3", "Read", `"{\"a\":1}"`),
				resultRec("c1", "r1", ""), resultRec("c2", "r2", ""), resultRec("c3", "r3", "")},
			[]chat.Message{u("go"), a("x", call("c1", "Read", `{}`), call("c2", "Read", `{}`), call("c3", "Read", `{}`)), tool("c1", "r1"), tool("c2", "r2"), tool("c3", "r3")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := messagesOf(tt.recs)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Messages:\n got %#v\nwant %#v", got, tt.want)
			}
			checkWellFormed(t, got)
		})
	}
}

func TestToolInputCompactsValidJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{ "a" : 1 }`: `{"a":1}`,
		"":            `{}`,
		`{"a":`:       `"{\"a\":"`,
	} {
		if got := string(toolInput(in)); got != want {
			t.Errorf("toolInput(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzMessages drives buildMessages with arbitrary record sequences: whatever a
// crash, a hand edit or a bug left in a session file, the request must be
// one a strict server accepts.
func FuzzMessages(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0})
	f.Add([]byte{1, 2, 2, 3, 3, 3, 0, 0, 4, 5, 2})
	f.Add([]byte{3, 2, 1, 0, 5, 4, 0x12, 0x22, 0x33})
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []*storage.Record
		ids := []string{"a", "b", "c", ""}
		for i, b := range data {
			id := ids[int(b>>4)%len(ids)]
			switch b % 7 {
			case 0:
				recs = append(recs, userRec("u"))
			case 1:
				recs = append(recs, asstRec([]string{"", "text"}[i%2]))
			case 2:
				// Inputs as a crash, a hand edit or a model may leave them.
				in := []string{`{}`, string(toolInput(`{"a":`)), `[1]`, `{"a":1}`, `null`}[i%5]
				recs = append(recs, useRec(id, []string{"Read", ""}[i%2], in))
			case 3:
				recs = append(recs, resultRec(id, "out", ""))
			case 4:
				recs = append(recs, summaryRec("sum"))
			case 5:
				recs = append(recs, boundaryRec())
			case 6:
				recs = append(recs, nil, &storage.Record{Type: "progress"},
					&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeReorientation, Message: &storage.Message{Role: "user", Content: []string{"packet", "", "p2"}[i%3]}})
			}
		}
		msgs := messagesOf(recs)
		checkWellFormed(t, msgs)
		// A build that takes the last one's joined messages builds the same,
		// after the same records and after others (one fewer, then all).
		var memo joins
		for _, rs := range [][]*storage.Record{recs, recs, recs[:max(len(recs)-1, 0)], recs} {
			want, wn := buildMessages(rs)
			if got, n := buildMessagesWith(rs, &memo); !reflect.DeepEqual(got, want) || n != wn {
				t.Fatalf("with the last build's joins:\n got %+v\nwant %+v", got, want)
			}
		}
		// standIns, which builds no message, counts the stand-ins the build does.
		if _, n := buildMessages(recs); standIns(recs) != n {
			t.Fatalf("standIns = %d, the build answered %d calls as interrupted", standIns(recs), n)
		}
		// Nothing is invented: every call comes from a tool_use record.
		used := map[string]bool{}
		for _, r := range recs {
			if r != nil && r.Type == storage.TypeToolUse {
				used[r.Tool.ID] = true
			}
		}
		for _, m := range msgs {
			for _, c := range m.ToolCalls {
				if !used[c.ID] {
					t.Fatalf("call %q not in the records", c.ID)
				}
			}
		}
	})
}

// TestMalformedCallIsNotReplayed: a call whose arguments did not parse is
// kept on record as the model sent it, but every later request — live or
// after a resume — sends "{}" for it, since vLLM and SGLang reject a
// history whose arguments do not parse.
func TestMalformedCallIsNotReplayed(t *testing.T) {
	t.Parallel()
	const bad = `{"file_path": "a.txt", "content": "never closed`
	f := newFixture(t, 100000, nil)
	f.user("write it")
	f.toolTurn("c1", "Read", bad, "")
	f.reply("done")
	for name, m := range map[string]*Manager{"live": f.m, "resumed": f.resume(false)} {
		req, err := m.Request(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		checkWellFormed(t, req.Messages)
		calls := 0
		for _, msg := range req.Messages {
			for _, c := range msg.ToolCalls {
				calls++
				if c.Arguments != "{}" {
					t.Errorf("%s: the malformed call is sent with arguments %q, want {}", name, c.Arguments)
				}
			}
		}
		if calls != 1 {
			t.Errorf("%s: %d calls in the request, want 1", name, calls)
		}
	}
	var stored string
	for _, r := range f.log.records(t) {
		if r.Type == storage.TypeToolUse {
			stored = recordedArguments(r.Tool.Input)
		}
	}
	if stored != bad {
		t.Errorf("the record keeps %q, want the model's own text %q", stored, bad)
	}
}
