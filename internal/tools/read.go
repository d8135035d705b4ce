package tools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/clawdcode/clawdcode/internal/chat"
	"hash"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const (
	readDefaultLimit = 2000
	readMaxLineBytes = 2000
	// readPageBudget bounds one Read's output (~25k tokens). Read stops at a
	// line boundary and names the offset to continue from, which serves the
	// model better than a head+tail cut through the middle of a file.
	readPageBudget = 100_000
	// binarySniff is how much of a file is checked for NUL bytes.
	binarySniff = 8000
)

// readParams are Read's parameters (see params.go).
type readParams struct {
	FilePath string `json:"file_path" param:"text" jsonschema:"Path of the file to read, absolute or relative to the project root."`
	Offset   int    `json:"offset,omitempty" param:"min=1" jsonschema:"1-based line number to start reading at. Only needed for files too long to read at once."`
	Limit    int    `json:"limit,omitempty" param:"min=1" jsonschema:"Maximum number of lines to read (default 2000)."`
}

func newReadTool(env *Env) *tool {
	return typed(&tool{
		name: NameRead,
		description: "Read a text file from the local filesystem. Lines are numbered like `cat -n` " +
			"(line number, a tab, then the line); the numbers are not part of the file. " +
			"By default up to 2000 lines from the start; for long files pass offset (1-based line to start at) " +
			"and limit (number of lines). Lines longer than 2000 bytes are truncated. " +
			"Binary files and directories cannot be read (use Glob or Bash `ls` for directories). " +
			"A file must be read before it can be edited with Edit.",
	}, env.runRead, func(p readParams) string { return env.describePath(p.FilePath) })
}

// readRange checks a Read's offset and limit and fills in their defaults.
func readRange(rp readParams) (offset, limit int, res Result, ok bool) {
	switch {
	case rp.Offset < 0:
		return 0, 0, fail("invalid arguments: offset must be a 1-based line number, got %d", rp.Offset), false
	case rp.Limit < 0:
		return 0, 0, fail("invalid arguments: limit must be positive, got %d", rp.Limit), false
	}
	// 0 is what a model means by "from the start" when it counts from zero.
	offset, limit = max(rp.Offset, 1), rp.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	return offset, limit, Result{}, true
}

// describePath is how a call names its file: as the transcript shows paths.
func (e *Env) describePath(p string) string {
	if p == "" {
		return ""
	}
	return e.display(e.resolve(p))
}

func (e *Env) runRead(ctx context.Context, rp readParams) Result {
	p := rp.FilePath
	offset, limit, res, ok := readRange(rp)
	if !ok {
		return res
	}

	path := e.resolve(p)
	shown := e.display(path)
	f, info, res, ok := openRegular(path, shown)
	if !ok {
		return res
	}
	defer f.Close()
	// A size of 0 is not proof of emptiness: /proc and /sys files report 0
	// and have content. Such a file is read like any other and only its
	// first page; with no size to trust, it is neither hashed nor counted.
	sizeKnown := info.Size() > 0

	var sum hash.Hash
	var src io.Reader = f
	if sizeKnown && info.Size() <= hashLimit {
		sum = sha256.New()
		src = io.TeeReader(f, sum)
	}
	br := bufio.NewReaderSize(src, 64<<10)
	head, _ := br.Peek(binarySniff)
	if len(head) == 0 {
		e.remember(path, info, []byte{})
		return Result{Output: fmt.Sprintf("(%s exists but is empty)", shown)}
	}
	if mediaType, ok := chat.ImageType(head); ok {
		return readImage(br, shown, mediaType, info.Size())
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return fail("cannot read %s: it is a binary file (%d bytes); Read shows text files only", shown, info.Size())
	}
	if r := e.editorReader(info.Size()); r != nil && sizeKnown {
		return e.readEditorPage(ctx, r, path, shown, info, offset, limit)
	}

	// Numbering adds about 8 bytes a line; ~40-byte lines is a fair guess.
	sizeHint := int(min(info.Size()+info.Size()/5, readPageBudget+readPageBudget/8))
	page, last, consumed, more, err := readPage(ctx, br, offset, limit, sizeHint)
	if err != nil {
		return fail("read %s: %v", shown, err)
	}
	total := -1 // unknown unless the rest is read for the hash anyway
	if sum != nil {
		rest, err := countLinesFrom(br)
		if err != nil {
			return fail("read %s: %v", shown, err)
		}
		total = consumed + rest
		if !more && rest > 0 {
			more = true
		}
		st := fileState{modTime: info.ModTime(), size: info.Size(), hashed: true}
		copy(st.sum[:], sum.Sum(nil))
		e.rememberState(path, st)
	} else {
		e.remember(path, info, nil)
	}

	return pageResult(page, shown, offset, last, total, more)
}

// pageResult is Read's answer for the lines offset..last of a file of
// total lines (-1: not known), with the offset to go on from when more
// lines follow.
func pageResult(page *strings.Builder, shown string, offset, last, total int, more bool) Result {
	if last < offset {
		// readPage read to the end looking for line offset: last is the count.
		return fail("offset %d is past the end of %s (%d lines)", offset, shown, last)
	}
	if more {
		if total >= 0 {
			fmt.Fprintf(page, "\n(Showing lines %d-%d of %d. Use offset=%d to read more.)\n", offset, last, total, last+1)
		} else {
			fmt.Fprintf(page, "\n(Showing lines %d-%d; the file continues. Use offset=%d to read more.)\n", offset, last, last+1)
		}
	}
	return Result{Output: page.String()}
}

// readEditorPage is Read of a text file whose content the editor gives
// (UseTextFiles): its buffer, unsaved changes included, is what the model
// sees and what Edit and Write later compare with.
func (e *Env) readEditorPage(ctx context.Context, r TextReader, path, shown string, info fs.FileInfo, offset, limit int) Result {
	text, err := r.ReadTextFile(ctx, path)
	if err != nil {
		return fail("read %s: the editor could not read it: %v", shown, err)
	}
	e.remember(path, info, []byte(text))
	if text == "" {
		return Result{Output: fmt.Sprintf("(%s exists but is empty)", shown)}
	}
	br := bufio.NewReader(strings.NewReader(text))
	page, last, consumed, more, err := readPage(ctx, br, offset, limit, min(len(text)+len(text)/5, readPageBudget+readPageBudget/8))
	if err != nil {
		return fail("read %s: %v", shown, err)
	}
	rest, _ := countLinesFrom(br)
	return pageResult(page, shown, offset, last, consumed+rest, more || rest > 0)
}

// openRegular opens path for reading if it is a regular file, or explains
// to the model why not. The open itself cannot block: opening a named pipe
// for reading waits for a writer, so it is opened non-blocking, checked
// with fstat (no race with a swap after a stat), and only a regular file is
// read — a pipe, device or socket could block or stream without end.
func openRegular(path, shown string) (*os.File, fs.FileInfo, Result, bool) {
	f, err := openNonBlocking(path)
	if err != nil {
		// A socket cannot be opened at all (ENXIO): say what it is.
		if info, serr := os.Stat(path); serr == nil && !info.Mode().IsRegular() {
			return nil, nil, notRegular(info.Mode(), shown), false
		}
		return nil, nil, statFailure(err, shown), false
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, statFailure(err, shown), false
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(info.Mode(), shown), false
	}
	return f, info, Result{}, true
}

// openNonBlocking opens path read-only without waiting for a FIFO's
// writer, then makes the descriptor blocking again (a regular file ignores
// the flag; this keeps reads plain system calls).
func openNonBlocking(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// notRegular says why a file that is not a regular file cannot be read.
func notRegular(mode fs.FileMode, shown string) Result {
	switch {
	case mode.IsDir():
		return fail("%s is a directory, not a file; use Glob (or Bash `ls`) to list it", shown)
	case mode&fs.ModeNamedPipe != 0:
		return fail("cannot read %s: it is a named pipe (FIFO), not a regular file; reading it could wait forever", shown)
	case mode&fs.ModeSocket != 0:
		return fail("cannot read %s: it is a socket, not a regular file", shown)
	case mode&fs.ModeDevice != 0:
		return fail("cannot read %s: it is a device, not a regular file", shown)
	default:
		return fail("cannot read %s: it is not a regular file", shown)
	}
}

func statFailure(err error, shown string) Result {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("file does not exist: %s", shown)
	case errors.Is(err, fs.ErrPermission):
		return fail("permission denied: %s", shown)
	default:
		return fail("cannot open %s: %v", shown, err)
	}
}

// readPage numbers lines offset..offset+limit-1 like cat -n, stopping early at
// the page budget. last is the number of the last line shown (or of the
// file's last line when offset is past it), consumed how many lines were
// taken from br, and more reports lines left unshown by limit or budget.
func readPage(ctx context.Context, br *bufio.Reader, offset, limit, sizeHint int) (page *strings.Builder, last, consumed int, more bool, err error) {
	page = &strings.Builder{}
	page.Grow(sizeHint)
	var buf, entry []byte
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, 0, 0, false, ctx.Err()
		}
		if n >= offset+limit {
			_, err := br.Peek(1)
			return page, n - 1, n - 1, err == nil, nil
		}
		var size int
		buf, size, err = readLine(br, readMaxLineBytes, buf)
		if err == io.EOF {
			return page, n - 1, n - 1, false, nil
		}
		if err != nil {
			return nil, 0, 0, false, err
		}
		if n < offset {
			continue
		}
		line := buf
		note := ""
		if size > len(line) {
			line = trimPartialRuneEnd(line)
			note = fmt.Sprintf(" … [line truncated: %d of %d bytes shown]", len(line), size)
		} else {
			line = bytes.TrimSuffix(line, []byte{'\r'})
		}
		entry = appendNumbered(entry[:0], n, line)
		entry = append(append(entry, note...), '\n')
		if page.Len()+len(entry) > readPageBudget && page.Len() > 0 {
			// This line was consumed but not shown; "last" must name the line
			// shown last so the continuation offset starts at this one.
			return page, n - 1, n, true, nil
		}
		page.Write(entry)
	}
}

// readLine reads one line without its newline, keeping at most max bytes of
// it in buf; size is the line's full length. Memory stays bounded whatever
// the line length (minified files have megabyte lines).
func readLine(br *bufio.Reader, max int, buf []byte) (line []byte, size int, err error) {
	buf = buf[:0]
	for {
		frag, err := br.ReadSlice('\n')
		size += len(frag)
		if room := max - len(buf); room > 0 {
			buf = append(buf, frag[:min(room, len(frag))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || size == 0) {
			return buf, 0, err
		}
		if len(frag) > 0 && frag[len(frag)-1] == '\n' {
			size--
			buf = bytes.TrimSuffix(buf, []byte{'\n'})
		}
		return buf, size, nil
	}
}

// countLinesFrom counts the lines left in br (a last line without a newline
// included).
func countLinesFrom(br *bufio.Reader) (int, error) {
	n := 0
	var lastByte byte = '\n'
	chunk := make([]byte, 64<<10)
	for {
		k, err := br.Read(chunk)
		if k > 0 {
			n += bytes.Count(chunk[:k], []byte{'\n'})
			lastByte = chunk[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if lastByte != '\n' {
		n++
	}
	return n, nil
}

// appendNumbered appends a line as `cat -n` shows it (number right-aligned
// in six columns, a tab, the line), without the newline.
func appendNumbered(dst []byte, n int, line []byte) []byte {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(n), 10)
	for i := len(digits); i < 6; i++ {
		dst = append(dst, ' ')
	}
	dst = append(append(dst, digits...), '\t')
	return append(dst, line...)
}

// readImage is Read's answer for an image file: a line saying the image
// is attached, and the image, which the agent sends as an image part
// after the tool results.
func readImage(r io.Reader, shown, mediaType string, size int64) Result {
	if size > chat.MaxImageBytes {
		return fail("cannot read %s: it is an image of %d bytes, over the %d MB an image may have", shown, size, chat.MaxImageBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(r, chat.MaxImageBytes+1))
	if err != nil {
		return fail("read %s: %v", shown, err)
	}
	return Result{
		Output:    fmt.Sprintf("image attached: %s (%s, %d bytes); it follows as an image in the next message", shown, mediaType, len(data)),
		Image:     &chat.Image{MediaType: mediaType, Data: data},
		ImageName: shown,
	}
}
