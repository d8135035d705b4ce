package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig's decoders for the types clawdcode sends
	_ "image/jpeg"
	_ "image/png"
	"math"
	"net/http"
	"strings"

	_ "golang.org/x/image/webp"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// msgNoImages is OpenAI's answer to an image part sent to a model that
// takes text only.
const msgNoImages = "Invalid content type. image_url is only supported by certain models."

// contentImages decodes the image_url parts of a content array: each URL
// must be a data:<image type>;base64,<bytes> URL (the only form clawdcode
// sends), else the request is rejected as OpenAI rejects a bad image URL.
func contentImages(raw json.RawMessage) ([]chat.Image, error) {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL *struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		} `json:"image_url"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil, nil
	}
	var out []chat.Image
	for _, p := range parts {
		if p.Type != "image_url" {
			continue
		}
		if p.ImageURL == nil {
			return nil, fmt.Errorf("image_url part without image_url")
		}
		img, err := decodeDataURL(p.ImageURL.URL)
		if err != nil {
			return nil, err
		}
		out = append(out, img)
	}
	return out, nil
}

func decodeDataURL(u string) (chat.Image, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	meta, data, ok2 := strings.Cut(rest, ",")
	mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !ok2 || !isBase64 || !strings.HasPrefix(mediaType, "image/") {
		return chat.Image{}, fmt.Errorf("invalid image URL: not a base64 data URL of an image")
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return chat.Image{}, fmt.Errorf("invalid image URL: %w", err)
	}
	return chat.Image{MediaType: mediaType, Data: b}, nil
}

// checkImages rejects what a server rejects of images: a malformed image
// URL always, any image when opts.NoImages (a text-only model).
func checkImages(req *Request, opts Options) (status int, body, msg string) {
	for i, m := range req.Messages {
		if len(m.Images) > 0 && opts.NoImages {
			param := fmt.Sprintf("messages.[%d].content.[1].type", i)
			return http.StatusBadRequest, errorBody(msgNoImages, "invalid_request_error", param, ""), msgNoImages
		}
	}
	return 0, "", ""
}

// responsesContent maps a Responses message's content parts onto chat
// parts (input_text → text, input_image → image_url); a string stays.
func responsesContent(raw json.RawMessage) json.RawMessage {
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return raw
	}
	out := make([]map[string]any, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case "input_image":
			out = append(out, map[string]any{"type": "image_url", "image_url": map[string]any{"url": p.ImageURL}})
		default:
			out = append(out, map[string]any{"type": "text", "text": p.Text})
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// ImageTokens is what OpenAI charges for an image of w×h pixels at high
// detail, as its vision guide publishes it: scaled to fit 2048×2048, then
// to a shorter side of at most 768, 85 tokens plus 170 for each 512×512
// tile it covers. OpenAITokens counts every image part so; one whose size
// cannot be read counts as the largest (2048×768: 1,445 tokens).
func ImageTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return 85 + 170*8
	}
	fw, fh := float64(w), float64(h)
	if long := math.Max(fw, fh); long > 2048 {
		fw, fh = fw*2048/long, fh*2048/long
	}
	if short := math.Min(fw, fh); short > 768 {
		fw, fh = fw*768/short, fh*768/short
	}
	return 85 + 170*int(math.Ceil(fw/512))*int(math.Ceil(fh/512))
}

// imagePartTokens is ImageTokens of an image part's bytes.
func imagePartTokens(img chat.Image) int {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return ImageTokens(0, 0)
	}
	return ImageTokens(cfg.Width, cfg.Height)
}
