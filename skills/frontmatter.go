package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxFileSize caps how much of a SKILL.md or tool file is read: anything
// larger is refused before it reaches the YAML parser.
const MaxFileSize = 1 << 20

const bom = "\ufeff"

// FileKind names what a file that is not a regular one is, for a message
// refusing it ("is a named pipe, not a regular file").
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "a special file"
}

// readTextFile reads a small text file, refusing what is too large, binary,
// empty or not UTF-8. The problem, when there is one, names the field "file".
func readTextFile(path string) ([]byte, fs.FileInfo, *Problem) {
	// Checked before opening: opening a FIFO would block.
	if info, err := os.Stat(path); err != nil {
		return nil, nil, fileProblem(err)
	} else if info.IsDir() {
		return nil, info, &Problem{Field: "file", Message: "is a folder, not a file"}
	} else if !info.Mode().IsRegular() {
		return nil, info, &Problem{Field: "file", Message: "is " + FileKind(info.Mode()) + ", not a regular file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fileProblem(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fileProblem(err)
	}
	if info.Size() > MaxFileSize {
		return nil, info, oversize(info.Size())
	}
	// The stat may be stale or lie (a growing file, a special file), so
	// the read itself is capped too.
	// One buffer sized from the stat, plus a byte to notice a file that
	// grew since; only then is the rest read, still capped.
	data := make([]byte, info.Size()+1)
	n, err := io.ReadFull(f, data)
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		data, err = data[:n], nil
	case nil:
		var rest []byte
		rest, err = io.ReadAll(io.LimitReader(f, MaxFileSize+1-int64(n)))
		data = append(data, rest...)
	}
	if err != nil {
		return nil, info, fileProblem(err)
	}
	if len(data) > MaxFileSize {
		return nil, info, oversize(int64(len(data)))
	}
	return data, info, checkText(data)
}

func oversize(n int64) *Problem {
	return &Problem{Field: "file", Message: fmt.Sprintf("file is %d bytes, over the 1 MiB limit", n)}
}

func fileProblem(err error) *Problem {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &Problem{Field: "file", Message: "cannot be read: permission denied"}
	case errors.Is(err, fs.ErrNotExist):
		return &Problem{Field: "file", Message: "does not exist"}
	}
	return &Problem{Field: "file", Message: "cannot be read: " + err.Error()}
}

// checkText refuses content that is not a text file the spec could mean.
func checkText(data []byte) *Problem {
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte(bom)))) == 0 {
		return &Problem{Field: "file", Message: "file is empty"}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return &Problem{Field: "file", Message: fmt.Sprintf("is a binary file (NUL byte at offset %d), not text", i)}
	}
	if !utf8.Valid(data) {
		return &Problem{Field: "file", Message: fmt.Sprintf("is not valid UTF-8 (first bad byte at offset %d)", firstInvalidUTF8(data))}
	}
	return nil
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// splitFrontmatter separates the YAML between the first two lines holding
// only "---" from the body. A leading BOM and CRLF line endings are
// tolerated. frontLine is the file line the YAML starts on.
func splitFrontmatter(text string) (front, body string, frontLine int, prob *Problem) {
	text = strings.TrimPrefix(text, bom)
	if strings.Contains(text, "\r") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	first, rest, found := strings.Cut(text, "\n")
	if !isFence(first) {
		return "", "", 0, &Problem{Field: "frontmatter", Message: "SKILL.md must start with YAML frontmatter: a first line holding only ---"}
	}
	if !found {
		return "", "", 0, &Problem{Field: "frontmatter", Message: "frontmatter is not closed: no line holding only --- after the first"}
	}
	off := 0
	for off <= len(rest) {
		line, _, more := strings.Cut(rest[off:], "\n")
		if isFence(line) {
			front = rest[:off]
			body = ""
			if end := off + len(line) + 1; end < len(rest) {
				body = rest[end:]
			}
			return front, strings.TrimSpace(body), 2, nil
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", "", 0, &Problem{Field: "frontmatter", Message: "frontmatter is not closed: no line holding only --- after the first"}
}

func isFence(line string) bool { return strings.TrimRight(line, " \t\r") == "---" }

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// parseYAML parses frontmatter into its top-level mapping node. It never
// panics: a parser failure becomes the returned error.
func parseYAML(front string, frontLine int) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("invalid YAML: the parser failed: %v", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		return nil, errors.New("invalid YAML: " + yamlMessage(front, frontLine, err.Error()))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}, nil
	}
	n := doc.Content[0]
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("frontmatter must be a YAML mapping of keys to values")
	}
	return n, nil
}

// yamlMessage is the parser's error with the file's line number and the
// line itself. For a bracket never closed the parser names the line before
// the one that opened it (a parser error counts lines from 0 there), so
// that line is found in the text instead.
func yamlMessage(front string, frontLine int, msg string) string {
	m := yamlLineRE.FindStringSubmatch(msg)
	if m == nil {
		return strings.TrimPrefix(msg, "yaml: ")
	}
	n, _ := strconv.Atoi(m[1])
	what := msg[len(m[0]):]
	lines := strings.Split(front, "\n")
	if strings.HasPrefix(what, "did not find expected ',' or ") {
		if open := unclosedFlow(lines); open > 0 {
			n = open
			opener := "["
			if strings.HasSuffix(what, "'}'") {
				opener = "{"
			}
			what += fmt.Sprintf(": the %s opened on this line is never closed", opener)
		}
	}
	where := fmt.Sprintf("line %d of the file", n+frontLine-1)
	if n >= 1 && n <= len(lines) {
		if l := strings.TrimRight(lines[n-1], " \t\r"); l != "" {
			where += fmt.Sprintf(", %q", clipRunes(l, 120))
		}
	}
	return where + ": " + what
}

// unclosedFlow is the 1-based line on which the first flow collection ([
// or {) that is never closed opens, 0 when none is found. Quoted text and
// comments are skipped.
func unclosedFlow(lines []string) int {
	depth, opened := 0, 0
	for i, l := range lines {
		quote := rune(0)
		prev := ' '
		for _, r := range l {
			switch {
			case quote != 0:
				if r == quote {
					quote = 0
				}
			case r == '#' && (prev == ' ' || prev == '\t'):
				goto next
			case (r == '"' || r == '\'') && strings.ContainsRune(" \t:[{,", prev):
				// a quote opens a scalar only where one starts
				quote = r
			case r == '[' || r == '{':
				if depth == 0 {
					opened = i + 1
				}
				depth++
			case r == ']' || r == '}':
				depth = max(0, depth-1)
			}
			prev = r
		}
	next:
	}
	if depth > 0 {
		return opened
	}
	return 0
}

// clipRunes cuts s to n runes, marking the cut.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

var plainKeyRE = regexp.MustCompile(`^([A-Za-z0-9_-]+):[ \t]+(\S.*)$`)

// quoteColonValues rewrites top-level plain values that hold ": " (which
// YAML reads as a nested mapping) as quoted strings, following the spec's
// advice for lenient loading. It returns the rewritten text and the keys it
// quoted, or no keys when there was nothing to rewrite.
func quoteColonValues(front string) (string, []string) {
	lines := strings.Split(front, "\n")
	var out []string
	var keys []string
	for i := 0; i < len(lines); i++ {
		m := plainKeyRE.FindStringSubmatch(lines[i])
		if m == nil || !strings.Contains(m[2]+" ", ": ") || strings.ContainsAny(m[2][:1], `"'|>[{&*!#`) {
			out = append(out, lines[i])
			continue
		}
		// A plain scalar may go on over indented lines: they are part of
		// the value.
		value := strings.TrimSpace(m[2])
		for i+1 < len(lines) && lines[i+1] != "" && (lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
			i++
			value += " " + strings.TrimSpace(lines[i])
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(value)
		out = append(out, m[1]+": "+strings.TrimSpace(buf.String()))
		keys = append(keys, m[1])
	}
	return strings.Join(out, "\n"), keys
}
