package chat

import (
	"encoding/xml"
	"io"
	"strings"
)

// Claude Code writes a slash command the user ran into its transcript as
// markup — <command-name>/model</command-name> <command-message>model
// </command-message> <command-args>opus</command-args> — and a local
// command's output as <local-command-stdout>…</local-command-stdout>
// (with a <local-command-caveat> for the model); the sessions clawdcode
// imports keep it. CommandText says it as the user saw it.

// commandTags are the elements of that markup.
var commandTags = map[string]bool{
	"command-name": true, "command-message": true, "command-args": true,
	"local-command-stdout": true, "local-command-stderr": true, "local-command-caveat": true,
}

// CommandText is text as the user saw it when it is Claude Code's markup
// of a slash command ("/name args") or of a command's output (its text;
// the caveat for the model, nothing), and ok is set; any other text —
// one with anything outside those elements — is returned unchanged, ok
// unset. The markup is read by an XML tokenizer, not by searching.
func CommandText(text string) (string, bool) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "<command-") && !strings.HasPrefix(trimmed, "<local-command-") {
		return text, false
	}
	d := xml.NewDecoder(strings.NewReader("<m>" + trimmed + "</m>"))
	d.Strict, d.Entity = false, xml.HTMLEntity
	parts := map[string]*strings.Builder{}
	open := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return text, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "m" {
				continue
			}
			if !commandTags[t.Name.Local] || open != "" {
				return text, false
			}
			open = t.Name.Local
			parts[open] = &strings.Builder{}
		case xml.EndElement:
			open = ""
		case xml.CharData:
			switch {
			case open != "":
				parts[open].Write(t)
			case strings.TrimSpace(string(t)) != "":
				return text, false // text outside the markup
			}
		}
	}
	get := func(tag string) string {
		if b := parts[tag]; b != nil {
			return strings.TrimSpace(b.String())
		}
		return ""
	}
	if name := get("command-name"); name != "" {
		if !strings.HasPrefix(name, "/") {
			name = "/" + name
		}
		if args := get("command-args"); args != "" {
			name += " " + args
		}
		return name, true
	}
	out := get("local-command-stdout")
	if e := get("local-command-stderr"); e != "" {
		out = strings.TrimSpace(out + "\n" + e)
	}
	return out, true
}
