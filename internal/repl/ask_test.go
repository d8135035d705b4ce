package repl

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

func TestAskerAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		input string
		want  tools.Decision
	}{
		{"y\n", tools.AllowOnce},
		{"YES\n", tools.AllowOnce},
		{"a\n", tools.AllowAlways},
		{"always\n", tools.AllowAlways},
		{"n\n", tools.Deny},
		{"\n", tools.Deny},
		{"", tools.Deny},                // end of input
		{"maybe\ny\n", tools.AllowOnce}, // asks again
		{"x\nx\nx\ny\n", tools.Deny},    // gives up after three
		{"y\r\n", tools.AllowOnce},      // a terminal's CR
		{"  a  \nleft over\n", tools.AllowAlways},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSpace(tt.input), func(t *testing.T) {
			t.Parallel()
			ios, in, _, errOut := iostreams.Test()
			in.WriteString(tt.input)
			got, err := NewAsker(ios).Ask(context.Background(), fakeTool{}, json.RawMessage(`{"file_path":"a.txt","content":"one\ntwo\n"}`))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("decision = %v, want %v\n%s", got, tt.want, errOut)
			}
			if !strings.Contains(errOut.String(), "Write(a.txt)") || !strings.Contains(errOut.String(), "Allow? [y]es once / [a]lways this session / [n]o") {
				t.Fatalf("prompt does not say what is asked:\n%s", errOut)
			}
		})
	}
}

// The asker must not read past its answer: the REPL reads the next line.
func TestAskerLeavesTheRestOfInput(t *testing.T) {
	t.Parallel()
	ios, in, _, _ := iostreams.Test()
	in.WriteString("y\nnext prompt\n")
	if _, err := NewAsker(ios).Ask(context.Background(), fakeTool{}, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if in.String() != "next prompt\n" {
		t.Fatalf("left %q", in.String())
	}
}

func TestAskerCancelled(t *testing.T) {
	t.Parallel()
	ios, in, _, _ := iostreams.Test()
	in.WriteString("y\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := NewAsker(ios).Ask(ctx, fakeTool{}, json.RawMessage(`{}`))
	if got != tools.Deny || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want Deny, context.Canceled", got, err)
	}
}

func TestAskerPreview(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, input string
		want, notWant     []string
	}{
		{"write", "Write", `{"file_path":"a","content":"alpha\nbeta\n"}`, []string{"│ alpha", "│ beta"}, nil},
		{"long write", "Write", `{"file_path":"a","content":"` + strings.Repeat(`l\n`, 20) + `"}`, []string{"… 12 more lines"}, nil},
		{"edit", "Edit", `{"file_path":"a","old_string":"x := 1","new_string":"x := 2"}`, []string{"- x := 1", "+ x := 2"}, nil},
		{"one-line bash", "Bash", `{"command":"ls"}`, nil, []string{"│"}},
		{"multi-line bash", "Bash", `{"command":"cd x\nmake"}`, []string{"│ cd x", "│ make"}, nil},
		{"long bash shown whole", "Bash", `{"command":"echo ` + strings.Repeat("y", 150) + `; touch HIDDEN"}`, []string{"│ echo yyy", "┆ yyy", "; touch HIDDEN"}, nil},
		{"bash with CR", "Bash", `{"command":"ls\r; touch HIDDEN"}`, []string{"│ ls^M; touch HIDDEN"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			tool, _ := tools.Lookup(tools.Set(tools.NewEnv(t.TempDir())), tt.tool)
			writePreview(&out, colorScheme{}, tt.tool, tool.Describe(json.RawMessage(tt.input)), json.RawMessage(tt.input))
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("preview lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("preview has %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestPick(t *testing.T) {
	t.Parallel()
	sessions := []storage.SessionInfo{
		{ID: "3f2a9c1e-aaaa", Title: "fix the flaky test", Updated: time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)},
		{ID: "3f9b0000-bbbb", Title: "", Updated: time.Date(2026, 11, 19, 9, 30, 0, 0, time.UTC)},
		{ID: "c0ffee00-cccc", Title: "refactor", Updated: time.Date(2026, 11, 18, 9, 30, 0, 0, time.UTC)},
	}
	tests := []struct {
		name, input, want string
	}{
		{"number", "2\n", "3f9b0000-bbbb"},
		{"id prefix", "c0f\n", "c0ffee00-cccc"},
		{"empty cancels", "\n", ""},
		{"end of input cancels", "", ""},
		{"out of range then valid", "9\n1\n", "3f2a9c1e-aaaa"},
		{"ambiguous prefix then valid", "3f\n3f2\n", "3f2a9c1e-aaaa"},
		{"three wrong answers give up", "x\ny\nz\n1\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, in, out, errOut := iostreams.Test()
			in.WriteString(tt.input)
			got, err := pick(context.Background(), ios, sessions)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("picked %q, want %q\n%s", got, tt.want, errOut)
			}
			if out.Len() != 0 {
				t.Fatalf("picker wrote to stdout: %q", out)
			}
			for _, row := range []string{"1  3f2a9c1e", "fix the flaky test", "2  3f9b0000", "(untitled)", "3  c0ffee00"} {
				if !strings.Contains(errOut.String(), row) {
					t.Fatalf("list lacks %q:\n%s", row, errOut)
				}
			}
		})
	}
}

func TestPickNothing(t *testing.T) {
	t.Parallel()
	ios, in, _, errOut := iostreams.Test()
	in.WriteString("1\n")
	got, err := pick(context.Background(), ios, nil)
	if got != "" || err != nil || !strings.Contains(errOut.String(), "no sessions") {
		t.Fatalf("got %q, %v, %q", got, err, errOut)
	}
}

// The permission prompt must not be drawn over by the spinner of the turn
// that asks: Run links the Asker it is given to its turns, and Ask stops
// the spinner before it writes and starts it again once answered.
func TestAskerStopsTheTurnSpinner(t *testing.T) {
	t.Parallel()
	ios, in, _, _ := iostreams.Test()
	ios.ErrOut = &lockedBuffer{}
	ios.SetTTY(false, false, true) // a spinner on stderr, lines read plainly
	in.WriteString("write it\ny\n")
	asker := NewAsker(ios)
	eng := &spinnerProbe{fakeEngine: &fakeEngine{asker: asker}}
	if err := Run(context.Background(), Options{IO: ios, Turns: eng, Parts: fakeParts(), Commands: &fakeCommands{}, Asker: asker}); err != nil {
		t.Fatal(err)
	}
	if !eng.before {
		t.Fatal("no spinner was running when the turn asked: the test shows nothing")
	}
	if eng.during {
		t.Fatal("spinner still running during the permission prompt")
	}
	if !eng.after {
		t.Fatal("the spinner did not come back once the question was answered")
	}
	if eng.decision != tools.AllowOnce {
		t.Fatalf("decision %v, want allow once", eng.decision)
	}
}

// spinnerProbe asks for permission in its turn and notes whether the
// turn's spinner ran before the question, while it was asked (when the
// prompt describes the call) and after it was answered.
type spinnerProbe struct {
	*fakeEngine
	before, during, after bool
	decision              tools.Decision
}

// describeProbe is fakeTool calling probe when the prompt describes it.
type describeProbe struct {
	fakeTool
	probe func()
}

func (d describeProbe) Describe(in json.RawMessage) string {
	d.probe()
	return d.fakeTool.Describe(in)
}

func (e *spinnerProbe) Submit(ctx context.Context, text string, sink agent.Sink) (*agent.TurnResult, error) {
	out := sink.(*turnOutput)
	e.before = out.spin.running()
	tool := describeProbe{probe: func() { e.during = e.during || out.spin.running() }}
	d, err := e.asker.Ask(ctx, tool, json.RawMessage(`{"file_path":"a.txt","content":"x"}`))
	e.after = out.spin.running()
	e.decision = d
	return &agent.TurnResult{Text: text}, err
}
