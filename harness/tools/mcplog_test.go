package tools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Secrets of the MCP configs below; none may reach a log or a message.
var logSecrets = []string{"pw-secret-1", "tok-secret-2", "key-secret-3", "pw-secret-4", "gh-secret-5", "alice"}

func checkNoSecrets(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range logSecrets {
		if strings.Contains(text, s) {
			t.Errorf("%s holds %q:\n%s", what, s, text)
		}
	}
}

func checkPrivate(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != want {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
	}
}

func TestMCP_LogsHideCredentialsAndArePrivate(t *testing.T) {
	srv := newTestServer()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	webURL := strings.Replace(hs.URL, "http://", "http://alice:pw-secret-1@", 1) + "/mcp?token=tok-secret-2&mode=x"
	t.Setenv("SKILLET_TEST_GH", "gh-secret-5")
	stdio := stdioServer(t, "echo", map[string]string{"GITHUB_TOKEN": "$SKILLET_TEST_GH"})
	stdio.Args = append(stdio.Args, "--api-key", "key-secret-3", "--dsn=postgres://app:pw-secret-4@db/app", "--root", "/data")

	logs := filepath.Join(t.TempDir(), "state", "mcp-logs")
	r := NewRunner(Options{MCPServers: map[string]MCPServer{"web": {URL: webURL}, "local": stdio}, LogDir: logs, DefaultTimeout: 20 * time.Second})
	defer r.Close()
	for _, name := range []string{"web", "local"} {
		if res := r.Run(context.Background(), mcpCall(name, "greet", `{"name":"x"}`)); res.IsError {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web", "local"} {
		path := r.MCPLogPath(name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		log := string(b)
		checkNoSecrets(t, name+"'s log", log)
		if !strings.Contains(log, "REDACTED") {
			t.Errorf("%s's log shows nothing was hidden:\n%s", name, log)
		}
		checkPrivate(t, path, 0o600)
		checkPrivate(t, filepath.Dir(path), 0o700)
	}
	checkPrivate(t, logs, 0o700)
	for _, st := range r.MCPStatuses() {
		checkNoSecrets(t, "the status target", st.Target)
		if !strings.Contains(st.Target, "REDACTED") {
			t.Errorf("target %q", st.Target)
		}
	}
	local, _ := r.MCPLog("local", 1<<20)
	for _, want := range []string{"--root /data", "started with", "connecting with REDACTED"} {
		if !strings.Contains(local, want) {
			t.Errorf("local log lacks %q:\n%s", want, local)
		}
	}
}

func TestMCP_ErrorsHideCredentials(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	u := strings.Replace(hs.URL, "http://", "http://alice:pw-secret-1@", 1) + "/mcp?token=tok-secret-2"
	hs.Close()
	r := newMCPRunner(t, map[string]MCPServer{"web": {URL: u}})
	res := r.Run(context.Background(), mcpCall("web", "sum", `{}`))
	if !res.IsError || !strings.Contains(res.Content, "failed to start") {
		t.Fatalf("got %+v", res)
	}
	checkNoSecrets(t, "the error", res.Content)
	st, _ := r.MCPStatus("web")
	checkNoSecrets(t, "the status", st.Why)
	log, _ := r.MCPLog("web", 1<<20)
	checkNoSecrets(t, "the log", log)
}

// Each runner logs into a folder of its own: a session's log holds only
// its own runs of a server, not an earlier session's.
func TestMCP_LogHoldsThisSessionOnly(t *testing.T) {
	logs := t.TempDir()
	servers := map[string]MCPServer{"s": stdioServer(t, "stdio", nil)}
	first := NewRunner(Options{MCPServers: servers, LogDir: logs})
	if res := first.Run(context.Background(), mcpCall("s", "greet", `{"name":"a"}`)); res.IsError {
		t.Fatal(res.Content)
	}
	first.Close()
	second := NewRunner(Options{MCPServers: servers, LogDir: logs})
	defer second.Close()
	if st, _ := second.MCPStatus("s"); st.State != MCPNotStarted || st.Log != "" {
		t.Errorf("a new session's status = %+v", st)
	}
	if res := second.Run(context.Background(), mcpCall("s", "greet", `{"name":"b"}`)); res.IsError {
		t.Fatal(res.Content)
	}
	log, err := second.MCPLog("s", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log, "starting MCP server"); n != 1 {
		t.Errorf("the second session's log shows %d starts:\n%s", n, log)
	}
	// A short read keeps whole lines from the end.
	lines := strings.SplitAfter(log, "\n")
	last := lines[len(lines)-2] // the text ends with a newline
	if tail, _ := second.MCPLog("s", len(last)+3); tail != last {
		t.Errorf("the end of the log is %q, want its last line %q", tail, last)
	}
	if all, _ := second.MCPLog("s", 0); all != log {
		t.Errorf("limit 0 reads %q, want the whole log %q", all, log)
	}
	if first.MCPLogPath("s") == second.MCPLogPath("s") {
		t.Errorf("both sessions log to %s", first.MCPLogPath("s"))
	}
}

func TestMCP_StatusOfEveryServer(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"a": stdioServer(t, "stdio", nil), "b": stdioServer(t, "exit", nil)})
	if _, err := r.MCPTool(context.Background(), "a", "greet"); err != nil {
		t.Fatal(err)
	}
	_, _ = r.MCPTool(context.Background(), "b", "greet")
	sts := r.MCPStatuses()
	if len(sts) != 2 || sts[0].Name != "a" || sts[1].Name != "b" {
		t.Fatalf("statuses = %+v", sts)
	}
	if sts[0].State != MCPRunning || sts[1].State != MCPFailed || sts[1].NextTry.IsZero() || sts[1].Why == "" {
		t.Errorf("statuses = %+v", sts)
	}
	r.Close()
	if st, _ := r.MCPStatus("a"); st.State != MCPStopped {
		t.Errorf("after Close: %+v", st)
	}
	if _, ok := r.MCPStatus("ghost"); ok {
		t.Error("an unconfigured server has a status")
	}
}

func TestRedactArgs(t *testing.T) {
	var sec secrets
	got := strings.Join(redactArgs([]string{
		"--root", "/data", "--token", "t0ken-1", "--api-key=k3y-2", "PASSWORD=pa55-3",
		"https://u:pa55-4@h/x?k=v4lue-5", "--url=http://h/?sig=s1g-6", "--verbose", "-x",
	}, &sec), " ")
	want := "--root /data --token REDACTED --api-key=REDACTED PASSWORD=REDACTED https://REDACTED@h/x?k=REDACTED --url=http://h/?sig=REDACTED --verbose -x"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	rep := sec.replacer()
	for _, s := range []string{"t0ken-1", "k3y-2", "pa55-3", "pa55-4", "v4lue-5", "s1g-6"} {
		if out := rep.Replace("x " + s + " y"); strings.Contains(out, s) {
			t.Errorf("%s is not hidden elsewhere: %s", s, out)
		}
	}
}

func TestMCP_OldRunLogsArePruned(t *testing.T) {
	logs := t.TempDir()
	old := time.Now().Add(-8 * 24 * time.Hour)
	mk := func(name string, fileTime time.Time) string {
		d := filepath.Join(logs, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(d, "mcp-s.log")
		os.WriteFile(f, []byte("x\n"), 0o600)
		os.Chtimes(f, fileTime, fileTime)
		os.Chtimes(d, old, old)
		return d
	}
	stale := mk("run-20260101T000000-1", old)
	live := mk("run-20260101T000000-2", time.Now()) // a long session still writing
	other := filepath.Join(logs, "keep-me")
	os.MkdirAll(other, 0o755)
	os.Chtimes(other, old, old)
	legacy := filepath.Join(logs, "mcp-s.log")
	os.WriteFile(legacy, []byte("from an earlier version\n"), 0o644)

	r := newMCPRunner(t, map[string]MCPServer{"s": stdioServer(t, "stdio", nil)})
	r.logDir = logs
	if _, err := r.MCPTool(context.Background(), "s", "greet"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{stale: false, live: true, other: true, filepath.Dir(r.MCPLogPath("s")): true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", path, err == nil, want)
		}
	}
	checkPrivate(t, legacy, 0o600)
}

// What a session records passes through Redact: every configured server's
// URL credentials, secret-looking arguments and environment values, as
// given and as expanded from the base environment, are hidden.
func TestRunnerRedactHidesEveryServersCredentials(t *testing.T) {
	r := NewRunner(Options{Env: []string{"PATH=/bin", "DB_PASSWORD=expanded-secret-7"}, MCPServers: map[string]MCPServer{
		"web":   {URL: "https://alice:pw-secret-1@h.example/mcp?token=tok-secret-2"},
		"local": {Command: "srv", Args: []string{"--api-key", "key-secret-3"}, Env: map[string]string{"PASS": "$DB_PASSWORD", "PLAIN": "env-secret-4"}},
	}})
	text := "failed: alice:pw-secret-1 tok-secret-2 key-secret-3 expanded-secret-7 env-secret-4 $DB_PASSWORD"
	got := r.Redact(text)
	for _, secret := range []string{"pw-secret-1", "tok-secret-2", "key-secret-3", "expanded-secret-7", "env-secret-4", "alice"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q still in %q", secret, got)
		}
	}
	if !strings.HasPrefix(got, "failed: ") {
		t.Fatalf("what was not secret changed: %q", got)
	}
}
