package tokens

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	tiktoken "github.com/pkoukk/tiktoken-go"
)

// BenchmarkFirstCountO200k measures what the first exact count costs a
// process, as a turn near the compaction trigger pays it: each iteration
// runs TestChildFirstCount in a fresh process, which times the count of an
// 8 KB message and reports the CPU, and the heap it keeps and allocates.
// GetEncoding is the same count with the *Tiktoken tiktoken.GetEncoding
// builds over every rank, the cost the encoder avoids (see encoder).
func BenchmarkFirstCountO200k(b *testing.B) {
	b.Run("Counter", func(b *testing.B) { firstCount(b, "counter") })
	b.Run("GetEncoding", func(b *testing.B) { firstCount(b, "getencoding") })
}

func firstCount(b *testing.B, how string) {
	var ms, heap, alloc float64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildFirstCount$", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"="+how)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var m, h, a float64
		found := false
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if _, err := fmt.Sscanf(strings.TrimSpace(sc.Text()), "firstcount cpu-ms=%g heapMB=%g allocMB=%g", &m, &h, &a); err == nil {
				found = true
			}
		}
		if !found {
			b.Fatalf("child printed no measurement:\n%s", out)
		}
		ms, heap, alloc = ms+m, heap+h, alloc+a
	}
	n := float64(b.N)
	b.ReportMetric(ms/n, "cpu-ms")
	b.ReportMetric(heap/n, "heap-MB")
	b.ReportMetric(alloc/n, "alloc-MB")
}

func TestChildFirstCount(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by BenchmarkFirstCountO200k in a fresh process")
	}
	msg := chat.Message{Role: chat.RoleUser, Content: realisticCode(t, 8<<10)}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := cpuTime(t)
	n := 0
	if os.Getenv(childEnv) == "getencoding" {
		enc, err := tiktoken.GetEncoding(O200kBase)
		if err != nil {
			t.Fatal(err)
		}
		defer runtime.KeepAlive(enc) // a process keeps its encoder
		n = TokensPerMessage + len(enc.EncodeOrdinary(msg.Role)) + len(enc.EncodeOrdinary(msg.Content))
	} else {
		n = NewCounter("gpt-4o").Message(msg)
	}
	if n < 1000 {
		t.Fatalf("8 KB of Go counted %d tokens", n)
	}
	elapsed := cpuTime(t) - start
	runtime.GC()
	runtime.ReadMemStats(&after)
	fmt.Printf("firstcount cpu-ms=%.1f heapMB=%.1f allocMB=%.1f\n", float64(elapsed.Microseconds())/1000,
		float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
}

// cpuTime is the CPU the process has used (user and system).
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// realisticCode is ~size bytes of this package's own Go source, repeated.
func realisticCode(b testing.TB, size int) string {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		b.Fatalf("glob sources: %v", err)
	}
	var sb strings.Builder
	for sb.Len() < size {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
		}
	}
	return sb.String()[:size]
}

// BenchmarkText100KBCode counts 100 KB of Go that was not counted before
// (the encoder forgets what it counted after each), with the ranks of its
// tokens learnt.
func BenchmarkText100KBCode(b *testing.B) {
	s := realisticCode(b, 100<<10)
	c := NewCounter("gpt-4o")
	enc, err := encoding(c.Encoding())
	if err != nil {
		b.Fatal(err)
	}
	_ = c.Text(s)
	b.SetBytes(int64(len(s)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		enc.memoMu.Lock()
		clear(enc.memo)
		enc.memoMu.Unlock()
		_ = c.Text(s)
	}
}

func BenchmarkMessageUpperBound1MB(b *testing.B) {
	m := chat.Message{Role: chat.RoleTool, ToolCallID: "call_1", Content: realisticCode(b, 1<<20)}
	b.SetBytes(int64(len(m.Content)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = MessageUpperBound(m)
	}
}

func BenchmarkEstimate1MB(b *testing.B) {
	s := realisticCode(b, 1<<20)
	b.SetBytes(int64(len(s)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = Estimate(s)
	}
}
