// Package termtext makes text that came from outside clawdcode — model
// replies, tool output, session content, shell commands — safe to print on
// a terminal.
//
// A terminal obeys the bytes it is sent: an escape sequence in a model's
// reply can write the user's clipboard (OSC 52), hide text, move the
// cursor, or erase and redraw the permission prompt so that it shows a
// different command from the one that will run. So every control
// character is made visible instead of being obeyed, and only clawdcode's
// own styling, added after this package has run, reaches the terminal.
//
// The policy, in one place:
//   - newline and tab are kept; a carriage return directly before a
//     newline is dropped (CRLF line endings read as lines);
//   - every other C0 control and DEL is shown in caret notation: ESC as
//     "^[", a lone CR as "^M", backspace as "^H", DEL as "^?" — an escape
//     sequence thus shows as text ("^[[31m") and does nothing;
//   - C1 controls (U+0080–U+009F, which some terminals obey as CSI, OSC,
//     DCS…) and the bidirectional embeddings, overrides and isolates
//     (U+202A–U+202E, U+2066–U+2069, which can make a command read
//     differently from what runs) are shown as "<U+009B>";
//   - a byte that is not valid UTF-8 is shown as "<0x9B>".
//
// Text without any of these is returned unchanged (and without copying).
// Line is Safe for text shown on one line (a table's cell, a path in a
// list), where a newline or a tab is shown too ("^J", "^I"): a newline in
// an imported project path must not forge a row. For is the one rule for
// output that is data when redirected: made safe on a terminal, passed on
// byte for byte otherwise (iostreams' TermOut applies it).
//
// Safe is for whole strings; Stream is for text that arrives in pieces (a
// streamed reply), where a carriage return or a multi-byte character may
// be split across two pieces. Both are pure and safe for concurrent use;
// a Stream value belongs to one stream.
//
// The shortened forms shown in one-line places are made here too, for
// every layer: FirstLine (a text's first line, for a summary or an error),
// Flatten (a whole text on one line, for a title or a cell), both bounded
// in runes and marking a cut, and ShortID (a session id's 8-character
// prefix). They shorten; Safe and Line still make the result inert.
package termtext
