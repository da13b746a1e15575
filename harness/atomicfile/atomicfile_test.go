package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWholeAndLeavesNothingBehind(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := Write(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new content"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new content" {
		t.Fatalf("read %q, %v", b, err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", info.Mode().Perm())
	}
	// a write that cannot finish (the path is a folder) fails and leaves
	// no temporary file
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	if err := Write(filepath.Join(dir, "sub"), []byte("x"), 0o600); err == nil {
		t.Fatal("writing over a folder did not fail")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("the folder holds %d entries, want f.json and sub: %v", len(ents), ents)
	}
}
