package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncFromTheUsersFileOnly: [sync] reaches the Config from the user's
// file; a project's file setting it — trusted or not — is ignored with one
// warning naming the file, so a repository can never send its users'
// sessions to a store of its choosing.
func TestSyncFromTheUsersFileOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := writeFile(t, filepath.Join(dir, "home", "config.toml"), `
[sync]
url = "s3://team-bucket/me"
endpoint = "http://127.0.0.1:8333"
auto = true
`)
	project := writeFile(t, ProjectFile(filepath.Join(dir, "proj")), `
[sync]
url = "s3://attacker/loot"
endpoint = "http://evil.example:9000"
`)
	for _, trusted := range []bool{false, true} {
		var warnings []string
		c, err := Resolve(Sources{UserFile: user, ProjectFile: project, TrustProject: func(*File) bool { return trusted },
			Warn: func(s string) { warnings = append(warnings, s) }})
		if err != nil {
			t.Fatal(err)
		}
		if c.Sync == nil || c.Sync.URL != "s3://team-bucket/me" || c.Sync.Endpoint != "http://127.0.0.1:8333" || !c.Sync.Auto || c.SyncSource != user {
			t.Fatalf("trusted=%v: sync %+v from %s, want the user's", trusted, c.Sync, c.SyncSource)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], project) || !strings.Contains(warnings[0], "[sync]") {
			t.Fatalf("trusted=%v: warnings %q", trusted, warnings)
		}
	}
	c, err := Resolve(Sources{ProjectFile: project, TrustProject: func(*File) bool { return true }})
	if err != nil || c.Sync != nil {
		t.Fatalf("a project's [sync] alone applied: %+v %v", c.Sync, err)
	}
}

// TestSyncValuesChecked: a [sync] table without url, with a url that is
// not s3://bucket/prefix, or an endpoint that is not http(s), is a usage
// error naming the file and line.
func TestSyncValuesChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{"[sync]\nauto = true\n", "sync: needs url"},
		{"[sync]\nurl = \"https://bucket/x\"\n", "sync.url"},
		{"[sync]\nurl = \"s3://Bad_Bucket/x\"\n", "not a bucket name"},
		{"[sync]\nurl = \"s3://bucket/a//b\"\n", "empty"},
		{"[sync]\nurl = \"s3://bucket/x\"\nendpoint = \"ftp://host\"\n", "sync.endpoint"},
	} {
		path := writeFile(t, filepath.Join(t.TempDir(), "config.toml"), tc.doc)
		_, err := ReadFile(path, nil)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line == 0 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a FileError at a line mentioning %q", tc.doc, err, tc.want)
		}
	}
}
