package tokens

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

func TestTextMatchesTokenVectors(t *testing.T) {
	t.Parallel()
	for i, v := range tokenVectors(t) {
		t.Run(fmt.Sprintf("%d_%s", i, v.Encoding), func(t *testing.T) {
			t.Parallel()
			c := NewCounter(modelFor(t, v.Encoding))
			ref := referenceEncoding(t, v.Encoding)
			if v.AllowSpecial {
				// clawdcode counts text as ordinary text, so the special-token
				// vectors check that Text charges a special spelling as the
				// plain characters it is.
				if got := c.Text(v.Text); got != len(ref.EncodeOrdinary(v.Text)) || (strings.Contains(v.Text, "<|") && got <= v.Count) {
					t.Fatalf("Text(%q) = %d, want the ordinary count (> %d when a special spelling is present)", v.Text, got, v.Count)
				}
				return
			}
			if got := c.Text(v.Text); got != v.Count {
				t.Fatalf("Text(%q) = %d, want %d (%s)", v.Text, got, v.Count, v.Source)
			}
			// The ranks clawdcode hands tiktoken-go are the reference's.
			if v.ExpectedIDs != nil {
				if ids := ref.EncodeOrdinary(v.Text); fmt.Sprint(ids) != fmt.Sprint(v.ExpectedIDs) {
					t.Fatalf("ids(%q) = %v, want %v", v.Text, ids, v.ExpectedIDs)
				}
			}
		})
	}
}

func TestTextMatchesRealisticCorpus(t *testing.T) {
	t.Parallel()
	for _, s := range corpusSamples(t) {
		t.Run(s.Name+"_"+s.Encoding, func(t *testing.T) {
			t.Parallel()
			if got := NewCounter(modelFor(t, s.Encoding)).Text(s.Text); got != s.Count {
				t.Fatalf("Text = %d, want %d", got, s.Count)
			}
		})
	}
}

func TestTextSpecialTokenSpellingIsOrdinaryText(t *testing.T) {
	t.Parallel()
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		c := NewCounter(model)
		for _, s := range []string{"<|endoftext|>", "a file with <|endoftext|> and <|fim_prefix|> inside", "<|endofprompt|>"} {
			// Special tokens would count 1 each; ordinary text is longer.
			if got := c.Text(s); got < 5 {
				t.Errorf("%s: Text(%q) = %d, want it counted as ordinary characters", model, s, got)
			}
		}
	}
}

func TestTextLongRunStaysCloseAndBounded(t *testing.T) {
	t.Parallel()
	c := NewCounter("gpt-4o")
	// 64 KB of one character class would take seconds as one BPE piece.
	for _, unit := range []string{"=", "x", " ", "ab", "\n/", "}\n"} {
		s := strings.Repeat(unit, 64<<10/len(unit))
		got := c.Text(s)
		if got < 1 || got > len(s) {
			t.Fatalf("Text(%q × %d) = %d, outside [1, %d]", unit, len(s)/len(unit), got, len(s))
		}
		// Each slice is counted exactly; slicing may cost about a token per slice.
		whole := c.Text(s[:maxRun])
		want := whole * (len(s) / maxRun)
		if d := got - want; d < -len(s)/maxRun || d > len(s)/maxRun {
			t.Errorf("Text(%q run) = %d, want ≈ %d", unit, got, want)
		}
	}
}

func TestMessagesMatchCookbook(t *testing.T) {
	t.Parallel()
	var f struct {
		Messages []chat.Message `json:"example_messages"`
		Tools    struct {
			Tools []struct {
				Function chat.ToolDef `json:"function"`
			} `json:"tools"`
			Messages []chat.Message `json:"messages"`
		} `json:"tools_example"`
	}
	readFixture(t, "chat_message_token_counts.json", &f)
	var defs []chat.ToolDef
	for _, tool := range f.Tools.Tools {
		defs = append(defs, tool.Function)
	}
	tests := []struct {
		model            string
		messages, tools  int
		toolMessagesOnly int
	}{
		{"gpt-3.5-turbo-0125", 129, 105, 34},
		{"gpt-4-0613", 129, 105, 34},
		{"gpt-4o", 124, 101, 33},
		{"openai/gpt-4o-mini", 124, 101, 33},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			c := NewCounter(tt.model)
			if got := c.Messages(f.Messages); got != tt.messages {
				t.Errorf("Messages = %d, want %d", got, tt.messages)
			}
			msgs := c.Messages(f.Tools.Messages)
			if msgs != tt.toolMessagesOnly {
				t.Errorf("Messages(tool example) = %d, want %d", msgs, tt.toolMessagesOnly)
			}
			if got := msgs + c.Tools(defs); got != tt.tools {
				t.Errorf("Messages + Tools = %d, want %d", got, tt.tools)
			}
		})
	}
}

func TestMessageCountsEveryPart(t *testing.T) {
	t.Parallel()
	c := NewCounter("gpt-4o")
	args := `{"file_path":"/project/hello.py","content":"def hello():\n    return 'Hello, World!'\n"}`
	tests := []struct {
		name string
		m    chat.Message
		want int
	}{
		{"empty user", chat.Message{Role: chat.RoleUser}, TokensPerMessage + c.Text("user")},
		{"named", chat.Message{Role: chat.RoleSystem, Name: "example_user", Content: "hi"},
			TokensPerMessage + c.Text("system") + c.Text("hi") + c.Text("example_user") + TokensPerName},
		{"tool call", chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "Write", Arguments: args}}},
			TokensPerMessage + c.Text("assistant") + ToolCallOverhead + c.Text("Write") + 27},
		{"two calls", chat.Message{Role: chat.RoleAssistant, Content: "ok", ToolCalls: []chat.ToolCall{{Name: "Read", Arguments: "{}"}, {Name: "Read", Arguments: "{}"}}},
			TokensPerMessage + c.Text("assistant") + c.Text("ok") + 2*(ToolCallOverhead+c.Text("Read")+c.Text("{}"))},
		{"tool result", chat.Message{Role: chat.RoleTool, ToolCallID: "call_1", Content: "done"},
			TokensPerMessage + c.Text("tool") + c.Text("call_1") + c.Text("done")},
	}
	for _, tt := range tests {
		if got := c.Message(tt.m); got != tt.want {
			t.Errorf("%s: Message = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got, want := c.Messages(nil), ReplyPriming; got != want {
		t.Errorf("Messages(nil) = %d, want %d", got, want)
	}
}

func TestToolsEdgeCases(t *testing.T) {
	t.Parallel()
	c := NewCounter("gpt-4o")
	k := toolConstantsFor(O200kBase)
	if got := c.Tools(nil); got != 0 {
		t.Errorf("Tools(nil) = %d, want 0", got)
	}
	noParams := chat.ToolDef{Name: "Now", Description: "Current time."}
	if got, want := c.Tools([]chat.ToolDef{noParams}), k.funcEnd+k.funcInit+c.Text("Now:Current time"); got != want {
		t.Errorf("no parameters: %d, want %d", got, want)
	}
	broken := chat.ToolDef{Name: "X", Parameters: json.RawMessage(`{"properties": [`)}
	if got, want := c.Tools([]chat.ToolDef{broken}), k.funcEnd+k.funcInit+c.Text("X:")+k.propInit+c.Text(`{"properties": [`); got != want {
		t.Errorf("malformed parameters: %d, want %d", got, want)
	}
	typed := chat.ToolDef{Name: "T", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":["integer","null"],"enum":[1,2]}}}`)}
	want := k.funcEnd + k.funcInit + c.Text("T:") + k.propInit + k.propKey + k.enumInit + 2*k.enumItem + c.Text("1") + c.Text("2") + c.Text(`n:["integer","null"]:`)
	if got := c.Tools([]chat.ToolDef{typed}); got != want {
		t.Errorf("non-string type and enum: %d, want %d", got, want)
	}
}

// TestEstimateToolsFramesAsToolsCounts: EstimateTools charges the texts
// Tools counts, framed the same way: given the counter's own Text it is
// Tools, and with the fast estimate it stays within a factor of two of it.
func TestEstimateToolsFramesAsToolsCounts(t *testing.T) {
	t.Parallel()
	c := NewCounter("gpt-4o")
	defs := []chat.ToolDef{
		{Name: "Read", Description: "Reads a file from the local filesystem. The file_path must be absolute.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string","description":"The absolute path to the file to read"},"offset":{"type":"number","description":"The line number to start reading from"},"limit":{"type":"number"}}}`)},
		{Name: "mcp__s__mode", Description: "Sets the mode.", Parameters: json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]}}}`)},
		{Name: "Broken", Parameters: json.RawMessage(`{"properties": [`)},
	}
	if got, want := EstimateTools(O200kBase, defs, c.Text), c.Tools(defs); got != want {
		t.Errorf("EstimateTools with the counter's Text = %d, Tools %d", got, want)
	}
	est, exact := EstimateTools(O200kBase, defs, nil), c.Tools(defs)
	if est < exact/2 || est > 2*exact {
		t.Errorf("EstimateTools = %d, Tools %d: not within a factor of two", est, exact)
	}
	if EstimateTools(O200kBase, nil, nil) != 0 {
		t.Error("no tools estimated above 0")
	}
}

func TestCounterConcurrentUse(t *testing.T) {
	t.Parallel()
	samples := corpusSamples(t)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range samples {
				if got := NewCounter(modelFor(t, s.Encoding)).Text(s.Text); got != s.Count {
					errs <- fmt.Sprintf("%s/%s: %d, want %d", s.Name, s.Encoding, got, s.Count)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
