package acp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

func TestPromptContent(t *testing.T) {
	t.Parallel()
	text, images, err := promptContent([]acpsdk.ContentBlock{
		acpsdk.TextBlock("look at"),
		acpsdk.ResourceLinkBlock("shot.png", "file:///home/me/my%20shots/shot.png"),
		acpsdk.ResourceLinkBlock("docs", "https://example.com/docs"),
		acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{TextResourceContents: &acpsdk.TextResourceContents{
			Uri: "file:///p/a.md", Text: "```go\nx\n```\n"}}),
		acpsdk.ImageBlock(base64.StdEncoding.EncodeToString([]byte("img")), "image/png"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "look at\n\n@/home/me/my\\ shots/shot.png\n\ndocs (https://example.com/docs)\n\nAttached /p/a.md:\n````\n```go\nx\n```\n````"
	if text != want {
		t.Errorf("text\n%s\nwant\n%s", text, want)
	}
	if len(images) != 1 || string(images[0].Data) != "img" || images[0].MediaType != "image/png" {
		t.Errorf("images %+v", images)
	}
	if _, _, err := promptContent([]acpsdk.ContentBlock{acpsdk.AudioBlock("AA==", "audio/wav")}); err == nil {
		t.Error("an audio block was taken")
	}
	if _, _, err := promptContent([]acpsdk.ContentBlock{acpsdk.ImageBlock("not base64!", "image/png")}); err == nil {
		t.Error("an image that is not base64 was taken")
	}
}

func TestToolView(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input string
		kind        acpsdk.ToolKind
		title, loc  string
	}{
		{"Read", `{"file_path":"/p/src/a.go","offset":40}`, acpsdk.ToolKindRead, "Read src/a.go", "/p/src/a.go:40"},
		{"edit", `{"file_path":"b.go"}`, acpsdk.ToolKindEdit, "Edit b.go", "/p/b.go"},
		{"Bash", `{"command":"go test ./...\necho done"}`, acpsdk.ToolKindExecute, "go test ./...…", ""},
		{"Grep", `{"pattern":"TODO","path":"internal"}`, acpsdk.ToolKindSearch, "Grep TODO in internal", "/p/internal"},
		{"WebFetch", `{"url":"https://go.dev"}`, acpsdk.ToolKindFetch, "Fetch https://go.dev", ""},
		{"mcp__fs__read", `{}`, acpsdk.ToolKindOther, "mcp__fs__read", ""},
	}
	for _, tt := range tests {
		in := json.RawMessage(tt.input)
		loc := ""
		if l := toolLocations(tt.name, in, "/p"); len(l) == 1 {
			loc = l[0].Path
			if l[0].Line != nil {
				loc += fmt.Sprintf(":%d", *l[0].Line)
			}
		}
		if k, title := toolKind(tt.name), toolTitle(tt.name, in, "/p"); k != tt.kind || title != tt.title || loc != tt.loc {
			t.Errorf("%s %s: kind %q title %q location %q; want %q %q %q", tt.name, tt.input, k, title, loc, tt.kind, tt.title, tt.loc)
		}
	}
}

func TestClipTextKeepsTheEnd(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", maxShownBytes) + "END"
	got := clipText(s)
	if !strings.HasSuffix(got, "END") || !strings.HasPrefix(got, "[") || len(got) > maxShownBytes+64 || !json.Valid([]byte(`"`+strings.ReplaceAll(got, "\n", `\n`)+`"`)) {
		t.Fatalf("clipped to %d bytes: %.80q…", len(got), got)
	}
}
