//go:build unix

package repl

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// startScreenWith is startScreen with more environment (after the
// defaults: a later variable wins) and a home prepared by prepare (its
// project and CLAWDCODE_HOME; nil: nothing).
func startScreenWith(t *testing.T, srv *llmtest.Server, width, height int, env []string, prepare func(project, home string), args ...string) *tmuxScreen {
	t.Helper()
	needTmux(t)
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{project, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if prepare != nil {
		prepare(project, home)
	}
	s := &tmuxScreen{t: t, dir: project, env: append([]string{
		"HOME=" + tmp,
		"CLAWDCODE_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(),
	}, env...)}
	s.start(width, height, args...)
	return s
}

// logScreen logs what the screen shows, for the lead's record of the
// issue's items.
func logScreen(t *testing.T, what string, s *tmuxScreen) {
	t.Helper()
	t.Logf("%s:\n%s", what, s.screen())
}

// fakeClipboard writes an xclip that prints a PNG, and returns the
// directory to put first on PATH.
func fakeClipboard(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	pngPath := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(pngPath, img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase \"$*\" in *image/png*) exec cat " + shellQuote(pngPath) + ";; esac\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestScreenClipboardImage: issue 36 item 5. Ctrl-V attaches the image
// the clipboard holds (read with xclip under X11), as a dropped image
// file is attached; without a clipboard tool it says so under the entry.
func TestScreenClipboardImage(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("A small black square."))
	bin := fakeClipboard(t)
	s := startScreenWith(t, srv, 100, 20, []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "DISPLAY=:99"}, nil)
	s.waitPrompt()
	s.keys("what is this? ")
	s.sendKeys("C-v")
	s.waitFor("clipboard-")
	s.sendKeys("Enter")
	s.waitFor("A small black square.")
	logScreen(t, "Ctrl-V with an image in the clipboard", s)
	body := string(srv.LastRequest().Body)
	if !strings.Contains(body, "data:image/png;base64,") {
		t.Fatalf("the request carries no image: %.300s", body)
	}
	if !strings.Contains(s.screen(), "attached image") {
		t.Fatalf("no attached line:\n%s", s.screen())
	}

	// No clipboard tool at all: one clear line, the entry unchanged.
	empty := t.TempDir()
	srv2 := llmtest.NewServer(t, llmtest.Options{})
	n := startScreenWith(t, srv2, 100, 20, []string{"PATH=" + empty + ":/usr/bin:/bin", "DISPLAY=", "WAYLAND_DISPLAY="}, nil)
	n.waitPrompt()
	n.keys("look")
	n.sendKeys("C-v")
	n.waitFor("no clipboard tool for images: install wl-clipboard or xclip (macOS: pngpaste)")
	logScreen(t, "Ctrl-V without a clipboard tool", n)
}
