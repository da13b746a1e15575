package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeSession runs the README's five messages headless with the demo
// model and returns the session's folder.
func readmeSession(t *testing.T, tmp string) string {
	t.Helper()
	args := append([]string{"run", "--offline", "--approve-all"}, builtinScript...)
	if code, _, stderr := runCmd(t, "", args...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "state", "skillet", "sessions", "*", "journal.jsonl"))
	if len(dirs) != 1 {
		t.Fatalf("want one session, got %v", dirs)
	}
	return filepath.Dir(dirs[0])
}

// castText checks a file is asciicast v2 as players read it — a header
// object with version 2 and a size, then [seconds, "o", text] lines whose
// times never go back — and returns the text it plays and its length.
func castText(t *testing.T, b []byte) (string, float64) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		t.Fatal("empty cast")
	}
	var h struct {
		Version, Width, Height int
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Version != 2 || h.Width < 1 || h.Height < 1 {
		t.Fatalf("header %s: want version 2 and a size (%v)", sc.Text(), err)
	}
	var all strings.Builder
	last := 0.0
	for sc.Scan() {
		var ev []any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("event %s: want [time, code, data] (%v)", sc.Text(), err)
		}
		at, ok1 := ev[0].(float64)
		code, ok2 := ev[1].(string)
		data, ok3 := ev[2].(string)
		if !ok1 || !ok2 || !ok3 || code != "o" || at < last {
			t.Fatalf("event %s: want output at a time not before %v", sc.Text(), last)
		}
		last = at
		all.WriteString(data)
	}
	return all.String(), last
}

func TestExportCastMarkdownAndHTMLOfASession(t *testing.T) {
	tmp := isolate(t)
	dir := readmeSession(t, tmp)
	id := filepath.Base(dir)
	out := filepath.Join(tmp, "out")
	os.Mkdir(out, 0o755)
	code, _, stderr := runCmd(t, "", "export", "--cast", filepath.Join(out, "s.cast"), "--html", filepath.Join(out, "s.html"),
		"--md", filepath.Join(out, "s.md"), id)
	if code != 0 || stderr != "" {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(out, "s.cast"))
	text, length := castText(t, b)
	for _, want := range []string{"review account ACC-1042 for anomalies", "▲ loaded account-review", "▼ unloaded account-review",
		"→ run_checks", "get account activity for ACC-1042 again"} {
		if !strings.Contains(text, want) {
			t.Errorf("the cast lacks %q", want)
		}
	}
	// five turns, at least a second before each message, no pause over 2s
	if length < 5 {
		t.Errorf("the cast plays %.1fs: want a pause before each of the five messages", length)
	}
	md, _ := os.ReadFile(filepath.Join(out, "s.md"))
	if !strings.HasPrefix(string(md), "# Skillet session "+id) || !strings.Contains(string(md), "## Turn 5") {
		t.Errorf("markdown:\n%.300s", md)
	}
	page, _ := os.ReadFile(filepath.Join(out, "s.html"))
	if bytes.Contains(page, []byte("https://")) || bytes.Contains(page, []byte("http://")) {
		t.Error("the page names an external resource")
	}
	// the same export by folder and by journal, to stdout
	for _, arg := range []string{dir, filepath.Join(dir, "journal.jsonl")} {
		code, stdout, stderr := runCmd(t, "", "export", "--cast", "-", arg)
		if code != 0 || stdout != string(b) {
			t.Errorf("export --cast - %s: exit %d, %d bytes (want %d)\n%s", arg, code, len(stdout), len(b), stderr)
		}
	}
	// flags after the session, as every command takes them
	if code, stdout, stderr := runCmd(t, "", "export", dir, "--cast", "-"); code != 0 || stdout != string(b) {
		t.Errorf("export DIR --cast -: exit %d, %d bytes (want %d)\n%s", code, len(stdout), len(b), stderr)
	}
}

// chromium finds the browser, or skips.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: install Debian's chromium package to run the HTML replay test (.ci/run does)")
	return ""
}

func browse(t *testing.T, bin, url string, extra ...string) string {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append(args, extra...), url)...)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", extra, err)
	}
	return string(out)
}

// pane is the text of one pane in a dumped DOM.
func pane(t *testing.T, dom, id string) string {
	t.Helper()
	i := strings.Index(dom, `<section id="`+id+`">`)
	if i < 0 {
		t.Fatalf("no pane %s in\n%.2000s", id, dom)
	}
	rest := dom[i:]
	return rest[:strings.Index(rest, "</section>")]
}

func TestExportHTMLReplayInHeadlessChromium(t *testing.T) {
	bin := chromium(t)
	tmp := isolate(t)
	dir := readmeSession(t, tmp)
	page := filepath.Join(tmp, "s.html")
	if code, _, stderr := runCmd(t, "", "export", "--html", page, dir); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	// which call loads release-checklist: the frame after it has run_checks
	dom := browse(t, bin, "file://"+page+"#call=1", "--dump-dom")
	if !strings.Contains(dom, `data-call="1"`) || !strings.Contains(dom, "call 1/") {
		t.Fatalf("#call=1 did not open call 1:\n%.3000s", dom)
	}
	if l := pane(t, dom, "loaded"); !strings.Contains(l, "house-style") || strings.Contains(l, "account-review") {
		t.Errorf("call 1: loaded pane %s", l)
	}
	if tr := pane(t, dom, "transcript"); !strings.Contains(tr, "review account ACC-1042 for anomalies") || strings.Contains(tr, "incident report") {
		t.Errorf("call 1: transcript holds more than the first turn:\n%s", tr)
	}
	total := strings.Count(readFile(t, page), `"call":`)
	last := browse(t, bin, "file://"+page+"#call=999", "--dump-dom")
	if !strings.Contains(last, "call "+strconv.Itoa(total)+"/"+strconv.Itoa(total)) {
		t.Errorf("#call=999 should show the last of %d calls", total)
	}
	if tools := pane(t, last, "tools"); !strings.Contains(tools, "load_skill") {
		t.Errorf("last call: tools %s", tools)
	}
	if cx := pane(t, last, "context"); !strings.Contains(cx, "&lt;current_context&gt;") || !strings.Contains(cx, "account-review") {
		t.Errorf("last call: the context pane lacks <current_context> with account-review back:\n%.1500s", cx)
	}
	if tr := pane(t, last, "transcript"); !strings.Contains(tr, "get account activity for ACC-1042 again") {
		t.Error("last call: the transcript lacks the last message")
	}

	// the keys: the page's own handler, fed real KeyboardEvents as the page
	// loads: → → ] ← steps 1 → 4 → 3, and End goes to the last call
	stepped := filepath.Join(tmp, "stepped.html")
	keys := `<script>for (const k of ["ArrowRight","ArrowRight","]","ArrowLeft"]) document.dispatchEvent(new KeyboardEvent("keydown", {key: k}));</script></body>`
	os.WriteFile(stepped, []byte(strings.Replace(readFile(t, page), "</body>", keys, 1)), 0o644)
	if dom := browse(t, bin, "file://"+stepped, "--dump-dom"); !strings.Contains(dom, `data-call="3"`) || !strings.Contains(dom, "call 3/") {
		t.Errorf("→ → ] ← from call 1 should show call 3:\n%.1500s", dom)
	}
	endKey := strings.Replace(keys, `"ArrowRight","ArrowRight","]","ArrowLeft"`, `"End","["`, 1)
	os.WriteFile(stepped, []byte(strings.Replace(readFile(t, page), "</body>", endKey, 1)), 0o644)
	if dom := browse(t, bin, "file://"+stepped, "--dump-dom"); !strings.Contains(dom, "call "+strconv.Itoa(total-1)+"/"+strconv.Itoa(total)) {
		t.Errorf("End [ should show call %d", total-1)
	}

	shot := filepath.Join(os.Getenv("SKILLET_SHOT_DIR"), "export-replay.png")
	if os.Getenv("SKILLET_SHOT_DIR") == "" {
		shot = filepath.Join(tmp, "replay.png")
	}
	browse(t, bin, "file://"+page+"#call=4", "--window-size=1400,900", "--screenshot="+shot)
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10000 {
		t.Errorf("screenshot %s: %v", shot, err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExportBadInput(t *testing.T) {
	tmp := isolate(t)
	dir := readmeSession(t, tmp)
	notJournal := filepath.Join(tmp, "notes.txt")
	os.WriteFile(notJournal, []byte("hello\nworld\n"), 0o644)
	other := filepath.Join(tmp, "other.jsonl")
	os.WriteFile(other, []byte(`{"type":"turn_start","turn":1,"text":"hi"}`+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "--cast", "x.cast", "no-such-session"}, 2, "no session no-such-session"},
		{[]string{"export", dir}, 2, "--md FILE, --cast FILE or --html FILE"},
		{[]string{"export", "--cast", "x.cast"}, 2, "give one SESSION"},
		{[]string{"export", "--cast", "x.cast", notJournal}, 1, "not a session journal"},
		{[]string{"export", "--html", "x.html", other}, 1, "not session_start: not a session journal"},
		{[]string{"export", "--cast", filepath.Join(tmp, "no", "dir", "x.cast"), dir}, 1, "cannot write"},
	} {
		code, _, stderr := runCmd(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}

	// a torn journal: a line cut in two and the end lost; what is left is
	// exported and the damage named
	j := readFile(t, filepath.Join(dir, "journal.jsonl"))
	lines := strings.SplitAfter(j, "\n")
	mid := len(lines) / 2
	torn := strings.Join(lines[:mid], "") + lines[mid][:len(lines[mid])/2] + "\n" + strings.Join(lines[mid+1:mid+3], "")
	tornPath := filepath.Join(tmp, "torn.jsonl")
	os.WriteFile(tornPath, []byte(torn), 0o644)
	cast, page := filepath.Join(tmp, "t.cast"), filepath.Join(tmp, "t.html")
	code, _, stderr := runCmd(t, "", "export", "--cast", cast, "--html", page, "--md", filepath.Join(tmp, "t.md"), tornPath)
	if code != 0 || !strings.Contains(stderr, "line "+strconv.Itoa(mid+1)+":") || !strings.Contains(stderr, "was skipped") {
		t.Errorf("torn journal: exit %d, %q; want 0 and line %d named", code, stderr, mid+1)
	}
	text, _ := castText(t, []byte(readFile(t, cast)))
	if !strings.Contains(text, "review account ACC-1042") {
		t.Error("the torn journal's cast lost its first turn")
	}
	if !strings.Contains(readFile(t, page), "review account ACC-1042") {
		t.Error("the torn journal's page lost its first turn")
	}

	// --md alone folds the journal once, with its skills, and names the
	// damage itself
	mdPath := filepath.Join(tmp, "only.md")
	code, _, stderr = runCmd(t, "", "export", "--md", mdPath, tornPath)
	if code != 0 || !strings.Contains(stderr, tornPath+": ") || !strings.Contains(stderr, "was skipped") {
		t.Errorf("torn journal, --md alone: exit %d, %q; want 0 and the damage named", code, stderr)
	}
	if !strings.Contains(readFile(t, mdPath), "review account ACC-1042") {
		t.Error("the torn journal's Markdown lost its first turn")
	}
	code, _, stderr = runCmd(t, "", "export", "--md", mdPath, notJournal)
	if code != 1 || !strings.Contains(stderr, "--md:") || strings.Contains(stderr, "panic") {
		t.Errorf("--md of a file that is no journal: exit %d, %q; want 1 and the reason", code, stderr)
	}
}

// /export in the terminal UI picks the format by the file's extension.
func TestExportFromTheTUIByExtension(t *testing.T) {
	tmp := isolate(t)
	u := startTUI(t, tmp, "--offline")
	u.waitFor("Message the model")
	u.send("review account ACC-1042 for anomalies")
	u.waitFor("get_account_activity · result")
	u.waitFor("[demo model]")
	u.send("/export s.cast")
	u.waitFor("exported the transcript to s.cast")
	u.send("/export 's.html'")
	u.waitFor("exported the transcript to s.html")
	u.send("/export s.md")
	u.waitFor("exported the transcript to s.md")
	u.quit()
	text, _ := castText(t, []byte(readFile(t, filepath.Join(tmp, "s.cast"))))
	if !strings.Contains(text, "→ get_account_activity") {
		t.Errorf("the cast lacks the tool call:\n%s", text)
	}
	if page := readFile(t, filepath.Join(tmp, "s.html")); !strings.Contains(page, `id="transcript"`) || !strings.Contains(page, "get_account_activity") {
		t.Error("s.html is not the replay of the session")
	}
	if md := readFile(t, filepath.Join(tmp, "s.md")); !strings.HasPrefix(md, "# Skillet session") {
		t.Errorf("s.md: %.200s", md)
	}
}

// The recording plays in the asciinema player itself, in a real terminal.
func TestExportCastPlaysInAsciinema(t *testing.T) {
	if _, err := exec.LookPath("asciinema"); err != nil {
		t.Skip("asciinema is not installed (.ci/run installs it)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	tmp := isolate(t)
	dir := readmeSession(t, tmp)
	cast := filepath.Join(tmp, "s.cast")
	if code, _, stderr := runCmd(t, "", "export", "--cast", cast, dir); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	u := &tui{t: t, sock: filepath.Join(tmp, "tmux-play")}
	cmd := "HOME=" + shellQuote(tmp) + " asciinema play -s 20 -i 0.1 " + shellQuote(cast) + "; echo PLAYED=$?; sleep 60"
	if out, err := exec.Command("tmux", "-S", u.sock, "new-session", "-d", "-s", "t", "-x", "100", "-y", "32", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", u.sock, "kill-server").Run() })
	u.waitFor("PLAYED=0")
	u.waitFor("turn 5 · done")
}
