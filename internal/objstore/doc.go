// Package objstore is the object store sessions sync through (CONTRACT.md
// section 15): a prefix of a bucket on any S3-compatible server (AWS S3,
// Cloudflare R2, GCS's S3 API, MinIO, SeaweedFS, Ceph), reached with the
// AWS SDK for Go v2 (github.com/aws/aws-sdk-go-v2/service/s3). It is the
// only package that imports the SDK.
//
// # Contract
//
//   - Keys are relative to the Location's prefix; S3 sees prefix + "/" + key.
//   - Get of a missing object is ErrNotFound. Create writes a key only if no
//     object has it (If-None-Match: *): an existing one is ErrExists, and
//     the object is not touched. Swap writes a key only if its ETag is the
//     one given (If-Match): a changed or missing object is ErrChanged. Put
//     writes unconditionally (the benchmarks' plain upload only).
//   - Every other failure is an *Error whose message is one line a user can
//     act on: wrong credentials, a missing bucket, a server that cannot be
//     reached or does not answer in time, or answers 5xx. Transient ones (a
//     5xx, a reset connection, a timeout) are retried a few times with a
//     short back-off first; Transient says which kind an error was.
//   - Nothing but the bytes given is sent: no user metadata, no tags; the
//     Content-Type is application/octet-stream.
//   - Credentials come from the Config (the caller reads the standard
//     AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN); no
//     shared config file or instance metadata is consulted.
//
// An S3 is safe for concurrent use; requests share one HTTP transport with
// enough idle connections for the transfers sync runs at once.
//
// The SDK was chosen over minio-go for its first-class conditional writes
// (PutObjectInput.IfNoneMatch and IfMatch), its smaller start-up cost
// (package initialisation: 0.25 ms and 93 KB, against minio-go's 0.6 ms and
// 400 KB, every clawdcode start paying it) and its dependencies, which are
// AWS's own modules alone.
package objstore
