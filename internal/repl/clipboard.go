package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// Ctrl-V pastes an image from the system clipboard, as Claude Code does: a
// terminal pastes text only, so the image is read with the clipboard tool
// of the desktop — wl-paste on Wayland, xclip on X11, pngpaste on macOS —
// kept in a file under CLAWDCODE_HOME and attached the way an image file
// is: an @path in the entry, which the engine reads when the message is
// sent (agent's attachImages).

// clipboardTimeout bounds a clipboard tool (one waiting for a selection
// owner that is gone must not hold the entry).
const clipboardTimeout = 5 * time.Second

// clipboardReader is one way to read an image from the clipboard.
type clipboardReader struct {
	tool string
	args []string
	// usable reports whether the session can use it (its display).
	usable func(getenv func(string) string) bool
}

var clipboardReaders = []clipboardReader{
	{tool: "wl-paste", args: []string{"--no-newline", "--type", "image/png"},
		usable: func(getenv func(string) string) bool { return getenv("WAYLAND_DISPLAY") != "" }},
	{tool: "xclip", args: []string{"-selection", "clipboard", "-target", "image/png", "-out"},
		usable: func(getenv func(string) string) bool { return getenv("DISPLAY") != "" }},
	{tool: "pngpaste", args: []string{"-"},
		usable: func(func(string) string) bool { return true }},
}

// errNoClipboardTool is pasteImage's error where no clipboard tool can
// be used: it says what to install.
var errNoClipboardTool = errors.New("no clipboard tool for images: install wl-clipboard or xclip (macOS: pngpaste)")

// pasteImage reads an image from the clipboard into a file in dir and
// returns the entry text that attaches it ("@<path> "). The error says
// what was wrong: no tool, no image in the clipboard, not an image the
// model takes.
func pasteImage(ctx context.Context, dir string, getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	var reader *clipboardReader
	var path string
	for i, r := range clipboardReaders {
		if p, err := lookPath(r.tool); err == nil && r.usable(getenv) {
			reader, path = &clipboardReaders[i], p
			break
		}
	}
	if reader == nil {
		return "", errNoClipboardTool
	}
	ctx, cancel := context.WithTimeout(ctx, clipboardTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, path, reader.args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil || out.Len() == 0 {
		why := strings.TrimSpace(errOut.String())
		if why == "" && err != nil {
			why = err.Error()
		}
		if why == "" {
			why = "it is empty"
		}
		return "", fmt.Errorf("the clipboard holds no image (%s: %s)", reader.tool, firstLineOf(why))
	}
	data := out.Bytes()
	mediaType, ok := chat.ImageType(data)
	if !ok {
		return "", fmt.Errorf("the clipboard holds no image the model takes (PNG, JPEG, GIF or WebP)")
	}
	if len(data) > chat.MaxImageBytes {
		return "", fmt.Errorf("the clipboard's image is %d MB, over the %d MB an image may have", len(data)>>20, chat.MaxImageBytes>>20)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("keep the clipboard's image: %w", err)
	}
	ext := "." + strings.TrimPrefix(mediaType, "image/")
	file := filepath.Join(dir, "clipboard-"+time.Now().Format("20060102-150405.000")+ext)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return "", fmt.Errorf("keep the clipboard's image: %w", err)
	}
	return "@" + strings.ReplaceAll(file, " ", `\ `) + " ", nil
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// pasteClipImage is Ctrl-V: the clipboard's image attached as an @path,
// or a line under the entry saying why not.
func (e *editor) pasteClipImage(key) *readEnd {
	if e.clipImage == nil {
		return nil
	}
	at, err := e.clipImage()
	if err != nil {
		e.hint = err.Error()
		return nil
	}
	e.insert(at)
	return nil
}
