// Package workspace holds the folder an agent's file and shell tools work
// in: how it is started (an empty scratch folder, a copy of a project, or the
// project itself), which paths a tool may touch inside it, and the journal of
// what changed in it, content-addressed so any moment can be written out
// again.
package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// DefaultMaxBlob is the largest file whose content Record keeps; bigger
// files are recorded by hash and size only.
const DefaultMaxBlob = 8 << 20

// Workspace is the folder the agent tools work in, plus the folders they
// may read but not write (the loaded skills' folders).
type Workspace struct {
	root    string
	inPlace bool

	// MaxBlob caps the size of a file whose content Record keeps; zero
	// means DefaultMaxBlob.
	MaxBlob int64

	mu       sync.RWMutex
	readOnly []string
	// pending are folders added but not yet resolved: resolving a
	// library's thousand folders costs a few milliseconds of system calls,
	// and most sessions never call a file tool.
	pending []string
	have    map[string]bool
}

// Scratch makes dir (and its parents) as a fresh, empty workspace. An
// existing dir is accepted only when it is empty, so a scratch workspace
// never starts with files nobody journaled.
func Scratch(dir string) (*Workspace, error) {
	if dir == "" {
		return nil, errors.New("scratch workspace: no folder given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("scratch workspace %s: %w", dir, err)
	}
	root, err := openRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("scratch workspace: %w", err)
	}
	if empty, err := isEmptyDir(root); err != nil {
		return nil, fmt.Errorf("scratch workspace: %w", err)
	} else if !empty {
		return nil, fmt.Errorf("scratch workspace %s: the folder is not empty", dir)
	}
	return &Workspace{root: root}, nil
}

// InPlace uses dir itself as the workspace: the tools change the real
// files. dir must exist and be writable.
func InPlace(dir string) (*Workspace, error) {
	root, err := openRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("in-place workspace: %w", err)
	}
	return &Workspace{root: root, inPlace: true}, nil
}

// Root is the workspace folder: absolute, with symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// IsInPlace reports whether the workspace is the user's own folder rather
// than a scratch folder or a copy.
func (w *Workspace) IsInPlace() bool { return w.inPlace }

// AddReadOnly adds folders the file tools may read but never write (the
// skills' folders). Each is made absolute with its symlinks resolved, so a
// path through a link into it is recognised; a folder that does not exist
// is kept as given and simply holds nothing to read. Folders are resolved
// when first needed (ReadOnly, Resolve), as they are at that moment.
func (w *Workspace) AddReadOnly(dirs ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, d := range dirs {
		if d != "" {
			w.pending = append(w.pending, d)
		}
	}
}

// resolvePending resolves the folders AddReadOnly added since the last
// call. Called with w.mu held for writing.
func (w *Workspace) resolvePending() {
	if w.have == nil {
		w.have = map[string]bool{}
	}
	for _, d := range w.pending {
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if !w.have[abs] {
			w.have[abs] = true
			w.readOnly = append(w.readOnly, abs)
		}
	}
	w.pending = nil
}

// ReadOnly lists the read-only folders, as resolved by AddReadOnly.
func (w *Workspace) ReadOnly() []string {
	w.mu.RLock()
	if len(w.pending) == 0 {
		defer w.mu.RUnlock()
		return append([]string(nil), w.readOnly...)
	}
	w.mu.RUnlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.resolvePending()
	return append([]string(nil), w.readOnly...)
}

func (w *Workspace) maxBlob() int64 {
	if w.MaxBlob > 0 {
		return w.MaxBlob
	}
	return DefaultMaxBlob
}

// openRoot checks that dir is an existing, writable folder and returns it
// absolute with symlinks resolved.
func openRoot(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s does not exist", dir)
	} else if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	if err := probeWritable(real); err != nil {
		return "", fmt.Errorf("%s is not writable: %w", dir, err)
	}
	return real, nil
}

// probeWritable creates and removes a file in dir: the permission bits
// alone do not tell (root ignores them; a read-only mount does not).
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".skillet-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return true, nil
}
