package skills

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"skillet/harness/atomicfile"
)

// Materialize writes the files of fsys under dir, so that skills embedded
// in the binary can be read, and their command tools run, like any other.
// Scripts (files under a scripts/ folder or starting with #!) are made
// executable. Files already there with the same content and mode are left
// alone, so a second call writes nothing and works on a read-only copy;
// new files are written to a temporary name and renamed, so a reader never
// sees half a file.
func Materialize(fsys fs.FS, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("materialize into %s: %w", dir, err)
	}
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("materialize %s: %w", p, err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			if p == "." {
				return nil
			}
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return fmt.Errorf("materialize %s: %w", p, err)
			}
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("materialize %s: %w", p, err)
		}
		mode := fs.FileMode(0o644)
		if isScript(p, data) {
			mode = 0o755
		}
		if same(dst, data, mode) {
			return nil
		}
		if err := atomicfile.Write(dst, data, mode); err != nil {
			return fmt.Errorf("materialize %s: %w", p, err)
		}
		return nil
	})
}

func isScript(p string, data []byte) bool {
	return bytes.HasPrefix(data, []byte("#!")) || strings.HasPrefix(p, "scripts/") || strings.Contains(p, "/scripts/")
}

func same(dst string, data []byte, mode fs.FileMode) bool {
	info, err := os.Stat(dst)
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(data)) || info.Mode().Perm()&0o111 != mode&0o111 {
		return false
	}
	have, err := os.ReadFile(dst)
	return err == nil && bytes.Equal(have, data)
}

// ContentHash is a short digest of every path and file of fsys, to name the
// folder the files are materialized in: a binary with other samples gets
// another folder.
func ContentHash(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path.Clean(p), len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash embedded files: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// BuiltinRoot materializes fsys under cacheDir/<content hash> and returns it
// as the built-in root.
func BuiltinRoot(fsys fs.FS, cacheDir string) (Root, error) {
	sum, err := ContentHash(fsys)
	if err != nil {
		return Root{}, err
	}
	dir := filepath.Join(cacheDir, sum)
	if err := Materialize(fsys, dir); err != nil {
		return Root{}, err
	}
	return Root{Dir: dir, Label: LabelBuiltin, Builtin: true}, nil
}
