package contextmgr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// Pins are texts the user wants in every request, through every
// compaction, until unpinned (/pin, /pins, /unpin). They are sent word for
// word at the end of the system prompt, counted with it as a part of their
// own, stored as pin/unpin records, and carried by every boundary (its
// pins), so a resume has them without reading the history before it.

// pinsHeading opens the pins' block in the system prompt.
const pinsHeading = "The user pinned the notes below. They stay in force, word for word, until the user unpins them — whatever was compacted:"

var (
	// ErrNoPinText: /pin without text, and no user message to pin.
	ErrNoPinText = errors.New("nothing to pin: give the text, or send a message first")
	// ErrNoSuchPin: /unpin of a number not listed by /pins.
	ErrNoSuchPin = errors.New("no such pin")
)

// pinBoard is the pins in force and the highest id given. It changes only
// by apply (a pin or unpin record, live or read back), so the session file
// and the board never disagree.
type pinBoard struct {
	list []storage.Pin
	next int
}

// pins lists the pins in force, oldest first (nil = none); a copy.
func (b *pinBoard) pins() []storage.Pin {
	if len(b.list) == 0 {
		return nil
	}
	return append([]storage.Pin(nil), b.list...)
}

func (b *pinBoard) nextID() int {
	next := b.next + 1
	for _, p := range b.list {
		next = max(next, p.ID+1)
	}
	return next
}

// pin returns pin n (1-based, as /pins lists them).
func (b *pinBoard) pin(n int) (storage.Pin, error) {
	if n < 1 || n > len(b.list) {
		return storage.Pin{}, fmt.Errorf("%w %d: there are %d", ErrNoSuchPin, n, len(b.list))
	}
	return b.list[n-1], nil
}

// apply changes the pins in force by a pin or unpin record.
func (b *pinBoard) apply(subtype string, p storage.Pin) {
	switch subtype {
	case storage.SubtypePin:
		for _, q := range b.list {
			if q.ID == p.ID {
				return
			}
		}
		b.list = append(b.list, p)
		b.next = max(b.next, p.ID)
	case storage.SubtypeUnpin:
		for i, q := range b.list {
			if q.ID == p.ID {
				b.list = append(b.list[:i:i], b.list[i+1:]...)
				break
			}
		}
	}
}

// restore takes the boundary's pins and the pin records after it.
func (b *pinBoard) restore(live *storage.Live) {
	if bd := live.Boundary; bd != nil && bd.CompactMetadata != nil {
		for _, p := range bd.CompactMetadata.Pins {
			b.list = append(b.list, p)
			b.next = max(b.next, p.ID)
		}
	}
	// Pin records among the retained ones, before the boundary, are in
	// its pins already (apply ignores an id it has), or were unpinned
	// before it by a record that follows them.
	for _, lr := range live.Records {
		r := lr.Record
		if r != nil && r.Type == storage.TypeSystem && r.Pin != nil &&
			(r.Subtype == storage.SubtypePin || r.Subtype == storage.SubtypeUnpin) {
			b.apply(r.Subtype, *r.Pin)
		}
	}
}

// Pins lists the pins in force, oldest first (/pins numbers them from 1).
func (m *Manager) Pins() []storage.Pin { return m.pins.pins() }

// Pin pins text (empty = the last user message of the live context),
// appends its record and returns it.
func (m *Manager) Pin(text string) (storage.Pin, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		entries := m.live.entries()
		for i := len(entries) - 1; i >= 0; i-- {
			if r := entries[i].rec; r.Type == storage.TypeUser && !r.IsCompactSummary {
				text = strings.TrimSpace(messageContent(r))
				break
			}
		}
	}
	if text == "" {
		return storage.Pin{}, ErrNoPinText
	}
	p := storage.Pin{ID: m.pins.nextID(), Text: text}
	if _, err := m.log.Append(&storage.Record{UUID: uuid.NewString(), Type: storage.TypeSystem, Subtype: storage.SubtypePin, Pin: &p}); err != nil {
		return storage.Pin{}, fmt.Errorf("append pin record: %w", err)
	}
	m.pins.apply(storage.SubtypePin, p)
	m.acct.setPins(pinsText(m.pins.list))
	return p, nil
}

// Unpin removes pin n (1-based, as /pins lists them), appending its record.
func (m *Manager) Unpin(n int) (storage.Pin, error) {
	p, err := m.pins.pin(n)
	if err != nil {
		return p, err
	}
	if _, err := m.log.Append(&storage.Record{UUID: uuid.NewString(), Type: storage.TypeSystem, Subtype: storage.SubtypeUnpin,
		Pin: &storage.Pin{ID: p.ID}}); err != nil {
		return storage.Pin{}, fmt.Errorf("append unpin record: %w", err)
	}
	m.pins.apply(storage.SubtypeUnpin, p)
	m.acct.setPins(pinsText(m.pins.list))
	return p, nil
}

// pinsText is the block the system prompt ends with ("" = no pins).
func pinsText(pins []storage.Pin) string {
	if len(pins) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(pinsHeading)
	for i, p := range pins {
		fmt.Fprintf(&b, "\n\n[pin %d]\n%s", i+1, p.Text)
	}
	return b.String()
}

// systemPrompt is the system message's content: the prompt, then the pins.
func (a *accountant) systemPrompt() string {
	switch {
	case a.pinsText == "":
		return a.opt.System
	case a.opt.System == "":
		return a.pinsText
	}
	return a.opt.System + "\n\n" + a.pinsText
}

// setPins makes text the pins' part of every request. The server's last
// count measured the request with the pins before: it is only a floor now.
func (a *accountant) setPins(text string) {
	if text == a.pinsText {
		return
	}
	a.pinsText = text
	a.pins = part{}
	if text != "" {
		a.pins = part{ub: a.opt.UpperBound(chat.Message{Role: chat.RoleSystem, Content: text}), exact: -1}
	}
	if a.calib.ok {
		a.calib.floor = true
	}
}
