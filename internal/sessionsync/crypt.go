package sessionsync

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"
)

// KeyEnv names the variable that holds the passphrase objects are
// encrypted with (CONTRACT.md §15).
const KeyEnv = "CLAWDCODE_SYNC_KEY"

// sealedMagic starts every encrypted object: a plain segment is JSON
// lines, which never start with it, and a plain head is a JSON object.
var sealedMagic = []byte("clawdcode-sealed-1\n")

// Argon2id's cost for the passphrase: OWASP's smallest recommended
// setting (19 MiB, two passes), paid once per process that syncs.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024 // KiB
	argonThreads = 1
)

// keyed holds the keys derived from the passphrase: it encrypts and
// authenticates objects, and names them so that a name says nothing of
// the session. A nil *keyed (no key) is a store in clear, whose objects
// are named by the session's id and the segment's hash.
type keyed struct {
	sealKey [32]byte // XChaCha20-Poly1305
	nameKey [32]byte // HMAC-SHA256 for object names
}

// kdfParams is how a store's key is derived; the manifest carries it, so
// every machine derives the same key from the same passphrase.
type kdfParams struct {
	Salt    []byte `json:"salt"`
	Time    uint32 `json:"time"`
	Memory  uint32 `json:"memory"`
	Threads uint8  `json:"threads"`
}

func newKDFParams() (kdfParams, error) {
	p := kdfParams{Salt: make([]byte, 16), Time: argonTime, Memory: argonMemory, Threads: argonThreads}
	if _, err := rand.Read(p.Salt); err != nil {
		return kdfParams{}, err
	}
	return p, nil
}

// deriveKeys stretches the passphrase with Argon2id and splits the result
// with HKDF into the sealing key and the naming key.
func deriveKeys(passphrase string, p kdfParams) (*keyed, error) {
	if p.Time == 0 || p.Time > 16 || p.Memory < 8*1024 || p.Memory > 1<<20 || p.Threads == 0 || len(p.Salt) < 16 {
		return nil, errors.New("the store's key parameters are out of range")
	}
	master := argon2.IDKey([]byte(passphrase), p.Salt, p.Time, p.Memory, p.Threads, 32)
	k := &keyed{}
	for _, sub := range []struct {
		dst  *[32]byte
		info string
	}{{&k.sealKey, "clawdcode sync seal"}, {&k.nameKey, "clawdcode sync names"}} {
		b, err := hkdf.Key(sha256.New, master, nil, sub.info, 32)
		if err != nil {
			return nil, err
		}
		copy(sub.dst[:], b)
	}
	return k, nil
}

// seal encrypts plain for the object named name (the name is
// authenticated with it: an object copied under another name, or into
// another session, does not open).
func (k *keyed) seal(name string, plain []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(k.sealKey[:])
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(sealedMagic)+aead.NonceSize(), len(sealedMagic)+aead.NonceSize()+len(plain)+aead.Overhead())
	copy(out, sealedMagic)
	nonce := out[len(sealedMagic):]
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(out, nonce, plain, []byte(name)), nil
}

// open is seal's inverse: errTampered when the object was not sealed under
// this key and name.
func (k *keyed) open(name string, sealed []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(k.sealKey[:])
	if err != nil {
		return nil, err
	}
	body, ok := bytes.CutPrefix(sealed, sealedMagic)
	if !ok || len(body) < aead.NonceSize()+aead.Overhead() {
		return nil, errTampered
	}
	plain, err := aead.Open(body[aead.NonceSize():aead.NonceSize()], body[:aead.NonceSize()], body[aead.NonceSize():], []byte(name))
	if err != nil {
		return nil, errTampered
	}
	return plain, nil
}

// tag is a short name for b that only the key's holders can compute.
func (k *keyed) tag(b []byte, n int) string {
	m := hmac.New(sha256.New, k.nameKey[:])
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))[:n]
}

var errTampered = errors.New("it does not open with this key (damaged, or sealed under another key or name)")

// isSealed reports whether an object's bytes are encrypted.
func isSealed(b []byte) bool { return bytes.HasPrefix(b, sealedMagic) }

// keyCheck is what the manifest seals, so that a wrong passphrase is told
// at once, before any session is read.
const keyCheck = "clawdcode sync key check"

func checkKey(k *keyed, sealedCheck []byte) error {
	plain, err := k.open("manifest", sealedCheck)
	if err != nil || string(plain) != keyCheck {
		return fmt.Errorf("%s is not the passphrase this store was encrypted with", KeyEnv)
	}
	return nil
}
