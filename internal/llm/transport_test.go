package llm

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readEvents reads every event of in, "name|data" each.
func readEvents(t testing.TB, in string, oneByte bool) ([]string, string) {
	var r io.Reader = strings.NewReader(in)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	sr := newSSEReader(r)
	var got []string
	for {
		ev, err := sr.next()
		if errors.Is(err, io.EOF) {
			return got, string(sr.stray)
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		got = append(got, ev.name+"|"+string(ev.data))
	}
}

func TestSSEReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []string
		stray    string
	}{
		{"openrouter keep-alives", ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: {\"a\":1}\n\n: OPENROUTER PROCESSING\n\n\n\ndata: [DONE]\n\n",
			[]string{`|{"a":1}`, "|[DONE]"}, ""},
		{"crlf", ": ping\r\n\r\ndata: x\r\n\r\n", []string{"|x"}, ""},
		{"named events, the name ends with the event", "event: ping\ndata: {}\n\ndata: y\n\n", []string{"ping|{}", "|y"}, ""},
		{"no space after the colon", "data:{\"a\":1}\n", []string{`|{"a":1}`}, ""},
		{"colon inside a data line is kept", "data: {\"k\":\": not a comment\"}\n", []string{`|{"k":": not a comment"}`}, ""},
		{"id and retry are no events", "id: 7\nretry: 100\ndata: z\n\n", []string{"|z"}, ""},
		{"plain json error body is stray", "{\n  \"error\": {\"message\": \"boom\"}\n}\n", nil, "{\n  \"error\": {\"message\": \"boom\"}\n}\n"},
		{"unterminated last line", "data: x\n: trailing comment", []string{"|x"}, ""},
		{"a line cut before its newline is no event", "data: x\ndata: {\"cut\": nu", []string{"|x"}, ""},
		{"long line", "data: " + strings.Repeat("y", 100000) + "\n", []string{"|" + strings.Repeat("y", 100000)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, oneByte := range []bool{false, true} {
				got, stray := readEvents(t, tt.in, oneByte)
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || stray != tt.stray {
					t.Errorf("oneByte=%v: got %q (stray %q), want %q (stray %q)", oneByte, got, stray, tt.want, tt.stray)
				}
			}
		})
	}
}

func TestSSEReaderPassesReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	sr := newSSEReader(io.MultiReader(strings.NewReader("data: x\n"), iotest.ErrReader(boom)))
	ev, err := sr.next()
	if err != nil || string(ev.data) != "x" {
		t.Fatalf("first event %q, %v", ev.data, err)
	}
	if _, err := sr.next(); !errors.Is(err, boom) {
		t.Errorf("got %v; want the read's error", err)
	}
}

// FuzzSSEReader: any input reads to its end without a panic, and every
// event's data is the trimmed rest of a "data:" line of the input.
func FuzzSSEReader(f *testing.F) {
	f.Add(": c\n\ndata: x\r\n\r\n:\n", false)
	f.Add("data: [DONE]\n\n", true)
	f.Fuzz(func(t *testing.T, in string, oneByte bool) {
		got, _ := readEvents(t, in, oneByte)
		for _, g := range got {
			_, data, _ := strings.Cut(g, "|")
			if !strings.Contains(in, data) {
				t.Fatalf("event data %q is not in the input %q", data, in)
			}
		}
	})
}
