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

// Pins lists the pins in force, oldest first (/pins numbers them from 1).
func (m *Manager) Pins() []storage.Pin { return m.pinList() }

func (m *Manager) pinList() []storage.Pin {
	if len(m.pins) == 0 {
		return nil
	}
	return append([]storage.Pin(nil), m.pins...)
}

// Pin pins text (empty = the last user message of the live context),
// appends its record and returns it.
func (m *Manager) Pin(text string) (storage.Pin, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		for i := len(m.live.entries()) - 1; i >= 0; i-- {
			if r := m.live.entries()[i].rec; r.Type == storage.TypeUser && !r.IsCompactSummary {
				text = strings.TrimSpace(messageContent(r))
				break
			}
		}
	}
	if text == "" {
		return storage.Pin{}, ErrNoPinText
	}
	p := storage.Pin{ID: m.nextPinID(), Text: text}
	if _, err := m.log.Append(&storage.Record{UUID: uuid.NewString(), Type: storage.TypeSystem, Subtype: storage.SubtypePin, Pin: &p}); err != nil {
		return storage.Pin{}, fmt.Errorf("append pin record: %w", err)
	}
	m.applyPin(storage.SubtypePin, p)
	return p, nil
}

// Unpin removes pin n (1-based, as /pins lists them), appending its record.
func (m *Manager) Unpin(n int) (storage.Pin, error) {
	if n < 1 || n > len(m.pins) {
		return storage.Pin{}, fmt.Errorf("%w %d: there are %d", ErrNoSuchPin, n, len(m.pins))
	}
	p := m.pins[n-1]
	if _, err := m.log.Append(&storage.Record{UUID: uuid.NewString(), Type: storage.TypeSystem, Subtype: storage.SubtypeUnpin,
		Pin: &storage.Pin{ID: p.ID}}); err != nil {
		return storage.Pin{}, fmt.Errorf("append unpin record: %w", err)
	}
	m.applyPin(storage.SubtypeUnpin, p)
	return p, nil
}

func (m *Manager) nextPinID() int {
	next := m.pinNext + 1
	for _, p := range m.pins {
		next = max(next, p.ID+1)
	}
	return next
}

// applyPin changes the pins in force (a pin or unpin record, live or read
// back) and the system prompt part that carries them.
func (m *Manager) applyPin(subtype string, p storage.Pin) {
	switch subtype {
	case storage.SubtypePin:
		for _, q := range m.pins {
			if q.ID == p.ID {
				return
			}
		}
		m.pins = append(m.pins, p)
		m.pinNext = max(m.pinNext, p.ID)
	case storage.SubtypeUnpin:
		for i, q := range m.pins {
			if q.ID == p.ID {
				m.pins = append(m.pins[:i:i], m.pins[i+1:]...)
				break
			}
		}
	}
	m.acct.setPins(pinsText(m.pins))
}

// restorePins takes the boundary's pins and the pin records after it.
func (m *Manager) restorePins(live *storage.Live) {
	if b := live.Boundary; b != nil && b.CompactMetadata != nil {
		for _, p := range b.CompactMetadata.Pins {
			m.pins = append(m.pins, p)
			m.pinNext = max(m.pinNext, p.ID)
		}
	}
	// Pin records among the retained ones, before the boundary, are in
	// its pins already (applyPin ignores an id it has), or were unpinned
	// before it by a record that follows them.
	for _, lr := range live.Records {
		r := lr.Record
		if r != nil && r.Type == storage.TypeSystem && r.Pin != nil &&
			(r.Subtype == storage.SubtypePin || r.Subtype == storage.SubtypeUnpin) {
			m.applyPin(r.Subtype, *r.Pin)
		}
	}
	m.acct.setPins(pinsText(m.pins))
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
func (m *Manager) systemPrompt() string {
	switch {
	case m.acct.pinsText == "":
		return m.opt.System
	case m.opt.System == "":
		return m.acct.pinsText
	}
	return m.opt.System + "\n\n" + m.acct.pinsText
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
