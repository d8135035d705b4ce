package importer

import "github.com/clawdcode/clawdcode/internal/storage"

// A source line is decoded by storage.DecodeLine, encoding/json's result
// at the JSON v2 decoder's speed: decoding is most of an import's CPU, and
// a content value that chooses its own type (ccContent) is read once, not
// three times. TestDecodeLikeEncodingJSON holds it to encoding/json on the
// importer's own types.

// decodeLine decodes one source line into v.
func decodeLine(raw []byte, v any) error {
	return storage.DecodeLine(raw, v)
}
