package acp

import (
	"errors"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// codeNotFound is the protocol's "Resource not found": a session the
// agent does not have.
const codeNotFound = -32002

// ErrBusy refuses a prompt to a session whose turn is still running: the
// protocol runs one turn of a session at a time.
var ErrBusy = errors.New("a prompt is already running in this session; wait for it or cancel it (session/cancel)")

// invalidParams is a JSON-RPC "Invalid params" error saying why.
func invalidParams(format string, v ...any) *acpsdk.RequestError {
	return acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(format, v...)})
}

// internalError is a JSON-RPC "Internal error" carrying err's words.
func internalError(err error) *acpsdk.RequestError {
	return acpsdk.NewInternalError(map[string]any{"error": err.Error()})
}

// unknownSession is the error of a request naming no open session.
func unknownSession(id string) *acpsdk.RequestError {
	return &acpsdk.RequestError{Code: codeNotFound, Message: "Resource not found",
		Data: map[string]any{"error": fmt.Sprintf("no session %q: create one with session/new or load it with session/load", id)}}
}

// openError is the error of a session that could not be opened: a stored
// session that is missing or open elsewhere is the client's to hear as
// such; anything else is the program's fault or the configuration's.
func openError(err error, load string) *acpsdk.RequestError {
	switch {
	case load != "" && errors.Is(err, storage.ErrNotFound):
		return &acpsdk.RequestError{Code: codeNotFound, Message: "Resource not found", Data: map[string]any{"error": err.Error()}}
	case errors.Is(err, storage.ErrSessionBusy):
		return acpsdk.NewInvalidRequest(map[string]any{"error": err.Error()})
	}
	return internalError(err)
}
