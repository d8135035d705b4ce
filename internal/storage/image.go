package storage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ImageRef is an image a user record carries: the file it is stored in
// (content-addressed, under CLAWDCODE_HOME/images), the SHA-256 of its
// bytes, its media type and its size. The bytes are never in the record,
// so a session that shows a screenshot ten times stays small, and a
// resumed session sends the same bytes again.
type ImageRef struct {
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	MediaType string `json:"mediaType"`
	Size      int64  `json:"size"`
}

// ErrImageChanged is returned by LoadImage when the stored file no longer
// holds the bytes the record names.
var ErrImageChanged = errors.New("stored image does not match its sha256")

// StoreImage stores data once under home/images/<sha256> (0600, written
// atomically; an image stored before is not written again) and returns
// the reference a record keeps.
func StoreImage(home string, data []byte, mediaType string) (ImageRef, error) {
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	dir := filepath.Join(home, "images")
	ref := ImageRef{Path: filepath.Join(dir, hexSum), SHA256: hexSum, MediaType: mediaType, Size: int64(len(data))}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ImageRef{}, fmt.Errorf("store image: %w", err)
	}
	if _, err := LoadImage(ref); err == nil {
		return ref, nil
	}
	if err := writeFileAtomic(dir, hexSum, data); err != nil {
		return ImageRef{}, fmt.Errorf("store image: %w", err)
	}
	return ref, nil
}

// LoadImage reads the bytes ref names and checks them against its sha256.
func LoadImage(ref ImageRef) ([]byte, error) {
	f, err := OpenRegular(ref.Path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("load image: %w", err)
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := io.Copy(&b, io.LimitReader(f, ref.Size+1)); err != nil {
		return nil, fmt.Errorf("load image %s: %w", ref.Path, err)
	}
	sum := sha256.Sum256(b.Bytes())
	if !strings.EqualFold(hex.EncodeToString(sum[:]), ref.SHA256) {
		return nil, fmt.Errorf("load image %s: %w", ref.Path, ErrImageChanged)
	}
	return b.Bytes(), nil
}
