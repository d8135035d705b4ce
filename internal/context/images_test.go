package contextmgr

import "testing"

// ImageTokens follows the examples of OpenAI's vision guide: scaled to
// fit 2048×2048, then to a shorter side of 768, 85 tokens and 170 a tile.
func TestImageTokensAtThePublishedRate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		w, h   int
		detail string
		want   int
	}{
		{1024, 1024, "high", 765},         // 768×768: 4 tiles
		{2048, 4096, "high", 1105},        // 1024×2048, then 768×1536: 6 tiles
		{4096, 8192, "low", 85},           // low: the base alone
		{4, 3, "auto", 255},               // one tile
		{512, 512, "", 255},               // exactly one tile
		{513, 512, "auto", 425},           // two tiles
		{0, 0, "auto", 1445},              // unknown: the most the rule charges
		{100000, 200, "high", 85 + 170*4}, // 2048×4: 4 tiles across, 1 down
	} {
		if got := ImageTokens(c.w, c.h, c.detail); got != c.want {
			t.Errorf("ImageTokens(%d, %d, %q) = %d, want %d", c.w, c.h, c.detail, got, c.want)
		}
	}
}
