package ctxwindow

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

const localModel = "qwen2.5-coder-local"

// cachedWindows is servers.json: per base URL and model, what the server
// said.
func (w *world) cachedWindows() map[string]struct {
	Tokens int `json:"tokens"`
} {
	w.T.Helper()
	m := map[string]struct {
		Tokens int `json:"tokens"`
	}{}
	data, err := os.ReadFile(filepath.Join(w.Home, "servers.json"))
	if os.IsNotExist(err) {
		return m
	}
	if err != nil || json.Unmarshal(data, &m) != nil {
		w.T.Fatalf("servers.json %q: %v", data, err)
	}
	return m
}

// TestImplausibleServerWindowIsNotBelieved: a server whose metadata said
// a window of 1 token had that answer cached for a day, and every run with
// the model exited 2 until it expired. A window outside 1,024 to 10 M is
// not believed: the run goes on with the default window, says so in one
// line, and caches nothing, so the next run asks again.
func TestImplausibleServerWindowIsNotBelieved(t *testing.T) {
	t.Parallel()
	for _, bogus := range []int{1, 50_000_000} {
		t.Run(strconv.Itoa(bogus), func(t *testing.T) { implausibleServerWindow(t, bogus) })
	}
}

func implausibleServerWindow(t *testing.T, bogus int) {
	w := newWorld(t, llmtest.Options{Family: llmtest.FamilyVLLM, FamilyModel: localModel, FamilyWindow: bogus})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	for run := range 2 {
		asked := w.Server.MetadataRequests()
		obj, r := w.runJSON("-p", "hi", "-m", localModel)
		if r.Code != 0 || obj.IsError || obj.Context.Window != 128000 {
			t.Fatalf("server window %d, run %d: exit %d, window %d; want 0 and the default 128000\n%s", bogus, run+1, r.Code, obj.Context.Window, r)
		}
		if n := strings.Count(r.Stderr, "not believing it"); n != 1 {
			t.Errorf("server window %d, run %d: said %d times, want once\n%s", bogus, run+1, n, r.Stderr)
		}
		if w.Server.MetadataRequests() == asked {
			t.Errorf("server window %d, run %d: the server was not asked", bogus, run+1)
		}
		if cached := w.cachedWindows(); len(cached) != 0 {
			t.Errorf("server window %d: cached %v", bogus, cached)
		}
	}
}

// TestCachedServerWindowThatFailsIsAskedAgain: a window cached from the
// server that the run cannot use — 1, cached by an older clawdcode, or
// 800, too small for the system prompt and the tools (even their brief forms) — made every run
// exit 2 until it expired. Now it is forgotten and the server asked
// again: its present answer is used and cached.
func TestCachedServerWindowThatFailsIsAskedAgain(t *testing.T) {
	t.Parallel()
	for _, cached := range []int{1, 800} {
		t.Run(strconv.Itoa(cached), func(t *testing.T) { cachedServerWindowFails(t, cached) })
	}
}

func cachedServerWindowFails(t *testing.T, cached int) {
	const served = 32768
	w := newWorld(t, llmtest.Options{Window: served, Family: llmtest.FamilyVLLM, FamilyModel: localModel})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	key := w.Server.URL() + "\x00" + localModel
	data, err := json.Marshal(map[string]any{key: map[string]any{
		"tokens": cached, "source": "vLLM /models max_model_len", "checked": time.Now().UTC()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(w.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, "servers.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	obj, r := w.runJSON("-p", "hi", "-m", localModel)
	if r.Code != 0 || obj.IsError || obj.Context.Window != served {
		t.Fatalf("cached %d: exit %d, window %d; want 0 and the server's %d\n%s", cached, r.Code, obj.Context.Window, served, r)
	}
	if got := w.cachedWindows()[key].Tokens; got != served {
		t.Errorf("cached %d: servers.json holds %d after the run, want %d", cached, got, served)
	}
}
