package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runBounded runs the binary with a deadline, and says how much memory it
// took at most (its peak resident size, in bytes; 0 when unknown). The
// peak is measured by GNU time when it is installed: the rusage of a child
// the test starts itself includes the test process's own size, as the
// child shares its memory until it executes.
func runBounded(t *testing.T, limit time.Duration, env []string, args ...string) (code int, out, errOut string, peak int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	name, argv := skilletBinary(t), args
	report := filepath.Join(t.TempDir(), "rss")
	timed := false
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		name, argv, timed = "/usr/bin/time", append([]string{"-o", report, "-f", "%M", skilletBinary(t)}, args...), true
	}
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("skillet %s did not end within %s\n%s", strings.Join(args, " "), limit, e.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run skillet: %v", err)
	}
	if timed {
		if b, err := os.ReadFile(report); err == nil {
			// after "Command exited with non-zero status N", when it did
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			fmt.Sscan(lines[len(lines)-1], &peak)
			peak *= 1024
		}
	}
	return code, o.String(), e.String(), peak
}

// A journal that is a named pipe or a device is refused at once, naming
// what it is, by every command that reads one; none waits on the pipe or
// reads the device for ever.
func TestJournalThatIsNoFileIsRefused(t *testing.T) {
	tmp := isolate(t)
	fifo := filepath.Join(tmp, "fifo", "journal.jsonl")
	os.MkdirAll(filepath.Dir(fifo), 0o700)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	zero := filepath.Join(tmp, "zero", "journal.jsonl")
	os.MkdirAll(filepath.Dir(zero), 0o700)
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, kind string }{{fifo, "a named pipe"}, {zero, "a character device"}} {
		for _, args := range [][]string{
			{"show", c.path},
			{"why", "--session", c.path, "alpha"},
			{"export", "--md", "-", c.path},
			{"run", "--offline", "--resume", filepath.Dir(c.path), "hi"},
			{"run", "--offline", "--replay", c.path, "hi"},
		} {
			code, _, errOut, _ := runBounded(t, 20*time.Second, nil, args...)
			if code == 0 || !strings.Contains(errOut, c.kind) {
				t.Errorf("skillet %s: exit %d, stderr should say it is %s:\n%s", strings.Join(args, " "), code, c.kind, errOut)
			}
		}
	}
}

// A journal line past the bound is an error naming the file and the line,
// and reading stops there: memory stays near the bound, not the file.
func TestJournalLineHasABound(t *testing.T) {
	tmp := isolate(t)
	code, out, errOut := runCmd(t, "", "run", "--offline", "--events", "-", "hello")
	if code != 0 {
		t.Fatal(errOut)
	}
	id := sessionStart(t, out)["session_id"].(string)
	journal := filepath.Join(tmp, "state", "skillet", "sessions", id, "journal.jsonl")
	lines := strings.Count(readText(t, journal), "\n")
	f, err := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	// 64 MiB with no newline: a line of any size would be read whole
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for i := 0; i < 1024; i++ {
		f.Write(chunk)
	}
	f.Close()
	env := []string{"SKILLET_MAX_LINE=4MiB"}
	for _, args := range [][]string{{"show", journal}, {"export", "--md", "-", journal}, {"why", "--session", journal, "alpha"}, {"run", "--offline", "--resume", id, "hi"}} {
		code, _, errOut, peak := runBounded(t, 30*time.Second, env, args...)
		want := fmt.Sprintf("line %d is longer than 4 MiB", lines+1)
		if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "SKILLET_MAX_LINE") {
			t.Errorf("skillet %s: exit %d, stderr should say %q:\n%s", args[0], code, want, errOut)
		}
		if !strings.Contains(errOut, journal) && !strings.Contains(errOut, id) {
			t.Errorf("skillet %s: stderr does not name the journal:\n%s", args[0], errOut)
		}
		t.Logf("skillet %s: peak %d MiB", args[0], peak>>20)
		if peak == 0 {
			t.Log("no GNU time here: the peak is not checked")
		} else if peak > 60<<20 {
			t.Errorf("skillet %s took %d MiB reading a 64 MiB line", args[0], peak>>20)
		}
	}
}

// A stream that sends a piece of data every 100 ms never trips the idle
// timeout; the reply timeout ends it, from the flag or from [model]
// reply_timeout, with a message naming both.
func TestReplyTimeoutEndsATricklingStream(t *testing.T) {
	tmp := isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n")
		for i := 0; i < 600; i++ {
			if _, err := fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"la \"}}]}\n\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	cfg := filepath.Join(tmp, "skillet.toml")
	os.WriteFile(cfg, []byte("[model]\nreply_timeout = \"1500ms\"\n"), 0o600)
	for _, args := range [][]string{
		{"run", "--base-url", srv.URL + "/v1", "--reply-timeout", "1s", "hello"},
		{"run", "--base-url", srv.URL + "/v1", "--config", cfg, "hello"},
	} {
		start := time.Now()
		code, _, errOut, _ := runBounded(t, 30*time.Second, nil, args...)
		took := time.Since(start)
		if code == 0 || !strings.Contains(errOut, "reply timeout") || !strings.Contains(errOut, "--reply-timeout") {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
		if took > 10*time.Second {
			t.Errorf("%v: took %s", args, took)
		}
	}
	if code, _, errOut, _ := runBounded(t, 10*time.Second, nil, "run", "--offline", "--reply-timeout", "-1s", "hi"); code != 2 || !strings.Contains(errOut, "--reply-timeout") {
		t.Errorf("a negative --reply-timeout: exit %d %s", code, errOut)
	}
}

// validate names a SKILL.md that is a named pipe or a device, at once,
// rather than finding no skill in the folder.
func TestValidateNamesASkillFileThatIsNoFile(t *testing.T) {
	tmp := isolate(t)
	root := filepath.Join(tmp, "skills")
	os.MkdirAll(filepath.Join(root, "piped"), 0o700)
	os.MkdirAll(filepath.Join(root, "zeroed"), 0o700)
	if err := syscall.Mkfifo(filepath.Join(root, "piped", "SKILL.md"), 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	os.Symlink("/dev/zero", filepath.Join(root, "zeroed", "SKILL.md"))
	code, out, errOut, _ := runBounded(t, 20*time.Second, nil, "validate", root)
	text := out + errOut
	if code != 1 || strings.Contains(text, "no subfolder holds a SKILL.md") ||
		!strings.Contains(text, "is a named pipe, not a regular file") || !strings.Contains(text, "is a character device, not a regular file") {
		t.Fatalf("exit %d\n%s", code, text)
	}
}
