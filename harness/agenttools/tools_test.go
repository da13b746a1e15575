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

func TestReadFraming(t *testing.T) {
	w := newWorkspace(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "empty.txt": ""})
	abs := filepath.Join(w.root, "a.txt")
	cases := []struct {
		profile, tool string
		args          map[string]any
		want          []string
		not           []string
	}{
		{"claude-code", "Read", map[string]any{"file_path": "a.txt"}, []string{"1\tone\n2\ttwo\n3\tthree"}, []string{"4\t"}},
		{"claude-code", "Read", map[string]any{"file_path": abs, "offset": 2, "limit": 1}, []string{"2\ttwo"}, []string{"three"}},
		{"claude-code", "Read", map[string]any{"file_path": "a.txt", "offset": 9}, []string{"shorter than the provided offset (9). The file has 3 lines."}, nil},
		{"claude-code", "Read", map[string]any{"file_path": "empty.txt"}, []string{"the file exists but the contents are empty"}, nil},
		{"crush", "view", map[string]any{"file_path": "a.txt", "offset": 1, "limit": 1}, []string{"<file>\n     2|two\n\n(File has more lines. Use 'offset' parameter to read beyond line 2)\n</file>"}, nil},
		{"opencode", "read", map[string]any{"filePath": "a.txt"}, []string{"<path>" + abs + "</path>", "<type>file</type>", "1: one\n2: two\n3: three", "(End of file - total 3 lines)"}, nil},
		{"opencode", "read", map[string]any{"filePath": "a.txt", "limit": 2}, []string{"(Showing lines 1-2 of 3. Use offset=3 to continue.)"}, nil},
		{"gemini-cli", "read_file", map[string]any{"file_path": "a.txt"}, []string{"one\ntwo\nthree"}, []string{"1"}},
		{"gemini-cli", "read_file", map[string]any{"file_path": "a.txt", "start_line": 2, "end_line": 2}, []string{"Showing lines 2-2 of 3 total lines", "use start_line: 3", "--- FILE CONTENT (truncated) ---\ntwo"}, nil},
		{"skillet", "read", map[string]any{"path": "a.txt"}, []string{"     1\tone", "[lines 1-3 of 3]"}, nil},
		{"skillet", "read", map[string]any{"path": "a.txt", "limit": 1}, []string{"more follow: read again with offset=2"}, nil},
	}
	for _, c := range cases {
		t.Run(c.profile+"/"+c.tool, func(t *testing.T) {
			res := w.call(c.profile, c.tool, c.args)
			wantContains(t, res, false, c.want...)
			for _, s := range c.not {
				if strings.Contains(res.Content, s) {
					t.Errorf("content has %q:\n%s", s, res.Content)
				}
			}
		})
	}
}

func TestReadLongLinesAndLimits(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes, multi-byte
	var many strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	w := newWorkspace(t, map[string]string{"long.txt": long + "\nend\n", "many.txt": many.String()})
	// Claude Code reads the whole file and keeps long lines whole.
	res := w.call("claude-code", "Read", map[string]any{"file_path": "long.txt"})
	wantContains(t, res, false, "1\t"+long+"\n2\tend")
	res = w.call("claude-code", "Read", map[string]any{"file_path": "many.txt"})
	wantContains(t, res, false, "2500\tline 2500")
	// 200 KB of text is about 51,000 tokens: a whole-file read shows the
	// first lines with Claude Code's partial-view note; a ranged read of
	// it all is refused.
	w.write("big.txt", strings.Repeat(strings.Repeat("w", 99)+"\n", 2000))
	res = w.call("claude-code", "Read", map[string]any{"file_path": "big.txt"})
	wantContains(t, res, false, "<system-reminder>[Truncated: PARTIAL view \u2014 showing lines 1-", "of 2000 total (50000 tokens, cap 25000). Call Read with offset=")
	if n := strings.Count(res.Content, "\n"); n > 1000 || n < 500 {
		t.Errorf("partial view kept %d lines", n)
	}
	res = w.call("claude-code", "Read", map[string]any{"file_path": "big.txt", "offset": 1, "limit": 2000})
	wantContains(t, res, true, "File content (50000 tokens) exceeds maximum allowed tokens (25000).")
	res = w.call("crush", "view", map[string]any{"file_path": "many.txt"})
	wantContains(t, res, false, "   200|line 200", "beyond line 200")
	res = w.call("opencode", "read", map[string]any{"filePath": "long.txt"})
	wantContains(t, res, false, "... (line truncated to 2000 chars)")
	res = w.call("gemini-cli", "read_file", map[string]any{"file_path": "many.txt"})
	wantContains(t, res, false, "Showing lines 1-2000 of 2500 total lines")
}

func TestWriteCreatesFolders(t *testing.T) {
	for _, c := range []struct{ profile, tool, pathKey, want string }{
		{"claude-code", "Write", "file_path", "File created successfully at: deep/a/b.txt (file state is current in your context"},
		{"crush", "write", "file_path", "File successfully written: deep/a/b.txt"},
		{"opencode", "write", "filePath", "Wrote file successfully."},
		{"gemini-cli", "write_file", "file_path", "Successfully created and wrote to new file: "},
		{"skillet", "write", "path", "created deep/a/b.txt (5 bytes)"},
	} {
		t.Run(c.profile, func(t *testing.T) {
			w := newWorkspace(t, nil)
			res := w.call(c.profile, c.tool, map[string]any{c.pathKey: "deep/a/b.txt", "content": "hello"})
			wantContains(t, res, false, c.want)
			if w.read("deep/a/b.txt") != "hello" {
				t.Error("file not written")
			}
			if len(res.Wrote) != 1 || res.Wrote[0] != filepath.Join(w.root, "deep/a/b.txt") {
				t.Errorf("Wrote = %v", res.Wrote)
			}
		})
	}
	w := newWorkspace(t, map[string]string{"x.txt": "old\n"})
	res := w.call("claude-code", "Write", map[string]any{"file_path": "x.txt", "content": "new\ntext"})
	wantContains(t, res, false, "The file x.txt has been updated successfully. (file state is current in your context \u2014 no need to Read it back)")
	res = w.call("gemini-cli", "write_file", map[string]any{"file_path": "x.txt", "content": "again"})
	wantContains(t, res, false, "Successfully overwrote file: ")
}

func TestEditWording(t *testing.T) {
	const text = "alpha\nbeta\nbeta\ngamma\n"
	cases := []struct {
		profile, tool string
		keys          [4]string // path, old, new, all
		absent, dup   string
	}{
		{"claude-code", "Edit", [4]string{"file_path", "old_string", "new_string", "replace_all"},
			"String to replace not found in file.\nString: zeta",
			"Found 2 matches of the string to replace, but replace_all is false."},
		{"crush", "edit", [4]string{"file_path", "old_string", "new_string", "replace_all"},
			"old_string not found in file. Make sure it matches exactly",
			"old_string appears multiple times in the file."},
		{"opencode", "edit", [4]string{"filePath", "oldString", "newString", "replaceAll"},
			"Could not find oldString in the file.",
			"Found multiple matches for oldString. Provide more surrounding context to make the match unique."},
		{"gemini-cli", "replace", [4]string{"file_path", "old_string", "new_string", "allow_multiple"},
			"Failed to edit, 0 occurrences found for old_string in f.txt.",
			"Failed to edit, Expected 1 occurrence but found 2 for old_string in file: f.txt."},
		{"skillet", "edit", [4]string{"path", "old_text", "new_text", "replace_all"},
			"old_text was not found in f.txt",
			"old_text occurs 2 times in f.txt"},
	}
	for _, c := range cases {
		t.Run(c.profile, func(t *testing.T) {
			w := newWorkspace(t, map[string]string{"f.txt": text})
			args := func(old, repl string, all bool) map[string]any {
				m := map[string]any{c.keys[0]: "f.txt", c.keys[1]: old, c.keys[2]: repl, "instruction": "test"}
				if all {
					m[c.keys[3]] = true
				}
				return m
			}
			wantContains(t, w.call(c.profile, c.tool, args("zeta", "x", false)), true, c.absent)
			wantContains(t, w.call(c.profile, c.tool, args("beta", "x", false)), true, c.dup)
			if w.read("f.txt") != text {
				t.Fatal("a failed edit changed the file")
			}
			res := w.call(c.profile, c.tool, args("gamma", "delta", false))
			if res.IsError {
				t.Fatalf("unique edit failed: %s", res.Content)
			}
			res = w.call(c.profile, c.tool, args("beta", "b", true))
			if res.IsError {
				t.Fatalf("replace all failed: %s", res.Content)
			}
			if got := w.read("f.txt"); got != "alpha\nb\nb\ndelta\n" {
				t.Errorf("file = %q", got)
			}
		})
	}
	w := newWorkspace(t, map[string]string{"f.txt": text})
	res := w.call("claude-code", "Edit", map[string]any{"file_path": "f.txt", "old_string": "gamma", "new_string": "GAMMA"})
	wantContains(t, res, false, "The file f.txt has been updated successfully.")
	res = w.call("claude-code", "Edit", map[string]any{"file_path": "f.txt", "old_string": "x", "new_string": "x"})
	wantContains(t, res, true, "No changes to make: old_string and new_string are exactly the same.")
	res = w.call("claude-code", "Edit", map[string]any{"file_path": "new.txt", "old_string": "", "new_string": "made"})
	wantContains(t, res, false, "The file new.txt has been updated successfully.")
	w.write("crlf.txt", "one\r\ntwo\r\n")
	res = w.call("opencode", "edit", map[string]any{"filePath": "crlf.txt", "oldString": "one\ntwo", "newString": "1\n2"})
	wantContains(t, res, false, "Edit applied successfully.")
	if got := w.read("crlf.txt"); got != "1\r\n2\r\n" {
		t.Errorf("CRLF file after edit = %q", got)
	}
	res = w.call("claude-code", "Edit", map[string]any{"file_path": "crlf.txt", "old_string": "2", "new_string": "two"})
	if w.read("crlf.txt") != "1\r\ntwo\r\n" {
		t.Errorf("CRLF edit: %q, file %q", res.Content, w.read("crlf.txt"))
	}
	res = w.call("crush", "edit", map[string]any{"file_path": "f.txt", "old_string": "", "new_string": "x"})
	wantContains(t, res, true, "file already exists: f.txt")
}

func TestGlobGrepList(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"src/a/b.go":    "package b\n// TODO fix\n",
		"src/c.go":      "package c\nfunc main() {}\n",
		"docs/x.md":     "# TODO docs\n",
		".git/config":   "TODO inside git\n",
		"bin/blob.dat":  "TODO\x00binary",
		"node/keep.txt": "nothing\n",
	})
	res := w.call("claude-code", "Glob", map[string]any{"pattern": "**/*.go"})
	wantContains(t, res, false, filepath.Join(w.root, "src/a/b.go"), filepath.Join(w.root, "src/c.go"))
	if strings.Contains(res.Content, ".md") {
		t.Errorf("glob matched a .md file:\n%s", res.Content)
	}
	res = w.call("claude-code", "Glob", map[string]any{"pattern": "*.rs"})
	wantContains(t, res, false, "No files found")
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "TODO"})
	wantContains(t, res, false, "Found 2 files\n")
	for _, s := range []string{".git", "blob.dat"} {
		if strings.Contains(res.Content, s) {
			t.Errorf("grep searched %s:\n%s", s, res.Content)
		}
	}
	wantContains(t, res, false, "docs/x.md", "src/a/b.go")
	if strings.Contains(res.Content, w.root) {
		t.Errorf("files_with_matches paths should be relative:\n%s", res.Content)
	}
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "TODO", "head_limit": 1})
	wantContains(t, res, false, "Found 1 file limit: 1\n")
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "package", "output_mode": "content", "-C": 0, "-A": 5})
	if strings.Contains(res.Content, "func main") {
		t.Errorf("-C should win over -A:\n%s", res.Content)
	}
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "todo", "-i": true, "output_mode": "content", "glob": "*.go"})
	wantContains(t, res, false, "src/a/b.go:2:// TODO fix")
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "T[A-Z]+", "output_mode": "content", "-o": true, "glob": "*.go"})
	wantContains(t, res, false, "src/a/b.go:2:TODO")
	if strings.Contains(res.Content, "fix") {
		t.Errorf("-o printed the whole line:\n%s", res.Content)
	}
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "package", "output_mode": "count"})
	wantContains(t, res, false, "Found 2 total occurrences across 2 files.")
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "package", "output_mode": "content", "-A": 1, "type": "go"})
	wantContains(t, res, false, "src/c.go-2-func main() {}")
	res = w.call("crush", "grep", map[string]any{"pattern": "TODO", "include": "*.md"})
	wantContains(t, res, false, "Found 1 matches\n", "x.md:\n  Line 1: # TODO docs")
	res = w.call("opencode", "grep", map[string]any{"pattern": "func"})
	wantContains(t, res, false, "Found 1 matches", "  Line 2: func main() {}")
	res = w.call("gemini-cli", "grep_search", map[string]any{"pattern": "TODO"})
	wantContains(t, res, false, `Found 2 matches for pattern "TODO" in path`, "File: docs/x.md\nL1: # TODO docs\n---")
	res = w.call("skillet", "grep", map[string]any{"pattern": "TODO"})
	wantContains(t, res, false, "src/a/b.go:2: // TODO fix", "[2 matching lines in 2 files]")
	res = w.call("crush", "ls", map[string]any{})
	wantContains(t, res, false, "- "+w.root+"/\n", "  - src/\n", "    - a/\n", "      - b.go\n")
	if strings.Contains(res.Content, ".git") {
		t.Errorf("ls showed .git:\n%s", res.Content)
	}
	res = w.call("opencode", "list", map[string]any{})
	wantContains(t, res, false, w.root+"/\n", "  src/\n")
	if strings.Contains(res.Content, "bin/") {
		t.Errorf("opencode list showed an ignored folder:\n%s", res.Content)
	}
	res = w.call("gemini-cli", "list_directory", map[string]any{"dir_path": "src"})
	wantContains(t, res, false, "Directory listing for "+filepath.Join(w.root, "src")+":\n[DIR] a\nc.go (25 bytes)")
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "("})
	wantContains(t, res, true, "is not valid")
}

func TestShellFraming(t *testing.T) {
	w := newWorkspace(t, map[string]string{"sub/f.txt": "x"})
	cases := []struct {
		profile, tool string
		args          map[string]any
		isErr         bool
		want          []string
	}{
		{"claude-code", "Bash", map[string]any{"command": "echo hi; echo warn >&2"}, false, []string{"hi\nwarn"}},
		{"claude-code", "Bash", map[string]any{"command": "echo out; echo bad >&2; exit 3"}, true, []string{"Exit code 3\nout\nbad"}},
		{"claude-code", "Bash", map[string]any{"command": "grep nothing sub/f.txt"}, false, nil},
		{"claude-code", "Bash", map[string]any{"command": "grep x nope.txt"}, true, []string{"Exit code 2\ngrep: nope.txt"}},
		{"codex", "exec_command", map[string]any{"cmd": "pwd", "workdir": "sub"}, false, []string{"Chunk ID: ", "Wall time: ", "Process exited with code 0\nOriginal token count: ", "Output:\n" + filepath.Join(w.root, "sub")}},
		{"codex", "exec_command", map[string]any{"cmd": "exit 7"}, false, []string{"Process exited with code 7"}},
		{"crush", "bash", map[string]any{"command": "echo a; exit 2", "description": "t"}, false, []string{"a\n\nExit code 2", "<cwd>" + w.root + "</cwd>"}},
		{"crush", "bash", map[string]any{"command": "true", "description": "t"}, false, []string{"no output"}},
		{"opencode", "bash", map[string]any{"command": "echo $((6*7))", "description": "t"}, false, []string{"42"}},
		{"opencode", "bash", map[string]any{"command": "sleep 5", "description": "t", "timeout": 200}, false, []string{"<bash_metadata>\nbash tool terminated command after exceeding timeout 200 ms\n</bash_metadata>"}},
		{"gemini-cli", "run_shell_command", map[string]any{"command": "ls", "dir_path": "sub"}, false, []string{"Output: f.txt"}},
		{"gemini-cli", "run_shell_command", map[string]any{"command": "false"}, false, []string{"Output: (empty)\nExit Code: 1"}},
		{"skillet", "shell", map[string]any{"command": "echo hi"}, false, []string{"exit code: 0\nduration: ", "output:\nhi"}},
		{"skillet", "shell", map[string]any{"command": "cat nope"}, true, []string{"exit code: 1"}},
	}
	for _, c := range cases {
		t.Run(c.profile+"/"+fmt.Sprint(c.args), func(t *testing.T) {
			res := w.call(c.profile, c.tool, c.args)
			wantContains(t, res, c.isErr, c.want...)
			if res.Shell == nil {
				t.Fatal("no ShellRun recorded")
			}
		})
	}
	res := w.call("claude-code", "Bash", map[string]any{"command": "sleep 5", "timeout": 300})
	wantContains(t, res, true, "Command timed out after 0s")
	res = w.call("codex", "exec_command", map[string]any{"cmd": "pwd", "workdir": "../"})
	wantContains(t, res, true, "working directory:", "outside the workspace")
	w.env.Shell = nil
	w.env.ShellUnavailable = "no sandbox could start; run with --no-sandbox to allow commands"
	res = w.call("claude-code", "Bash", map[string]any{"command": "echo hi"})
	wantContains(t, res, true, "no sandbox could start; run with --no-sandbox")
}

func TestShellOutputBounds(t *testing.T) {
	w := newWorkspace(t, nil)
	// 200,000 bytes of output: every profile cuts it and says so.
	big := "yes 0123456789 | head -c 200000"
	for _, c := range []struct {
		profile, tool, key, marker string
		maxLen                     int
	}{
		{"claude-code", "Bash", "command", "lines truncated] ...", claudeBashCh + 200},
		{"codex", "exec_command", "cmd", "tokens truncated…", codexMaxTokens*codexBytesTok + 400},
		{"crush", "bash", "command", "lines truncated] ...", crushBashOut + 300},
		{"opencode", "bash", "command", "truncated output as it exceeded 30000 char limit", opencodeBashOut + 300},
		{"skillet", "shell", "command", "lines left out", skilletOut + 400},
	} {
		res := w.call(c.profile, c.tool, map[string]any{c.key: big, "description": "big"})
		if !strings.Contains(res.Content, c.marker) || len(res.Content) > c.maxLen {
			t.Errorf("%s: %d bytes, marker %q present: %v", c.profile, len(res.Content), c.marker, strings.Contains(res.Content, c.marker))
		}
		if res.Shell == nil || len(res.Shell.Output) != 200000 {
			t.Errorf("%s: ShellRun should keep the whole output", c.profile)
		}
	}
	// Invalid UTF-8 output reaches the model as valid text.
	res := w.call("claude-code", "Bash", map[string]any{"command": `printf 'ok \377\376 end'`})
	if !strings.Contains(res.Content, "ok \uFFFD\uFFFD end") {
		t.Errorf("invalid UTF-8 not replaced: %q", res.Content)
	}
}

func TestSkillFoldersReadOnly(t *testing.T) {
	w := newWorkspace(t, nil)
	skillMD := filepath.Join(w.skillDir, "SKILL.md")
	long := strings.Repeat("step\n", 300)
	if err := os.WriteFile(filepath.Join(w.skillDir, "LONG.md"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	w.write("long.md", long)
	// Crush reads a skill's file whole, a workspace file 200 lines at a time.
	res := w.call("crush", "view", map[string]any{"file_path": filepath.Join(w.skillDir, "LONG.md")})
	wantContains(t, res, false, "   300|step")
	res = w.call("crush", "view", map[string]any{"file_path": "long.md"})
	wantContains(t, res, false, "beyond line 200")
	res = w.call("claude-code", "Read", map[string]any{"file_path": skillMD})
	wantContains(t, res, false, "name: demo")
	res = w.call("claude-code", "Write", map[string]any{"file_path": skillMD, "content": "x"})
	wantContains(t, res, true, "which tools may only read")
	// A symlink in the workspace pointing into the skill folder does not
	// make it writable (the test Resolver alone would allow the write).
	if err := os.Symlink(w.skillDir, filepath.Join(w.root, "skill-link")); err != nil {
		t.Fatal(err)
	}
	saved := w.env.Files
	w.env.Files = linkResolver{root: w.root}
	res = w.call("opencode", "write", map[string]any{"filePath": "skill-link/SKILL.md", "content": "x"})
	wantContains(t, res, true, "which tools may only read")
	w.env.Files = saved
	res = w.call("codex", "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Delete File: " + skillMD + "\n*** End Patch"})
	wantContains(t, res, true, "which tools may only read")
	if _, err := os.Stat(skillMD); err != nil {
		t.Fatal("skill file was deleted")
	}
}

func TestTargetOf(t *testing.T) {
	for _, c := range []struct {
		profile, tool, args string
		want                Target
	}{
		{"claude-code", "Bash", `{"command":"git diff"}`, Target{Command: "git diff"}},
		{"codex", "exec_command", `{"cmd":"ls"}`, Target{Command: "ls"}},
		{"opencode", "edit", `{"filePath":"a.go"}`, Target{Path: "a.go"}},
		{"gemini-cli", "list_directory", `{"dir_path":"src"}`, Target{Path: "src"}},
		{"codex", "apply_patch", `{"input":"*** Begin Patch\n*** Add File: n.txt\n+x\n*** End Patch"}`, Target{Path: "n.txt"}},
		{"skillet", "read", `not json`, Target{}},
	} {
		if got := TargetOf(mustDef(t, c.profile, c.tool), json.RawMessage(c.args)); got != c.want {
			t.Errorf("%s/%s: %+v, want %+v", c.profile, c.tool, got, c.want)
		}
	}
	// A definition round-tripped through JSON still runs.
	var back Def
	raw, _ := json.Marshal(mustDef(t, "crush", "view"))
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if got := TargetOf(back, json.RawMessage(`{"file_path":"x"}`)); got.Path != "x" {
		t.Errorf("decoded def: TargetOf = %+v", got)
	}
	gem, _ := For("gemini-cli")
	if d, ok := Find(gem, "search_file_content"); !ok || d.Name != "grep_search" {
		t.Errorf("Find(search_file_content) = %v, %v", d.Name, ok)
	}
	if _, ok := Find(gem, "Bash"); ok {
		t.Error("Find(Bash) in gemini-cli should fail")
	}
	if got := Run(context.Background(), Env{}, Def{Name: "x"}, nil); !got.IsError {
		t.Error("a Def not from For should be refused")
	}
}

// fixedShell returns one result, as a sandbox reports a limit it hit.
type fixedShell struct{ res ShellResult }

func (s fixedShell) Run(context.Context, ShellRequest) (ShellResult, error) { return s.res, nil }

// TestShellLimitsSaid: when the sandbox stops a command, every profile's
// result says which limit, and a wall-time stop reads as the agent's
// timeout.
func TestShellLimitsSaid(t *testing.T) {
	w := newWorkspace(t, nil)
	w.env.Shell = fixedShell{ShellResult{Output: "partial\n", Stdout: "partial\n", ExitCode: -1, Signal: "SIGKILL", Limit: "memory 512 MiB"}}
	for _, c := range []struct{ profile, tool, key string }{
		{"claude-code", "Bash", "command"}, {"codex", "exec_command", "cmd"}, {"crush", "bash", "command"},
		{"opencode", "bash", "command"}, {"gemini-cli", "run_shell_command", "command"}, {"skillet", "shell", "command"},
	} {
		res := w.call(c.profile, c.tool, map[string]any{c.key: "x", "description": "x"})
		wantContains(t, res, res.IsError, "limit on memory 512 MiB", "partial")
		if res.Shell == nil || res.Shell.Limit != "memory 512 MiB" {
			t.Errorf("%s: ShellRun.Limit = %+v", c.profile, res.Shell)
		}
	}
	w.env.Shell = fixedShell{ShellResult{ExitCode: -1, Signal: "SIGKILL", Limit: "wall time 2s"}}
	for _, c := range []struct{ profile, tool, key, want string }{
		{"claude-code", "Bash", "command", "Command timed out after"},
		{"crush", "bash", "command", "Command was aborted before completion"},
		{"opencode", "bash", "command", "bash tool terminated command after exceeding timeout"},
		{"gemini-cli", "run_shell_command", "command", "Command was automatically cancelled"},
		{"codex", "exec_command", "cmd", "limit on wall time 2s"},
	} {
		res := w.call(c.profile, c.tool, map[string]any{c.key: "x", "description": "x"})
		wantContains(t, res, res.IsError, c.want)
	}
}

func TestSearchOptions(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"m.txt":     "alpha\nbeta\ngamma\nalpha\n",
		"re.txt":    "a.b a+b\naxb\n",
		"dir/x.txt": "alpha\n",
		"empty/.k":  "",
	})
	res := w.call("claude-code", "Grep", map[string]any{"pattern": "alpha.beta", "multiline": true, "output_mode": "content"})
	wantContains(t, res, false, "m.txt:1:alpha", "m.txt:2:beta")
	if strings.Contains(res.Content, "gamma") {
		t.Errorf("multiline matched too much:\n%s", res.Content)
	}
	res = w.call("crush", "grep", map[string]any{"pattern": "a.b", "literal_text": true})
	wantContains(t, res, false, "Found 1 matches", "Line 1: a.b a+b")
	res = w.call("gemini-cli", "grep_search", map[string]any{"pattern": "alpha", "names_only": true})
	wantContains(t, res, false, `Found 2 files with matches for pattern "alpha"`, "dir/x.txt", "m.txt")
	res = w.call("gemini-cli", "grep_search", map[string]any{"pattern": "alpha", "max_matches_per_file": 1, "include_pattern": "m.txt"})
	wantContains(t, res, false, "File: m.txt\nL1: alpha\n---")
	if strings.Contains(res.Content, "L4:") {
		t.Errorf("max_matches_per_file ignored:\n%s", res.Content)
	}
	res = w.call("gemini-cli", "grep_search", map[string]any{"pattern": "alpha", "total_max_matches": 1})
	wantContains(t, res, false, "(results limited to 1 matches for performance)")
	res = w.call("opencode", "read", map[string]any{"filePath": "dir"})
	wantContains(t, res, false, "<type>directory</type>", "<entries>\nx.txt\n", "(1 entries)")
	res = w.call("gemini-cli", "list_directory", map[string]any{"dir_path": "empty", "ignore": []string{".k"}})
	wantContains(t, res, false, "is empty.")
	res = w.call("gemini-cli", "read_file", map[string]any{"file_path": "dir"})
	wantContains(t, res, true, "Path is a directory")
	res = w.call("claude-code", "Glob", map[string]any{"pattern": "*.txt", "path": "dir"})
	wantContains(t, res, false, filepath.Join(w.root, "dir/x.txt"))
	res = w.call("claude-code", "Glob", map[string]any{"pattern": "[", "path": "dir"})
	wantContains(t, res, true, "not valid")
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "x", "path": "nowhere"})
	wantContains(t, res, true, "Path does not exist: nowhere")
	res = w.call("claude-code", "Grep", map[string]any{"pattern": "x", "type": "cobol"})
	wantContains(t, res, true, "unknown file type")
}

func TestGlobOrder(t *testing.T) {
	w := newWorkspace(t, map[string]string{"old.md": "", "new.md": "", ".git/HEAD.md": ""})
	now := time.Now()
	for p, age := range map[string]time.Duration{"old.md": 3 * time.Hour, "new.md": time.Hour, ".git/HEAD.md": 2 * time.Hour} {
		if err := os.Chtimes(filepath.Join(w.root, p), now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	old, mid, young := filepath.Join(w.root, "old.md"), filepath.Join(w.root, ".git/HEAD.md"), filepath.Join(w.root, "new.md")
	res := w.call("claude-code", "Glob", map[string]any{"pattern": "**/*.md"})
	if res.Content != old+"\n"+mid+"\n"+young {
		t.Errorf("Claude Code glob (oldest first, .git included):\n%s", res.Content)
	}
	res = w.call("opencode", "glob", map[string]any{"pattern": "**/*.md"})
	if res.Content != young+"\n"+old {
		t.Errorf("opencode glob (newest first, no .git):\n%s", res.Content)
	}
}

// TestSeparateStreams: agents that tell stdout from stderr frame them as
// they do when the sandbox reports both.
func TestSeparateStreams(t *testing.T) {
	w := newWorkspace(t, nil)
	w.env.Shell = fixedShell{ShellResult{Stdout: "out\n", Stderr: "err\n", Output: "err\nout\n", ExitCode: 1}}
	res := w.call("crush", "bash", map[string]any{"command": "x", "description": "x"})
	wantContains(t, res, false, "out\n\n\nerr\n\nExit code 1\n\n<cwd>")
	res = w.call("claude-code", "Bash", map[string]any{"command": "x"})
	wantContains(t, res, true, "Exit code 1\nerr\nout") // one stream, as written
	res = w.call("gemini-cli", "run_shell_command", map[string]any{"command": "x"})
	wantContains(t, res, false, "Output: err\nout\nExit Code: 1")
}

// linkResolver resolves symlinks and confines nothing, to test the
// package's own skill-folder check behind a Resolver.
type linkResolver struct{ root string }

func (r linkResolver) Root() string { return r.root }
func (r linkResolver) Resolve(p string, _ bool) (string, error) {
	return evalExisting(p)
}
