package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// imagesPerMessage bounds the images one message attaches.
const imagesPerMessage = 10

// imageMention is an @path in a user message; a path with spaces is
// written with backslash escapes (@my\ shot.png), as terminals drop it.
var imageMention = regexp.MustCompile(`(?:^|\s)@((?:\\.|[^\s@\\])+)`)

// attachImages stores every image a user message names with @path (a
// project file, or an absolute path, whose content is a PNG, JPEG, GIF or
// WebP image) and returns the references the user record keeps. An image
// too big to send is left out with a warning; other @paths are left to
// the front end (text files) or are plain text.
func (t *Turns) attachImages(text string, sink Sink) ([]storage.ImageRef, error) {
	e := t.e
	if !strings.Contains(text, "@") || e.cfg.Project == nil {
		return nil, nil
	}
	var refs []storage.ImageRef
	seen := map[string]bool{}
	for _, m := range imageMention.FindAllStringSubmatch(text, -1) {
		name := unescapePath(strings.TrimRight(m[1], ".,;:!?)"))
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.cfg.Project.Root, filepath.FromSlash(name))
		}
		if seen[path] || len(refs) == imagesPerMessage {
			continue
		}
		seen[path] = true
		data, mediaType, ok := readImage(path, name, sink)
		if !ok {
			continue
		}
		ref, err := storage.StoreImage(e.cfg.Project.Store().Home(), data, mediaType)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ref)
		sink.Notice(contextmgr.Notice{Kind: contextmgr.NoticeAttached,
			Text: fmt.Sprintf("attached image %s (%s, %d KB)", name, mediaType, (len(data)+1023)/1024)})
	}
	return refs, nil
}

// attachGiven stores the images a front end gave with a message, after
// refs (those its text named), up to imagesPerMessage in all.
func (t *Turns) attachGiven(refs []storage.ImageRef, given []chat.Image, sink Sink) ([]storage.ImageRef, error) {
	for i, img := range given {
		mediaType, ok := chat.ImageType(img.Data)
		switch {
		case len(refs) == imagesPerMessage:
			sink.Notice(contextmgr.Notice{Kind: contextmgr.NoticeWarning,
				Text: fmt.Sprintf("only %d images go with a message: %d not attached", imagesPerMessage, len(given)-i)})
			return refs, nil
		case !ok:
			sink.Notice(contextmgr.Notice{Kind: contextmgr.NoticeWarning,
				Text: fmt.Sprintf("image %d (%s) is not a PNG, JPEG, GIF or WebP image: not attached", i+1, img.MediaType)})
			continue
		case len(img.Data) > chat.MaxImageBytes:
			sink.Notice(contextmgr.Notice{Kind: contextmgr.NoticeWarning,
				Text: fmt.Sprintf("image %d is %d MB, over the %d MB an image may have: not attached", i+1, len(img.Data)>>20, chat.MaxImageBytes>>20)})
			continue
		}
		ref, err := storage.StoreImage(t.e.cfg.Project.Store().Home(), img.Data, mediaType)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ref)
		sink.Notice(contextmgr.Notice{Kind: contextmgr.NoticeAttached,
			Text: fmt.Sprintf("attached image %d (%s, %d KB)", i+1, mediaType, (len(img.Data)+1023)/1024)})
	}
	return refs, nil
}

// readImage reads path when it is a regular file whose content sniffs as
// an image type clawdcode sends; ok is false for anything else.
func readImage(path, name string, sink Sink) (data []byte, mediaType string, ok bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, "", false
	}
	head := make([]byte, 512)
	f, err := os.Open(path)
	if err != nil {
		return nil, "", false
	}
	n, _ := f.Read(head)
	f.Close()
	mediaType, ok = chat.ImageType(head[:n])
	if !ok {
		return nil, "", false
	}
	if fi.Size() > chat.MaxImageBytes {
		sink.Notice(contextmgr.Notice{Kind: contextmgr.NoticeWarning,
			Text: fmt.Sprintf("image %s is %d MB, over the %d MB an image may have: not attached", name, fi.Size()>>20, chat.MaxImageBytes>>20)})
		return nil, "", false
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, "", false
	}
	return data, mediaType, true
}

// unescapePath undoes a terminal's backslash escapes (my\ shot.png).
func unescapePath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hasImages reports whether a message of msgs carries an image.
func hasImages(msgs []chat.Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// withoutImages is msgs with each image replaced by a line saying it was
// not sent, for a model that takes text only; msgs is not changed.
func withoutImages(msgs []chat.Message) []chat.Message {
	out := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		if len(m.Images) > 0 {
			m.Content += fmt.Sprintf("\n\n[%d image(s) attached here were not sent: this model does not accept images]", len(m.Images))
			m.Images = nil
		}
		out[i] = m
	}
	return out
}

// imagesRefused reports whether err is the server refusing a request
// that carries images: any other 400 to such a request is taken as the
// model taking text only, and the request is tried once without them.
func imagesRefused(err error, req llm.Request) bool {
	return llm.IsKind(err, llm.KindBadRequest) && hasImages(req.Messages)
}

// addToolImages sends the images tools returned this round (Read of an
// image file) as a user message right after the tool results: a tool
// message of the chat-completions API carries text only.
func (l *loop) addToolImages() error {
	if len(l.toolImages) == 0 || l.storeImage == nil {
		l.toolImages = nil
		return nil
	}
	var refs []storage.ImageRef
	var names []string
	for _, ti := range l.toolImages {
		ref, err := l.storeImage(ti.img.Data, ti.img.MediaType)
		if err != nil {
			return err
		}
		refs = append(refs, ref)
		names = append(names, ti.name)
	}
	l.toolImages = nil
	return l.conv.AddUser("[The images "+strings.Join(names, ", ")+" read by a tool follow]", refs...)
}

// toolImage is an image a tool call returned, with the file it came from.
type toolImage struct {
	name string
	img  chat.Image
}
