package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"skillet/skills"
)

// DefaultMaxLine is the longest journal or cassette line Skillet reads: far
// past any line it writes (a reply is capped at 64 MiB, long raw replies and
// request bodies are compressed or split into blobs), and short of what a
// file that is no journal (/dev/zero, a file without newlines) could make
// it hold in memory.
const DefaultMaxLine = 256 << 20

// MaxLineEnv names the environment variable that raises or lowers the
// line bound, in bytes or with a KiB, MiB or GiB suffix.
const MaxLineEnv = "SKILLET_MAX_LINE"

// MaxLine is the line bound in force: $SKILLET_MAX_LINE when it holds a
// size, else DefaultMaxLine.
func MaxLine() int {
	if n, err := ParseSize(os.Getenv(MaxLineEnv)); err == nil && n > 0 {
		return n
	}
	return DefaultMaxLine
}

// ParseSize reads a size such as 1048576, 512KiB, 64MiB or 1GiB.
func ParseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 64MiB, got %q", s)
	}
	return n * mult, nil
}

// LineTooLongError is a line over the bound: what is read stops there.
type LineTooLongError struct {
	Line, Max int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %s, the longest line Skillet reads (set %s to change it): this is no journal Skillet wrote, or it is damaged",
		e.Line, sizeText(e.Max), MaxLineEnv)
}

func sizeText(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// LineReader reads lines of at most a bound, so that a file of no
// newlines never grows past it in memory.
type LineReader struct {
	br   *bufio.Reader
	max  int
	line int
}

// NewLineReader reads r's lines, each at most max bytes (MaxLine when max
// is 0).
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = MaxLine()
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<20)
	}
	return &LineReader{br: br, max: max}
}

// Next returns the next line with its newline, as bufio.Reader.ReadBytes
// does (io.EOF with the last line when it has none), or a
// *LineTooLongError past the bound.
func (lr *LineReader) Next() ([]byte, error) {
	line, err := lr.View()
	if line != nil && len(line) <= lr.br.Size() {
		line = bytes.Clone(line)
	}
	return line, err
}

// View is Next without a copy: the line it returns may be the reader's
// own buffer, valid only until the next call. A journal's reader decodes
// each line once and keeps nothing of its bytes, so a copy of every line
// is garbage a reopening made by the hundred megabytes.
func (lr *LineReader) View() ([]byte, error) {
	lr.line++
	var buf []byte
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(buf)+len(chunk) > lr.max {
			return nil, &LineTooLongError{Line: lr.line, Max: lr.max}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf, chunk...)
			continue
		}
		if buf == nil {
			return chunk, err
		}
		return append(buf, chunk...), err
	}
}

// OpenRegular opens a file Skillet reads whole (a journal, a cassette) for
// reading, refusing a named pipe, a device or a socket: reading one would
// block for ever or never end. It is opened without blocking, so that
// even a pipe swapped in after a check is refused rather than waited on.
func OpenRegular(path string) (*os.File, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is %s, not a regular file", path, skills.FileKind(fi.Mode()))
	}
	if err := blockAgain(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// LineAt reads the journal line that starts at offset at.
func LineAt(f io.ReaderAt, at int64) ([]byte, error) {
	line, err := NewLineReader(bufio.NewReader(io.NewSectionReader(f, at, 1<<40)), 0).Next()
	if err != nil && len(line) == 0 {
		return nil, fmt.Errorf("read journal at %d: %w", at, err)
	}
	return bytes.TrimSpace(line), nil
}
