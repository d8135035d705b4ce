package importer

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// A source line is decoded by the JSON v2 decoder (go-json-experiment,
// the Go team's prototype of encoding/json/v2): it reads the line once,
// where encoding/json reads it twice (a validating scan, then the decode)
// and a content value that chooses its own type (ccContent) twice more.
// Decoding is most of an import's CPU; this halves it.
//
// decodeOptions make it read a line as encoding/json does: a field name
// matches whatever its case (but not with its '_' or '-' left out), a
// name given twice is taken (the last wins), invalid UTF-8 in a string
// becomes U+FFFD and a time is read as loosely as time.Time's own
// UnmarshalJSON does (a one-digit hour), where v2 would reject the line. TestDecodeLikeEncodingJSON holds the two to the same result.
var decodeOptions = jsonv2.JoinOptions(
	jsonv2.MatchCaseInsensitiveNames(true),
	jsonv1.MatchCaseSensitiveDelimiter(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
	jsonv1.ParseTimeWithLooseRFC3339(true),
)

// decodeLine decodes one source line into v.
func decodeLine(raw []byte, v any) error {
	return jsonv2.Unmarshal(raw, v, decodeOptions)
}
