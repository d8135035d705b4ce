package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

func post(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return resp.StatusCode, b
}

type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func decodeError(t *testing.T, b []byte) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(b, &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not an OpenAI error body: %s", b)
	}
	return e
}

const (
	sys      = `{"role":"system","content":"s"}`
	user     = `{"role":"user","content":"u"}`
	asstText = `{"role":"assistant","content":"a"}`
	asstAB   = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"Read","arguments":"{}"}},{"id":"call_b","type":"function","function":{"name":"Bash","arguments":"{}"}}]}`
	toolA    = `{"role":"tool","tool_call_id":"call_a","content":"ra"}`
	toolB    = `{"role":"tool","tool_call_id":"call_b","content":"rb"}`
)

func body(msgs ...string) string {
	return `{"model":"gpt-4o","messages":[` + strings.Join(msgs, ",") + `]}`
}

func TestValidationRejectsLikeTheRealAPI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		body  string
		msg   string
		param string
	}{
		{"tool first", body(toolA), msgToolWithoutCalls, "messages.[0].role"},
		{"tool after user", body(user, toolA), msgToolWithoutCalls, "messages.[1].role"},
		{"tool after plain assistant", body(user, asstText, toolA), msgToolWithoutCalls, "messages.[2].role"},
		{"tool answered twice", body(user, asstAB, toolA, toolA, toolB), msgToolWithoutCalls, "messages.[3].role"},
		{"unknown tool_call_id", body(user, asstAB, toolA, `{"role":"tool","tool_call_id":"call_x","content":"r"}`), fmt.Sprintf(msgUnknownCallID, "call_x"), "messages.[3].tool_call_id"},
		{"calls unanswered at the end", body(user, asstAB), fmt.Sprintf(msgUnansweredCalls, "call_a, call_b"), "messages.[1].role"},
		{"one call unanswered before user", body(user, asstAB, toolA, user), fmt.Sprintf(msgUnansweredCalls, "call_b"), "messages.[1].role"},
		{"user between the answers", body(user, asstAB, toolA, user, toolB), fmt.Sprintf(msgUnansweredCalls, "call_b"), "messages.[1].role"},
		{"unknown role", body(`{"role":"robot","content":"x"}`), "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", "messages[0].role"},
		{"missing model", `{"messages":[` + user + `]}`, "you must provide a model parameter", ""},
		{"empty model", `{"model":"","messages":[` + user + `]}`, "you must provide a model parameter", ""},
		{"messages empty", body(), "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", "messages"},
		{"messages missing", `{"model":"gpt-4o"}`, "Missing required parameter: 'messages'.", "messages"},
		{"tool content missing", body(user, asstAB, `{"role":"tool","tool_call_id":"call_a"}`, toolB), "Missing required parameter: 'messages.[2].content'.", "messages.[2].content"},
		{"assistant with nothing", body(user, `{"role":"assistant","content":null}`), "Missing required parameter: 'messages.[1].content'.", "messages.[1].content"},
		{"tool call without id", body(user, `{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"Read","arguments":"{}"}}]}`), "Missing required parameter: 'messages.[1].tool_calls.[0].id'.", "messages.[1].tool_calls.[0].id"},
		{"not JSON", `{"model":`, "We could not parse the JSON body of your request.", ""},
	}
	srv := NewServer(t, Options{})
	srv.SetResponder(func(Request) Reply { return Text("unexpectedly accepted") })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, b := post(t, srv.URL(), tt.body)
			if status != http.StatusBadRequest {
				t.Fatalf("status %d (%s), want 400", status, b)
			}
			e := decodeError(t, b)
			if !strings.HasPrefix(e.Error.Message, tt.msg) || e.Error.Type != "invalid_request_error" {
				t.Errorf("message %q type %q, want %q", e.Error.Message, e.Error.Type, tt.msg)
			}
			if got := deref(e.Error.Param); got != tt.param {
				t.Errorf("param %q, want %q", got, tt.param)
			}
		})
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestValidationAcceptsValidHistories(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{RejectConsecutiveUser: true})
	srv.SetResponder(func(Request) Reply { return Text("fine") })
	for _, b := range []string{
		body(user),
		body(sys, user, asstText, user),
		body(sys, user, asstAB, toolA, toolB),
		body(sys, user, asstAB, toolB, toolA, asstText, user),
		body(user, asstAB, toolA, toolB, `{"role":"assistant","content":"again","tool_calls":[{"id":"call_c","type":"function","function":{"name":"Glob","arguments":"{}"}}]}`, `{"role":"tool","tool_call_id":"call_c","content":[{"type":"text","text":"parts"}]}`),
		body(`{"role":"developer","content":"d"}`, user),
	} {
		if status, resp := post(t, srv.URL(), b); status != http.StatusOK {
			t.Errorf("%s\nrejected: %d %s", b, status, resp)
		}
	}
}

func TestValidationConsecutiveUserIsOptIn(t *testing.T) {
	t.Parallel()
	lenient := NewServer(t, Options{})
	lenient.SetResponder(func(Request) Reply { return Text("ok") })
	if status, b := post(t, lenient.URL(), body(user, user)); status != http.StatusOK {
		t.Errorf("two user messages rejected without the option (the real API allows them): %s", b)
	}
	strict := NewServer(t, Options{RejectConsecutiveUser: true})
	strict.SetResponder(func(Request) Reply { return Text("ok") })
	status, b := post(t, strict.URL(), body(sys, user, user))
	if status != http.StatusBadRequest || !strings.Contains(decodeError(t, b).Error.Message, "messages.[2] is a second user message") {
		t.Errorf("strict server: %d %s", status, b)
	}
}

// The wording the server uses must be the real API's, as recorded in the
// fixtures in testdata.
func TestValidationMessagesMatchRecordedBodies(t *testing.T) {
	t.Parallel()
	raw := fixtures.Read(t, "errors", "provider_error_bodies.json")
	var file struct {
		OpenAI []struct {
			Case string          `json:"case"`
			Body json.RawMessage `json:"body"`
		} `json:"openai"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	for _, e := range file.OpenAI {
		var b apiError
		if json.Unmarshal(e.Body, &b) == nil {
			recorded[b.Error.Message] = true
		}
	}
	for _, msg := range []string{
		msgToolWithoutCalls,
		fmt.Sprintf(msgUnansweredCalls, "call_i8vT76kQ8XOpe9ErYaTYRRxV"),
		overflowMessage(4097, 4294, 0),
	} {
		if !recorded[msg] {
			t.Errorf("%q is not a recorded OpenAI message", msg)
		}
	}
}

func overflowMessage(window, tokens, completion int) string {
	var e apiError
	_ = json.Unmarshal([]byte(overflowBody(window, tokens, completion)), &e)
	return e.Error.Message
}
