package tools

import "errors"

// ErrPermissionPrompt wraps an Asker's failure (e.g. the context was cancelled
// while the user was being asked). It is a Go error, not a denial: the caller
// decides whether the turn goes on.
var ErrPermissionPrompt = errors.New("permission prompt")

// errBadArgs marks a failure to decode a tool's arguments; its message is
// written for the model.
var errBadArgs = errors.New("invalid arguments")

// ErrUnknownTool is a rule naming a tool clawdcode does not have.
var ErrUnknownTool = errors.New("unknown tool")
