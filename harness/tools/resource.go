package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxListedResources caps ListResources; a skill with more files gets a
// final line saying how many were left out.
const MaxListedResources = 500

// maxWalked bounds how many entries ListResources visits, so a skill
// folder holding a huge tree cannot stall a turn.
const maxWalked = 20000

// sniffSize is how much of a file is checked for being text.
const sniffSize = 8 << 10

// ReadResource returns the text of one file of a skill: rel is a path
// relative to skillDir, with "/" separators. It never reads outside the
// skill's folder: absolute paths, ".." elements and symlinks that lead out
// are refused, as are hidden files (a path element starting with "."),
// which are not resources. At most maxBytes are returned (0 or less means
// DefaultMaxOutput), with a note when the file was cut. A binary file is
// refused with its size and type.
func ReadResource(skillDir, rel string, maxBytes int) (string, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxOutput
	}
	root, inner, shown, err := resolveInside(skillDir, rel)
	if err != nil {
		return "", err
	}
	// Check the kind before opening: opening a named pipe would block.
	fi, err := os.Stat(filepath.Join(root, inner))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", shown, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%s is a folder, not a file; list the skill's files to see what it holds", shown)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (%s)", shown, fi.Mode().Type())
	}
	// os.Root opens the file again without following anything out of the
	// folder, so a symlink swapped in after the check cannot lead out either.
	dir, err := os.OpenRoot(root)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", shown, err)
	}
	defer dir.Close()
	f, err := dir.Open(inner)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", shown, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("read %s: the file changed while it was read", shown)
	}

	data, err := io.ReadAll(io.LimitReader(f, int64(maxBytes)+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", shown, err)
	}
	if !looksLikeText(data[:min(len(data), sniffSize)]) {
		return "", fmt.Errorf("%s is a binary file (%s, %s bytes); only text files can be read",
			shown, http.DetectContentType(data), groupDigits(int(fi.Size())))
	}
	if len(data) <= maxBytes {
		return strings.ToValidUTF8(string(data), "\uFFFD"), nil
	}
	size := max(int(fi.Size()), len(data))
	head := cutHead(string(data), maxBytes)
	return strings.ToValidUTF8(head, "\uFFFD") +
		fmt.Sprintf("\n[file cut: showing the first %s of %s bytes]", groupDigits(len(head)), groupDigits(size)), nil
}

// looksLikeText reports whether b (the start of a file) holds no NUL byte
// and is valid UTF-8, allowing a character cut at the end.
func looksLikeText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	if utf8.Valid(b) {
		return true
	}
	// The sniffed window may end inside a character.
	for cut := 1; cut < utf8.UTFMax && cut <= len(b); cut++ {
		if utf8.Valid(b[:len(b)-cut]) && !utf8.FullRune(b[len(b)-cut:]) {
			return true
		}
	}
	return false
}

// resolveInside checks rel and returns the skill's folder and the file rel
// names inside it (both with symlinks resolved), and the path to show in
// messages.
func resolveInside(skillDir, rel string) (root, inner, shown string, err error) {
	shown = strings.TrimSpace(rel)
	if shown == "" || shown == "." {
		return "", "", shown, errors.New("no file named: give a path inside the skill, such as references/guide.md")
	}
	if strings.ContainsRune(shown, 0) {
		return "", "", shown, fmt.Errorf("%q is not a valid path", shown)
	}
	if filepath.IsAbs(shown) || strings.HasPrefix(shown, "/") || strings.HasPrefix(shown, `\`) || filepath.VolumeName(shown) != "" {
		return "", "", shown, fmt.Errorf("%s: absolute paths are not allowed; give a path relative to the skill's folder", shown)
	}
	elems := strings.FieldsFunc(shown, func(r rune) bool { return r == '/' || r == '\\' })
	if slices.Contains(elems, "..") {
		return "", "", shown, fmt.Errorf("%s: \"..\" is not allowed; only files inside the skill's folder can be read", shown)
	}
	if hiddenPath(elems) {
		return "", "", shown, fmt.Errorf("%s: hidden files are not skill resources", shown)
	}

	root, err = filepath.EvalSymlinks(skillDir)
	if err != nil {
		return "", "", shown, fmt.Errorf("skill folder %s: %w", skillDir, err)
	}
	target, err := filepath.EvalSymlinks(filepath.Join(root, filepath.Join(elems...)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", shown, fmt.Errorf("%s: no such file in the skill", shown)
	}
	if err != nil {
		return "", "", shown, fmt.Errorf("%s: %w", shown, err)
	}
	inner, ok := within(root, target)
	if !ok {
		return "", "", shown, fmt.Errorf("%s: leads outside the skill's folder; only files inside it can be read", shown)
	}
	if hiddenPath(strings.Split(filepath.ToSlash(inner), "/")) {
		return "", "", shown, fmt.Errorf("%s: leads to a hidden file, which is not a skill resource", shown)
	}
	return root, inner, shown, nil
}

// within reports whether target is root or below it, and its path relative
// to root. Both must be symlink-free.
func within(root, target string) (string, bool) {
	rel, err := filepath.Rel(root, target)
	if err != nil || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

func hiddenPath(elems []string) bool {
	for _, e := range elems {
		if e != "." && strings.HasPrefix(e, ".") {
			return true
		}
	}
	return false
}

// ListResources lists the files of a skill as sorted paths relative to its
// folder, with "/" separators. SKILL.md is listed with the rest. Hidden
// files and folders are skipped, as are symlinks that lead outside the
// skill or to a folder. Past MaxListedResources, the last line says how many
// more files there are.
func ListResources(skillDir string) ([]string, error) {
	root, err := filepath.EvalSymlinks(skillDir)
	if err != nil {
		return nil, fmt.Errorf("list skill files: %w", err)
	}
	var files []string
	more, walked := 0, 0
	errStop := errors.New("stop")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable subfolder is left out, not fatal
		}
		if p == root {
			return nil
		}
		if walked++; walked > maxWalked {
			return errStop
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 && !symlinkToFileInside(root, p) {
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if len(files) >= MaxListedResources {
			more++
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("list skill files: %w", err)
	}
	slices.Sort(files)
	switch {
	case walked > maxWalked:
		files = append(files, fmt.Sprintf("(more files not listed: the skill holds over %s entries)", groupDigits(maxWalked)))
	case more > 0:
		files = append(files, fmt.Sprintf("(%s more files not listed)", groupDigits(more)))
	}
	return files, nil
}

func symlinkToFileInside(root, p string) bool {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	inner, ok := within(root, target)
	if !ok || hiddenPath(strings.Split(filepath.ToSlash(inner), "/")) {
		return false
	}
	fi, err := os.Stat(target)
	return err == nil && fi.Mode().IsRegular()
}
