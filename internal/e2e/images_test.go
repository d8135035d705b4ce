package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// writePNG writes a real small PNG into the project and returns its bytes.
func writePNG(t *testing.T, dir, name string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 200, G: 10, B: 30, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wireImages are the image_url parts of the user messages of a raw
// chat-completions body, checked against the shape the API documents:
// content is an array whose first part is the text, then
// {"type":"image_url","image_url":{"url":"data:image/png;base64,..."}}.
func wireImages(t *testing.T, body []byte) (text string, images [][]byte) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if m.Role != chat.RoleUser || json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		if len(parts) < 2 || parts[0].Type != "text" {
			t.Fatalf("user content parts %s: want a text part, then image parts", m.Content)
		}
		text = parts[0].Text
		for _, p := range parts[1:] {
			data, ok := strings.CutPrefix(p.ImageURL.URL, "data:image/png;base64,")
			if p.Type != "image_url" || !ok {
				t.Fatalf("image part %s: want image_url with a data:image/png;base64 URL", m.Content)
			}
			b, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				t.Fatal(err)
			}
			images = append(images, b)
		}
	}
	return text, images
}

// TestImageMentionInPrint: issue 26. `-p "describe @shot.png"` sends the
// PNG as an image_url part of the user message, byte for byte; the session
// keeps a reference to one stored copy, not the bytes, and a resumed
// session sends the same bytes again.
func TestImageMentionInPrint(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	want := writePNG(t, w.Project, "shot.png")
	w.Server.SetResponder(llmtest.Agent())
	w.MustRun("-p", "describe @shot.png")
	text, got := wireImages(t, w.Server.LastRequest().Body)
	if len(got) != 1 || !bytes.Equal(got[0], want) {
		t.Fatalf("images sent %d, want exactly shot.png", len(got))
	}
	if text != "describe @shot.png" {
		t.Errorf("text part %q", text)
	}

	id, path := w.onlySession()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(base64.StdEncoding.EncodeToString(want))) {
		t.Error("the image's bytes are inline in the session file")
	}
	var ref struct{ Path, SHA256, MediaType string }
	for _, line := range bytes.Split(data, []byte("\n")) {
		var rec struct {
			Message struct {
				Images []json.RawMessage `json:"images"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &rec) == nil && len(rec.Message.Images) == 1 {
			json.Unmarshal(rec.Message.Images[0], &ref)
		}
	}
	if ref.MediaType != "image/png" || !strings.HasPrefix(ref.Path, filepath.Join(w.Home, "images")) {
		t.Fatalf("user record's image reference %+v", ref)
	}
	if fi, err := os.Stat(ref.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stored image %v %v: want a 0600 file", fi, err)
	}

	w.MustRun("-r", id, "-p", "and now?")
	if _, again := wireImages(t, w.Server.LastRequest().Body); len(again) != 1 || !bytes.Equal(again[0], want) {
		t.Fatalf("resumed session sent %d images, want shot.png again", len(again))
	}
}

// TestImageToTextOnlyServer: issue 26. A server that refuses image parts
// gets the request again without the image; the user reads one warning
// line, the run succeeds, and the session stays valid.
func TestImageToTextOnlyServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{NoImages: true})
	writePNG(t, w.Project, "shot.png")
	w.Server.SetResponder(llmtest.Agent())
	r := w.MustRun("-p", "describe @shot.png")
	if n := strings.Count(r.Stderr, "does not accept images"); n != 1 {
		t.Errorf("want one line saying the model does not accept images:\n%s", r)
	}
	last := w.Server.LastRequest()
	if last.Status != 200 || hasImage(last.Messages) {
		t.Errorf("last request: status %d, images %v", last.Status, hasImage(last.Messages))
	}
	if !strings.Contains(last.Messages[len(last.Messages)-1].Content, "not sent") {
		t.Errorf("the model was not told the image was not sent: %q", last.Messages[len(last.Messages)-1].Content)
	}
	id, path := w.onlySession()
	if pf := parseSession(t, path); len(pf.bad) > 0 || pf.tornTail {
		t.Fatalf("session damaged: %+v", pf)
	}
	w.MustRun("-r", id, "-p", "again")
}

func hasImage(msgs []chat.Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// TestReadImageReachesModel: issue 26. Read of a PNG answers "image
// attached" and the image goes to the model as an image part of a user
// message right after the tool results (a tool message carries text only).
func TestReadImageReachesModel(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	want := writePNG(t, w.Project, "shot.png")
	w.Server.SetResponder(llmtest.Agent())
	w.MustRun("-p", "read shot.png")
	msgs := w.Server.LastRequest().Messages
	if len(msgs) < 2 {
		t.Fatalf("messages %+v", msgs)
	}
	tool, user := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if tool.Role != chat.RoleTool || !strings.Contains(tool.Content, "image attached") {
		t.Errorf("Read's result %q: want it to say the image is attached", tool.Content)
	}
	if user.Role != chat.RoleUser || len(user.Images) != 1 || !bytes.Equal(user.Images[0].Data, want) || user.Images[0].MediaType != "image/png" {
		t.Fatalf("message after the tool result: role %s, %d images; want shot.png", user.Role, len(user.Images))
	}
	if _, got := wireImages(t, w.Server.LastRequest().Body); len(got) != 1 {
		t.Errorf("%d image_url parts on the wire, want 1", len(got))
	}
}

// TestImageTooBig: issue 26. An image over 5 MB is not sent; one line says
// so and the message goes on without it.
func TestImageTooBig(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 6<<20)...)
	if err := os.WriteFile(filepath.Join(w.Project, "big.png"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	w.Server.SetResponder(llmtest.Agent())
	r := w.MustRun("-p", "describe @big.png")
	if n := strings.Count(r.Stderr, "big.png is 6 MB, over the 5 MB"); n != 1 {
		t.Errorf("want one line saying the image is too big:\n%s", r)
	}
	if hasImage(w.Server.LastRequest().Messages) {
		t.Error("the image over the limit was sent")
	}
}
