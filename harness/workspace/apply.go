package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"skillet/harness/atomicfile"
)

// Apply makes the recorded changes in the workspace, as a replay does
// when it serves a tool's recorded result: deleted entries are removed
// (deepest first), created and modified ones are given their recorded
// state (content from blobs, mode, time, link target; a folder's time only
// when the folder itself is among the changes). The state before
// is not checked: the recorded state after is what the replay promises.
// Every path must lie in the workspace with no symlink along the way, so a
// recorded change cannot write outside it. Files whose content blobs lack
// (over the size cap when recorded) are left as they are and listed in an
// *IncompleteError; everything else is applied.
func (w *Workspace) Apply(changes []Change, blobs Blobs) error {
	sorted := append([]Change(nil), changes...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	for _, c := range sorted {
		if err := validRel(c.Path); err != nil {
			return fmt.Errorf("apply changes: %w", err)
		}
	}
	for i := len(sorted) - 1; i >= 0; i-- {
		c := sorted[i]
		if c.Op != OpDelete {
			continue
		}
		p, err := w.changePath(c.Path, false)
		if err != nil {
			return err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("apply changes: delete %s: %w", c.Path, unwrapPath(err))
		}
	}
	var missing []string
	var dirs []Change
	for _, c := range sorted {
		if c.Op == OpDelete {
			continue
		}
		if c.Op != OpCreate && c.Op != OpModify {
			return fmt.Errorf("apply changes: %s: unknown op %q", c.Path, c.Op)
		}
		p, err := w.changePath(c.Path, true)
		if err != nil {
			return err
		}
		st := c.After
		if err := clearOtherKind(p, st); err != nil {
			return fmt.Errorf("apply changes: %s: %w", c.Path, err)
		}
		switch {
		case st.IsDir():
			if err := os.MkdirAll(p, 0o700); err != nil {
				return fmt.Errorf("apply changes: %w", err)
			}
			dirs = append(dirs, c)
		case st.IsLink():
			if err := os.Symlink(st.Link, p); err != nil {
				return fmt.Errorf("apply changes: %w", err)
			}
		case st.IsFile():
			data, err := blobs.Get(st.Hash)
			if errors.Is(err, ErrNoBlob) {
				missing = append(missing, c.Path)
				continue
			} else if err != nil {
				return fmt.Errorf("apply changes: %s: %w", c.Path, err)
			}
			if HashBytes(data) != st.Hash {
				return fmt.Errorf("apply changes: %s: stored content does not match its hash %s", c.Path, st.Hash)
			}
			if err := atomicfile.Write(p, data, st.Mode.Perm()); err != nil {
				return fmt.Errorf("apply changes: write %s: %w", c.Path, err)
			}
			if !st.ModTime.IsZero() {
				os.Chtimes(p, st.ModTime, st.ModTime)
			}
		default:
			return fmt.Errorf("apply changes: %s has an unsupported mode %v", c.Path, st.Mode)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		p := filepath.Join(w.root, filepath.FromSlash(dirs[i].Path))
		if err := os.Chmod(p, dirs[i].After.Mode.Perm()); err != nil {
			return fmt.Errorf("apply changes: %w", err)
		}
		if mt := dirs[i].After.ModTime; !mt.IsZero() {
			os.Chtimes(p, mt, mt)
		}
	}
	if len(missing) > 0 {
		return &IncompleteError{Missing: missing}
	}
	return nil
}

// changePath is where a recorded change lands: in the workspace, reached
// through real folders only (made when mkdir is set). The entry itself may
// be a link; it is replaced, not followed.
func (w *Workspace) changePath(rel string, mkdir bool) (string, error) {
	lexical := filepath.Join(w.root, filepath.FromSlash(rel))
	parent := filepath.Dir(lexical)
	real, err := resolveLinks(parent, []string{w.root})
	if err != nil {
		return "", fmt.Errorf("apply changes: %s: %w", rel, err)
	}
	if real != parent {
		return "", &OutsideError{Path: rel, Resolved: filepath.Join(real, filepath.Base(lexical)),
			Root: w.root, Write: true, Reason: Symlink}
	}
	if mkdir {
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return "", fmt.Errorf("apply changes: %w", err)
		}
	}
	return lexical, nil
}

// clearOtherKind removes what stands at p when it is not of the kind st
// needs (a file where a folder goes, any link), so the change can take its
// place; a folder in the way must be empty by now.
func clearOtherKind(p string, st FileState) error {
	info, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	sameKind := info.IsDir() == st.IsDir() && info.Mode()&fs.ModeSymlink == 0 && !st.IsLink()
	if sameKind {
		return nil
	}
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("replace with a %s: %w", kindOf(st), unwrapPath(err))
	}
	return nil
}

func kindOf(st FileState) string {
	switch {
	case st.IsDir():
		return "folder"
	case st.IsLink():
		return "symlink"
	}
	return "file"
}
