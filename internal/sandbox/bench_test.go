package sandbox

import (
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkTrue: the wall time of running `true` unsandboxed (a plain
// child process, as clawdcode ran commands before the sandbox), inside
// the sandbox once its host runs (every command of a run but the first),
// and with a new host each time (the first command of a run, which starts
// the host). The budget (issue 32): sandboxed at most 10 ms over plain.
func BenchmarkTrue(b *testing.B) {
	bin, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true")
	}
	root := b.TempDir()
	run := func(b *testing.B, sb *Sandbox, outside bool) {
		p, err := sb.Start(Command{Argv: []string{bin}, Env: os.Environ(), Dir: root, Output: io.Discard, Outside: outside, OutputGrace: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		if ws, err := p.Wait(); err != nil || ws.ExitStatus() != 0 {
			b.Fatalf("true: %v %v", ws, err)
		}
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			p := newProcess(nil, Off)
			if err := startPlain(Command{Argv: []string{bin}, Env: os.Environ(), Dir: root, Output: io.Discard, OutputGrace: time.Second}, p); err != nil {
				b.Fatal(err)
			}
			<-p.Done()
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		sb := New(Config{Root: root})
		defer sb.Close()
		if !sb.Contained() {
			b.Skip("no sandbox on this system")
		}
		for b.Loop() {
			run(b, sb, false)
		}
	})
	b.Run("sandboxed-first", func(b *testing.B) {
		for b.Loop() {
			sb := New(Config{Root: root})
			run(b, sb, false)
			sb.Close()
		}
	})
}
