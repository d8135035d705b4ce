package storage

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

// bytesText is a large text held in memory, as JSON writes it in a string.
type bytesText struct{ enc []byte }

func (b bytesText) EncodedLen() (int, error)                 { return len(b.enc), nil }
func (b bytesText) AppendEncoded(dst []byte) ([]byte, error) { return append(dst, b.enc...), nil }

type textsByKey map[string]LargeText

func (m textsByKey) LargeText(key string) (LargeText, bool) { t, ok := m[key]; return t, ok }

// TestAppendWritesLargeTextsInPlace: a reference is replaced by its text
// wherever it stands in a string, a reference's text quoted in a string is
// left as it is, the redactor sees the texts, and the offsets returned are
// those of the lines as written.
func TestAppendWritesLargeTextsInPlace(t *testing.T) {
	t.Parallel()
	const secret = "sk-large-test-0123456789abcdef"
	sess := redactingSession(t, secret)
	enc, _ := json.Marshal("a \"big\"\n text quoting " + secret + " <&>")
	texts := textsByKey{"k1": bytesText{enc[1 : len(enc)-1]}}
	quoted := `\u0000clawdcode-large:k1` + "\x00" // a reference's text, as text, and a NUL
	recs := []*Record{
		{Type: TypeUser, Message: &Message{Role: "user", Content: "cat it"}},
		{Type: TypeToolResult, ToolResult: &ToolResult{ID: "t1", Output: "head " + LargeRef("k1") + " tail"}, Large: texts},
		{Type: TypeAssistant, Message: &Message{Role: "assistant", Content: quoted}, Large: texts},
	}
	offs, err := sess.AppendBatch(recs...)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sess.Path())
	if err != nil {
		t.Fatal(err)
	}
	var got []*Record
	err = ReadAll(context.Background(), sess.Path(), func(off int64, r *Record) error {
		if i := len(got); i < len(offs) && off != offs[i] {
			t.Errorf("record %d is at %d; AppendBatch said %d", i, off, offs[i])
		}
		got = append(got, r)
		return nil
	}, func(w string) { t.Error(w) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d records read back:\n%s", len(got), data)
	}
	if want := "head a \"big\"\n text quoting [REDACTED] <&> tail"; got[1].ToolResult.Output != want {
		t.Errorf("output %q, want %q", got[1].ToolResult.Output, want)
	}
	if got[2].Message.Content != quoted {
		t.Errorf("a reference's text quoted in a string became %q", got[2].Message.Content)
	}
}
