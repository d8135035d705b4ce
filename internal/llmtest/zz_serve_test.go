package llmtest

import (
	"os"
	"testing"
	"time"
)

func TestZZServe(t *testing.T) {
	if os.Getenv("ZZ_SERVE") == "" {
		t.Skip()
	}
	s := NewServer(t, Options{})
	s.SetResponder(Agent())
	os.WriteFile("/tmp/scratch/url", []byte(s.URL()), 0o644)
	time.Sleep(20 * time.Minute)
}
