package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// rawAgent is `clawdcode acp` driven line by line, as a broken or hostile
// client would: what is written is written as it is, and every line
// clawdcode writes is kept (each must be a JSON-RPC message).
type rawAgent struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	err   *syncWriter
	lines chan map[string]any
	bad   chan string
	done  chan struct{}
}

func startRaw(t *testing.T, w *harness.World) *rawAgent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	cmd := w.Command(ctx, "acp")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := &rawAgent{t: t, cmd: cmd, in: in, err: &syncWriter{w: &bytes.Buffer{}}, lines: make(chan map[string]any, 4096), bad: make(chan string, 16), done: make(chan struct{})}
	cmd.Stderr = a.err
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil || m["jsonrpc"] != "2.0" {
				a.bad <- sc.Text()
				continue
			}
			a.lines <- m
		}
		_ = cmd.Wait()
		close(a.done)
	}()
	t.Cleanup(func() {
		_ = in.Close()
		select {
		case <-a.done:
		case <-time.After(time.Minute):
			t.Errorf("clawdcode acp did not exit after stdin closed\n%s", a.err.String())
			_ = cmd.Process.Kill()
		}
		select {
		case line := <-a.bad:
			t.Errorf("a line on stdout is no JSON-RPC message: %.200q", line)
		default:
		}
	})
	return a
}

func (a *rawAgent) send(line string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, line+"\n"); err != nil {
		a.t.Fatalf("write to clawdcode acp: %v\n%s", err, a.err.String())
	}
}

// next is the next message clawdcode writes that is no notification.
func (a *rawAgent) next() map[string]any {
	a.t.Helper()
	for {
		select {
		case m := <-a.lines:
			if _, isNote := m["method"]; isNote && m["id"] == nil {
				continue
			}
			return m
		case line := <-a.bad:
			a.t.Fatalf("a line on stdout is no JSON-RPC message: %.200q", line)
		case <-a.done:
			a.t.Fatalf("clawdcode acp exited\n%s", a.err.String())
		case <-time.After(harness.RunTimeout):
			a.t.Fatalf("no answer\n%s", a.err.String())
		}
	}
}

// errorCode is a response's error code (0 for a result) and its id.
func errorCode(m map[string]any) (int, any) {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0, m["id"]
	}
	code, _ := e["code"].(float64)
	return int(code), m["id"]
}

// Each kind of bad input gets its JSON-RPC error and nothing else happens:
// the agent goes on, a session in it keeps working and its file stays
// valid (the harness holds every record to the schema at the end).
func TestBadInputIsAnsweredNeverFatal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := startRaw(t, w)
	cases := []struct {
		line string
		code int
		id   any
	}{
		{`this is not json`, -32700, nil},
		{"\x00\xff\xfe garbage \x1b[2J", -32700, nil},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, -32600, nil},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`, 0, 1.0},
		{`{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{}}`, -32601, 2.0},
		{`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, -32002, 3.0},
		{`{"jsonrpc":"2.0","id":4,"method":42}`, -32600, 4.0},
		{`{"jsonrpc":"2.0","id":{"an":"object"},"method":"initialize"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":5,"method":"session/new","params":"not an object"}`, -32602, 5.0},
		{`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`, -32602, 6.0},
		{`{"jsonrpc":"2.0","id":7}`, -32600, 7.0},
		{`{"jsonrpc":"2.0","id":8,"method":"session/load","params":{"sessionId":"00000000-0000-4000-8000-000000000000","cwd":"` + w.Project + `","mcpServers":[]}}`, -32002, 8.0},
		{`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1,"pad":"` + strings.Repeat("x", 9<<20) + `"}}`, -32600, nil},
	}
	for _, c := range cases {
		a.send(c.line)
		code, id := errorCode(a.next())
		if code != c.code || id != c.id {
			t.Errorf("%.60q answered code %d id %v, want %d id %v", c.line, code, id, c.code, c.id)
		}
	}

	// A second prompt while one runs is refused; the first goes on.
	a.send(`{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":"` + w.Project + `","mcpServers":[]}}`)
	resp := a.next()
	sid, _ := resp["result"].(map[string]any)["sessionId"].(string)
	hold := make(chan struct{})
	w.Server.Enqueue(llmtest.Reply{Text: "a slow answer in many pieces for the first prompt", PauseAfter: 3, Resume: hold})
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"first"}]}}`, sid))
	for len(w.Server.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond) // the first prompt reaches the model
	}
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"second"}]}}`, sid))
	if code, id := errorCode(a.next()); code != -32600 || id != 12.0 {
		t.Fatalf("a second prompt while one runs answered code %d id %v", code, id)
	}
	close(hold)
	if m := a.next(); m["id"] != 11.0 || m["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatalf("the first prompt answered %v", m)
	}
	w.Server.Enqueue(llmtest.Text("still fine"))
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"third"}]}}`, sid))
	if m := a.next(); m["id"] != 13.0 || m["result"] == nil {
		t.Fatalf("a prompt after the bad input answered %v", m)
	}
}

// A hostile client — random bytes, huge lines, a thousand requests at
// once, sessions past the bound — gets an answer to every request and
// never ends the agent.
func TestHostileClientNeverEndsTheAgent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := startRaw(t, w)
	// A session with a conversation in it, before the flood.
	a.send(`{"jsonrpc":"2.0","id":9000,"method":"session/new","params":{"cwd":"` + w.Project + `","mcpServers":[]}}`)
	sid, _ := a.next()["result"].(map[string]any)["sessionId"].(string)
	w.Server.Enqueue(llmtest.Text("before the flood"))
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":9001,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"one"}]}}`, sid))
	if m := a.next(); m["id"] != 9001.0 || m["result"] == nil {
		t.Fatalf("the first prompt answered %v", m)
	}

	rng := rand.New(rand.NewPCG(7, 33))
	var batch strings.Builder
	const requests = 1000
	methods := []string{
		`"initialize","params":{"protocolVersion":1}`,
		`"session/prompt","params":{"sessionId":"s-%d","prompt":[]}`,
		`"session/set_mode","params":{"sessionId":"s-%d","modeId":"plan"}`,
		`"no/such","params":{}`,
		`"session/new","params":{"cwd":"` + w.Project + `","mcpServers":[]}`,
	}
	junk := 0
	for i := 1; i <= requests; i++ {
		m := methods[i%len(methods)]
		if strings.Contains(m, "%d") {
			m = fmt.Sprintf(m, i)
		}
		if i%5 == 4 && i > 200 {
			m = methods[0] // at most 40 sessions, past the bound of 16
		}
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":%s}`+"\n", i, m)
		if i == 500 {
			// Past the protocol library's own 10 MiB line.
			batch.WriteString(strings.Repeat("{", 12<<20) + "\n")
			junk++
		}
		if i%100 == 0 {
			b := make([]byte, 1+rng.IntN(4096))
			for j := range b {
				b[j] = byte(rng.IntN(256))
				if b[j] == '\n' {
					b[j] = ' '
				}
			}
			batch.Write(append(b, '\n'))
			junk++
		}
	}
	a.send(batch.String())
	seen := map[float64]bool{}
	nullIDs := 0
	for len(seen) < requests {
		m := a.next()
		id, ok := m["id"].(float64)
		if !ok {
			nullIDs++
			continue
		}
		if seen[id] {
			t.Fatalf("request %v answered twice", id)
		}
		seen[id] = true
	}
	if nullIDs > junk {
		t.Errorf("%d answers without an id for %d lines of junk", nullIDs, junk)
	}
	// The session before the flood goes on (it was closed to make room
	// for the others, and opens again), its history whole.
	w.Server.Enqueue(llmtest.Text("after the flood"))
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":9002,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"two"}]}}`, sid))
	for {
		m := a.next()
		if m["id"] == 9002.0 {
			if m["result"] == nil {
				t.Fatalf("the prompt after the flood answered %v\n%s", m, a.err.String())
			}
			break
		}
	}
	msgs := w.Server.LastRequest().Messages
	if len(msgs) != 4 || msgs[1].Content != "one" || msgs[2].Content != "before the flood" || !strings.HasPrefix(msgs[3].Content, "two") {
		t.Fatalf("the session's history after the flood: %+v", msgs)
	}
}
