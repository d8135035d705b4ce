package cli

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// TestResultShape pins the field names and types of CONTRACT.md section 5.
func TestResultShape(t *testing.T) {
	t.Parallel()
	res := newResult("done", nil, nil)
	res.SessionID, res.NumTurns = "s1", 2
	res.Usage = ResultUsage{InputTokens: 10, OutputTokens: 3}
	res.Context = ResultContext{Tokens: 120, Window: 128000}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "result", "subtype": "success", "is_error": false, "result": "done",
		"session_id": "s1", "num_turns": float64(2), "duration_ms": float64(0),
		"usage":       map[string]any{"input_tokens": float64(10), "output_tokens": float64(3)},
		"context":     map[string]any{"tokens": float64(120), "window": float64(128000)},
		"compactions": float64(0),
	}
	for k, v := range want {
		gb, _ := json.Marshal(m[k])
		wb, _ := json.Marshal(v)
		if string(gb) != string(wb) {
			t.Errorf("%s = %s, want %s", k, gb, wb)
		}
	}
	if len(m) != len(want) {
		t.Errorf("result has %d fields, want %d: %s", len(m), len(want), b)
	}

	failed := newResult("partial", usageErrorf("no prompt"), nil)
	if !failed.IsError || failed.Subtype != "error" || failed.Result != "no prompt" {
		t.Errorf("error result = %+v", failed)
	}
}

func TestStreamJSONSink(t *testing.T) {
	t.Parallel()
	ios, _, out, _ := iostreams.Test()
	s := newPrintSink(ios, FormatStreamJSON, func() initEvent {
		return initEvent{Type: "system", Subtype: "init", SessionID: "s1"}
	})
	s.Text("Let me ")
	s.Text("look.")
	s.ToolStart("call_1", "Read", json.RawMessage(`{"file_path":"a.go"}`))
	s.ToolEnd("call_1", "Read", tools.Result{Output: "package a"})
	s.ToolStart("call_2", "Write", json.RawMessage(`{"file_path":"b.go","content":"x"}`))
	s.ToolEnd("call_2", "Write", tools.Result{Error: "denied"})
	s.Notice(contextmgr.Notice{Kind: "compacted", Text: "compacted 100 → 10"})
	s.Text("Done.")
	res := newResult("Done.", nil, nil)
	s.finish(res, time.Now())

	var types []string
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, line := range lines {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		types = append(types, e["type"].(string))
	}
	want := "system assistant tool_use tool_result tool_use tool_result compact assistant result"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("event types = %s\nwant %s", got, want)
	}
	if !strings.Contains(lines[1], `"text":"Let me look."`) || !strings.Contains(lines[5], `"is_error":true`) {
		t.Errorf("events:\n%s", out)
	}
}

func TestJSONSinkPrintsOneObject(t *testing.T) {
	t.Parallel()
	ios, _, out, errOut := iostreams.Test()
	s := newPrintSink(ios, FormatJSON, nil)
	s.Text("hello")
	s.ToolStart("c", "Bash", json.RawMessage(`{"command":"ls"}`))
	s.Notice(contextmgr.Notice{Kind: "warning", Text: "line 3 skipped"})
	s.finish(newResult("", errors.New("server said no"), nil), time.Now())
	var res Result
	dec := json.NewDecoder(strings.NewReader(out.String()))
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if dec.More() {
		t.Errorf("more than one JSON value on stdout: %q", out)
	}
	if !res.IsError || res.Result != "server said no" {
		t.Errorf("result = %+v", res)
	}
	if got := errOut.String(); got != "clawdcode: warning: line 3 skipped\n" {
		t.Errorf("stderr = %q, want only the warning", got)
	}
}

func TestTextSinkWritesAnswerOnly(t *testing.T) {
	t.Parallel()
	ios, _, out, errOut := iostreams.Test()
	s := newPrintSink(ios, FormatText, nil)
	s.Text("thinking out loud")
	s.ToolStart("c", "Read", json.RawMessage(`{"file_path":"x"}`))
	s.Notice(contextmgr.Notice{Kind: "compacting", Text: "compacting…"})
	s.finish(newResult("The answer.\n\n", nil, nil), time.Now())
	if out.String() != "The answer.\n" || errOut.Len() != 0 {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
}

// TestNoticesOnStderr: what the user must know of a -p run (a warning, a
// summary that failed, texts cut to fit) reaches stderr as one
// "clawdcode: warning:" line in every format, terminal or not; progress
// only on a terminal; stdout never carries a notice outside stream-json.
func TestNoticesOnStderr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind, text string
		tty        bool
		want       map[string]string // format → stderr
	}{
		{"fallback", "the summary failed (server error (500): boom\nafter 3 attempts); kept the most recent part", false, map[string]string{
			FormatText:       "clawdcode: warning: the summary failed (server error (500): boom after 3 attempts); kept the most recent part\n",
			FormatJSON:       "clawdcode: warning: the summary failed (server error (500): boom after 3 attempts); kept the most recent part\n",
			FormatStreamJSON: "clawdcode: warning: the summary failed (server error (500): boom after 3 attempts); kept the most recent part\n",
		}},
		{"truncated", "cut 2 oversized tool results down", false, map[string]string{
			FormatText:       "clawdcode: warning: cut 2 oversized tool results down\n",
			FormatJSON:       "clawdcode: warning: cut 2 oversized tool results down\n",
			FormatStreamJSON: "clawdcode: warning: cut 2 oversized tool results down\n",
		}},
		{"fallback", "the summary failed", true, map[string]string{
			FormatText: "clawdcode: warning: the summary failed\n",
			FormatJSON: "clawdcode: warning: the summary failed\n",
		}},
		{"warning", "line 3 skipped", false, map[string]string{
			FormatText:       "clawdcode: warning: line 3 skipped\n",
			FormatStreamJSON: "clawdcode: warning: line 3 skipped\n",
		}},
		{"compacting", "compacting…", false, map[string]string{FormatText: "", FormatJSON: "", FormatStreamJSON: ""}},
		{"compacted", "compacted: 100 → 10 tokens", true, map[string]string{
			FormatText:       "compacted: 100 → 10 tokens\n",
			FormatJSON:       "compacted: 100 → 10 tokens\n",
			FormatStreamJSON: "",
		}},
	}
	for _, tt := range tests {
		for format, want := range tt.want {
			t.Run(tt.kind+"/"+format+"/tty="+strconv.FormatBool(tt.tty), func(t *testing.T) {
				t.Parallel()
				ios, _, out, errOut := iostreams.Test()
				ios.SetTTY(false, false, tt.tty)
				s := newPrintSink(ios, format, func() initEvent { return initEvent{Type: "system", Subtype: "init"} })
				s.Notice(contextmgr.Notice{Kind: contextmgr.NoticeKind(tt.kind), Text: tt.text})
				if got := errOut.String(); got != want {
					t.Errorf("stderr = %q, want %q", got, want)
				}
				if format != FormatStreamJSON && out.Len() != 0 {
					t.Errorf("stdout = %q, want nothing before the result", out)
				}
			})
		}
	}
}
