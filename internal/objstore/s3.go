package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Config says where the store is and how to reach it.
type Config struct {
	Location Location
	// Endpoint is the server's URL (http://127.0.0.1:8333); "" is AWS S3
	// in Region. A custom endpoint is addressed path-style
	// (endpoint/bucket/key), which every S3-compatible server accepts.
	Endpoint string
	Region   string // "" = us-east-1
	// The credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
	// AWS_SESSION_TOKEN).
	AccessKey, SecretKey, SessionToken string
	// Timeout bounds the wait for a server's answer to one request (0 =
	// DefaultTimeout); a transfer may take longer while bytes flow (see
	// transferTime).
	Timeout time.Duration
	// HTTPClient replaces the default client (tests).
	HTTPClient *http.Client
}

// DefaultTimeout is how long a request waits for the server to answer.
const DefaultTimeout = 30 * time.Second

// Transfers run at once share the transport's connections.
const maxConnsPerHost = 16

// S3 is a Location on an S3-compatible server.
type S3 struct {
	loc      Location
	endpoint string // for messages: the server as the user named it
	timeout  time.Duration
	client   *s3.Client
}

// New checks cfg and returns the store; it sends nothing.
func New(cfg Config) (*S3, error) {
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, &Error{Kind: KindAuth, Msg: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set to reach " + cfg.Location.String()}
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: newTransport(timeout)}
	}
	opts := s3.Options{
		Region:      region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)),
		HTTPClient:  hc,
		// S3-compatible servers differ in which checksum headers they
		// know; the SDK's default (a CRC32 on every request) is refused
		// by some. Sync hashes every segment itself.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.MaxBackoff = 2 * time.Second
		}),
	}
	endpoint := "AWS S3 (" + region + ")"
	if cfg.Endpoint != "" {
		opts.BaseEndpoint = aws.String(strings.TrimRight(cfg.Endpoint, "/"))
		opts.UsePathStyle = true
		endpoint = cfg.Endpoint
	}
	return &S3{loc: cfg.Location, endpoint: endpoint, timeout: timeout, client: s3.New(opts)}, nil
}

// newTransport is an HTTP transport that gives up on a server that does
// not connect or answer within timeout.
func newTransport(timeout time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: min(timeout, 10*time.Second), KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = min(timeout, 10*time.Second)
	t.ResponseHeaderTimeout = timeout
	t.MaxIdleConnsPerHost = maxConnsPerHost
	return t
}

// Location is where the store is.
func (s *S3) Location() Location { return s.loc }

// transferTime bounds one request moving n bytes: the answer's timeout
// plus the bytes at a slow 256 KiB/s.
func (s *S3) transferTime(n int) time.Duration {
	return s.timeout + time.Duration(n/(256<<10))*time.Second
}

// Object is an object's bytes and its ETag.
type Object struct {
	Body []byte
	ETag string
}

// maxGetBytes bounds what Get reads of one object: sync's objects are
// segments of at most a few MiB (a single huge record aside) and heads.
const maxGetBytes = 1 << 30

// Get reads the object key whole. A missing object is ErrNotFound.
func (s *S3) Get(ctx context.Context, key string) (Object, error) {
	ctx, cancel := context.WithTimeout(ctx, s.transferTime(64<<20))
	defer cancel()
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.loc.Bucket, Key: aws.String(s.loc.key(key))})
	if err != nil {
		return Object{}, s.describe("read", key, err)
	}
	defer out.Body.Close()
	var buf bytes.Buffer
	if out.ContentLength != nil && *out.ContentLength > 0 && *out.ContentLength <= maxGetBytes {
		buf.Grow(int(*out.ContentLength))
	}
	if _, err := buf.ReadFrom(io.LimitReader(out.Body, maxGetBytes+1)); err != nil {
		return Object{}, s.describe("read", key, err)
	}
	if buf.Len() > maxGetBytes {
		return Object{}, &Error{Kind: KindServer, Msg: fmt.Sprintf("%s: object %s is larger than %d bytes", s.loc, key, maxGetBytes)}
	}
	return Object{Body: buf.Bytes(), ETag: aws.ToString(out.ETag)}, nil
}

// Create writes body as key if no object has that key (If-None-Match: *);
// when one does, it is left as it is and Create returns ErrExists.
func (s *S3) Create(ctx context.Context, key string, body []byte) (etag string, err error) {
	return s.put(ctx, key, body, func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") })
}

// Swap replaces the object key if its ETag is still etag (If-Match); when
// it changed, or is gone, Swap returns ErrChanged.
func (s *S3) Swap(ctx context.Context, key string, body []byte, etag string) (string, error) {
	return s.put(ctx, key, body, func(in *s3.PutObjectInput) { in.IfMatch = aws.String(etag) })
}

// Put writes body as key whatever is there.
func (s *S3) Put(ctx context.Context, key string, body []byte) (string, error) {
	return s.put(ctx, key, body, nil)
}

func (s *S3) put(ctx context.Context, key string, body []byte, cond func(*s3.PutObjectInput)) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.transferTime(len(body)))
	defer cancel()
	in := &s3.PutObjectInput{
		Bucket:        &s.loc.Bucket,
		Key:           aws.String(s.loc.key(key)),
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
		ContentType:   aws.String("application/octet-stream"),
	}
	if cond != nil {
		cond(in)
	}
	out, err := s.client.PutObject(ctx, in)
	if err != nil {
		return "", s.describe("write", key, err)
	}
	return aws.ToString(out.ETag), nil
}

// Entry is one object of a listing.
type Entry struct {
	Key      string // relative to the Location's prefix
	Size     int64
	ETag     string
	Modified time.Time
}

// List returns every object whose key starts with prefix (relative to the
// Location's), in key order.
func (s *S3) List(ctx context.Context, prefix string) ([]Entry, error) {
	full := s.loc.key(prefix)
	strip := len(s.loc.key(""))
	var out []Entry
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.loc.Bucket, Prefix: aws.String(full)})
	for p.HasMorePages() {
		page, err := s.listPage(ctx, p)
		if err != nil {
			return nil, s.describe("list", prefix, err)
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			if len(k) >= strip {
				out = append(out, Entry{Key: k[strip:], Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag), Modified: aws.ToTime(o.LastModified)})
			}
		}
	}
	return out, nil
}

func (s *S3) listPage(ctx context.Context, p *s3.ListObjectsV2Paginator) (*s3.ListObjectsV2Output, error) {
	ctx, cancel := context.WithTimeout(ctx, s.transferTime(1<<20))
	defer cancel()
	return p.NextPage(ctx)
}

// Delete removes key; a missing one is no error.
func (s *S3) Delete(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.loc.Bucket, Key: aws.String(s.loc.key(key))})
	if err != nil {
		if err := s.describe("remove", key, err); !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}
