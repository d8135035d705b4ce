package llm

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// filterReference is the SSE filter's contract written the slow way: per
// line, leading CRs dropped, then ":" comment lines dropped, and a blank
// line kept only right after a line that was kept and not blank.
func filterReference(in string) string {
	var out strings.Builder
	lastBlank := true
	for _, line := range strings.SplitAfter(in, "\n") {
		line = strings.TrimLeft(line, "\r")
		switch {
		case line == "" || strings.HasPrefix(line, ":"):
		case line == "\n":
			if !lastBlank {
				out.WriteString(line)
				lastBlank = true
			}
		default:
			out.WriteString(line)
			lastBlank = false
		}
	}
	return out.String()
}

func readFiltered(t testing.TB, in string, oneByte bool) string {
	var r io.Reader = strings.NewReader(in)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	touched := 0
	f := newSSEFilter(io.NopCloser(r), &attemptState{touch: func() { touched++ }})
	var got bytes.Buffer
	buf := make([]byte, 7) // small reads exercise the resumable state
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
	}
	if len(in) > 0 && touched == 0 {
		t.Fatal("the idle heartbeat was never called")
	}
	return got.String()
}

func TestSSEFilter(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"openrouter keep-alives", ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: {\"a\":1}\n\n: OPENROUTER PROCESSING\n\n\n\ndata: [DONE]\n\n", "data: {\"a\":1}\n\ndata: [DONE]\n\n"},
		{"crlf", ": ping\r\n\r\ndata: x\r\n\r\n", "data: x\r\n\n"},
		{"colon inside a data line is kept", "data: {\"k\":\": not a comment\"}\n", "data: {\"k\":\": not a comment\"}\n"},
		{"plain json error body passes", "{\n  \"error\": {\"message\": \"boom\"}\n}\n", "{\n  \"error\": {\"message\": \"boom\"}\n}\n"},
		{"unterminated last line", "data: x\n: trailing comment", "data: x\n"},
		{"long line", "data: " + strings.Repeat("y", 100000) + "\n", "data: " + strings.Repeat("y", 100000) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, oneByte := range []bool{false, true} {
				if got := readFiltered(t, tt.in, oneByte); got != tt.want {
					t.Errorf("oneByte=%v: got %q, want %q", oneByte, got, tt.want)
				}
			}
			if ref := filterReference(tt.in); ref != tt.want {
				t.Errorf("reference disagrees with the table: %q", ref)
			}
		})
	}
}

func TestSSEFilterPassesReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	f := newSSEFilter(io.NopCloser(io.MultiReader(strings.NewReader("data: x\n"), iotest.ErrReader(boom))), &attemptState{touch: func() {}})
	got, err := io.ReadAll(f)
	if string(got) != "data: x\n" || !errors.Is(err, boom) {
		t.Errorf("got %q, %v; want the data then the error", got, err)
	}
}

// FuzzSSEFilter checks the streaming filter against the line-by-line
// reference for any input and any read sizes.
func FuzzSSEFilter(f *testing.F) {
	f.Add(": c\n\ndata: x\r\n\r\n:\n", false)
	f.Add("data: [DONE]\n\n", true)
	f.Fuzz(func(t *testing.T, in string, oneByte bool) {
		if got, want := readFiltered(t, in, oneByte), filterReference(in); got != want {
			t.Fatalf("filter(%q) = %q, want %q", in, got, want)
		}
	})
}
