//go:build tools

// Package seaweedfs pins the SeaweedFS server the sync tests run against
// (its S3 gateway on loopback). It is a module of its own so that the
// server's many dependencies never enter clawdcode's go.mod; scripts/weed.sh
// builds it into a cache directory reused between runs.
package seaweedfs

import _ "github.com/seaweedfs/seaweedfs/weed"
