package cli

import (
	"errors"
	"testing"
	"time"
)

func TestParseTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		want  time.Duration
		usage bool
	}{
		{"", 0, false},
		{" 90s ", 90 * time.Second, false},
		{"2m", 2 * time.Minute, false},
		{"90", 90 * time.Second, false},
		{"1.5", 1500 * time.Millisecond, false},
		{"0", 0, true},
		{"-5s", 0, true},
		{"soon", 0, true},
		{"NaN", 0, true},
		{"1e300", 0, true},
	}
	for _, tt := range tests {
		got, err := parseTimeout(tt.in)
		var usage *UsageError
		if got != tt.want || errors.As(err, &usage) != tt.usage || (err != nil) != tt.usage {
			t.Errorf("parseTimeout(%q) = %v, %v; want %v, usage error %v", tt.in, got, err, tt.want, tt.usage)
		}
	}
}
