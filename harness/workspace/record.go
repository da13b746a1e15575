package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Record puts the content of every file the changes create or modify into
// blobs, so the workspace can be written out as it was after them. A file
// bigger than the workspace's MaxBlob (DefaultMaxBlob unless set) is not
// read: its change keeps the hash and size Scan found and is marked
// Omitted in changes. A file that no longer matches its scan is reported
// (scan again) and the other files are still recorded.
//
// The journal's first entry should record the starting tree as created
// from nothing (Record(Diff(nil, first), blobs)): Materialize needs every
// file's content, not only the changed ones.
func (w *Workspace) Record(changes []Change, blobs Blobs) error {
	limit := w.maxBlob()
	var errs []error
	for i := range changes {
		c := &changes[i]
		if c.Op == OpDelete || !c.After.IsFile() {
			continue
		}
		if c.After.Size > limit {
			c.Omitted = true
			continue
		}
		data, err := w.readForRecord(c.Path, limit)
		if errors.Is(err, errTooBig) {
			c.Omitted = true
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if h := HashBytes(data); h != c.After.Hash {
			errs = append(errs, fmt.Errorf("record %s: the file changed after the scan; scan again", c.Path))
			continue
		}
		if _, err := blobs.Put(data); err != nil {
			errs = append(errs, fmt.Errorf("record %s: %w", c.Path, err))
		}
	}
	return errors.Join(errs...)
}

var errTooBig = errors.New("over the size limit")

// readForRecord reads a scanned file, refusing one that is now reached
// through a symlink (a folder swapped for a link since the scan).
func (w *Workspace) readForRecord(rel string, limit int64) ([]byte, error) {
	if err := validRel(rel); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	lexical := filepath.Join(w.root, filepath.FromSlash(rel))
	real, err := resolveLinks(lexical, []string{w.root})
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", rel, err)
	}
	if real != lexical {
		return nil, fmt.Errorf("record %s: the path now leads through a symlink; scan again", rel)
	}
	f, err := openListed(lexical, nil)
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", rel, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", rel, err)
	}
	if int64(len(data)) > limit {
		return nil, errTooBig
	}
	return data, nil
}

// IncompleteError lists the files Materialize could not write because
// their content was never kept (over the size limit, or not recorded).
// Everything else was written.
type IncompleteError struct{ Missing []string }

// Error names the first few files left out.
func (e *IncompleteError) Error() string {
	const show = 5
	list := e.Missing
	more := ""
	if len(list) > show {
		list, more = list[:show], fmt.Sprintf(" and %d more", len(e.Missing)-show)
	}
	return fmt.Sprintf("%d %s not written, their content was not kept: %s%s",
		len(e.Missing), plural(len(e.Missing), "file", "files"), strings.Join(list, ", "), more)
}

// Materialize writes the workspace as it was at tree into out, which must
// not exist or be empty: folders, files (content from blobs, checked
// against its hash), symlinks, modes and file times. Symlinks are made
// last, so no write can pass through one. Files whose content blobs lack
// are left out and listed in an *IncompleteError.
func Materialize(tree Tree, blobs Blobs, out string) error {
	if out == "" {
		return errors.New("write workspace: no output folder given")
	}
	paths := make([]string, 0, len(tree))
	for p, st := range tree {
		if err := validRel(p); err != nil {
			return fmt.Errorf("write workspace: %w", err)
		}
		if parent := parentOf(p); parent != "" {
			if ps, ok := tree[parent]; ok && !ps.IsDir() {
				return fmt.Errorf("write workspace: %s is inside %s, which is not a folder", p, parent)
			}
		}
		if !st.IsDir() && !st.IsFile() && !st.IsLink() {
			return fmt.Errorf("write workspace: %s has an unsupported mode %v", p, st.Mode)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)

	if info, err := os.Stat(out); err == nil {
		if !info.IsDir() {
			return fmt.Errorf("write workspace: %s exists and is not a folder", out)
		}
		if empty, err := isEmptyDir(out); err != nil {
			return fmt.Errorf("write workspace to %s: %w", out, err)
		} else if !empty {
			return fmt.Errorf("write workspace: %s is not empty; give a new or empty folder", out)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("write workspace: cannot make %s: %w", out, unwrapPath(err))
	}

	full := func(p string) string { return filepath.Join(out, filepath.FromSlash(p)) }
	for _, p := range paths {
		if tree[p].IsDir() {
			if err := os.MkdirAll(full(p), 0o700); err != nil {
				return fmt.Errorf("write workspace: %w", err)
			}
		}
	}
	var missing []string
	for _, p := range paths {
		st := tree[p]
		if !st.IsFile() {
			continue
		}
		data, err := blobs.Get(st.Hash)
		if errors.Is(err, ErrNoBlob) {
			missing = append(missing, p)
			continue
		} else if err != nil {
			return fmt.Errorf("write workspace: %s: %w", p, err)
		}
		if HashBytes(data) != st.Hash {
			return fmt.Errorf("write workspace: %s: stored content does not match its hash %s", p, st.Hash)
		}
		if err := writeNew(full(p), data, st); err != nil {
			return fmt.Errorf("write workspace: %w", err)
		}
	}
	for _, p := range paths {
		if st := tree[p]; st.IsLink() {
			if err := os.MkdirAll(filepath.Dir(full(p)), 0o700); err != nil {
				return fmt.Errorf("write workspace: %w", err)
			}
			if err := os.Symlink(st.Link, full(p)); err != nil {
				return fmt.Errorf("write workspace: %w", err)
			}
		}
	}
	for i := len(paths) - 1; i >= 0; i-- {
		if st := tree[paths[i]]; st.IsDir() {
			if err := os.Chmod(full(paths[i]), st.Mode.Perm()); err != nil {
				return fmt.Errorf("write workspace: %w", err)
			}
			os.Chtimes(full(paths[i]), st.ModTime, st.ModTime)
		}
	}
	if len(missing) > 0 {
		return &IncompleteError{Missing: missing}
	}
	return nil
}

func writeNew(path string, data []byte, st FileState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(st.Mode.Perm())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !st.ModTime.IsZero() {
		err = os.Chtimes(path, st.ModTime, st.ModTime)
	}
	return err
}

// validRel accepts a slash-separated path that stays below the root: a
// tree read back from a journal is checked before anything is written.
func validRel(p string) error {
	if p == "" || strings.IndexByte(p, 0) >= 0 || strings.HasPrefix(p, "/") {
		return fmt.Errorf("bad path %q in the tree", p)
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." {
			return fmt.Errorf("bad path %q in the tree", p)
		}
	}
	return nil
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
