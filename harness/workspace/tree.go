package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Tree is the state of a workspace: each file, folder and symlink by its
// slash-separated path relative to the root.
type Tree map[string]FileState

// FileState is one entry of a Tree. Hash (sha256, hex) is set for regular
// files only; Link for symlinks only; a folder has neither.
type FileState struct {
	Hash    string      `json:"hash,omitempty"`
	Size    int64       `json:"size"`
	Mode    fs.FileMode `json:"mode"`
	ModTime time.Time   `json:"mtime"`
	Link    string      `json:"link,omitempty"`
}

// IsDir reports whether the entry is a folder.
func (s FileState) IsDir() bool { return s.Mode.IsDir() }

// IsLink reports whether the entry is a symlink.
func (s FileState) IsLink() bool { return s.Mode&fs.ModeSymlink != 0 }

// IsFile reports whether the entry is a regular file.
func (s FileState) IsFile() bool { return s.Mode.IsRegular() }

// Scan reads the workspace's current state. A file whose size,
// modification time and mode are those it had in prev keeps prev's hash
// without being read, so a scan after a call that changed little costs a
// walk of the folders. Files are hashed as they are read, never held whole.
//
// Every ".git" (folder or file, at any level) is skipped: git's internals
// change on every command that reads the index and are no part of the
// work; the files git tracks are scanned like any others. Sockets, pipes
// and devices are skipped too (reading a pipe would block).
//
// Like git's index, reuse trusts the modification time: a file rewritten
// with the same size within the file system's time resolution of the
// previous scan keeps its old hash. Modern file systems keep nanoseconds.
func (w *Workspace) Scan(prev Tree) (Tree, error) {
	t := Tree{}
	if err := scanDir(w.root, "", prev, t); err != nil {
		return nil, fmt.Errorf("scan workspace %s: %w", w.root, err)
	}
	return t, nil
}

func scanDir(dir, rel string, prev, t Tree) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		abs := filepath.Join(dir, name)
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by a command while we looked
		} else if err != nil {
			return err
		}
		st := FileState{Size: info.Size(), Mode: info.Mode(), ModTime: info.ModTime()}
		switch {
		case info.IsDir():
			st.Size = 0
			t[p] = st
			if err := scanDir(abs, p, prev, t); err != nil {
				return err
			}
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(abs)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return err
			}
			st.Link, st.Size = target, int64(len(target))
			t[p] = st
		case info.Mode().IsRegular():
			if old, ok := prev[p]; ok && old.Hash != "" && old.Size == st.Size &&
				old.Mode == st.Mode && old.ModTime.Equal(st.ModTime) {
				st.Hash = old.Hash
			} else {
				h, err := hashFile(abs, info)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				} else if err != nil {
					return err
				}
				st.Hash = h
			}
			t[p] = st
		}
	}
	return nil
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// hashFile streams the file into sha256. It refuses to follow a symlink
// swapped in after the entry was listed, so a scan never reads outside.
func hashFile(path string, listed fs.FileInfo) (string, error) {
	f, err := openListed(path, listed)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := bufPool.Get().(*[]byte)
	defer bufPool.Put(buf)
	if _, err := io.CopyBuffer(h, f, *buf); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openListed opens path only if it is still the regular file that was
// listed (same inode), not a link or file put in its place since.
func openListed(path string, listed fs.FileInfo) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() || (listed != nil && !os.SameFile(info, listed)) {
		f.Close()
		return nil, fmt.Errorf("%s changed while being read", path)
	}
	return f, nil
}

// Ops of a Change.
const (
	OpCreate = "create"
	OpModify = "modify"
	OpDelete = "delete"
)

// Change is one entry that differs between two trees. Omitted is set by
// Record when the file was too big for its content to be kept.
type Change struct {
	Path    string    `json:"path"`
	Op      string    `json:"op"`
	Before  FileState `json:"before"`
	After   FileState `json:"after"`
	Omitted bool      `json:"omitted,omitempty"`
}

// Diff lists what changed from before to after, sorted by path. A change
// of modification time alone is no change; a change of mode, content or
// link target is, and so is a file becoming a folder or a link.
func Diff(before, after Tree) []Change {
	var out []Change
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, Change{Path: p, Op: OpCreate, After: a})
		case differs(b, a):
			out = append(out, Change{Path: p, Op: OpModify, Before: b, After: a})
		}
	}
	for p, b := range before {
		if _, ok := after[p]; !ok {
			out = append(out, Change{Path: p, Op: OpDelete, Before: b})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func differs(b, a FileState) bool {
	if b.Mode != a.Mode || b.Link != a.Link {
		return true
	}
	return a.IsFile() && (b.Hash != a.Hash || b.Size != a.Size)
}
