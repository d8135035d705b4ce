package syncs3

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/clawdcode/clawdcode/internal/s3test"
)

// TestStoreFaultsAreOneLine: wrong credentials, a missing bucket, a server
// that is down, one that answers 500 and one that does not answer: `sync`
// says which in one line and exits 1; once the fault is gone the next
// sync completes.
func TestStoreFaultsAreOneLine(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	for _, tc := range []struct {
		name   string
		want   string
		break_ func(m *machine, p *s3test.Proxy)
	}{
		{"wrong credentials", "refused the credentials", func(m *machine, _ *s3test.Proxy) {
			m.ExtraEnv = append(m.ExtraEnv, "AWS_SECRET_ACCESS_KEY=not-the-secret")
		}},
		{"missing bucket", "does not exist", func(m *machine, p *s3test.Proxy) {
			m.configure(p.URL, "s3://no-such-bucket-anywhere/me", false)
		}},
		{"down", "cannot reach", func(_ *machine, p *s3test.Proxy) { p.Close() }},
		{"500", "answered 500", func(_ *machine, p *s3test.Proxy) { p.Set(s3test.Fail500) }},
		{"slow", "did not answer in time", func(m *machine, p *s3test.Proxy) {
			p.Set(s3test.Hang)
			m.ExtraEnv = append(m.ExtraEnv, "CLAWDCODE_SYNC_TIMEOUT=1s")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			proxy := s3test.NewProxy(t, server)
			m := newMachine(t, st, "faults-"+strings.ReplaceAll(tc.name, " ", "-"), false)
			m.configure(proxy.URL, st.url("faults-"+strings.ReplaceAll(tc.name, " ", "-")), false)
			id := m.turn(m.Project, "", "a turn to push")
			env := len(m.ExtraEnv)
			tc.break_(m, proxy)
			r := m.Run("sync")
			if r.Code != 1 || !strings.Contains(oneLine(t, r.Stderr), tc.want) {
				t.Fatalf("sync against a store that is %s:\n%s", tc.name, r)
			}
			// Mended: the next sync completes.
			m.ExtraEnv = m.ExtraEnv[:env]
			mended := s3test.NewProxy(t, server)
			m.configure(mended.URL, st.url("faults-"+strings.ReplaceAll(tc.name, " ", "-")), false)
			if r := m.mustSync(); !strings.Contains(r.Stdout, "pushed: 1 sessions") {
				t.Fatalf("the sync after the fault:\n%s", r)
			}
			other := newMachine(t, st, "faults-"+strings.ReplaceAll(tc.name, " ", "-"), false)
			other.mustSync("--pull")
			if other.sessionPath(id) == "" {
				t.Fatal("the session is not in the store after the mended sync")
			}
		})
	}
}

// TestATurnNeverWaitsOnTheStore: with [sync] auto, a turn against a store
// that never answers (and a request timeout far past the run's) still
// ends, answers and exits: the push runs behind it, is given a bounded
// moment at exit, and is said to be unfinished in one warning line. The
// next run, against a store that answers, finishes it: the session is in
// the store although that run worked on another one.
func TestATurnNeverWaitsOnTheStore(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	proxy := s3test.NewProxy(t, server)
	proxy.Set(s3test.Hang)
	m := newMachine(t, st, "auto", true)
	m.configure(proxy.URL, st.url("auto"), true)
	m.ExtraEnv = append(m.ExtraEnv, "CLAWDCODE_SYNC_TIMEOUT=10m")
	var obj struct {
		Result    string `json:"result"`
		SessionID string `json:"session_id"`
	}
	r := m.runJSONIn(m.Project, &obj, "-p", "HANGING-STORE turn", "--output-format", "json")
	if r.Code != 0 || !strings.Contains(obj.Result, "HANGING-STORE") {
		t.Fatalf("the turn against a hanging store:\n%s", r)
	}
	if proxy.Requests() == 0 {
		t.Fatal("the turn's end pushed nothing")
	}
	if !strings.Contains(r.Stderr, "warning: sync: session "+obj.SessionID) {
		t.Errorf("no line says the push did not finish:\n%s", r)
	}

	proxy.Set(s3test.Pass)
	other := m.turn(m.Project, "", "a turn in another session")
	check := newMachine(t, st, "auto", false)
	check.mustSync("--pull")
	for _, id := range []string{obj.SessionID, other} {
		if check.sessionPath(id) == "" {
			t.Errorf("session %s is not in the store after the next run", id)
		}
	}
}

// TestADamagedObjectIsNeverWritten: a segment changed in the bucket behind
// clawdcode's back (its bytes no longer match the hash its head names) is
// refused by a pull with one line, and nothing of it reaches the session;
// the machine's other sessions are pulled all the same.
func TestADamagedObjectIsNeverWritten(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	a := newMachine(t, st, "damage", false)
	b := newMachine(t, st, "damage", false)
	hurt := a.turn(a.Project, "", "DAMAGE-TARGET first")
	a.mustSync("--push")
	var segment string
	for key := range st.objects(t) {
		if strings.Contains(key, "/segments/"+hurt+"/") {
			segment = key
		}
	}
	if segment == "" {
		t.Fatal("no segment of the session in the bucket")
	}
	fine := a.turn(a.Project, "", "an intact session")
	a.mustSync("--push")
	body := st.objects(t)[segment]
	damaged := []byte(strings.Replace(string(body), "DAMAGE-TARGET", "DAMAGE-TARGEX", 1))
	if _, err := server.Client().PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(st.Bucket), Key: aws.String(segment), Body: strings.NewReader(string(damaged))}); err != nil {
		t.Fatal(err)
	}
	r := b.Run("sync", "--pull")
	if r.Code != 1 || !strings.Contains(oneLine(t, r.Stderr), "does not match its hash") {
		t.Fatalf("a pull of a damaged segment:\n%s", r)
	}
	if b.sessionPath(hurt) != "" {
		t.Error("the damaged session was written")
	}
	if b.sessionPath(fine) == "" {
		t.Error("the intact session was not pulled")
	}
}
