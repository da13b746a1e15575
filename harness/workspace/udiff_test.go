package workspace

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	cases := []struct {
		name          string
		before, after []byte
		want          string
	}{
		{"modify", []byte("one\ntwo\nthree\n"), []byte("one\n2\nthree\n"),
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"},
		{"create", nil, []byte("hello\n"), "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+hello\n"},
		{"delete", []byte("bye\n"), nil, "--- a/f.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"},
		{"empty file made", nil, []byte{}, "--- /dev/null\n+++ b/f.txt\n"},
		{"same", []byte("x\n"), []byte("x\n"), ""},
		{"binary NUL", []byte("a\x00b"), []byte("a\x00bc"), "binary file, 3 bytes → 4 bytes\n"},
		{"binary invalid UTF-8", []byte("ok\n"), []byte{0xff, 0xfe, 'x'}, "binary file, 3 bytes → 3 bytes\n"},
		{"binary created", nil, append([]byte{0}, make([]byte, 1233)...), "binary file, 0 bytes → 1,234 bytes\n"},
		{"one byte", []byte{0}, nil, "binary file, 1 byte → 0 bytes\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := UnifiedDiff("f.txt", c.before, c.after); got != c.want {
				t.Fatalf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
	// A multi-byte rune cut at the sniffing edge is still text.
	long := []byte(strings.Repeat("a", binarySniff-1) + "é\n")
	if got := UnifiedDiff("f", long, append(long, "x\n"...)); strings.HasPrefix(got, "binary") {
		t.Errorf("UTF-8 text called binary: %q", got[:40])
	}
}

func TestCopyStatsString(t *testing.T) {
	for _, c := range []struct {
		s    CopyStats
		want string
	}{
		{CopyStats{Files: 1234, Bytes: 5_600_000, Ignored: 12}, "copied 1,234 files (5.6 MB), left out 12 ignored"},
		{CopyStats{Files: 1, Bytes: 999}, "copied 1 file (999 B)"},
		{CopyStats{Files: 2, Bytes: 1_500, Skipped: 1}, "copied 2 files (1.5 kB), skipped 1 special file"},
		{CopyStats{Files: 1_000_000, Bytes: 3_210_000_000}, "copied 1,000,000 files (3.2 GB)"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
