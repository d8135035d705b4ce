package contextmgr

import (
	"fmt"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// loadImages reads the images a user message refers to. An image that can
// no longer be read (its file removed, changed) is not sent: a line saying
// so is added to the text instead, so a resumed session stays sendable.
func loadImages(refs []storage.ImageRef, text string) ([]chat.Image, string) {
	if len(refs) == 0 {
		return nil, text
	}
	out := make([]chat.Image, 0, len(refs))
	for _, ref := range refs {
		data, err := storage.LoadImage(ref)
		if err != nil {
			text += fmt.Sprintf("\n\n[an image attached here is no longer available: %v]", err)
			continue
		}
		out = append(out, chat.Image{MediaType: ref.MediaType, Data: data})
	}
	return out, text
}
