package tokens

import (
	"os"
	"os/exec"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

func TestEncodingFor(t *testing.T) {
	t.Parallel()
	tests := []struct{ model, want string }{
		{"gpt-4o", O200kBase},
		{"gpt-4o-mini-2024-07-18", O200kBase},
		{"chatgpt-4o-latest", O200kBase},
		{"gpt-4.1-nano", O200kBase},
		{"gpt-4.5-preview", O200kBase},
		{"o1", O200kBase},
		{"o1-mini", O200kBase},
		{"o3-mini", O200kBase},
		{"o4-mini-2025-04-16", O200kBase},
		{"gpt-5", O200kBase},
		{"gpt-5-mini", O200kBase},
		{"openai/gpt-4o", O200kBase},
		{"OpenAI/GPT-4o", O200kBase},
		{"gpt-4", Cl100kBase},
		{"gpt-4-0613", Cl100kBase},
		{"gpt-4-turbo", Cl100kBase},
		{"gpt-4-32k", Cl100kBase},
		{"gpt-3.5-turbo", Cl100kBase},
		{"openai/gpt-3.5-turbo-0125", Cl100kBase},
		{"gpt-35-turbo", Cl100kBase},
		{"text-embedding-3-small", Cl100kBase},
		{"llama3.1:8b", O200kBase},
		{"qwen/qwen-2.5-coder-32b-instruct", O200kBase},
		{"o1x", O200kBase}, // unknown, estimate
		{"", O200kBase},
	}
	for _, tt := range tests {
		if got := EncodingFor(tt.model); got != tt.want {
			t.Errorf("EncodingFor(%q) = %s, want %s", tt.model, got, tt.want)
		}
	}
}

const childEnv = "CLAWDCODE_TOKENS_CHILD"

// TestLoadIsLazyAndOffline runs the load in a fresh process, so nothing
// else in this test binary has loaded an encoding yet, with the library's
// download path sabotaged: an empty cache directory and every proxy on a
// closed port. The default loader would try to download and fail; the
// offline loader must not notice.
func TestLoadIsLazyAndOffline(t *testing.T) {
	t.Parallel()
	if os.Getenv(childEnv) != "" {
		t.Skip("parent only")
	}
	cache := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildLoad$", "-test.v")
	cmd.Env = append(os.Environ(),
		childEnv+"=1",
		"TIKTOKEN_CACHE_DIR="+cache,
		"DATA_GYM_CACHE_DIR="+cache,
		"HTTP_PROXY=http://127.0.0.1:1", "HTTPS_PROXY=http://127.0.0.1:1",
		"http_proxy=http://127.0.0.1:1", "https_proxy=http://127.0.0.1:1",
		"NO_PROXY=", "no_proxy=",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("the loader wrote %d files to the tiktoken cache; it must not download", len(entries))
	}
}

func TestChildLoad(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestLoadIsLazyAndOffline in a fresh process")
	}
	c := NewCounter("gpt-4o")
	_ = MessageUpperBound(chat.Message{Role: chat.RoleUser, Content: "hello world"})
	_ = Estimate("hello world")
	if loaded(O200kBase) || loaded(Cl100kBase) {
		t.Fatal("an encoding was loaded before any exact count")
	}
	if err := c.Load(); err != nil {
		t.Fatal(err)
	}
	if got := c.Text("hello world"); got != 2 {
		t.Fatalf("o200k Text = %d, want 2", got)
	}
	if !loaded(O200kBase) || loaded(Cl100kBase) {
		t.Fatalf("after an o200k count: loaded(o200k)=%v loaded(cl100k)=%v, want true, false", loaded(O200kBase), loaded(Cl100kBase))
	}
	if err := NewCounter("gpt-4").Load(); err != nil {
		t.Fatal(err)
	}
	if got := NewCounter("gpt-4").Text("hello world"); got != 2 {
		t.Fatalf("cl100k Text = %d, want 2", got)
	}
}

func TestUnknownEncoding(t *testing.T) {
	t.Parallel()
	if _, err := encoding("p50k_base"); err == nil {
		t.Fatal("want an error for an unknown encoding")
	}
}

// loaded reports whether the named encoding has been loaded in this
// process, without loading anything: the tests prove with it that a path
// stayed cheap.
func loaded(name string) bool {
	le, ok := encodings[name]
	if !ok {
		return false
	}
	select {
	case <-le.loaded:
		return le.err == nil
	default:
		return false
	}
}
