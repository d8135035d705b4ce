package contextmgr

import (
	"fmt"
	"image"
	_ "image/gif" // decoders for image.DecodeConfig: the types chat.ImageType sends
	_ "image/jpeg"
	_ "image/png"
	"os"
	"sync"

	_ "golang.org/x/image/webp"

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

// What an image costs in a request, at the rate OpenAI publishes for its
// vision models (the image_url parts clawdcode sends carry no detail, so
// "auto", which it prices as high detail for any image larger than a
// tile): the image is scaled to fit 2048×2048, then so that its shorter
// side is at most 768, and costs imageBaseTokens plus imageTileTokens for
// each 512×512 tile it then covers. A detail "low" image is the base
// alone. An image whose size cannot be read costs imageUnknownTokens, the
// most the rule charges: counting it high makes a request compact before
// the server would refuse it, never after. Servers that price images
// their own way calibrate the count with their prompt_tokens, as they do
// text.
const (
	imageBaseTokens    = 85
	imageTileTokens    = 170
	imageTile          = 512
	imageFit           = 2048
	imageShortSide     = 768
	imageUnknownTokens = imageBaseTokens + 8*imageTileTokens // 2048×768: 4×2 tiles
)

// ImageTokens is what an image of w×h pixels costs at detail ("low",
// "high" or "auto"/"" as high), at OpenAI's published rate.
func ImageTokens(w, h int, detail string) int {
	if detail == "low" {
		return imageBaseTokens
	}
	if w <= 0 || h <= 0 {
		return imageUnknownTokens
	}
	fw, fh := float64(w), float64(h)
	if long := max(fw, fh); long > imageFit {
		fw, fh = fw*imageFit/long, fh*imageFit/long
	}
	if short := min(fw, fh); short > imageShortSide {
		fw, fh = fw*imageShortSide/short, fh*imageShortSide/short
	}
	tiles := ceilDiv(fw, imageTile) * ceilDiv(fh, imageTile)
	return imageBaseTokens + imageTileTokens*tiles
}

func ceilDiv(x float64, d int) int {
	n := int(x) / d
	if float64(n*d) < x {
		n++
	}
	return n
}

// imageSizes remembers each stored image's cost by its sha256: an image
// never changes under its hash, and a request counts it on every build.
var imageSizes sync.Map // sha256 → int

// imageTokens is what the images r carries cost in a request (0 for none):
// each at its stored file's size (ImageTokens, detail auto), an image
// whose file is gone at nothing — it is not sent (loadImages) — and one
// whose size cannot be read at imageUnknownTokens.
func imageTokens(r *storage.Record) int {
	if r == nil || r.Message == nil || len(r.Message.Images) == 0 {
		return 0
	}
	n := 0
	for _, ref := range r.Message.Images {
		n += storedImageTokens(ref)
	}
	return n
}

func storedImageTokens(ref storage.ImageRef) int {
	if v, ok := imageSizes.Load(ref.SHA256); ok && ref.SHA256 != "" {
		return v.(int)
	}
	f, err := os.Open(ref.Path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := imageUnknownTokens
	if cfg, _, err := image.DecodeConfig(f); err == nil {
		n = ImageTokens(cfg.Width, cfg.Height, "auto")
	}
	if ref.SHA256 != "" {
		imageSizes.Store(ref.SHA256, n)
	}
	return n
}

// imagesIn is what the images the entries es send cost.
func imagesIn(es []*entry) int {
	n := 0
	for _, e := range es {
		n += imageTokens(e.sent())
	}
	return n
}
