package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A replay re-creates recorded changes in a workspace that starts where
// the recorded one did, and ends where it ended.
func TestApplyReplaysChanges(t *testing.T) {
	ws := scratch(t)
	r := ws.Root()
	mkfile(t, filepath.Join(r, "a.txt"), "one\n")
	mkfile(t, filepath.Join(r, "gone/deep/x.txt"), "x\n")
	mkfile(t, filepath.Join(r, "becomes-dir"), "file\n")
	if err := os.Symlink("a.txt", filepath.Join(r, "link")); err != nil {
		t.Fatal(err)
	}
	blobs := NewMemBlobs()
	t0, _ := ws.Scan(nil)
	if err := ws.Record(Diff(nil, t0), blobs); err != nil {
		t.Fatal(err)
	}

	mkfile(t, filepath.Join(r, "a.txt"), "two\n")
	os.Chmod(filepath.Join(r, "a.txt"), 0o600)
	os.RemoveAll(filepath.Join(r, "gone"))
	os.Remove(filepath.Join(r, "becomes-dir"))
	mkfile(t, filepath.Join(r, "becomes-dir/inside.txt"), "in\n")
	os.Remove(filepath.Join(r, "link"))
	os.Symlink("becomes-dir", filepath.Join(r, "link"))
	mkfile(t, filepath.Join(r, "new/nested/file.txt"), "new\n")
	t1, _ := ws.Scan(t0)
	changes := Diff(t0, t1)
	if err := ws.Record(changes, blobs); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "replay")
	if err := Materialize(t0, blobs, out); err != nil {
		t.Fatal(err)
	}
	replay, err := InPlace(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := replay.Apply(changes, blobs); err != nil {
		t.Fatal(err)
	}
	got, _ := replay.Scan(nil)
	same(t, got, t1)
}

func TestApplyStaysInside(t *testing.T) {
	ws := scratch(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws.Root(), "out")); err != nil {
		t.Fatal(err)
	}
	blobs := NewMemBlobs()
	h, _ := blobs.Put([]byte("pwned"))
	err := ws.Apply([]Change{{Path: "out/x.txt", Op: OpCreate, After: FileState{Hash: h, Size: 5, Mode: 0o644}}}, blobs)
	var oe *OutsideError
	if !errors.As(err, &oe) || oe.Reason != Symlink {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Fatal("a recorded change wrote through a link to outside")
	}
	err = ws.Apply([]Change{{Path: "../x", Op: OpCreate, After: FileState{Hash: h, Mode: 0o644}}}, blobs)
	if err == nil || !strings.Contains(err.Error(), `bad path "../x"`) {
		t.Fatalf("got %v", err)
	}
	// Replacing the link itself is fine: it is in the workspace.
	if err := ws.Apply([]Change{{Path: "out", Op: OpModify, After: FileState{Hash: h, Size: 5, Mode: 0o644}}}, blobs); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Root(), "out")); string(b) != "pwned" {
		t.Errorf("out holds %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("outside holds %d entries", len(entries))
	}
}
