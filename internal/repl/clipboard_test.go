package repl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPasteImageChoosesTheDisplaysTool: the tool of the display in use,
// and a clear error when none can be used.
func TestPasteImageChoosesTheDisplaysTool(t *testing.T) {
	t.Parallel()
	none := func(string) (string, error) { return "", errors.New("not found") }
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if _, err := pasteImage(context.Background(), t.TempDir(), env(nil), none); !errors.Is(err, errNoClipboardTool) {
		t.Fatalf("no tool: %v", err)
	}
	// xclip installed but no X display: not usable.
	onlyXclip := func(name string) (string, error) {
		if name == "xclip" {
			return "/usr/bin/xclip", nil
		}
		return "", errors.New("not found")
	}
	if _, err := pasteImage(context.Background(), t.TempDir(), env(map[string]string{"WAYLAND_DISPLAY": "wayland-0"}), onlyXclip); !errors.Is(err, errNoClipboardTool) {
		t.Fatalf("xclip without DISPLAY: %v", err)
	}
	// A tool that prints text, not an image.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "wl-paste"), []byte("#!/bin/sh\necho hello\n"), 0o755)
	look := func(name string) (string, error) {
		if name == "wl-paste" {
			return filepath.Join(dir, name), nil
		}
		return "", errors.New("not found")
	}
	_, err := pasteImage(context.Background(), t.TempDir(), env(map[string]string{"WAYLAND_DISPLAY": "wayland-0"}), look)
	if err == nil || !strings.Contains(err.Error(), "no image the model takes") {
		t.Fatalf("text in the clipboard: %v", err)
	}
}
