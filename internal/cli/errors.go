package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/config"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses of CONTRACT.md section 1.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// errInterrupted is the cancellation cause when SIGINT, SIGTERM or SIGHUP arrives.
var errInterrupted = errors.New("interrupted")

// UsageError is a mistake in how clawdcode was invoked (exit status 2):
// a bad flag value, a missing argument, an unknown session id.
type UsageError struct {
	Err   error
	Hints []string
	// Message, when set, replaces Err's text for the user (Err stays in
	// the chain for errors.Is).
	Message string
}

func (e *UsageError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return e.Err.Error()
}
func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf builds a *UsageError from a format.
func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// flagError is a flag cobra or pflag rejected. It is told as one line
// and a hint naming --help, not the whole usage: the contract allows one
// "clawdcode:" line and a few hint lines.
type flagError struct {
	err error
	cmd *cobra.Command
}

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// message says what is wrong in the user's words: pflag's text for a bad
// value quotes Go's parser ("strconv.ParseInt: parsing …").
func (e *flagError) message() string {
	var need *pflag.ValueRequiredError
	if errors.As(e.err, &need) && need.GetFlag() != nil {
		fl := need.GetFlag()
		name := "--" + fl.Name
		if fl.Shorthand != "" {
			name = "-" + fl.Shorthand + "/" + name
		}
		return name + " needs a value"
	}
	var bad *pflag.InvalidValueError
	if !errors.As(e.err, &bad) {
		return e.err.Error()
	}
	want := map[string]string{
		"int": "a whole number", "int64": "a whole number", "uint": "a whole number",
		"float64": "a number", "float32": "a number",
		"bool": "true or false", "duration": "a duration such as 30s or 5m",
	}[bad.GetFlag().Value.Type()]
	if want == "" {
		return e.err.Error()
	}
	return fmt.Sprintf("invalid --%s %q: want %s", bad.GetFlag().Name, bad.GetValue(), want)
}

// helpHint points at the full usage of the command that met the error.
func (e *flagError) helpHint() string {
	path := "clawdcode"
	if e.cmd != nil {
		path = e.cmd.CommandPath()
	}
	return fmt.Sprintf("`%s --help` lists the flags", path)
}

// hintError attaches hint lines to a runtime error.
type hintError struct {
	err   error
	hints []string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// withHint adds hint lines shown under the error message.
func withHint(err error, hints ...string) error {
	if err == nil {
		return nil
	}
	return &hintError{err: err, hints: hints}
}

// What to do about a session another process has open depends on what
// the user tried: a resume can start afresh instead, a removal cannot.
const (
	busyHint       = "another clawdcode process has this session open; try again once it has finished"
	busyHintResume = busyHint + ", or start a new session without -c/-r"
	busyHintRemove = "another clawdcode process has this session open; end that process first (a session in use is never deleted)"
)

// Failure is what the user is told about an error: the exit status, the
// message after "clawdcode: " and the hint lines.
type Failure struct {
	Code    int
	Message string
	Hints   []string
	// Silent: nothing is printed (a command's own status passed on).
	Silent bool
}

// exitStatus is a status to exit with and nothing to say: `clawdcode
// sandbox` passes its command's status on.
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Describe is the one place that maps an error to an exit status and the
// text printed for it. cause is the run context's cancellation cause (nil
// while it runs), so an error provoked by an interrupt counts as one.
func Describe(err error, cause error) Failure {
	if err == nil {
		return Failure{Code: ExitOK}
	}
	var (
		usage *UsageError
		flag  *flagError
		amb   *storage.AmbiguousIDError
		hint  *hintError
		lerr  *llm.Error
		exit  *exitStatus
	)
	if errors.As(err, &exit) && cause == nil {
		return Failure{Code: exit.code, Message: err.Error(), Silent: true}
	}
	f := Failure{Code: ExitError, Message: err.Error()}
	if errors.As(err, &hint) {
		f.Hints = append(f.Hints, hint.hints...)
	}
	switch {
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled),
		errors.Is(cause, errInterrupted):
		return Failure{Code: ExitInterrupted, Message: "interrupted"}
	case errors.As(err, &flag):
		f.Code = ExitUsage
		f.Message = flag.message()
		f.Hints = append(f.Hints, flag.helpHint())
	case errors.As(err, &usage):
		f.Code = ExitUsage
		f.Hints = append(f.Hints, usage.Hints...)
	case errors.As(err, &amb):
		f.Code = ExitUsage
		f.Message = amb.Header()
		f.Hints = append(f.Hints, amb.Lines()...)
	case errors.Is(err, config.ErrInvalid):
		f.Code = ExitUsage
	case errors.Is(err, storage.ErrInvalidID), errors.Is(err, storage.ErrNotFound):
		f.Code = ExitUsage
	case errors.Is(err, slash.ErrUnknownCommand):
		// Only -p gets here: the REPL reports its commands' errors itself.
		f.Code = ExitUsage
		f.Hints = append(f.Hints, "`clawdcode -p /help` lists the commands")
	case errors.Is(err, slash.ErrUsage):
		f.Code = ExitUsage
	case errors.Is(err, llm.ErrMissingAPIKey):
		// llm's message already says what to set.
	case errors.Is(err, agent.ErrMaxTurns):
		f.Hints = append(f.Hints, "the session is saved: continue it with -c, or raise --max-turns")
	case errors.Is(err, storage.ErrSessionBusy):
		if hint == nil { // the command that met it knows better what to do
			f.Hints = append(f.Hints, busyHint)
		}
	case errors.Is(err, llm.ErrIdleTimeout):
		f.Hints = append(f.Hints, "the server sent nothing in time; if it is only slow, raise CLAWDCODE_TIMEOUT (e.g. CLAWDCODE_TIMEOUT=300s)")
	case errors.As(err, &lerr) && lerr.Kind == llm.KindNetwork:
		// llm words auth and quota failures itself; an unreachable server
		// is most often a wrong or unset OPENAI_BASE_URL — or base_url, when
		// a config file set it (Run's endpointHint names the file).
		if hint == nil {
			f.Hints = append(f.Hints, "is the server at "+config.EnvBaseURL+" running and reachable?")
		}
	}
	return f
}

// replHints are the hints Describe gives for err, for the REPL's error
// line: the same advice as -p, from the same mapping. The REPL words an
// unknown command itself (it names /help, not `clawdcode -p /help`).
func (f *Factory) replHints(err error) []string {
	if errors.Is(err, slash.ErrUnknownCommand) {
		return nil
	}
	return Describe(f.endpointHint(err), nil).Hints
}

// endpointHint adds to a network error the hint naming where the endpoint
// came from, when a config file set it: OPENAI_BASE_URL is not what to
// check then.
func (f *Factory) endpointHint(err error) error {
	var lerr *llm.Error
	if !errors.As(err, &lerr) || (lerr.Kind != llm.KindNetwork && lerr.Kind != llm.KindNotAPI) {
		return err
	}
	cfg, cerr := f.Config()
	if cerr != nil {
		return err
	}
	if lerr.Kind == llm.KindNotAPI {
		return withHint(err, notAPIHint(serverBase(cfg), cfg.BaseURLSource))
	}
	switch cfg.BaseURLSource {
	case config.SourceEnv, config.SourceDefault, "":
		return err
	}
	return withHint(err, fmt.Sprintf("is the server at base_url (set in %s) running and reachable?", cfg.BaseURLSource))
}

// Print writes the failure to w: one "clawdcode: " line, then the hints
// indented.
func (f Failure) Print(w io.Writer) {
	if f.Code == ExitOK || f.Silent {
		return
	}
	// The contract promises one error line: a multi-line message (a
	// server's body, a joined error) continues as hint lines.
	// A message can quote a server's body or a file: shown, never obeyed.
	first, rest, _ := strings.Cut(strings.TrimSpace(termtext.Safe(f.Message)), "\n")
	fmt.Fprintf(w, "clawdcode: %s\n", first)
	hints := f.Hints
	if rest != "" {
		var more []string
		for line := range strings.SplitSeq(rest, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				more = append(more, line)
			}
		}
		hints = append(more, hints...)
	}
	for _, h := range hints {
		fmt.Fprintf(w, "  %s\n", termtext.Safe(h))
	}
}

// notAPIHint is the advice for a base URL that answered with a web page:
// most often it is a server's root without its /v1.
func notAPIHint(base, source string) string {
	where := config.EnvBaseURL
	switch source {
	case config.SourceEnv, config.SourceDefault, "":
	default:
		where = "base_url in " + source
	}
	trimmed := strings.TrimRight(base, "/")
	if !strings.HasSuffix(trimmed, "/v1") {
		return fmt.Sprintf("%s is %s: is /v1 missing? try %s/v1", where, base, trimmed)
	}
	return fmt.Sprintf("%s is %s: is that an OpenAI-compatible server's API?", where, base)
}
