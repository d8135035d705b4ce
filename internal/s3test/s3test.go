// Package s3test runs a real S3 server on loopback for tests: SeaweedFS's
// `weed mini` (master, volume server, filer and S3 gateway in one
// process), at the version tools/seaweedfs/go.mod pins, built by
// scripts/seaweedfs.sh (make seaweedfs) into a cache directory. Tests
// never reach anything but 127.0.0.1: the server's telemetry, web UIs and
// extra gateways are turned off.
//
// Binary finds the build; without one a test is skipped on a developer's
// machine and fails under CI (fixtures.Missing), where .ci/run builds it.
// A Server is safe for concurrent use; each test takes a bucket of its own.
package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// BinaryEnv names a weed binary to use instead of the cached build.
const BinaryEnv = "CLAWDCODE_WEED"

// Credentials of the server's one identity.
const (
	AccessKey = "clawdcode-test-access"
	SecretKey = "clawdcode-test-secret-0123456789"
)

// Binary returns the weed binary: BinaryEnv's, else the one
// scripts/seaweedfs.sh built for the pinned version ("" and why not, when
// there is none).
func Binary() (path, missing string) {
	if p := os.Getenv(BinaryEnv); p != "" {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			return "", fmt.Sprintf("%s=%s is not an executable", BinaryEnv, p)
		}
		return p, ""
	}
	p, err := cachedBinary()
	if err != nil {
		return "", err.Error()
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Sprintf("SeaweedFS is not built (%s): run `make seaweedfs` (minutes, once)", p)
	}
	return p, ""
}

// cachedBinary is where scripts/seaweedfs.sh puts the pinned version.
func cachedBinary() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	mod, err := os.ReadFile(filepath.Join(root, "tools", "seaweedfs", "go.mod"))
	if err != nil {
		return "", err
	}
	version := ""
	for line := range strings.SplitSeq(string(mod), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "require" {
			f = f[1:]
		}
		if len(f) >= 2 && f[0] == "github.com/seaweedfs/seaweedfs" {
			version = f[1]
		}
	}
	if version == "" {
		return "", errors.New("tools/seaweedfs/go.mod pins no seaweedfs version")
	}
	cache := os.Getenv("CLAWDCODE_TOOLS_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "clawdcode-tools")
	}
	return filepath.Join(cache, "seaweedfs-"+version, "weed"), nil
}

// moduleRoot is the first directory holding go.mod above the working
// directory (a test's package directory).
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
	}
}

// Shared starts one server for a package's tests, from its TestMain:
// nil when there is no weed or it would not start (Need then says so in
// each test that needs it). stop ends it.
func Shared() (srv *Server, stop func()) {
	bin, missing := Binary()
	if bin == "" {
		startErr = errors.New(missing)
		return nil, func() {}
	}
	dir, err := os.MkdirTemp("", "s3test-")
	if err != nil {
		startErr = err
		return nil, func() {}
	}
	s, err := StartIn(bin, dir)
	if err != nil {
		startErr, missingBinary = err, false
		os.RemoveAll(dir)
		return nil, func() {}
	}
	return s, func() {
		s.Stop()
		os.RemoveAll(dir)
	}
}

var (
	startErr      error
	missingBinary = true
)

// Need stops a test that needs the package's server when Shared could
// not start one: a skip on a developer's machine without weed, a failure
// under CI or when weed would not start.
func Need(tb testing.TB, srv *Server) {
	tb.Helper()
	if srv != nil {
		return
	}
	if startErr != nil && !missingBinary {
		tb.Fatal(startErr)
	}
	fixtures.Missing(tb, "%v", startErr)
}

// Start runs a server for one test and stops it at its cleanup.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, missing := Binary()
	if bin == "" {
		fixtures.Missing(tb, "%s", missing)
	}
	s, err := StartIn(bin, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// Server is a running weed mini on loopback.
type Server struct {
	Endpoint string // http://127.0.0.1:port, the S3 gateway
	dir      string
	cmd      *exec.Cmd
	log      *lockedWriter
	buckets  atomic.Int64
}

// StartIn starts weed from binary with its data in dir, and waits until
// the S3 gateway answers.
func StartIn(binary, dir string) (*Server, error) {
	ports, err := freePorts(9)
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "s3.json")
	identity := fmt.Sprintf(`{"identities":[{"name":"clawdcode-test","credentials":[{"accessKey":%q,"secretKey":%q}],"actions":["Admin","Read","Write","List","Tagging"]}]}`, AccessKey, SecretKey)
	if err := os.WriteFile(cfg, []byte(identity), 0o600); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	args := []string{"mini", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + p(0), "-master.port.grpc=" + p(1), "-volume.port=" + p(2), "-volume.port.grpc=" + p(3),
		"-filer.port=" + p(4), "-filer.port.grpc=" + p(5), "-s3.port=" + p(6), "-s3.port.grpc=" + p(7),
		"-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false", "-master.telemetry=false",
		"-s3.config=" + cfg, "-s3.autoCreateBucket=false", "-s3.localSocket=" + filepath.Join(dir, "s3.sock"), "-filer.localSocket=" + filepath.Join(dir, "filer.sock"),
		"-metricsPort=0",
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + p(6), dir: dir, log: &lockedWriter{b: &bytes.Buffer{}}}
	s.cmd = exec.Command(binary, args...)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start weed: %w", err)
	}
	if err := s.waitReady(2 * time.Minute); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady waits until the gateway lists buckets for the identity (it
// answers before the filer behind it is up; a listing needs the filer).
func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if s.cmd.ProcessState != nil {
			break
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := s.CreateBucket(ctx, "ready-check")
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("weed's S3 gateway did not come up at %s:\n%s", s.Endpoint, s.Log())
}

// Log is what the server printed.
func (s *Server) Log() string {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.b.String()
}

// Stop ends the server's process group.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// Bucket creates a bucket no other test of the server uses and returns
// its name.
func (s *Server) Bucket(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("test-%d-%d", os.Getpid()%100000, s.buckets.Add(1))
	if err := s.CreateBucket(tb.Context(), name); err != nil {
		tb.Fatal(err)
	}
	return name
}

// CreateBucket makes the bucket name (one that exists already is no
// error).
func (s *Server) CreateBucket(ctx context.Context, name string) error {
	_, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if errors.As(err, &owned) || errors.As(err, &exists) {
		return nil
	}
	return err
}

// Client is an S3 client of the server's identity, for what a test does
// behind clawdcode's back (making buckets, damaging objects).
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:                     "us-east-1",
		BaseEndpoint:               aws.String(s.Endpoint),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// lockedWriter lets the server's stdout and stderr share a buffer.
type lockedWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// freePorts reserves n distinct loopback ports and releases them for the
// server to take.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for len(out) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		port := l.Addr().(*net.TCPAddr).Port
		// weed derives nothing from these, but a gRPC port 10000 above
		// an HTTP one is its default: keep clear of the 65535 edge.
		if port > 55000 {
			continue
		}
		out = append(out, port)
	}
	return out, nil
}
