package acp_test

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The editor is offered the commands that make sense there, the project's
// custom ones included; a prompt starting with /name runs it as the REPL
// would: a custom command's prompt goes to the model, a built-in one
// answers itself, one that would leave the session says why it cannot.
func TestSlashCommandsInTheEditor(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	writeFile(t, filepath.Join(w.Project, ".clawdcode", "commands", "review.md"), "---\ndescription: review a file\n---\nReview $ARGUMENTS carefully.\n")
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId
	cmds := e.commandsOffered(sid)
	if review, ok := cmds["review"]; !ok || !strings.HasPrefix(review.Description, "review a file") {
		t.Fatalf("the custom command is offered as %+v", review)
	}
	// Issue 36's commands that make sense in an editor are offered too.
	for _, want := range []string{"skills", "doctor", "add-dir", "bashes", "agents"} {
		if _, ok := cmds[want]; !ok {
			t.Errorf("/%s is not offered to the editor", want)
		}
	}

	w.Server.Enqueue(llmtest.Text("looks fine"))
	e.prompt(sid, "/review main.go")
	msgs := w.Server.LastRequest().Messages
	if got := msgs[len(msgs)-1].Content; !strings.HasPrefix(got, "Review main.go carefully.") {
		t.Fatalf("the model got %q for /review main.go", got)
	}
	requests := len(w.Server.Requests())
	for _, c := range []struct{ line, want string }{
		{"/cost", "Tokens used in this session"},
		{"/skills", "No skills offered."},
		{"/doctor", "✓ store"},
		{"/new", "/new is not available in an editor"},
		{"/compcat", "unknown command /compcat"},
	} {
		from := e.mark()
		if resp := e.prompt(sid, c.line); resp.StopReason != acpsdk.StopReasonEndTurn {
			t.Fatalf("%s ended %q", c.line, resp.StopReason)
		}
		if text, _ := agentText(e.since(sid, from)); !strings.Contains(text, c.want) {
			t.Errorf("%s answered %q, want %q in it", c.line, text, c.want)
		}
	}
	if n := len(w.Server.Requests()); n != requests {
		t.Fatalf("the built-in commands made %d model calls", n-requests)
	}
}

// A prompt's image block goes to the model as an image; an embedded
// resource (the editor's selection or file) as quoted text.
func TestImageAndEmbeddedContextPrompts(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	w.Server.Enqueue(llmtest.Text("a tiny image and some code"))
	_, err := e.conn.Prompt(e.ctx(), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{
		acpsdk.TextBlock("what are these?"),
		acpsdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png"),
		acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{TextResourceContents: &acpsdk.TextResourceContents{
			Uri: "file://" + filepath.Join(w.Project, "util.go"), Text: "func add(a, b int) int { return a + b }\n"}}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := w.Server.LastRequest().Messages
	user := msgs[len(msgs)-1]
	if len(user.Images) != 1 || string(user.Images[0].Data) != string(png) {
		t.Fatalf("the model got %d images", len(user.Images))
	}
	if !strings.Contains(user.Content, "what are these?") || !strings.Contains(user.Content, "func add(a, b int) int") ||
		!strings.Contains(user.Content, filepath.Join(w.Project, "util.go")) {
		t.Fatalf("the model got %q", user.Content)
	}
}
