package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary be its own sandbox host, as clawdcode is.
func TestMain(m *testing.M) {
	if code, ok := Helper(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
