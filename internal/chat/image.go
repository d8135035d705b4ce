package chat

import "net/http"

// MaxImageBytes bounds one image sent to the model (the hosted APIs'
// common limit); a larger one is not sent.
const MaxImageBytes = 5 << 20

// imageTypes are the media types sent as image parts, as
// http.DetectContentType names them.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// ImageType is the media type of an image clawdcode sends, sniffed from
// the first bytes of a file (up to 512 are used), not from its name; ok is
// false for anything else.
func ImageType(head []byte) (mediaType string, ok bool) {
	mediaType = http.DetectContentType(head)
	return mediaType, imageTypes[mediaType]
}
