package agenttools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxEditBytes caps the files edit and patch tools load whole: they must
// hold the text to replace in it, and no agent edits files this large.
const maxEditBytes = 64 << 20

// resolve turns a model's path into the absolute path a tool may use.
// Relative paths are taken in the workspace; the Resolver decides the
// rest (confinement, symlinks). A write into a skill folder is refused
// here, since skills are read-only to tools.
func resolve(env Env, path string, write bool) (string, error) {
	if path == "" {
		return "", errors.New("the path is empty")
	}
	if strings.ContainsRune(path, 0) {
		return "", fmt.Errorf("the path %q contains a NUL byte", path)
	}
	if !utf8.ValidString(path) {
		return "", fmt.Errorf("the path %q is not valid UTF-8", path)
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(env.Files.Root(), p)
	}
	p = filepath.Clean(p)
	if write {
		for _, d := range env.SkillDirs {
			if within(d, p) {
				return "", fmt.Errorf("%s is in the skill folder %s, which tools may only read", path, d)
			}
		}
	}
	abs, err := env.Files.Resolve(p, write)
	if err != nil {
		return "", err
	}
	if write {
		// Again after symlinks are resolved: a link into a skill folder
		// does not make it writable.
		for _, d := range env.SkillDirs {
			if within(d, abs) {
				return "", fmt.Errorf("%s is in the skill folder %s, which tools may only read", path, d)
			}
		}
	}
	return abs, nil
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sniffLen is how much of a file the binary check looks at.
const sniffLen = 8192

// isBinary reports whether a file looks binary: a NUL byte in its first
// 8 KB, or more than 30 % control characters there (the heuristic
// opencode's read tool uses; packages/opencode/src/tool/read.ts
// isBinaryFile). An empty file is text.
func isBinary(f *os.File) (bool, error) {
	buf := make([]byte, sniffLen)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return false, err
	}
	return looksBinary(buf[:n]), nil
}

func looksBinary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	ctl := 0
	for _, c := range b {
		if c < 9 || (c > 13 && c < 32) {
			ctl++
		}
	}
	return ctl*10 > len(b)*3
}

// binaryError is the refusal every read tool gives a binary file: it says
// binary and gives the size.
func binaryError(path string, size int64) string {
	return fmt.Sprintf("%s is a binary file (%s); it cannot be shown as text", path, humanBytes(size))
}

// humanBytes writes a size the way Claude Code does (bytes, KB, MB, GB
// with one decimal dropped when .0; cli.js zI in
// @anthropic-ai/claude-code@2.0.77).
func humanBytes(n int64) string {
	k := float64(n) / 1024
	if k < 1 {
		return fmt.Sprintf("%d bytes", n)
	}
	trim := func(f float64, unit string) string {
		s := fmt.Sprintf("%.1f", f)
		s = strings.TrimSuffix(s, ".0")
		return s + unit
	}
	if k < 1024 {
		return trim(k, "KB")
	}
	m := k / 1024
	if m < 1024 {
		return trim(m, "MB")
	}
	return trim(m/1024, "GB")
}

// openText opens a file for a text read: it must exist, be a regular file
// and not look binary. The error is the reason, for the profile to frame.
type openErr struct {
	kind string // "missing", "dir", "binary", "other"
	msg  string
	size int64
}

func (e *openErr) Error() string { return e.msg }

func openText(abs, shown string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, &openErr{kind: "missing", msg: "file not found: " + shown}
		}
		return nil, nil, &openErr{kind: "other", msg: err.Error()}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &openErr{kind: "other", msg: err.Error()}
	}
	if st.IsDir() {
		f.Close()
		return nil, st, &openErr{kind: "dir", msg: "path is a directory, not a file: " + shown}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, st, &openErr{kind: "other", msg: shown + " is not a regular file"}
	}
	bin, err := isBinary(f)
	if err != nil {
		f.Close()
		return nil, st, &openErr{kind: "other", msg: err.Error()}
	}
	if bin {
		f.Close()
		return nil, st, &openErr{kind: "binary", msg: binaryError(shown, st.Size()), size: st.Size()}
	}
	return f, st, nil
}

// lineWindow is a slice of a file's lines.
type lineWindow struct {
	Lines []string
	// Start is the 1-based number of the first line.
	Start int
	// More: lines follow the window. Total is the line count when the
	// scan reached the end (countTotal), else -1.
	More  bool
	Total int
	// Cut: a byte cap ended the window before the line limit.
	Cut bool
	// LongLines: how many lines were cut to maxLine.
	LongLines int
	// Invalid: some bytes were not UTF-8 and were replaced.
	Invalid bool
}

// windowOpts say which lines to take and how.
type windowOpts struct {
	offset     int // 1-based first line
	limit      int // lines to take
	maxLine    int // cut longer lines (in bytes, at a rune boundary); 0 = no cut
	lineSuffix string
	maxBytes   int // stop before the window passes this many bytes; 0 = none
	countTotal bool
	// countCap stops counting total lines after this many bytes
	// (a 1 GB file is never scanned whole).
	countCap int64
}

// readWindow streams lines from r; it never holds more than the window.
// Lines end at \n; a trailing \r is dropped (CRLF files read as LF, as
// every agent's reader does).
func readWindow(r io.Reader, o windowOpts) (lineWindow, error) {
	if o.offset < 1 {
		o.offset = 1
	}
	w := lineWindow{Start: o.offset, Total: -1}
	br := bufio.NewReaderSize(r, 64<<10)
	n := 0
	var scanned int64
	bytesOut := 0
	var buf []byte
	// Kept lines go into one buffer, turned into strings once at the end:
	// one allocation for the window, not one per line.
	var all []byte
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			hint := st.Size()
			if o.maxBytes > 0 {
				hint = min(hint, int64(o.maxBytes))
			}
			all = make([]byte, 0, min(hint, 4<<20)) // a hint only: a 1 GB file read for one line must not cost 1 GB
		}
	}
	var ends []int
	done := func(err error) (lineWindow, error) {
		text := string(all)
		w.Lines = make([]string, len(ends))
		start := 0
		for k, e := range ends {
			w.Lines[k] = text[start:e]
			start = e
		}
		return w, err
	}
	for {
		line, long, err := readLine(br, o.maxLine, buf)
		buf = line
		if err == io.EOF && line == nil {
			w.Total = n
			return done(nil)
		}
		if err != nil && err != io.EOF {
			return done(err)
		}
		n++
		scanned += int64(len(line))
		if n >= o.offset && len(ends) < o.limit && !w.Cut {
			kept := line
			if !utf8.Valid(kept) {
				kept = []byte(validText(string(kept)))
				w.Invalid = true
			}
			size := len(kept)
			if long {
				size += len(o.lineSuffix)
			}
			if len(ends) > 0 {
				size++
			}
			if o.maxBytes > 0 && bytesOut+size > o.maxBytes {
				w.Cut, w.More = true, true
				return done(nil)
			}
			bytesOut += size
			all = append(all, kept...)
			if long {
				all = append(all, o.lineSuffix...)
				w.LongLines++
			}
			ends = append(ends, len(all))
		} else if n >= o.offset {
			w.More = true
			if !o.countTotal || (o.countCap > 0 && scanned > o.countCap) {
				return done(nil)
			}
		}
		if err == io.EOF {
			w.Total = n
			return done(nil)
		}
	}
}

// readLine reads one line without its newline, keeping at most max bytes
// of it (cut at a rune boundary) and discarding the rest, so a file with
// no newlines costs no memory. long reports a cut.
func readLine(br *bufio.Reader, max int, buf []byte) (line []byte, long bool, err error) {
	buf = buf[:0]
	got := false
	for {
		chunk, isPrefix, e := br.ReadLine()
		if e != nil {
			if got {
				return trimLine(buf, max)
			}
			return nil, false, e
		}
		got = true
		if max <= 0 || len(buf) < max+4 {
			buf = append(buf, chunk...)
		} else {
			long = true
		}
		if !isPrefix {
			l, lg, _ := trimLine(buf, max)
			return l, lg || long, nil
		}
	}
}

func trimLine(b []byte, max int) ([]byte, bool, error) {
	if max <= 0 || len(b) <= max {
		return b, false, nil
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return b[:cut], true, nil
}

// writeFile writes content, creating missing parent folders, keeping the
// mode of a file it replaces. existed reports a replacement.
func writeFile(abs string, content []byte) (existed bool, err error) {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(abs); err == nil {
		if st.IsDir() {
			return true, fmt.Errorf("%s is a directory", abs)
		}
		existed = true
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return existed, fmt.Errorf("create folder for %s: %w", abs, err)
	}
	if err := os.WriteFile(abs, content, mode); err != nil {
		return existed, fmt.Errorf("write %s: %w", abs, err)
	}
	return existed, nil
}

// loadForEdit reads a whole text file an edit will change.
func loadForEdit(abs, shown string) (string, error) {
	f, st, err := openText(abs, shown)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st.Size() > maxEditBytes {
		return "", &openErr{kind: "other", msg: fmt.Sprintf("%s is %s; edits are limited to files of %s", shown, humanBytes(st.Size()), humanBytes(maxEditBytes))}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", &openErr{kind: "other", msg: err.Error()}
	}
	return string(b), nil
}

// replaceIn does a literal replacement: count is how many times old
// occurs; the text changes only when count is 1, or replaceAll is set.
// A file with CRLF line ends is matched as LF and written back with CRLF,
// as the agents do (Claude Code reads with \r\n replaced and writes with
// the file's line ending, cli.js LV and hDA; Crush's edit.go isCrlf;
// opencode's edit.ts normalizeLineEndings).
func replaceIn(content, old, new string, replaceAll bool) (string, int) {
	if strings.Contains(content, "\r\n") && !strings.Contains(old, "\r\n") {
		lf := strings.ReplaceAll(content, "\r\n", "\n")
		out, n := replaceLF(lf, old, strings.ReplaceAll(new, "\r\n", "\n"), replaceAll)
		if n == 1 || (n > 1 && replaceAll) {
			return strings.ReplaceAll(out, "\n", "\r\n"), n
		}
		return content, n
	}
	return replaceLF(content, old, new, replaceAll)
}

func replaceLF(content, old, new string, replaceAll bool) (string, int) {
	count := strings.Count(content, old)
	if count == 0 || (count > 1 && !replaceAll) {
		return content, count
	}
	if replaceAll {
		return strings.ReplaceAll(content, old, new), count
	}
	return strings.Replace(content, old, new, 1), count
}

// numbered renders lines with a right-aligned number of width 6 and a
// separator, numbers of six digits or more unpadded: the layout of
// `cat -n` that Claude Code (→) and Crush (|) use.
func numbered(lines []string, start int, sep string) string {
	size := 0
	for _, l := range lines {
		size += len(l) + len(sep) + 8
	}
	b := make([]byte, 0, size)
	for i, l := range lines {
		if i > 0 {
			b = append(b, '\n')
		}
		n := start + i
		for w := digits(n); w < 6; w++ {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, sep...)
		b = append(b, l...)
	}
	return string(b)
}

func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}
