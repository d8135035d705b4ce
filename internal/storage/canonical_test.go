package storage

import (
	"testing"
)

func TestParseHeadOnlyOwnEncoding(t *testing.T) {
	t.Parallel()
	own := `{"parentUuid":null,"uuid":"u1","sessionId":"s","timestamp":"2026-11-21T10:00:00Z","type":"user","cwd":"/p","version":"1"}`
	h, ok := ParseHead([]byte(own))
	if !ok || h.UUID != "u1" || h.Type != TypeUser || h.Timestamp.IsZero() {
		t.Fatalf("own encoding: %+v %v", h, ok)
	}
	for name, line := range map[string]string{
		"python spacing":   `{"parentUuid": null, "uuid": "u1", "sessionId": "s", "timestamp": "2026-11-21T10:00:00Z", "type": "user"}`,
		"reordered":        `{"type":"user","parentUuid":null,"uuid":"u1","sessionId":"s","timestamp":"2026-11-21T10:00:00Z"}`,
		"escaped key":      `{"parentUuid":null,"uuid":"u1","sessionId":"s","timestamp":"2026-11-21T10:00:00Z","\u0074ype":"user"}`,
		"escaped value":    `{"parentUuid":null,"uuid":"u1","sessionId":"s","timestamp":"2026-11-21T10:00:00Z","type":"\u0075ser"}`,
		"value runs on":    `{"parentUuid":null,"uuid":"u1","sessionId":"s","timestamp":"2026-11-21T10:00:00Z","type":"user" }`,
		"bad timestamp":    `{"parentUuid":null,"uuid":"u1","sessionId":"s","timestamp":"yesterday","type":"user"}`,
		"cut in the head":  `{"parentUuid":null,"uuid":"u1","sessionId":"s","timest`,
		"parent not plain": `{"parentUuid":"a\"b","uuid":"u1","sessionId":"s","timestamp":"2026-11-21T10:00:00Z","type":"user"}`,
	} {
		if h, ok := ParseHead([]byte(line)); ok {
			t.Errorf("%s: judged by its bytes as %+v; it must be decoded", name, h)
		}
	}
}

func TestWordFindsEverySpelling(t *testing.T) {
	t.Parallel()
	w := newWord(SubtypeCompactBoundary)
	for _, line := range []string{
		`"subtype":"compact_boundary"`,
		`"subtype": "compact_boundary"`,
		`"subtype":"compact\u005fboundary"`,
		`"subtype":"\u0063ompact_boundar\u0079"`,
		`"subtype":"\u0063\u006F\u006d\u0070\u0061\u0063\u0074\u005f\u0062\u006f\u0075\u006e\u0064\u0061\u0072\u0079"`,
	} {
		if !w.mayHold([]byte(line)) {
			t.Errorf("%s: not found", line)
		}
	}
	for _, line := range []string{
		`"subtype":"pin","text":"a \u003c b \u0026 c"`, // json.Marshal's own escapes spell no letter
		`"subtype":"compact"`,
	} {
		if w.mayHold([]byte(line)) {
			t.Errorf("%s: found, but it cannot hold the word", line)
		}
	}
	// Only matches that start before the limit count.
	b := []byte(`xx compact_boundary`)
	if i := w.lastIndexBefore(b, 3); i != -1 {
		t.Errorf("lastIndexBefore(limit 3) = %d, want -1", i)
	}
	if i := w.lastIndexBefore(b, len(b)); i != 3 {
		t.Errorf("lastIndexBefore = %d, want 3", i)
	}
}
