package llm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

func TestStreamRecordedFixtures(t *testing.T) {
	t.Parallel()
	const weatherText = "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app."
	tests := []struct {
		fixture  string
		withDone bool
		want     Response
		deltas   []string // nil = don't check the pieces, only their sum
	}{
		{
			fixture: "openai_stream_single_tool_call_get_weather_nyc.sse",
			want: Response{
				ToolCalls:    []chat.ToolCall{{ID: "call_4XzlGBLtUe9dy3GVNV4jhq7h", Name: "get_weather", Arguments: `{"city":"New York City"}`}},
				FinishReason: "tool_calls", Model: "gpt-4o-2024-08-06",
				Usage: Usage{PromptTokens: 44, CompletionTokens: 16},
			},
		},
		{
			fixture: "openai_stream_parallel_tool_calls_weather_and_stock.sse",
			want: Response{
				ToolCalls: []chat.ToolCall{
					{ID: "call_JMW1whyEaYG438VE1OIflxA2", Name: "GetWeatherArgs", Arguments: `{"city": "Edinburgh", "country": "GB", "units": "c"}`},
					{ID: "call_DNYTawLBoN8fj3KN6qU9N1Ou", Name: "get_stock_price", Arguments: `{"ticker": "AAPL", "exchange": "NASDAQ"}`},
				},
				FinishReason: "tool_calls", Model: "gpt-4o-2024-08-06",
				Usage: Usage{PromptTokens: 149, CompletionTokens: 60},
			},
		},
		{
			fixture: "openai_stream_strict_tool_call_sf.sse",
			want: Response{
				ToolCalls:    []chat.ToolCall{{ID: "call_CTf1nWJLqSeRgDqaCG27xZ74", Name: "get_weather", Arguments: `{"city":"San Francisco","state":"CA"}`}},
				FinishReason: "tool_calls", Model: "gpt-4o-2024-08-06",
				Usage: Usage{PromptTokens: 48, CompletionTokens: 19},
			},
		},
		{
			fixture: "openai_stream_text_only_with_usage.sse",
			want: Response{
				Content: weatherText, FinishReason: "stop", Model: "gpt-4o-2024-08-06",
				Usage: Usage{PromptTokens: 14, CompletionTokens: 30},
			},
			deltas: strings.SplitAfter("I'm| unable| to| provide| real|-time| weather| updates|.| To| get| the| current| weather| in| San| Francisco|,| I| recommend| checking| a| reliable| weather| website| or| a| weather| app|.", "|"),
		},
		{
			fixture:  "xai_grok3mini_tool_call_tail_excerpt.jsonl",
			withDone: true,
			want: Response{
				ToolCalls:    []chat.ToolCall{{ID: "call_79382389", Name: "weather", Arguments: `{"location":"San Francisco"}`}},
				FinishReason: "tool_calls", Model: "grok-3-mini",
				Usage: Usage{PromptTokens: 307, CompletionTokens: 26, CachedTokens: 306},
			},
		},
		{
			// The excerpt has no [DONE]: a finished reply whose stream then
			// simply ends is still complete.
			fixture: "xai_grok3mini_tool_call_tail_excerpt.jsonl",
			want: Response{
				ToolCalls:    []chat.ToolCall{{ID: "call_79382389", Name: "weather", Arguments: `{"location":"San Francisco"}`}},
				FinishReason: "tool_calls", Model: "grok-3-mini",
				Usage: Usage{PromptTokens: 307, CompletionTokens: 26, CachedTokens: 306},
			},
		},
		{
			fixture:  "vercel_issue20203_empty_tool_calls_array.jsonl",
			withDone: true,
			want:     Response{Content: "Hello", FinishReason: "stop", Model: "test-model"},
			deltas:   []string{"Hello"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			srv := newRawServer(t, readFixtureStream(t, tt.fixture, tt.withDone))
			c, _ := newTestClient(t, srv.URL)
			var deltas []string
			got, err := c.Stream(context.Background(), userRequest("hi"), func(d Delta) {
				if d.Reasoning == "" { // a reasoning delta carries no text
					deltas = append(deltas, d.Content)
				}
			})
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("response\n got %+v\nwant %+v", *got, tt.want)
			}
			if strings.Join(deltas, "") != tt.want.Content {
				t.Errorf("deltas joined = %q, want the content %q", strings.Join(deltas, ""), tt.want.Content)
			}
			if tt.deltas != nil {
				want := make([]string, len(tt.deltas))
				for i, d := range tt.deltas {
					want[i] = strings.TrimSuffix(d, "|")
				}
				if !reflect.DeepEqual(deltas, want) {
					t.Errorf("deltas = %q, want each piece as it arrived %q", deltas, want)
				}
			}
		})
	}
}

func TestStreamMidStreamErrorFixtureIsRetriedServerError(t *testing.T) {
	t.Parallel()
	srv := newRawServer(t, readFixtureStream(t, "go-openai_midstream_error.sse", false))
	c, sleeps := newTestClient(t, srv.URL)
	resp, err := c.Stream(context.Background(), userRequest("hi"), nil)
	if resp != nil {
		t.Fatalf("got a Response %+v for a failed stream", resp)
	}
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if le.Kind != KindServer || le.Attempts != 4 || len(srv.requests()) != 4 || len(sleeps.recorded()) != 3 {
		t.Errorf("kind %v after %d attempts (%d requests, %d sleeps), want server error retried 4 times",
			le.Kind, le.Attempts, len(srv.requests()), len(sleeps.recorded()))
	}
	if !strings.Contains(le.Error(), "The server had an error while processing your request") {
		t.Errorf("message %q does not carry the server's words", le.Error())
	}
}
