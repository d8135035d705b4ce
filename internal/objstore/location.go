package objstore

import (
	"fmt"
	"net/url"
	"strings"
)

// Location is a prefix of a bucket: s3://bucket/prefix.
type Location struct {
	Bucket string
	Prefix string // without a leading or trailing '/'; "" = the whole bucket
}

// validBucket reports whether name is what S3 and its look-alikes accept
// as a bucket's name: 3 to 63 lowercase letters, digits, dots and hyphens,
// starting and ending with a letter or digit, no "..". (A loop, not a
// package-level regexp: every clawdcode start would compile that.)
func validBucket(name string) bool {
	if len(name) < 3 || len(name) > 63 || strings.Contains(name, "..") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || i == len(name)-1 || c != '.' && c != '-') {
			return false
		}
	}
	return true
}

// ParseURL reads s3://bucket/prefix. The scheme must be s3; the prefix may
// be empty or hold several levels (s3://team/sessions/alice).
func ParseURL(s string) (Location, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return Location{}, fmt.Errorf("%q is not a URL: want s3://bucket/prefix", s)
	}
	if u.Scheme != "s3" || u.Opaque != "" {
		return Location{}, fmt.Errorf("%q: want s3://bucket/prefix", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Port() != "" {
		return Location{}, fmt.Errorf("%q: want s3://bucket/prefix, without a user, port, query or fragment", s)
	}
	if !validBucket(u.Host) {
		return Location{}, fmt.Errorf("%q: %q is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens)", s, u.Host)
	}
	prefix := strings.Trim(u.Path, "/")
	for part := range strings.SplitSeq(prefix, "/") {
		if prefix != "" && (part == "" || part == "." || part == "..") {
			return Location{}, fmt.Errorf("%q: the prefix %q has an empty, . or .. part", s, prefix)
		}
	}
	return Location{Bucket: u.Host, Prefix: prefix}, nil
}

// String is the location as ParseURL reads it.
func (l Location) String() string {
	if l.Prefix == "" {
		return "s3://" + l.Bucket
	}
	return "s3://" + l.Bucket + "/" + l.Prefix
}

// key is rel's full key in the bucket.
func (l Location) key(rel string) string {
	if l.Prefix == "" {
		return rel
	}
	return l.Prefix + "/" + rel
}
