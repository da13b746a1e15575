// Package atomicfile writes a file so that a reader sees the old content
// or the new one, never half of it, and a failed write leaves no
// temporary file behind.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path with mode: to a temporary file in the same
// folder, renamed over path once it is complete.
func Write(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, mode)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}
