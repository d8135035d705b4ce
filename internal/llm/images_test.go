package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// A user message with an image is content [text, image_url] on the chat
// completions wire and [input_text, input_image] on the Responses wire,
// the bytes in a data: URL.
func TestImagePartsOnBothWires(t *testing.T) {
	t.Parallel()
	req := Request{Model: "m", Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: "sys"},
		{Role: chat.RoleUser, Content: "look", Images: []chat.Image{{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}},
	}}
	const url = "data:image/png;base64,iVBORw=="
	chatBody, err := json.Marshal(toOpenAIRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	want := `"content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"` + url + `"}}]`
	if !strings.Contains(string(chatBody), want) {
		t.Errorf("chat completions body %s\nwant %s", chatBody, want)
	}
	respBody, err := json.Marshal(toResponsesRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	want = `"content":[{"type":"input_text","text":"look"},{"type":"input_image","image_url":"` + url + `"}]`
	if !strings.Contains(string(respBody), want) {
		t.Errorf("responses body %s\nwant %s", respBody, want)
	}
}
