package workspace

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// binarySniff is how much of a file is looked at to call it binary, as
// git does with its first 8000 bytes.
const binarySniff = 8000

// UnifiedDiff is a unified diff of one file's change, labelled a/PATH and
// b/PATH (or /dev/null for a side that is nil: a created or deleted file).
// Binary content (a NUL byte, or invalid UTF-8, near the start) gives one
// line instead: "binary file, N bytes → M bytes". No change gives "".
func UnifiedDiff(path string, before, after []byte) string {
	if bytes.Equal(before, after) && (before == nil) == (after == nil) {
		return ""
	}
	if isBinary(before) || isBinary(after) {
		return fmt.Sprintf("binary file, %s → %s\n", byteCount(before), byteCount(after))
	}
	oldLabel, newLabel := "a/"+path, "b/"+path
	if before == nil {
		oldLabel = "/dev/null"
	}
	if after == nil {
		newLabel = "/dev/null"
	}
	d, err := udiff.ToUnified(oldLabel, newLabel, string(before), udiff.Lines(string(before), string(after)), udiff.DefaultContextLines)
	if err != nil {
		return fmt.Sprintf("%s: no diff: %v\n", path, err)
	}
	if d == "" {
		// Same text, and one side is absent: an empty file made or removed.
		return fmt.Sprintf("--- %s\n+++ %s\n", oldLabel, newLabel)
	}
	return d
}

func isBinary(b []byte) bool {
	head := b
	if len(head) > binarySniff {
		head = head[:binarySniff]
		// Do not call a multi-byte rune cut at the edge invalid.
		for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.RuneStart(b[len(head)]); i++ {
			head = head[:len(head)-1]
		}
	}
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head)
}

func byteCount(b []byte) string {
	return fmt.Sprintf("%s %s", thousands(int64(len(b))), plural(len(b), "byte", "bytes"))
}
