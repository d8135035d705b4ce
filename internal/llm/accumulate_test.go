package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// accumulateLines feeds one JSON chunk per line (lines that are not a
// chunk are skipped, as go-openai would fail on them before us).
func accumulateLines(lines []string) (*accumulator, string) {
	var acc accumulator
	var shown strings.Builder
	for _, line := range lines {
		var chunk openai.ChatCompletionStreamResponse
		if json.Unmarshal([]byte(line), &chunk) != nil {
			continue
		}
		shown.WriteString(acc.add(&chunk))
	}
	return &acc, shown.String()
}

func TestAccumulateToolCallShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		chunks []string
		want   []chat.ToolCall
	}{
		{
			name: "interleaved by index",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"Read","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"Bash","arguments":"{\"com"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"file_path\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"mand\":\"ls\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":\"x\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []chat.ToolCall{{ID: "a", Name: "Read", Arguments: `{"file_path":"x"}`}, {ID: "b", Name: "Bash", Arguments: `{"command":"ls"}`}},
		},
		{
			name: "no index: a new id starts a new call",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"Read","arguments":"{\"file_path\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\"x\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"Glob","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []chat.ToolCall{{ID: "a", Name: "Read", Arguments: `{"file_path":"x"}`}, {ID: "b", Name: "Glob", Arguments: "{}"}},
		},
		{
			name: "every call numbered 0 but with its own id",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"Read","arguments":"{\"file_path\":\"x\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"Read","arguments":"{\"file_path\":\"y\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []chat.ToolCall{{ID: "a", Name: "Read", Arguments: `{"file_path":"x"}`}, {ID: "b", Name: "Read", Arguments: `{"file_path":"y"}`}},
		},
		{
			name: "name repeated on every delta is not doubled; empty arguments become {}",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"Glob"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"Glob","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []chat.ToolCall{{ID: "a", Name: "Glob", Arguments: "{}"}},
		},
		{
			name: "a second choice is not mixed into the first",
			chunks: []string{
				`{"choices":[{"index":1,"delta":{"content":"other","tool_calls":[{"index":0,"id":"z","function":{"name":"Bash","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			acc, _ := accumulateLines(tt.chunks)
			if !acc.finished() {
				t.Fatal("not finished")
			}
			if got := acc.response().ToolCalls; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tool calls\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestAccumulateGivesIDsToCallsWithout(t *testing.T) {
	t.Parallel()
	acc, _ := accumulateLines([]string{
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"Read","arguments":"{}"}},{"index":1,"function":{"name":"Glob","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
	})
	calls := acc.response().ToolCalls
	if len(calls) != 2 || !strings.HasPrefix(calls[0].ID, "call_") || calls[0].ID == calls[1].ID {
		t.Errorf("calls %+v: want two distinct generated ids", calls)
	}
}

// fixtureChunkLines extracts the JSON payloads of every fixture stream.
func fixtureChunkLines(t testing.TB) [][]string {
	t.Helper()
	names := fixtures.Glob(t, "sse", "*")
	var out [][]string
	for _, name := range names {
		raw := readFixtureStream(t, filepath.Base(name), true)
		var lines []string
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if payload, ok := strings.CutPrefix(sc.Text(), "data: "); ok && payload != "[DONE]" {
				lines = append(lines, payload)
			}
		}
		out = append(out, lines)
	}
	return out
}

// FuzzAccumulate feeds any sequence of chunks (one JSON object per line)
// to the accumulator: it must never panic, show exactly the content it
// returns, and only return tool calls that can be sent back to the API.
func FuzzAccumulate(f *testing.F) {
	for _, lines := range fixtureChunkLines(f) {
		f.Add(strings.Join(lines, "\n"))
	}
	f.Add(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":-1,"function":{"arguments":"x"}}]}}]}`)
	f.Fuzz(func(t *testing.T, input string) {
		acc, shown := accumulateLines(strings.Split(input, "\n"))
		resp := acc.response()
		if resp.Content != shown {
			t.Fatalf("content %q differs from what was shown %q", resp.Content, shown)
		}
		for _, c := range resp.ToolCalls {
			if c.ID == "" || strings.TrimSpace(c.Arguments) == "" {
				t.Fatalf("unsendable tool call %+v", c)
			}
		}
	})
}
