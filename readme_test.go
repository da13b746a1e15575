//go:build linux

package main

import (
	"bufio"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Every command of the README's sh blocks runs as written: headless ones
// with their exit status checked, the terminal UI's in tmux until it shows
// its input. Placeholders the README names (SESSION, ID, ~/my-skills,
// ../my-project) stand for what the commands before them made, and an
// endpoint a command names is a loopback server. A command the README
// gains must be added to readmeChecks, so the README stays true.

// readmeCommand is one command of an sh block: its line and its text
// (continuation lines joined, a here-document's body kept).
type readmeCommand struct {
	line int
	text string
}

// readmeCommands reads the commands of README.md's sh blocks.
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeCommand
	sc := bufio.NewScanner(f)
	in, n := false, 0
	var cur *readmeCommand
	heredoc := ""
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case !in && l == "```sh":
			in = true
			continue
		case in && l == "```":
			in = false
			continue
		case !in:
			continue
		}
		if cur != nil {
			cur.text += "\n" + l
			switch {
			case heredoc != "" && l == heredoc:
				heredoc = ""
			case heredoc != "":
				continue
			case strings.HasSuffix(l, "\\"):
				continue
			}
			out = append(out, *cur)
			cur = nil
			continue
		}
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		cur = &readmeCommand{line: n, text: l}
		if m := regexp.MustCompile(`<<'(\w+)'`).FindStringSubmatch(l); m != nil {
			heredoc = m[1]
			continue
		}
		if strings.HasSuffix(l, "\\") {
			continue
		}
		out = append(out, *cur)
		cur = nil
	}
	return out
}

// readmeKey is a command without its comment and extra spaces, as
// readmeChecks names it.
func readmeKey(text string) string {
	first, _, _ := strings.Cut(text, "\n")
	if i := strings.Index(first, "  #"); i >= 0 {
		first = first[:i]
	}
	first = strings.TrimSuffix(strings.TrimSpace(first), "\\")
	return strings.Join(strings.Fields(first), " ")
}

// A readmeCheck says how a command is checked: "run" expects exit status
// code, "ui" opens the terminal UI, "skip" says why it is not run here.
type readmeCheck struct {
	how  string
	code int
	why  string
}

var readmeChecks = map[string]readmeCheck{
	"go run .":      {how: "ui"},
	"go test ./...": {how: "skip", why: "the tests themselves"},
	`go run . run "review account ACC-1042 for anomalies"`:                                                                             {how: "run"},
	`go run . run --approve-all 'call shell {"command":"python3 --version > v.txt; cat v.txt"}'`:                                       {how: "run"},
	`go run . run --workspace ../my-project --profile claude-code --approve-all 'call Bash {"command":"git log --oneline | head -3"}'`: {how: "run"},
	"go run . --skills ~/my-skills":                                                                               {how: "ui"},
	"go run . validate ~/my-skills":                                                                               {how: "run"},
	"go run . validate --json ~/my-skills":                                                                        {how: "run"},
	"go run . validate --config skillet.toml ~/my-skills":                                                         {how: "run"},
	"go run . --config sample-skills/skillet.toml":                                                                {how: "ui"},
	"OPENAI_API_KEY=sk-... go run . --model gpt-4o-mini":                                                          {how: "ui"},
	"go run . --base-url http://localhost:11434/v1 --model llama3.1":                                              {how: "ui"},
	"go run . --base-url http://localhost:8080/v1 --model local":                                                  {how: "ui"},
	"go run . --base-url http://localhost:8000/v1 --model Qwen/Qwen2.5-7B-Instruct":                               {how: "ui"},
	"OPENAI_API_KEY=sk-or-... go run . --base-url https://openrouter.ai/api/v1 --model anthropic/claude-sonnet-4": {how: "ui"},
	"go run . show SESSION":                                                                                       {how: "run"},
	"go run . show --json SESSION":                                                                                {how: "run"},
	`go run . run --show-state state.json "hello"`:                                                                {how: "run"},
	"go run . why sql-review --session SESSION":                                                                   {how: "run"},
	"go run . why sql-review --session SESSION --turn 3":                                                          {how: "run"},
	"go run . why meeting-notes":                                                                                  {how: "run"},
	`go run . why sql-review --message "review this query" --set list_size=5`:                                     {how: "run"},
	"go run . why sql-review --session SESSION --json":                                                            {how: "run"},
	"go run . offered ~/my-skills":                                                                                {how: "run"},
	"go run . offered --profile codex --context-window 128000 ~/my-skills":                                        {how: "run"},
	"go run . offered --json ~/my-skills":                                                                         {how: "run"},
	`go run . run --profile claude-code --offline "review account ACC-1042 for anomalies"`:                        {how: "run"},
	`go run . run --profile codex --context-window 128000 --set lifecycle=true "..."`:                             {how: "run"},
	"skillet workspace SESSION [--at CALL] --out DIR [--json]":                                                    {how: "skip", why: "a synopsis; cmd_workspace's tests run its forms"},
	"skillet --record demo.jsonl":                                                                                 {how: "ui"},
	"skillet --replay demo.jsonl --pace 1":                                                                        {how: "ui"},
	`skillet run --record demo.jsonl "review account 4850" "run the release checks for v1.4.0"`:                   {how: "run"},
	`skillet run --replay demo.jsonl "review account 4850" "run the release checks for v1.4.0"`:                   {how: "run"},
	"skillet replay diff demo.jsonl":                                                                              {how: "run"},
	"skillet demo --offline":                                                                                      {how: "ui"},
	`printf 'review account 4850\nrun the release checks for v1.4.0\n' > talk.txt`:                                {how: "run"},
	"skillet demo --replay demo.jsonl --pace 1 talk.txt":                                                          {how: "ui"},
	"skillet demo --model gpt-4o-mini talk.txt":                                                                   {how: "ui"},
	"skillet export --html s.html --cast s.cast --md s.md SESSION":                                                {how: "run"},
	"asciinema play s.cast":                                                                                       {how: "skip", why: "a player for people; cmd_export's tests play the cast"},
	"cat > queries.json <<'EOF'":                                                                                  {how: "run"},
	"go run . eval account-review --queries queries.json":                                                         {how: "run"},
	"go run . eval --queries queries.json":                                                                        {how: "run"},
	"go run . eval account-review fraud-triage":                                                                   {how: "run"},
	"go run . eval report ~/.local/state/skillet/evals/ID":                                                        {how: "run"},
	"skillet --view ~/.local/state/skillet/benches/ID/incident-report/eval-1/without_skill/run-3":                 {how: "skip", why: "it opens the bench the README runs further down; TestViewOpensABenchRunReadOnly opens a run"},
	"skillet --view SESSION":                                                                                      {how: "ui"},
	"go run . bench incident-report":                                                                              {how: "run"},
	"go run . bench report ~/.local/state/skillet/benches/ID":                                                     {how: "run"},
	"SKILLET_BENCH_SESSION=1 go test -run TestBigSession -v -timeout 30m .":                                       {how: "skip", why: "a benchmark of minutes, run when asked"},
	"SKILLET_BENCH_SESSION=1 SKILLET_BENCH_BIN=/path/to/skillet go test -run TestBigSession -v -timeout 30m .":    {how: "skip", why: "the benchmark against another build"},
	"go run . bench report-style":                                                                                 {how: "skip", why: "needs a skill with evals/evals.json; cmd_bench's tests run bench"},
	"go run . bench report-style --baseline ../old/report-style":                                                  {how: "skip", why: "as bench report-style"},
	"go run . bench report-style --baseline HEAD~3":                                                               {how: "skip", why: "as bench report-style"},
	"go run . bench report-style --require helps --out bench/":                                                    {how: "skip", why: "as bench report-style"},
	"go run . bench --resume ~/.local/state/skillet/benches/ID":                                                   {how: "skip", why: "as bench report-style"},
}

func TestREADMECommandsRunAsWritten(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): skipped")
	}
	cmds := readmeCommands(t)
	seen := map[string]bool{}
	for _, c := range cmds {
		k := readmeKey(c.text)
		seen[k] = true
		if _, ok := readmeChecks[k]; !ok {
			t.Errorf("README.md:%d: %q is not in readmeChecks: say how it is checked", c.line, k)
		}
	}
	for k := range readmeChecks {
		if !seen[k] {
			t.Errorf("readmeChecks names %q, which README.md no longer holds", k)
		}
	}
	if t.Failed() {
		return
	}

	bin := skilletBinary(t)
	root := t.TempDir()
	home, work, project := filepath.Join(root, "home"), filepath.Join(root, "work"), filepath.Join(root, "my-project")
	for _, d := range []string{home, work, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyTree(t, "sample-skills", filepath.Join(home, "my-skills"))
	copyTree(t, "sample-skills", filepath.Join(work, "sample-skills"))
	if err := os.WriteFile(filepath.Join(work, "skillet.toml"), []byte("[session]\nmax_loaded_skills = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, project)
	srv := httptest.NewServer(answerText("Hello from the loopback model.", nil))
	defer srv.Close()

	// the commands call `skillet` and `go run .`: both are the binary
	prelude := fmt.Sprintf("skillet() { %q \"$@\"; }\n", bin)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=xterm-256color", "LANG=C.UTF-8"}
	session := "NONE"
	endpoint := regexp.MustCompile(`https?://(localhost:\d+|openrouter\.ai/api)/v1`)
	for _, c := range cmds {
		k := readmeKey(c.text)
		check := readmeChecks[k]
		if check.how == "skip" {
			t.Logf("README.md:%d: not run here (%s): %s", c.line, check.why, k)
			continue
		}
		text := strings.ReplaceAll(c.text, "go run . ", "skillet ")
		if strings.TrimSpace(text) == "go run ." {
			text = "skillet"
		}
		text = strings.ReplaceAll(text, "go run .  ", "skillet ")
		text = regexp.MustCompile(`(^|\s)go run \.(\s|$)`).ReplaceAllString(text, "${1}skillet${2}")
		text = endpoint.ReplaceAllString(text, srv.URL+"/v1")
		text = strings.ReplaceAll(text, "SESSION", session)
		text = strings.ReplaceAll(text, "evals/ID", "evals/"+latest(t, filepath.Join(home, ".local/state/skillet/evals")))
		text = strings.ReplaceAll(text, "benches/ID", "benches/"+latest(t, filepath.Join(home, ".local/state/skillet/benches")))
		cmdEnv := env
		if strings.Contains(k, "OPENAI_API_KEY=") || strings.Contains(k, "--model gpt-4o-mini") {
			// a real provider's default endpoint stands in as the loopback
			cmdEnv = append(append([]string{}, env...), "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=sk-test")
		}
		switch check.how {
		case "run":
			cmd := exec.Command("bash", "-c", prelude+text)
			cmd.Dir, cmd.Env = work, cmdEnv
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != check.code {
				t.Errorf("README.md:%d: %s\nexit %d, want %d:\n%s", c.line, k, code, check.code, out)
			}
			if session == "NONE" && strings.HasPrefix(k, "go run . run ") {
				// SESSION is the session of the README's first headless
				// script, its five turns
				session = latest(t, filepath.Join(home, ".local/state/skillet/sessions"))
			}
		case "ui":
			readmeUI(t, c.line, k, work, cmdEnv, prelude+text)
		}
	}
}

// readmeUI runs a command of the terminal UI in tmux until it shows its
// input, then quits it as a user does.
func readmeUI(t *testing.T, line int, key, dir string, env []string, script string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cmd.sh")
	if err := os.WriteFile(path, []byte(script+"\necho \"[exit $?]\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var quoted []string
	for _, e := range env {
		quoted = append(quoted, fmt.Sprintf("%q", e))
	}
	tm := newTmux(t, dir, "env -i "+strings.Join(quoted, " ")+" bash "+path)
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(s, "[exit ") {
			t.Errorf("README.md:%d: %s ended before its UI showed:\n%s", line, key, s)
			return
		}
		if strings.Contains(s, "┃ Message") || strings.Contains(s, "Message the model") || strings.Contains(s, "read-only: nothing is sent") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("README.md:%d: %s never showed its input:\n%s", line, key, s)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	tm.keys("C-c")
	time.Sleep(200 * time.Millisecond)
	tm.keys("C-c")
	tm.waitFor("the UI quit", func() bool { return strings.Contains(tm.screen(), "[exit ") })
	if s := tm.screen(); !strings.Contains(s, "[exit 0]") && !strings.Contains(s, "[exit 130]") {
		t.Errorf("README.md:%d: %s quit with:\n%s", line, key, s)
	}
	tm.run("kill-server")
}

// latest is the newest entry's name in dir ("NONE" when it is empty), for
// the README's SESSION and ID.
func latest(t *testing.T, dir string) string {
	ents, _ := os.ReadDir(dir)
	name, when := "NONE", time.Time{}
	for _, e := range ents {
		if info, err := e.Info(); err == nil && e.IsDir() && info.ModTime().After(when) {
			name, when = e.Name(), info.ModTime()
		}
	}
	return name
}

// copyTree copies a folder of regular files.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// gitRepo makes dir a git repository of three commits.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: skipped")
	}
	for i, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "one"}, {"commit", "-qm", "two", "--allow-empty"}, {"commit", "-qm", "three", "--allow-empty"}} {
		if i == 1 {
			if err := os.WriteFile(filepath.Join(dir, "README"), []byte("a project\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
