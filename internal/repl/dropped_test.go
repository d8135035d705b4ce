package repl

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// A file dropped into the terminal (a bracketed paste of its quoted path)
// becomes an @path attachment, and the image reaches the server.
func TestScreenDroppedImageIsAttached(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("a red dot"))
	s := startScreen(t, srv, 120, 30)
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.dir, "my shot.png")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	s.paste("'" + path + "' ")
	s.waitFor(`my\ shot.png`)
	s.keys("what is this")
	s.sendKeys("Enter")
	s.waitFor("a red dot")
	msgs := srv.LastRequest().Messages
	last := msgs[len(msgs)-1]
	if len(last.Images) != 1 || !bytes.Equal(last.Images[0].Data, b.Bytes()) {
		t.Fatalf("the dropped image was not sent: user message %q with %d images", last.Content, len(last.Images))
	}
}

func TestDroppedImage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "a b.png")
	text := filepath.Join(dir, "notes.png") // named like an image, is not one
	if err := os.WriteFile(img, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "@" + filepath.Join(dir, `a\ b.png`) + " "
	for _, tc := range []struct {
		paste string
		ok    bool
	}{
		{"'" + img + "'", true},
		{`"` + img + `"`, true},
		{filepath.Join(dir, `a\ b.png`) + " ", true},
		{"file://" + filepath.Join(dir, "a%20b.png"), true},
		{text, false},
		{img + "\n" + img, false},
		{"look at " + img, false},
		{"a b.png", false},
	} {
		got, ok := droppedImage(tc.paste)
		if ok != tc.ok || (ok && got != want) {
			t.Errorf("droppedImage(%q) = %q, %v; want ok %v", tc.paste, got, ok, tc.ok)
		}
	}
}
