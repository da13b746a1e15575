package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinkHops bounds symlink chains, as the kernel's ELOOP does.
const maxLinkHops = 255

// Reason says why a path was refused.
type Reason int

// The reasons a path is refused.
const (
	// Outside: the path names a place outside the allowed folders.
	Outside Reason = iota
	// DotDot: a relative path climbs out of the workspace with "..".
	DotDot
	// Symlink: the path is inside, but a symlink along it leads outside.
	Symlink
	// ReadOnlyFolder: a write into a skill's folder.
	ReadOnlyFolder
)

// OutsideError is a path a file tool may not use. Its message names the
// path and the folders that are allowed, so it can be shown to the model
// as the tool's result.
type OutsideError struct {
	Path     string   // as the tool was given it
	Resolved string   // where it leads, symlinks followed
	Root     string   // the workspace
	ReadOnly []string // the skills' folders
	Folder   string   // for ReadOnlyFolder: the folder written into
	Write    bool
	Reason   Reason
}

// Error says what the path is outside of, or why it may not be written.
func (e *OutsideError) Error() string {
	where := fmt.Sprintf("the workspace (%s)", e.Root)
	if !e.Write && len(e.ReadOnly) > 0 {
		where += " and the skills' folders"
	}
	switch e.Reason {
	case DotDot:
		return fmt.Sprintf("%s climbs out of the workspace (%s) with ..", e.Path, e.Root)
	case Symlink:
		return fmt.Sprintf("%s leads through a symlink to %s, outside %s", e.Path, e.Resolved, where)
	case ReadOnlyFolder:
		return fmt.Sprintf("%s is in the skill folder %s, which is read-only", e.Path, e.Folder)
	}
	if e.Write && e.Resolved != "" && !within(e.Resolved, e.Root) && len(e.ReadOnly) > 0 {
		return fmt.Sprintf("%s is outside %s; only the workspace can be written", e.Path, where)
	}
	return fmt.Sprintf("%s is outside %s", e.Path, where)
}

// InvalidPathError is a path no file system would take as meant.
type InvalidPathError struct {
	Path    string
	Problem string
}

// Error quotes the path, so a NUL byte shows as \x00.
func (e *InvalidPathError) Error() string {
	if e.Path == "" {
		return "empty path: name a file or folder"
	}
	return fmt.Sprintf("path %q %s", e.Path, e.Problem)
}

// Resolve turns a path a tool was given into the absolute, symlink-free
// path it may use. Relative paths are taken from the workspace root. A read
// may reach the workspace and the read-only folders; a write only the
// workspace, and never a read-only folder inside it. Symlinks are followed
// at every step, including ones a command made after the workspace was
// started; for a path that does not exist yet (a write making a/b/c.txt),
// the part that exists is resolved and the rest appended.
//
// The answer holds for the moment it is given: a command running at the
// same time could still swap a folder for a link before the caller opens
// the path. Tools and commands run one at a time, which closes that gap.
func (w *Workspace) Resolve(path string, write bool) (string, error) {
	if path == "" {
		return "", &InvalidPathError{}
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", &InvalidPathError{Path: path, Problem: "contains a NUL byte"}
	}
	ro := w.ReadOnly()
	refuse := func(reason Reason, resolved, folder string) error {
		return &OutsideError{Path: path, Resolved: resolved, Root: w.root, ReadOnly: ro,
			Folder: folder, Write: write, Reason: reason}
	}

	var lexical string
	if home := homeOf(path); home != "" {
		// The agents' file tools read "~/x" as the home folder, so the
		// model means that; taking it as a folder named "~" in the
		// workspace would answer a different question.
		lexical = filepath.Join(home, strings.TrimPrefix(path, "~"))
	} else if filepath.IsAbs(path) {
		lexical = filepath.Clean(path)
	} else {
		rel := filepath.Clean(path)
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", refuse(DotDot, filepath.Join(w.root, rel), "")
		}
		lexical = filepath.Join(w.root, rel)
	}

	trusted := []string{w.root}
	for _, d := range ro {
		if !within(d, w.root) {
			trusted = append(trusted, d)
		}
	}
	real, err := resolveLinks(lexical, trusted)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}

	inRoot := within(real, w.root)
	var inRO string
	for _, d := range ro {
		if within(real, d) {
			inRO = d
			break
		}
	}
	if write && inRO != "" {
		return "", refuse(ReadOnlyFolder, real, inRO)
	}
	if inRoot || (!write && inRO != "") {
		return real, nil
	}
	// Say "symlink" only when the path as written was inside: that is the
	// case the model cannot see from the path alone.
	lexInside := within(lexical, w.root)
	for _, d := range ro {
		lexInside = lexInside || (!write && within(lexical, d))
	}
	if lexInside && real != lexical {
		return "", refuse(Symlink, real, "")
	}
	return "", refuse(Outside, real, "")
}

// homeOf is the home folder when path starts with "~" or "~/".
func homeOf(path string) string {
	if path != "~" && !strings.HasPrefix(path, "~"+string(filepath.Separator)) {
		return ""
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return ""
	}
	return home
}

// within reports whether p is dir or below it; both absolute and clean.
func within(p, dir string) bool {
	if p == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir) && p[len(dir)] == filepath.Separator
}

// resolveLinks follows every symlink in the absolute, clean path p, one
// component at a time, so that a path whose tail does not exist yet still
// resolves (filepath.EvalSymlinks refuses those) and a dangling link is
// followed to where a write through it would land. Components of a trusted
// prefix (the workspace root and read-only folders outside it, already
// resolved, and out of a command's reach) are not looked at again.
func resolveLinks(p string, trusted []string) (string, error) {
	cur := string(filepath.Separator)
	rest := p
	for _, t := range trusted {
		if within(p, t) && len(t) > len(cur) {
			cur, rest = t, p[len(t):]
		}
	}
	parts := splitPath(rest)
	hops := 0
	for len(parts) > 0 {
		c := parts[0]
		parts = parts[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		info, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// Nothing below a missing name can be a link: the rest is
			// taken as written (and cleaned), which is where a create
			// would put it.
			return filepath.Join(append([]string{next}, parts...)...), nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("%s: too many levels of symbolic links", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		parts = append(splitPath(target), parts...)
	}
	return cur, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == filepath.Separator })
}
