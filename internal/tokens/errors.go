package tokens

import "fmt"

// UnknownEncodingError is returned for an encoding name clawdcode does not
// ship. EncodingFor never produces one.
type UnknownEncodingError struct {
	Name string
}

func (e *UnknownEncodingError) Error() string {
	return fmt.Sprintf("unknown encoding %q", e.Name)
}
