package ctxwindow

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strconv"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// writeShot writes a 1024×1024 PNG of one colour into the project: 765
// tokens at OpenAI's rate (four 512-pixel tiles after scaling to 768).
func writeShot(w *world, name string, shade uint8) {
	w.T.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 1024, 1024))
	for y := range 1024 {
		for x := range 1024 {
			img.Set(x, y, color.RGBA{R: shade, G: 40, B: 90, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		w.T.Fatal(err)
	}
	w.writeFile(name, b.String())
}

// imagesRow is /context's row for the images the messages carry.
var imagesRow = regexp.MustCompile(`(?m)^  images\s+(\d+) tokens`)

// TestImagesCountedBeforeTheServerRejects (issue 35): a session that
// attaches four screenshots a turn — each 765 tokens at OpenAI's
// published rate, which the server counts — shows the images' tokens in
// /context, and compacts before the server ever refuses a request as too
// long (main counted none of them: the second turn's request went over
// the window, and only the server's rejection brought the compaction).
func TestImagesCountedBeforeTheServerRejects(t *testing.T) {
	t.Parallel()
	const window, shots = 8000, 4
	w := newWorld(t, llmtest.Options{Window: window, PromptCache: true})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	compactions := 0
	for i := range 6 {
		prompt := "what changed in these screenshots?"
		for k := range shots {
			name := fmt.Sprintf("shot%d-%d.png", i, k)
			writeShot(w, name, uint8(40*i+k))
			prompt += " @" + name
		}
		args := []string{"-p", prompt, "--context-window", itoa(window)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		obj := w.mustJSON(args...)
		compactions += *obj.Compactions
		if i == 0 {
			out := w.MustRun("-c", "-p", "/context", "--context-window", itoa(window)).Stdout
			m := imagesRow.FindStringSubmatch(out)
			if m == nil {
				t.Errorf("/context shows no images row after %d screenshots:\n%s", shots, out)
			} else if n, _ := strconv.Atoi(m[1]); n < shots*765*9/10 || n > shots*765*11/10 {
				t.Errorf("/context counts %d tokens of images, want about %d × 765", n, shots)
			}
		}
	}
	noRejections(t, w.Server)
	if compactions == 0 {
		t.Errorf("no compaction in 6 turns of %d 765-token screenshots in a %d-token window", shots, window)
	}
}
