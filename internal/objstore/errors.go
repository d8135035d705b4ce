package objstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

var (
	// ErrNotFound: there is no object of that key.
	ErrNotFound = errors.New("no such object")
	// ErrExists: Create found an object of that key already.
	ErrExists = errors.New("object exists")
	// ErrChanged: Swap found the object changed (or gone) since its ETag
	// was read.
	ErrChanged = errors.New("object changed since it was read")
)

// Kind sorts the failures a user must act on differently.
type Kind int

const (
	KindServer      Kind = iota // the server failed (5xx, or an answer that makes no sense)
	KindAuth                    // the credentials are missing, wrong or not allowed
	KindNoBucket                // the bucket does not exist
	KindUnreachable             // no connection to the server
	KindTimeout                 // the server did not answer in time
)

// Error is a failure of the store, said in one line.
type Error struct {
	Kind Kind
	Msg  string
	Err  error // the SDK's or the network's error, for errors.Is/As
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Transient reports whether err may well go away by itself (a server
// that is down, slow or failing), as opposed to wrong settings.
func Transient(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Kind == KindServer || e.Kind == KindUnreachable || e.Kind == KindTimeout)
}

// describe turns the SDK's error for an operation on key into ErrNotFound,
// ErrExists, ErrChanged or an *Error of one line.
func (s *S3) describe(op, key string, err error) error {
	status := 0
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	code := ""
	var api smithy.APIError
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	if d := s.answered(op, key, err, status, code); d != nil {
		return d
	}
	return s.unanswered(op, key, err, status, code)
}

// answered describes the failures the server said (nil: none of these).
func (s *S3) answered(op, key string, err error, status int, code string) error {
	where := s.loc.String()
	switch {
	case code == "NoSuchBucket":
		return &Error{Kind: KindNoBucket, Err: err, Msg: fmt.Sprintf("%s: the bucket %q does not exist at %s", where, s.loc.Bucket, s.endpoint)}
	case code == "NoSuchKey" || code == "NotFound" || status == http.StatusNotFound:
		return fmt.Errorf("%s %s: %w", op, key, ErrNotFound)
	case op == "write" && (status == http.StatusPreconditionFailed || status == http.StatusConflict ||
		code == "PreconditionFailed" || code == "ConditionalRequestConflict"):
		return fmt.Errorf("%s %s: %w", op, key, conditionFailed(err))
	case status == http.StatusForbidden || status == http.StatusUnauthorized || code == "InvalidAccessKeyId" ||
		code == "SignatureDoesNotMatch" || code == "AccessDenied":
		return &Error{Kind: KindAuth, Err: err, Msg: fmt.Sprintf("%s: %s refused the credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (%s)", where, s.endpoint, orStatus(code, status))}
	case status >= 500:
		return &Error{Kind: KindServer, Err: err, Msg: fmt.Sprintf("%s: %s answered %d %s to %s %s", where, s.endpoint, status, http.StatusText(status), op, key)}
	}
	return nil
}

// unanswered describes the failures to get an answer at all, and the
// answers no case above knows.
func (s *S3) unanswered(op, key string, err error, status int, code string) error {
	where := s.loc.String()
	var nerr net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &nerr) && nerr.Timeout():
		return &Error{Kind: KindTimeout, Err: err, Msg: fmt.Sprintf("%s: %s did not answer in time (%s %s)", where, s.endpoint, op, key)}
	case errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || isDNS(err):
		return &Error{Kind: KindUnreachable, Err: err, Msg: fmt.Sprintf("%s: cannot reach %s (%s)", where, s.endpoint, rootCause(err))}
	case status != 0:
		return &Error{Kind: KindServer, Err: err, Msg: fmt.Sprintf("%s: %s answered %d %s to %s %s", where, s.endpoint, status, orStatus(code, status), op, key)}
	}
	return &Error{Kind: KindServer, Err: err, Msg: fmt.Sprintf("%s: %s %s at %s: %s", where, op, key, s.endpoint, rootCause(err))}
}

// conditionFailed is the sentinel a refused conditional write means: for
// Create the object exists, for Swap it changed. The caller's op tells
// them apart (Create sends If-None-Match, Swap If-Match); both come back as
// 412 (or 409 when two writes raced).
type conditionError struct{ err error }

func (e *conditionError) Error() string { return "precondition failed" }
func (e *conditionError) Unwrap() error { return e.err }
func (e *conditionError) Is(target error) bool {
	return target == ErrExists || target == ErrChanged
}

func conditionFailed(err error) error { return &conditionError{err: err} }

func orStatus(code string, status int) string {
	if code != "" {
		return code
	}
	return http.StatusText(status)
}

func isDNS(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d)
}

// rootCause is the innermost error's message: the SDK wraps a refused
// connection in three layers of operation names.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
