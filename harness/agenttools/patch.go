package agenttools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Codex's apply_patch format and its error wording. Source: openai/codex
// codex-rs/apply-patch/src/parser.rs (grammar, markers, ParseError
// messages, lenient heredoc mode), lib.rs (compute_replacements,
// derive_new_contents_from_chunks, print_summary) and seek_sequence.rs
// (the four matching passes).
const (
	patchBegin     = "*** Begin Patch"
	patchEnd       = "*** End Patch"
	patchAdd       = "*** Add File: "
	patchDelete    = "*** Delete File: "
	patchUpdate    = "*** Update File: "
	patchMove      = "*** Move to: "
	patchEOF       = "*** End of File"
	patchCtx       = "@@ "
	patchCtxBare   = "@@"
	patchHunkKinds = "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
)

type hunkKind int

const (
	hunkAdd hunkKind = iota
	hunkDelete
	hunkUpdate
)

// hunk is one file operation of a patch.
type hunk struct {
	kind     hunkKind
	path     string
	movePath string
	contents string // add
	chunks   []chunk
}

// chunk is one @@ section of an update.
type chunk struct {
	context  string
	hasCtx   bool
	oldLines []string
	newLines []string
	eof      bool
}

// patchError is a parse error in Codex's words.
type patchError struct{ msg string }

func (e *patchError) Error() string { return e.msg }

func invalidPatch(msg string) error { return &patchError{"invalid patch: " + msg} }
func invalidHunk(line int, msg string) error {
	return &patchError{fmt.Sprintf("invalid hunk at line %d, %s", line, msg)}
}

// parsePatch parses patch text leniently, as Codex does: markers may carry
// surrounding whitespace, and a heredoc wrapper (<<'EOF' … EOF) is taken
// off.
func parsePatch(text string) ([]hunk, error) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	body, err := patchBoundaries(lines)
	if err != nil {
		if len(lines) >= 4 {
			first, last := lines[0], lines[len(lines)-1]
			if (first == "<<EOF" || first == "<<'EOF'" || first == `<<"EOF"`) && strings.HasSuffix(last, "EOF") {
				if b, err2 := patchBoundaries(lines[1 : len(lines)-1]); err2 == nil {
					body, err = b, nil
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	var hunks []hunk
	lineNo := 2
	for len(body) > 0 {
		h, n, err := parseHunk(body, lineNo)
		if err != nil {
			return nil, err
		}
		hunks = append(hunks, h)
		lineNo += n
		body = body[n:]
	}
	return hunks, nil
}

func patchBoundaries(lines []string) ([]string, error) {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != patchBegin {
		return nil, invalidPatch("The first line of the patch must be '*** Begin Patch'")
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != patchEnd {
		return nil, invalidPatch("The last line of the patch must be '*** End Patch'")
	}
	return lines[1 : len(lines)-1], nil
}

func parseHunk(lines []string, lineNo int) (hunk, int, error) {
	first := strings.TrimSpace(lines[0])
	switch {
	case strings.HasPrefix(first, patchAdd):
		h := hunk{kind: hunkAdd, path: strings.TrimPrefix(first, patchAdd)}
		n := 1
		var b strings.Builder
		for _, l := range lines[1:] {
			rest, ok := strings.CutPrefix(l, "+")
			if !ok {
				break
			}
			b.WriteString(rest)
			b.WriteByte('\n')
			n++
		}
		h.contents = b.String()
		return h, n, nil
	case strings.HasPrefix(first, patchDelete):
		return hunk{kind: hunkDelete, path: strings.TrimPrefix(first, patchDelete)}, 1, nil
	case strings.HasPrefix(first, patchUpdate):
		h := hunk{kind: hunkUpdate, path: strings.TrimPrefix(first, patchUpdate)}
		rest := lines[1:]
		n := 1
		if len(rest) > 0 {
			if mv, ok := strings.CutPrefix(rest[0], patchMove); ok {
				h.movePath = mv
				rest = rest[1:]
				n++
			}
		}
		for len(rest) > 0 {
			if strings.TrimSpace(rest[0]) == "" {
				rest = rest[1:]
				n++
				continue
			}
			if strings.HasPrefix(rest[0], "*") {
				break
			}
			c, used, err := parseChunk(rest, lineNo+n, len(h.chunks) == 0)
			if err != nil {
				return h, 0, err
			}
			h.chunks = append(h.chunks, c)
			rest = rest[used:]
			n += used
		}
		if len(h.chunks) == 0 {
			return h, 0, invalidHunk(lineNo, fmt.Sprintf("Update file hunk for path '%s' is empty", h.path))
		}
		return h, n, nil
	}
	return hunk{}, 0, invalidHunk(lineNo, fmt.Sprintf("'%s' is not a valid hunk header. %s", first, patchHunkKinds))
}

func parseChunk(lines []string, lineNo int, allowNoContext bool) (chunk, int, error) {
	var c chunk
	start := 0
	switch {
	case lines[0] == patchCtxBare:
		start = 1
	case strings.HasPrefix(lines[0], patchCtx):
		c.context, c.hasCtx = strings.TrimPrefix(lines[0], patchCtx), true
		start = 1
	default:
		if !allowNoContext {
			return c, 0, invalidHunk(lineNo, fmt.Sprintf("Expected update hunk to start with a @@ context marker, got: '%s'", lines[0]))
		}
	}
	if start >= len(lines) {
		return c, 0, invalidHunk(lineNo+1, "Update hunk does not contain any lines")
	}
	parsed := 0
	for _, l := range lines[start:] {
		if l == patchEOF {
			if parsed == 0 {
				return c, 0, invalidHunk(lineNo+1, "Update hunk does not contain any lines")
			}
			c.eof = true
			parsed++
			break
		}
		if l == "" {
			c.oldLines = append(c.oldLines, "")
			c.newLines = append(c.newLines, "")
			parsed++
			continue
		}
		switch l[0] {
		case ' ':
			c.oldLines = append(c.oldLines, l[1:])
			c.newLines = append(c.newLines, l[1:])
		case '+':
			c.newLines = append(c.newLines, l[1:])
		case '-':
			c.oldLines = append(c.oldLines, l[1:])
		default:
			if parsed == 0 {
				return c, 0, invalidHunk(lineNo+1, fmt.Sprintf("Unexpected line found in update hunk: '%s'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)", l))
			}
			return c, parsed + start, nil
		}
		parsed++
	}
	return c, parsed + start, nil
}

// patchPaths lists the paths a patch names (targets and move
// destinations), for permission checks; an unparsable patch names none.
func patchPaths(text string) []string {
	hunks, err := parsePatch(text)
	if err != nil {
		return nil
	}
	var out []string
	for _, h := range hunks {
		out = append(out, h.path)
		if h.movePath != "" {
			out = append(out, h.movePath)
		}
	}
	return out
}

// fileChange is one verified change, ready to write.
type fileChange struct {
	kind    hunkKind
	shown   string // the path as the patch names it
	abs     string
	moveAbs string
	content string
}

// applyPatch verifies every hunk against the files before changing any
// (Codex computes all changes first: maybe_parse_apply_patch_verified),
// then applies them in order. It returns Codex's summary, the changed
// paths and, on failure, Codex's message.
// Relative paths are taken in base (the workspace when empty).
func applyPatch(env Env, text, base string) (summary string, wrote []string, err error) {
	hunks, err := parsePatch(text)
	if err != nil {
		return "", nil, err
	}
	in := func(p string) string {
		if base == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	if len(hunks) == 0 {
		return "", nil, errors.New("No files were modified.")
	}
	var changes []fileChange
	for _, h := range hunks {
		abs, err := resolve(env, in(h.path), true)
		if err != nil {
			return "", nil, err
		}
		c := fileChange{kind: h.kind, shown: h.path, abs: abs}
		switch h.kind {
		case hunkAdd:
			c.content = h.contents
		case hunkDelete:
			if _, err := os.Stat(abs); err != nil {
				return "", nil, fmt.Errorf("Failed to read %s: %v", h.path, osReason(err))
			}
		case hunkUpdate:
			orig, err := os.ReadFile(abs)
			if err != nil {
				return "", nil, fmt.Errorf("Failed to read file to update %s: %v", h.path, osReason(err))
			}
			if len(orig) > maxEditBytes {
				return "", nil, fmt.Errorf("%s is %s; patches are limited to files of %s", h.path, humanBytes(int64(len(orig))), humanBytes(maxEditBytes))
			}
			c.content, err = applyChunks(string(orig), h.path, h.chunks)
			if err != nil {
				return "", nil, err
			}
			if h.movePath != "" {
				c.moveAbs, err = resolve(env, in(h.movePath), true)
				if err != nil {
					return "", nil, err
				}
				c.shown = h.movePath
			}
		}
		changes = append(changes, c)
	}
	var added, modified, deleted []string
	for _, c := range changes {
		switch c.kind {
		case hunkAdd:
			if _, err := writeFile(c.abs, []byte(c.content)); err != nil {
				return "", wrote, fmt.Errorf("Failed to write file %s: %v", c.shown, err)
			}
			added = append(added, c.shown)
			wrote = append(wrote, c.abs)
		case hunkDelete:
			if err := os.Remove(c.abs); err != nil {
				return "", wrote, fmt.Errorf("Failed to delete file %s: %v", c.shown, osReason(err))
			}
			deleted = append(deleted, c.shown)
			wrote = append(wrote, c.abs)
		case hunkUpdate:
			dest := c.abs
			if c.moveAbs != "" {
				dest = c.moveAbs
			}
			if _, err := writeFile(dest, []byte(c.content)); err != nil {
				return "", wrote, fmt.Errorf("Failed to write file %s: %v", c.shown, err)
			}
			wrote = append(wrote, dest)
			if c.moveAbs != "" && c.moveAbs != c.abs {
				if err := os.Remove(c.abs); err != nil {
					return "", wrote, fmt.Errorf("Failed to remove original %s: %v", c.shown, osReason(err))
				}
				wrote = append(wrote, c.abs)
			}
			modified = append(modified, c.shown)
		}
	}
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, p := range added {
		b.WriteString("A " + p + "\n")
	}
	for _, p := range modified {
		b.WriteString("M " + p + "\n")
	}
	for _, p := range deleted {
		b.WriteString("D " + p + "\n")
	}
	return b.String(), wrote, nil
}

func osReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(err, fs.ErrNotExist) {
			return "No such file or directory (os error 2)"
		}
		return pe.Err.Error()
	}
	return err.Error()
}

// applyChunks is Codex's derive_new_contents_from_chunks: find each
// chunk's old lines at or after the previous one (after its @@ context
// line when it has one), replace them, and end the file with a newline.
func applyChunks(orig, path string, chunks []chunk) (string, error) {
	lines := strings.Split(orig, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	type repl struct {
		start, oldLen int
		newLines      []string
	}
	var repls []repl
	idx := 0
	for _, c := range chunks {
		if c.hasCtx {
			i, ok := seekSequence(lines, []string{c.context}, idx, false)
			if !ok {
				return "", fmt.Errorf("Failed to find context '%s' in %s", c.context, path)
			}
			idx = i + 1
		}
		if len(c.oldLines) == 0 {
			at := len(lines)
			if len(lines) > 0 && lines[len(lines)-1] == "" {
				at = len(lines) - 1
			}
			repls = append(repls, repl{at, 0, c.newLines})
			continue
		}
		pattern, newSlice := c.oldLines, c.newLines
		found, ok := seekSequence(lines, pattern, idx, c.eof)
		if !ok && pattern[len(pattern)-1] == "" {
			pattern = pattern[:len(pattern)-1]
			if len(newSlice) > 0 && newSlice[len(newSlice)-1] == "" {
				newSlice = newSlice[:len(newSlice)-1]
			}
			found, ok = seekSequence(lines, pattern, idx, c.eof)
		}
		if !ok {
			return "", fmt.Errorf("Failed to find expected lines in %s:\n%s", path, strings.Join(c.oldLines, "\n"))
		}
		repls = append(repls, repl{found, len(pattern), newSlice})
		idx = found + len(pattern)
	}
	// Apply from the end so earlier indexes stay valid.
	for i := len(repls) - 1; i >= 0; i-- {
		r := repls[i]
		end := min(r.start+r.oldLen, len(lines))
		next := append([]string{}, lines[:r.start]...)
		next = append(next, r.newLines...)
		next = append(next, lines[end:]...)
		lines = next
	}
	if len(lines) == 0 || lines[len(lines)-1] != "" {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n"), nil
}

// seekSequence finds pattern in lines at or after start, trying an exact
// match, then ignoring trailing whitespace, then surrounding whitespace,
// then typographic punctuation (seek_sequence.rs). With eof it tries the
// end of the file first.
func seekSequence(lines, pattern []string, start int, eof bool) (int, bool) {
	if len(pattern) == 0 {
		return start, true
	}
	if len(pattern) > len(lines) {
		return 0, false
	}
	from := start
	if eof {
		from = len(lines) - len(pattern)
	}
	passes := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r\n\v\f") },
		strings.TrimSpace,
		normalisePunct,
	}
	for _, norm := range passes {
		for i := from; i <= len(lines)-len(pattern); i++ {
			ok := true
			for j, p := range pattern {
				if norm(lines[i+j]) != norm(p) {
					ok = false
					break
				}
			}
			if ok {
				return i, true
			}
		}
	}
	if eof && from != start {
		return seekSequence(lines, pattern, start, false)
	}
	return 0, false
}

var punctReplacer = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
)

func normalisePunct(s string) string { return punctReplacer.Replace(strings.TrimSpace(s)) }
