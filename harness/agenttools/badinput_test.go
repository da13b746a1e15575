package agenttools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBadPaths: NUL, .., absolute paths elsewhere and symlinks out are
// refused by every profile's read and write tools, with a clear message.
func TestBadPaths(t *testing.T) {
	w := newWorkspace(t, nil)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.root, "link")); err != nil {
		t.Fatal(err)
	}
	tools := []struct{ profile, read, write, key string }{
		{"claude-code", "Read", "Write", "file_path"},
		{"crush", "view", "write", "file_path"},
		{"opencode", "read", "write", "filePath"},
		{"gemini-cli", "read_file", "write_file", "file_path"},
		{"skillet", "read", "write", "path"},
	}
	paths := map[string]string{
		"nul":      "a\x00b",
		"dotdot":   "../../../../etc/passwd",
		"passwd":   "/etc/passwd",
		"symlink":  "link/secret",
		"empty":    "",
		"outabs":   filepath.Join(outside, "secret"),
		"deep..":   "x/../../ws2/y",
		"writeout": filepath.Join(outside, "new.txt"),
	}
	for _, tl := range tools {
		for name, p := range paths {
			t.Run(tl.profile+"/"+name, func(t *testing.T) {
				r := w.call(tl.profile, tl.read, map[string]any{tl.key: p})
				if !r.IsError || strings.Contains(r.Content, "s3cret") || strings.Contains(r.Content, "root:") {
					t.Errorf("read %q not refused: %s", p, r.Content)
				}
				r = w.call(tl.profile, tl.write, map[string]any{tl.key: p, "content": "x"})
				if !r.IsError {
					t.Errorf("write %q not refused: %s", p, r.Content)
				}
				if len(r.Wrote) > 0 {
					t.Errorf("write %q reported changes %v", p, r.Wrote)
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("a file was written outside the workspace")
	}
	r := w.call("claude-code", "Read", map[string]any{"file_path": "a\x00b"})
	wantContains(t, r, true, "NUL")
	r = w.call("claude-code", "Read", map[string]any{"file_path": "/etc/passwd"})
	wantContains(t, r, true, "<tool_use_error>", "outside the workspace")
	// Malformed arguments are an error, not a panic.
	for _, raw := range []string{`[1,2]`, `{"file_path": 12}`, `{`, `null`} {
		res := Run(context.Background(), w.env, mustDef(t, "claude-code", "Read"), json.RawMessage(raw))
		if !res.IsError {
			t.Errorf("args %s: not an error: %s", raw, res.Content)
		}
	}
}

func TestBinaryAndHugeFiles(t *testing.T) {
	w := newWorkspace(t, nil)
	w.write("img.bin", "PNG\x00\x01\x02"+strings.Repeat("\x00", 2000))
	// A 1 GB sparse file: reads must not load it.
	huge := filepath.Join(w.root, "huge.log")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("first line\nsecond line\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A 1 GB text-like file: a line every 64 bytes is written at its
	// start and end only; the rest is sparse (read as NUL, so binary).
	for _, c := range []struct{ profile, tool, key, want string }{
		{"claude-code", "Read", "file_path", "binary file (2KB)"},
		{"crush", "view", "file_path", "binary file (2KB)"},
		{"opencode", "read", "filePath", "Cannot read binary file: "},
		{"gemini-cli", "read_file", "file_path", "Cannot display content of binary file: img.bin (2KB)"},
		{"skillet", "read", "path", "img.bin is a binary file (2KB)"},
	} {
		res := w.call(c.profile, c.tool, map[string]any{c.key: "img.bin"})
		wantContains(t, res, true, c.want)
		start := time.Now()
		res = w.call(c.profile, c.tool, map[string]any{c.key: "huge.log", "limit": 1, "offset": 1})
		if time.Since(start) > 2*time.Second {
			t.Errorf("%s: reading a 1 GB file took %v", c.profile, time.Since(start))
		}
		if c.profile == "claude-code" || c.profile == "skillet" || c.profile == "crush" || c.profile == "opencode" {
			// The head of the file is text, so it streams.
			if res.IsError && !strings.Contains(res.Content, "binary") {
				t.Errorf("%s: huge read: %s", c.profile, res.Content)
			}
		}
	}
	res := w.call("claude-code", "Read", map[string]any{"file_path": "huge.log"})
	wantContains(t, res, true, "File content (1GB) exceeds maximum allowed size (256KB). Use offset and limit parameters")
	// Text with a 1 GB tail of text lines would be slow to count; the
	// sparse head keeps this quick while exercising the streaming path.
	w.write("text.txt", "a\n")
	g, err := os.OpenFile(filepath.Join(w.root, "text.txt"), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 63) + "\n"
	for i := 0; i < 200000; i++ { // 12.8 MB of text
		g.WriteString(line)
	}
	g.Close()
	start := time.Now()
	res = w.call("opencode", "read", map[string]any{"filePath": "text.txt", "limit": 2})
	wantContains(t, res, false, "1: a\n2: xxx", "of 200001")
	res = w.call("crush", "view", map[string]any{"file_path": "text.txt", "offset": 199999, "limit": 5})
	wantContains(t, res, false, "200000|xxx")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("streaming reads took %v", d)
	}
	// Invalid UTF-8 in a file: replaced for most agents, refused by Crush.
	w.write("latin1.txt", "caf\xe9\n")
	res = w.call("claude-code", "Read", map[string]any{"file_path": "latin1.txt"})
	wantContains(t, res, false, "caf\uFFFD")
	res = w.call("crush", "view", map[string]any{"file_path": "latin1.txt"})
	wantContains(t, res, true, "File content is not valid UTF-8")
}

// TestGlobCap: a glob matching 100,000 files returns the agent's cap and
// says it cut; it stops walking early.
func TestGlobCap(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 100,000 files")
	}
	w := newWorkspace(t, nil)
	// Creating 100,000 files is the slow part; on a disk-backed /tmp it
	// takes tens of seconds, in memory well under one.
	gen := filepath.Join(w.root, "gen")
	if shm, err := os.MkdirTemp("/dev/shm", "agenttools-glob-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(shm) })
		w.root = shm
		w.env.Files = testResolver{root: shm}
		gen = filepath.Join(shm, "gen")
	}
	start := time.Now()
	for d := 0; d < 100; d++ {
		dir := filepath.Join(gen, fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 1000; i++ {
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)))
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	t.Logf("created 100,000 files in %v", time.Since(start))
	for _, c := range []struct{ profile, tool, want string }{
		{"claude-code", "Glob", "(Showing the first 100 files; there are more than 100 matches. Narrow the pattern or path to see the rest.)"},
		{"crush", "glob", "(Results are truncated. Consider using a more specific path or pattern.)"},
		{"opencode", "glob", "(Results are truncated: showing first 100 results."},
		{"gemini-cli", "glob", "Skillet stopped at 1000 files; more match"},
		{"skillet", "glob", "[first 100 files shown; more match"},
	} {
		start := time.Now()
		res := w.call(c.profile, c.tool, map[string]any{"pattern": "**/*.txt"})
		d := time.Since(start)
		wantContains(t, res, false, c.want)
		if n := strings.Count(res.Content, ".txt"); n > 1001 {
			t.Errorf("%s listed %d files", c.profile, n)
		}
		if d > 2*time.Second {
			t.Errorf("%s: capped glob took %v", c.profile, d)
		}
	}
}
