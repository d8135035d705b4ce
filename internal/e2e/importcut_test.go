package e2e

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestImportResumesARecordCutBeforeItsNewline: a SIGKILL in the middle of
// a write(2) keeps what was copied so far, so a kill can cut an import's
// batch between a record's last byte and its '\n' — rare in the kill loop
// (one CI run of TestImportKilledAtAnyMoment had one record too many),
// made certain here by cutting the session files so: one just after its
// import record, the others after a record in the middle of their pass,
// the import state lost. The next import ends with exit 0 and every
// session holding exactly the records of an import never interrupted.
func TestImportResumesARecordCutBeforeItsNewline(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(killSeed, 21))
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "claude")
	newImportCorpus(t, src, w.Project, 6, rng)
	args := []string{"import", "claude-code", src}
	w.MustRun(args...)

	files, _ := filepath.Glob(filepath.Join(w.Home, "projects", escapeForTest(w.Project), "*.jsonl"))
	for i, f := range files {
		data := readFile(t, f)
		nl := bytes.IndexByte(data, '\n') // after the import record
		if i > 0 {
			nl = len(data) / 2
			nl += bytes.IndexByte(data[nl:], '\n') // after a record mid-pass
		}
		if err := os.Truncate(f, int64(nl)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(w.Home, "import", "state.json")); err != nil {
		t.Fatal(err)
	}
	if r := w.Run(args...); r.Code != 0 || r.Stderr != "" {
		t.Errorf("the import after the cuts:\n%s", r)
	}
	if n := interruptedPasses(t, w.Home, w.Project); n != 0 {
		t.Errorf("%d sessions still mid-pass", n)
	}
	compareImports(t, importedRecords(t, w.Home, w.Project), referenceImport(t, w, args...))
}
