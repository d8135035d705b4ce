package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// lock takes the store's import lock, $CLAWDCODE_HOME/import/import.lock
// (a flock, which the kernel drops when its holder dies), waiting for
// another import to finish: two imports of the same sources at once would
// both read a session's progress before either wrote, and write the same
// records twice. It calls Waiting once when it has to wait.
func (im *Importer) lock(ctx context.Context) (unlock func(), err error) {
	dir := filepath.Join(im.Store.Home(), "import")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock import: %w", err)
	}
	f, err := storage.OpenRegular(filepath.Join(dir, "import.lock"), os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock import: %w", err)
	}
	ok, err := storage.TryLockFile(f)
	if err == nil && !ok {
		if im.Waiting != nil {
			im.Waiting()
		}
		err = storage.LockFile(ctx, f, 50*time.Millisecond)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock import: %w", err)
	}
	return func() { f.Close() }, nil // closing releases the lock
}
