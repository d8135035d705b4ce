package llm

import (
	"bufio"
	"bytes"
	"io"
)

// sseEvent is one server-sent event as both wire APIs use them: the data
// of one "data:" line, with the name the "event:" line before it gave
// ("" = none).
type sseEvent struct {
	name string
	data []byte
}

// sseReader is the one reader of server-sent events under both wire APIs
// (chat completions and Responses). It reads line by line, as the servers
// write (each "data:" line is one event; none of them splits a JSON value
// over several), never assumes an event fits a fixed buffer below
// maxEventBytes, and never reads a line the body did not finish.
//
// Comment lines (": OPENROUTER PROCESSING", ": keep-alive") and the id and
// retry fields are skipped: they are keep-alives, not content, and reset
// nothing. A line that is no SSE field at all is kept in stray (its first
// maxStrayBytes), so that a server that answers a stream request with a
// plain JSON error body is still understood.
type sseReader struct {
	sc    *bufio.Scanner
	name  string // the event: of the event being read
	stray []byte
}

// wholeLines splits a body into lines (without their CR LF or LF) and
// drops what follows the last newline when the body ends: a line without
// its newline is one the connection cut (or the attempt's own timer), and
// half an event must not be read as one.
func wholeLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, bytes.TrimSuffix(data[:i], []byte("\r")), nil
	}
	if atEOF {
		return len(data), nil, nil
	}
	return 0, nil, nil
}

// maxEventBytes bounds one stream event: a whole function call's
// arguments may arrive in one output_item.done.
const maxEventBytes = 64 << 20

// maxStrayBytes bounds what is kept of lines that are no SSE field.
const maxStrayBytes = 64 << 10

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Split(wholeLines)
	sc.Buffer(make([]byte, 8<<10), maxEventBytes) // events are mostly a delta of a few tokens; it grows for a long one
	return &sseReader{sc: sc}
}

// next returns the next event. At the end of the body it returns io.EOF,
// or the read's error (bufio.ErrTooLong for an event over maxEventBytes).
func (r *sseReader) next() (sseEvent, error) {
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(line) == 0 {
			r.name = "" // an event ends at a blank line
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "": // a comment
		case "data":
			return sseEvent{name: r.name, data: bytes.TrimSpace(value)}, nil
		case "event":
			r.name = string(bytes.TrimSpace(value))
		case "id", "retry":
		default:
			if room := maxStrayBytes - len(r.stray); room > 0 {
				r.stray = append(r.stray, line[:min(len(line), room)]...)
				r.stray = append(r.stray, '\n')
			}
		}
	}
	if err := r.sc.Err(); err != nil {
		return sseEvent{}, err
	}
	return sseEvent{}, io.EOF
}
