//go:build unix

package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenCapturesModesBackgroundFetchImages writes what the screen
// shows of issue 26's abilities (plan mode, a background command, a
// WebFetch question, an image) to the file CLAWDCODE_SCREEN_CAPTURES
// names, for the closing note; without it the test is skipped. Each
// ability has its own asserting test; this one only shows them.
func TestScreenCapturesModesBackgroundFetchImages(t *testing.T) {
	capture, done := screenCaptures(t)

	// Plan mode: Shift-Tab twice, a Write refused (the plan's hand-over is
	// issue 36's: captures36_test.go).
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreen(t, srv, 100, 24)
	s.waitPrompt()
	s.sendKeys("BTab")
	s.sendKeys("BTab")
	s.waitFor("⏸ plan mode")
	s.keys("write planned.txt hello")
	s.sendKeys("Enter")
	s.waitFor("Tool results:")
	s.waitPrompt()
	capture("plan mode: the Write is refused", s)

	// A background command, listed by /bashes, then killed.
	s.sendKeys("C-d")
	s.waitFor("[exited")
	s = s.again(100, 24, "--dangerously-skip-permissions")
	s.waitPrompt()
	s.keys("bash-bg sleep 30; echo done")
	s.sendKeys("Enter")
	s.waitFor("Started in the background")
	s.waitPrompt()
	s.keys("/bashes")
	s.sendKeys("Enter")
	s.waitFor("running")
	s.waitPrompt()
	s.keys("kill-shell bash_1")
	s.sendKeys("Enter")
	s.waitFor("Tool results:")
	s.waitPrompt()
	s.keys("/bashes")
	s.sendKeys("Enter")
	s.waitFor("killed")
	s.waitPrompt()
	capture("a background command: started, listed, killed, listed again", s)

	// WebFetch asks first.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Changelog</title></head><body><h1>Version 2.0</h1><p>Faster builds.</p></body></html>`)
	}))
	defer site.Close()
	call, _ := json.Marshal(map[string]string{"url": site.URL + "/changes", "prompt": "what is new"})
	srv2 := llmtest.NewServer(t, llmtest.Options{})
	srv2.Enqueue(llmtest.ToolCalls(llmtest.Call("WebFetch", string(call))), llmtest.Text("Version 2.0 makes builds faster."))
	s.sendKeys("C-d")
	s.waitFor("[exited")
	w := startScreen(t, srv2, 100, 24)
	w.waitPrompt()
	w.keys("what changed upstream?")
	w.sendKeys("Enter")
	w.waitFor("Yes, and allow WebFetch(domain:127.0.0.1)")
	capture("WebFetch asks before any request leaves", w)
	w.keys("y")
	w.waitFor("makes builds faster")
	w.waitPrompt()
	capture("WebFetch allowed once: the page as text", w)

	// An image mentioned with @.
	var png1 bytes.Buffer
	if err := png.Encode(&png1, image.NewGray(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	srv3 := llmtest.NewServer(t, llmtest.Options{})
	srv3.Enqueue(llmtest.Text("A small grey square."))
	w.sendKeys("C-d")
	w.waitFor("[exited")
	im := startScreen(t, srv3, 100, 24)
	if err := os.WriteFile(filepath.Join(im.dir, "shot.png"), png1.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	im.waitPrompt()
	im.keys("what is in @shot.png")
	im.sendKeys("Enter")
	im.waitFor("grey square")
	im.waitPrompt()
	capture("an image sent with @shot.png", im)
	if n := len(srv3.LastRequest().Messages); n == 0 {
		t.Fatal("no request")
	}

	done()
}
