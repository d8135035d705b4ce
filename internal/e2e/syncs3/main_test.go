// Package syncs3 holds the end-to-end tests of issue 37, sessions on
// every machine: the real binary, one CLAWDCODE_HOME per machine, against
// a real S3 server on loopback (SeaweedFS, internal/s3test) and the
// scripted chat server (llmtest).
package syncs3

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/s3test"
)

var server *s3test.Server

func TestMain(m *testing.M) {
	srv, stop := s3test.Shared()
	server = srv
	code := harness.Main(m, os.Stderr, "syncs3")
	stop()
	os.Exit(code)
}

// summaryText is what the summariser answers; a test finds it in the
// first request of a session continued on another machine.
const summaryText = "## User requests and instructions\nSUMMARY-OF-EARLIER-WORK\n## Next step\ncarry on"

// machine is one machine: its own CLAWDCODE_HOME and chat server, the
// [sync] table of its config.toml pointing at the test's store.
type machine struct {
	*harness.World
}

// store is where a test's machines sync: a bucket of its own.
type store struct {
	Endpoint, Bucket string
}

func newStore(t *testing.T) store {
	t.Helper()
	s3test.Need(t, server)
	return store{Endpoint: server.Endpoint, Bucket: server.Bucket(t)}
}

// url is the store's s3:// URL for prefix.
func (s store) url(prefix string) string { return "s3://" + s.Bucket + "/" + prefix }

// newMachine is a machine syncing to st's prefix (auto off unless asked).
func newMachine(t *testing.T, st store, prefix string, auto bool) *machine {
	t.Helper()
	m := &machine{harness.NewWorld(t, llmtest.Options{})}
	m.Server.SetResponder(replies)
	m.ExtraEnv = append(m.ExtraEnv, "AWS_ACCESS_KEY_ID="+s3test.AccessKey, "AWS_SECRET_ACCESS_KEY="+s3test.SecretKey)
	m.configure(st.Endpoint, st.url(prefix), auto)
	return m
}

// configure writes the machine's [sync] table.
func (m *machine) configure(endpoint, url string, auto bool) {
	m.T.Helper()
	doc := fmt.Sprintf("[sync]\nurl = %q\nendpoint = %q\nauto = %v\n", url, endpoint, auto)
	if err := os.MkdirAll(m.Home, 0o700); err != nil {
		m.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.Home, "config.toml"), []byte(doc), 0o600); err != nil {
		m.T.Fatal(err)
	}
}

// replies answers every request: the summariser (no tools offered) with
// summaryText, the model by echoing the last user message.
func replies(r llmtest.Request) llmtest.Reply {
	if llmtest.IsSummaryRequest(r) {
		return llmtest.Text(summaryText)
	}
	last := ""
	for _, msg := range r.Messages {
		if msg.Role == "user" {
			last = msg.Content
		}
	}
	return llmtest.Text("noted: " + lastLine(last))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// turn runs one -p turn in dir (the shared project), continuing session
// id when it is not "", and returns the session's id.
func (m *machine) turn(dir, id, prompt string) string {
	m.T.Helper()
	args := []string{"-p", prompt, "--output-format", "json"}
	if id != "" {
		args = append([]string{"-r", id}, args...)
	}
	var obj harness.ResultObject
	r := m.runJSONIn(dir, &obj, args...)
	if r.Code != 0 || obj.SessionID == "" {
		m.T.Fatalf("turn %q:\n%s", prompt, r)
	}
	return obj.SessionID
}

func (m *machine) runJSONIn(dir string, v any, args ...string) harness.Result {
	m.T.Helper()
	r := m.RunIn(dir, args...)
	if err := decodeLast(r.Stdout, v); err != nil {
		m.T.Fatalf("%v\n%s", err, r)
	}
	return r
}

// mustSync runs `clawdcode sync args…` and fails the test unless it
// succeeds.
func (m *machine) mustSync(args ...string) harness.Result {
	m.T.Helper()
	r := m.Run(append([]string{"sync"}, args...)...)
	if r.Code != 0 {
		m.T.Fatalf("sync %v:\n%s", args, r)
	}
	return r
}

// sessionPath is the machine's file of session id, in any project.
func (m *machine) sessionPath(id string) string {
	m.T.Helper()
	matches, _ := filepath.Glob(filepath.Join(m.Home, "projects", "*", id+".jsonl"))
	if len(matches) != 1 {
		return ""
	}
	return matches[0]
}

func (m *machine) sessionBytes(id string) []byte {
	m.T.Helper()
	p := m.sessionPath(id)
	if p == "" {
		m.T.Fatalf("no session %s on this machine", id)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		m.T.Fatal(err)
	}
	return b
}

// objects is every object of the bucket, by key.
func (s store) objects(t *testing.T) map[string][]byte {
	t.Helper()
	c := server.Client()
	out := map[string][]byte{}
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(s.Bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			got, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(s.Bucket), Key: o.Key})
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(got.Body)
			got.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			out[aws.ToString(o.Key)] = b
		}
	}
	return out
}

// decodeLast decodes the JSON object on stdout (-p --output-format json).
func decodeLast(stdout string, v any) error {
	return json.Unmarshal([]byte(strings.TrimSpace(stdout)), v)
}
