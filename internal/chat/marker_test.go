package chat

import "testing"

func TestOmissionMarker(t *testing.T) {
	t.Parallel()
	if got := OmissionMarker(49999, 12); got != "[... 49999 bytes (12 lines) omitted ...]" {
		t.Errorf("OmissionMarker = %q", got)
	}
}
