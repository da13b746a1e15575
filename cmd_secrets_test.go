package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// echoServer streams back, split across server-sent events, every
// credential the request came with, and notes where requests went.
type echoServer struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func newEchoServer(t *testing.T, pieces func(auth, query string) []string) *echoServer {
	t.Helper()
	es := &echoServer{}
	es.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		es.mu.Lock()
		es.paths = append(es.paths, r.URL.Path+"?"+r.URL.RawQuery)
		es.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n")
		for _, p := range pieces(r.Header.Get("Authorization"), r.URL.RawQuery) {
			b, _ := json.Marshal(p)
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", b)
			fl.Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(es.Close)
	return es
}

// contentOf joins the delta contents of a stream's events.
func contentOf(stream string) string {
	var b strings.Builder
	for _, line := range strings.Split(stream, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(data), &ev) == nil && len(ev.Choices) > 0 {
			b.WriteString(ev.Choices[0].Delta.Content)
		}
	}
	return b.String()
}

// split cuts s into pieces of about n bytes.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// A server that echoes the key, the base URL's password, the Basic
// Authorization value and a query-string key, each split across stream
// events and in several encodings, leaves none of them in the cassette,
// the journal or the output; and the request goes to
// /v1/chat/completions with the base URL's query after it.
func TestSecretsSplitAcrossEventsNeverReachTheCassette(t *testing.T) {
	tmp := isolate(t)
	const key, pw, qkey = "sk-live-0123456789abcdef", "hunter2-pass-word", "q-secret-9876543210"
	basic := base64.StdEncoding.EncodeToString([]byte("bob:" + pw))
	srv := newEchoServer(t, func(auth, query string) []string {
		var out []string
		out = append(out, "you sent ")
		out = append(out, split(strings.TrimPrefix(auth, "Bearer "), 5)...)
		out = append(out, " and ")
		out = append(out, split(basic, 4)...)
		out = append(out, " and ")
		out = append(out, split(url.QueryEscape(pw), 3)...)
		out = append(out, " query ")
		out = append(out, split(query, 6)...)
		out = append(out, " b64 ")
		out = append(out, split(base64.URLEncoding.EncodeToString([]byte(key)), 7)...)
		out = append(out, " end")
		return out
	})
	t.Setenv("OPENAI_API_KEY", key)
	base := strings.Replace(srv.URL, "http://", "http://bob:"+pw+"@", 1) + "/v1?api-key=" + qkey
	writeSkill(t, filepath.Join(tmp, "skills"), "alpha", "")
	rec := filepath.Join(tmp, "rec.jsonl")
	code, out, errOut := runBinary(t, "run", "--skills", filepath.Join(tmp, "skills"), "--base-url", base, "--model", "echo-1", "--record", rec, "hello")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if len(srv.paths) == 0 || srv.paths[0] != "/v1/chat/completions?api-key="+qkey {
		t.Fatalf("the request went to %v, want /v1/chat/completions?api-key=…", srv.paths)
	}
	if !strings.Contains(out, "you sent ") || !strings.Contains(out, " end") {
		t.Fatalf("the answer did not come through:\n%s", out)
	}
	secrets := map[string]string{"key": key, "password": pw, "basic": basic, "query key": qkey,
		"url-encoded password": url.QueryEscape(pw), "url-safe base64 key": base64.URLEncoding.EncodeToString([]byte(key))}
	journals, _ := filepath.Glob(filepath.Join(tmp, "state", "skillet", "sessions", "*", "journal.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("want one journal, found %v", journals)
	}
	// what the recorded stream says, its events put together
	var said strings.Builder
	for _, c := range openCassette(t, rec).Calls {
		for _, ch := range c.Chunks {
			said.WriteString(contentOf(string(ch.Bytes())))
		}
	}
	if !strings.Contains(said.String(), "you sent ") {
		t.Fatalf("the cassette's stream says %q", said.String())
	}
	jr := readText(t, journals[0])
	for _, line := range strings.Split(jr, "\n") {
		var a struct {
			Type string `json:"type"`
			Raw  string `json:"raw"`
		}
		if json.Unmarshal([]byte(line), &a) == nil && a.Type == "assistant" {
			said.WriteString(contentOf(a.Raw))
		}
	}
	for what, s := range secrets {
		for name, text := range map[string]string{"cassette": readText(t, rec), "journal": jr, "streams put together": said.String()} {
			if strings.Contains(text, s) {
				t.Errorf("the %s holds the %s", name, what)
			}
		}
	}
	if !strings.Contains(readText(t, rec), "[redacted API key]") {
		t.Error("the cassette should show where the echoed key was cut")
	}
	for what, s := range secrets {
		if strings.Contains(out, s) || strings.Contains(errOut, s) {
			t.Errorf("the output holds the %s", what)
		}
	}
}

// Credentials in --base-url work, with a warning that the process list
// shows them; the resume line never prints them; the events file and
// exports are the owner's only.
func TestBaseURLCredentialsWarnAndFilesArePrivate(t *testing.T) {
	tmp := isolate(t)
	const pw = "hunter2-pass-word"
	srv := newEchoServer(t, func(string, string) []string { return []string{"fine"} })
	base := strings.Replace(srv.URL, "http://", "http://bob:"+pw+"@", 1) + "/v1"
	events := filepath.Join(tmp, "events.jsonl")
	code, out, errOut := runBinary(t, "run", "--base-url", base, "--model", "echo-1", "--events", events, "hello")
	if code != 0 || !strings.Contains(out, "fine") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "--base-url holds credentials") || !strings.Contains(errOut, "OPENAI_BASE_URL") {
		t.Errorf("no warning about credentials on the command line:\n%s", errOut)
	}
	if strings.Contains(out+errOut, pw) {
		t.Errorf("the password was printed:\n%s\n%s", out, errOut)
	}
	// from the environment: no warning
	t.Setenv("OPENAI_BASE_URL", base)
	if _, _, errOut := runBinary(t, "run", "--model", "echo-1", "hello"); strings.Contains(errOut, "holds credentials") || strings.Contains(errOut, pw) {
		t.Errorf("credentials from the environment: %s", errOut)
	}
	if got := resumeCommand(&common{baseURL: base}, "abc", "/x/abc"); strings.Contains(got, pw) || !strings.Contains(got, "OPENAI_BASE_URL=") {
		t.Errorf("resume line %s", got)
	}
	journals, _ := filepath.Glob(filepath.Join(tmp, "state", "skillet", "sessions", "*"))
	if len(journals) == 0 {
		t.Fatal("no session")
	}
	md, cast := filepath.Join(tmp, "s.md"), filepath.Join(tmp, "s.cast")
	if code, _, errOut := runBinary(t, "export", "--md", md, "--cast", cast, journals[0]); code != 0 {
		t.Fatalf("export: exit %d %s", code, errOut)
	}
	for _, f := range []string{events, md, cast} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want -rw-------", filepath.Base(f), fi.Mode().Perm())
		}
		if strings.Contains(readText(t, f), pw) {
			t.Errorf("%s holds the password", filepath.Base(f))
		}
	}
}

// export never writes over the journal it reads, by its path or through
// a symlink, and refuses two outputs naming one file.
func TestExportRefusesToOverwriteItsJournal(t *testing.T) {
	tmp := isolate(t)
	code, out, errOut := runCmd(t, "", "run", "--offline", "--events", "-", "hello")
	if code != 0 {
		t.Fatal(errOut)
	}
	id := sessionStart(t, out)["session_id"].(string)
	dir := filepath.Join(tmp, "state", "skillet", "sessions", id)
	journal := filepath.Join(dir, "journal.jsonl")
	before := readText(t, journal)
	link := filepath.Join(tmp, "link.md")
	os.Symlink(journal, link)
	for _, args := range [][]string{
		{"export", "--md", journal, dir},
		{"export", "--cast", link, id},
		{"export", "--html", journal, journal},
	} {
		code, _, errOut := runBinary(t, args...)
		if code != 2 || !strings.Contains(errOut, "is the session's journal") {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
	}
	if readText(t, journal) != before {
		t.Fatal("the journal was written over")
	}
	x := filepath.Join(tmp, "x.out")
	if code, _, errOut := runBinary(t, "export", "--md", x, "--cast", x, id); code != 2 || !strings.Contains(errOut, "--md and --cast both name") {
		t.Errorf("--md X --cast X: exit %d\n%s", code, errOut)
	}
}

// Fields of a journal or a cassette (a model name, a tool name) holding
// escape sequences reach no terminal: show, why, replay diff and
// export --md print them plain, and the asciicast's first line too.
func TestEscapesInRecordedFieldsArePrintedPlain(t *testing.T) {
	tmp := isolate(t)
	skills, rec := recordTwoSkills(t, tmp)
	const hostile = `evil\u001b]0;owned\u0007\u001b[2J\u009b31m`
	id := onlySession(t, tmp)
	journal := filepath.Join(tmp, "state", "skillet", "sessions", id, "journal.jsonl")
	text := readText(t, journal)
	first, rest, _ := strings.Cut(text, "\n")
	first = strings.Replace(first, `"model":"`, `"model":"`+hostile, 1)
	rest = strings.ReplaceAll(rest, `"name":"load_skill"`, `"name":"load_skill`+hostile+`"`)
	os.WriteFile(journal, []byte(first+"\n"+rest), 0o600)
	cas := readText(t, rec)
	os.WriteFile(rec, []byte(strings.Replace(cas, `"model":"`, `"model":"`+hostile, 1)), 0o600)
	bad := func(s string) bool { return strings.ContainsAny(s, "\x1b\x07\u009b") }
	for _, args := range [][]string{
		{"show", id},
		{"why", "--session", id, "--skills", skills, "alpha"},
		{"export", "--md", "-", id},
		{"replay", "diff", rec},
	} {
		_, out, errOut := runBinary(t, args...)
		if bad(out) || bad(errOut) {
			t.Errorf("skillet %s printed an escape sequence:\n%q\n%q", strings.Join(args, " "), out, errOut)
		}
		if !strings.Contains(out+errOut, "evil") && args[0] != "why" {
			t.Errorf("skillet %s does not show the field at all:\n%s", args[0], out)
		}
	}
	_, out, _ := runBinary(t, "export", "--cast", "-", id)
	lines := strings.SplitN(out, "\n", 3)
	if len(lines) < 2 || strings.Contains(lines[0]+lines[1], "owned") || strings.Contains(lines[0]+lines[1], `\u001b]`) {
		t.Errorf("the asciicast's first lines carry the sequence:\n%s", strings.Join(lines[:2], "\n"))
	}
}

// The first --resume after a crash during a tool succeeds when its own
// turn does: the interrupted tool of the earlier run is said, not counted.
func TestResumeAfterACrashDuringAToolExitsZero(t *testing.T) {
	tmp := isolate(t)
	skillsDir := filepath.Join(tmp, "skills")
	boomSkills(t, skillsDir, "echo ok")
	code, out, errOut := runCmd(t, "", "run", "--offline", "--skills", skillsDir, "--approve", "boom", "--events", "-", "load boomer", "call boom {}")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := sessionStart(t, out)["session_id"].(string)
	journal := filepath.Join(tmp, "state", "skillet", "sessions", id, "journal.jsonl")
	text := readText(t, journal)
	i := strings.LastIndex(text, `{"type":"tool_started"`)
	if i < 0 {
		t.Fatal("no tool_started line")
	}
	end := i + strings.Index(text[i:], "\n") + 1
	os.WriteFile(journal, []byte(text[:end]), 0o600) // killed while boom ran
	code, _, errOut = runBinary(t, "run", "--offline", "--skills", skillsDir, "--resume", id, "hello again")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "before this run, tool boom") {
		t.Errorf("the interrupted tool is not said:\n%s", errOut)
	}
}
