package agenttools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Claude Code's tools. Input schemas: sdk-tools.d.ts of
// @anthropic-ai/claude-code@2.1.197 (BashInput, FileReadInput,
// FileWriteInput, FileEditInput, GlobInput, GrepInput); limits, result
// framing and error wording: cli.js of @anthropic-ai/claude-code@2.0.77,
// the last release that ships its CLI as JavaScript. Names of the cli.js
// functions are minified; they are given to find the code again.
const (
	claudeSrc     = "npm @anthropic-ai/claude-code@2.1.197 sdk-tools.d.ts; cli.js of 2.0.77"
	claudeLines   = 2000   // Read's default line limit (ZOA)
	claudeLine    = 2000   // longer lines are cut (S68)
	claudeMaxRd   = 262144 // a file over 256 KB needs offset or limit (eTA, X70)
	claudeBashMs  = 120000 // Bash's default timeout (BASH_DEFAULT_TIMEOUT_MS)
	claudeBashMx  = 600000 // and its maximum (BASH_MAX_TIMEOUT_MS)
	claudeBashCh  = 30000  // Bash output kept (BASH_MAX_OUTPUT_LENGTH, zm)
	claudeGlobN   = 100    // Glob results (Wu2 {limit:100})
	claudeGrepN   = 250    // Grep head_limit default (GrepInput)
	claudeGrepCh  = 20000  // Grep output kept (RC0, MC0)
	claudeGrepCol = 500    // rg --max-columns of Grep
	claudeWrite   = 16000  // lines of a rewritten file shown back (Ek2)
	claudeSnip    = 4      // context lines around an edit (HN2)
)

func claudeDefs() []Def {
	return []Def{
		{Name: "Bash", Kind: KindShell, Source: claudeSrc,
			Description: "Run a shell command in the workspace and return its output. The command runs in a sandbox; " +
				"it stops after timeout milliseconds (default 120000, at most 600000) and output past 30,000 characters is cut.",
			Parameters: schema([]string{"command"}, map[string]any{
				"command":           prop("string", "The shell command to run."),
				"timeout":           prop("number", "Time limit in milliseconds (at most 600000)."),
				"description":       prop("string", "A few words saying what the command does."),
				"run_in_background": prop("boolean", "Ask for the command to run in the background; Skillet runs it to completion instead."),
			})},
		{Name: "Read", Kind: KindRead, ReadOnly: true, Source: claudeSrc,
			Description: "Read a text file. Lines come numbered; up to 2000 lines from offset, lines longer than 2000 characters cut. " +
				"A file over 256 KB needs offset or limit. Binary files are refused.",
			Parameters: schema([]string{"file_path"}, map[string]any{
				"file_path": prop("string", "Path of the file (absolute, or relative to the workspace)."),
				"offset":    prop("number", "Line number to start at (1-based)."),
				"limit":     prop("number", "How many lines to read."),
			})},
		{Name: "Write", Kind: KindWrite, Source: claudeSrc,
			Description: "Write a file, replacing it if it exists; missing folders are created.",
			Parameters: schema([]string{"file_path", "content"}, map[string]any{
				"file_path": prop("string", "Path of the file to write."),
				"content":   prop("string", "The whole new content."),
			})},
		{Name: "Edit", Kind: KindEdit, Source: claudeSrc,
			Description: "Replace exact text in a file. old_string must occur once unless replace_all is set; " +
				"an empty old_string on a missing file creates it.",
			Parameters: schema([]string{"file_path", "old_string", "new_string"}, map[string]any{
				"file_path":   prop("string", "Path of the file to change."),
				"old_string":  prop("string", "The exact text to replace."),
				"new_string":  prop("string", "The text to put in its place (must differ)."),
				"replace_all": prop("boolean", "Replace every occurrence.", "default", false),
			})},
		{Name: "Glob", Kind: KindGlob, ReadOnly: true, Source: claudeSrc,
			Description: "Find files by glob pattern (** for any depth), oldest first by modification time; at most 100 results.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern": prop("string", "The glob pattern, e.g. **/*.py."),
				"path":    prop("string", "Folder to search in; the workspace when omitted."),
			})},
		{Name: "Grep", Kind: KindGrep, ReadOnly: true, Source: claudeSrc,
			Description: "Search file contents with a regular expression. Modes: files_with_matches (default), content, count; " +
				"results are capped by head_limit (default 250) and output past 20,000 characters is cut.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern":     prop("string", "Regular expression to look for."),
				"path":        prop("string", "File or folder to search; the workspace when omitted."),
				"glob":        prop("string", "Only files matching this glob, e.g. *.{ts,tsx}."),
				"output_mode": prop("string", "What to return.", "enum", []string{"content", "files_with_matches", "count"}),
				"-B":          prop("number", "Lines of context before each match (content mode)."),
				"-A":          prop("number", "Lines of context after each match (content mode)."),
				"-C":          prop("number", "Lines of context around each match (content mode)."),
				"context":     prop("number", "Same as -C."),
				"-n":          prop("boolean", "Show line numbers (content mode; default true)."),
				"-i":          prop("boolean", "Ignore case."),
				"-o":          prop("boolean", "Print only the matched parts, one per line (content mode)."),
				"type":        prop("string", "File type to search, e.g. js, py, go."),
				"head_limit":  prop("number", "Keep the first N results (default 250; 0 for all)."),
				"offset":      prop("number", "Skip the first N results."),
				"multiline":   prop("boolean", "Let . match newlines and patterns span lines."),
			})},
	}
}

type claudeImpl struct{}

func (claudeImpl) names(def Def) argNames {
	return argNames{command: "command", path: pathArg(def, "file_path", "path")}
}

// pathArg is the path argument of a tool: file tools name it one way,
// search tools another.
func pathArg(def Def, file, dir string) string {
	switch def.Kind {
	case KindGlob, KindGrep, KindList:
		return dir
	}
	return file
}

// fail frames a refusal as Claude Code frames a failed validateInput:
// <tool_use_error>…</tool_use_error> with is_error (cli.js, the
// tool_result built from validateInput's message).
func (claudeImpl) fail(_ Def, msg string) Result {
	return Result{Content: "<tool_use_error>" + msg + "</tool_use_error>", IsError: true}
}

func (c claudeImpl) run(ctx context.Context, env Env, def Def, a args) Result {
	switch def.Kind {
	case KindShell:
		return c.bash(ctx, env, a)
	case KindRead:
		return c.read(env, a)
	case KindWrite:
		return c.write(env, a)
	case KindEdit:
		return c.edit(env, a)
	case KindGlob:
		return c.glob(ctx, env, a)
	case KindGrep:
		return c.grep(ctx, env, a)
	}
	return c.fail(def, "unsupported tool "+def.Name)
}

func (c claudeImpl) missing(name string) Result {
	return c.fail(Def{}, fmt.Sprintf("InputValidationError: The required parameter `%s` is missing", name))
}

func (c claudeImpl) bash(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("command"); !ok {
		return c.missing(n)
	}
	ms := a.integer("timeout", claudeBashMs)
	if ms <= 0 {
		ms = claudeBashMs
	}
	ms = min(ms, claudeBashMx)
	call := shellCall{command: a.str("command"), timeout: time.Duration(ms) * time.Millisecond}
	o := runShell(ctx, env, call)
	if o.refused != "" {
		return Result{Content: o.refused, IsError: true}
	}
	run := o.run(call)
	stdout := validText(o.res.Stdout)
	stderr := validText(o.res.Stderr)
	if o.res.Stdout == "" && o.res.Stderr == "" {
		stdout = o.combined()
	}
	if o.timedOut() {
		// The shell reports a timeout in stderr (cli.js: `Command timed
		// out after ${EK(B)}` prefixed to stderr).
		stderr = strings.TrimSpace("Command timed out after " + claudeDuration(time.Duration(ms)*time.Millisecond) + " " + stderr)
	}
	if note := o.limitNote(); note != "" && !o.timedOut() {
		stderr = strings.TrimSpace(stderr + "\n(" + note + ")")
	}
	if a.boolean("run_in_background") {
		stderr = strings.TrimSpace(stderr + "\n(Skillet ran this command in the foreground: background commands are not reproduced)")
	}
	if claudeFailed(call.command, o.res.ExitCode) || o.timedOut() {
		// A failed command throws ShellError; its tool_result is
		// "Exit code N", stderr, stdout joined by newlines (cli.js sO0),
		// cut to 10,000 characters in the middle (jF1).
		parts := []string{fmt.Sprintf("Exit code %d", o.res.ExitCode)}
		for _, p := range []string{stderr, stdout} {
			if strings.TrimSpace(p) != "" {
				parts = append(parts, p)
			}
		}
		text := strings.TrimSpace(strings.Join(parts, "\n"))
		if len(text) > 10000 {
			head, tail := text[:runeFloor(text, 5000)], text[runeCeil(text, len(text)-5000):]
			text = fmt.Sprintf("%s\n\n... [%d characters truncated] ...\n\n%s", head, len(text)-10000, tail)
		}
		return Result{Content: text, IsError: true, Shell: run}
	}
	// Success: stdout without leading blank lines and trailing space,
	// then stderr, each cut to 30,000 characters (cli.js
	// mapToolResultToToolResultBlockParam of Bash, zm).
	out := strings.TrimRight(strings.TrimLeft(trimLeadingBlankLines(stdout), ""), " \t\r\n")
	out = claudeCut(out, claudeBashCh)
	errText := claudeCut(strings.TrimSpace(stderr), claudeBashCh)
	var parts []string
	for _, p := range []string{out, errText} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return Result{Content: strings.Join(parts, "\n"), Shell: run}
}

// claudeFailed is Claude Code's reading of an exit code: for grep, rg,
// find, diff, test and [ as the last command, 1 is an answer (no match,
// files differ, false), not a failure (cli.js ww2 and its Rj5 map).
func claudeFailed(command string, code int) bool {
	parts := splitCompound(command)
	last := command
	if len(parts) > 0 {
		last = parts[len(parts)-1]
	}
	fields := strings.Fields(last)
	if len(fields) > 0 {
		switch fields[0] {
		case "grep", "rg", "find", "diff", "test", "[":
			return code >= 2
		}
	}
	return code != 0
}

func trimLeadingBlankLines(s string) string {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			return s
		}
		s = s[i+1:]
	}
}

// claudeCut keeps the first n characters and says how many lines were
// dropped (cli.js zm and RC0).
func claudeCut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := runeFloor(s, n)
	return fmt.Sprintf("%s\n\n... [%d lines truncated] ...", s[:cut], strings.Count(s[cut:], "\n")+1)
}

// claudeDuration formats a duration as cli.js EK does: 45s, 2m 0s, 1h 0m 0s.
func claudeDuration(d time.Duration) string {
	ms := d.Milliseconds()
	if ms < 60000 {
		return fmt.Sprintf("%ds", (ms+500)/1000)
	}
	h, m, s := ms/3600000, ms%3600000/60000, (ms%60000+500)/1000
	if h > 0 {
		return fmt.Sprintf("%dh %dm %ds", h, m, s)
	}
	return fmt.Sprintf("%dm %ds", m, s)
}

func (c claudeImpl) read(env Env, a args) Result {
	if n, ok := a.required("file_path"); !ok {
		return c.missing(n)
	}
	p := a.str("file_path")
	abs, err := resolve(env, p, false)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	// A large file read whole is refused before its content is looked
	// at (cli.js Read validateInput: X70 after the extension check).
	if st, err := os.Stat(abs); err == nil && st.Mode().IsRegular() && !a.has("offset") && !a.has("limit") && st.Size() > claudeMaxRd {
		return c.fail(Def{}, fmt.Sprintf("File content (%s) exceeds maximum allowed size (%s). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.",
			humanBytes(st.Size()), humanBytes(claudeMaxRd)))
	}
	f, st, err := openText(abs, p)
	if err != nil {
		var oe *openErr
		if errors.As(err, &oe) {
			switch oe.kind {
			case "missing":
				return c.fail(Def{}, "File does not exist.") // cli.js Read validateInput
			case "dir":
				return c.fail(Def{}, "EISDIR: illegal operation on a directory, read")
			}
		}
		return c.fail(Def{}, err.Error())
	}
	defer f.Close()
	offset := a.integer("offset", 1)
	limit := a.integer("limit", 0)
	if limit <= 0 {
		limit = claudeLines
	}
	if offset < 1 {
		offset = 1
	}
	w, err := readWindow(f, windowOpts{offset: offset, limit: limit, maxLine: claudeLine, countTotal: false})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(w.Lines) == 0 {
		// cli.js: the two warnings of an empty read.
		if st.Size() == 0 {
			return Result{Content: "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"}
		}
		return Result{Content: fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", offset, w.Total)}
	}
	return Result{Content: numbered(w.Lines, w.Start, "→")} // cli.js Xo
}

func (c claudeImpl) write(env Env, a args) Result {
	if n, ok := a.required("file_path", "content"); !ok {
		return c.missing(n)
	}
	p, content := a.str("file_path"), a.str("content")
	abs, err := resolve(env, p, true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	existed, err := writeFile(abs, []byte(content))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	res := Result{Wrote: []string{abs}}
	if !existed {
		res.Content = "File created successfully at: " + p // cli.js FileWriteTool
		return res
	}
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	note := ""
	if len(lines) > claudeWrite {
		lines = lines[:claudeWrite]
		note = fmt.Sprintf("\n(only the first %d lines are shown)", claudeWrite)
	}
	res.Content = fmt.Sprintf("The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s%s", p, numbered(lines, 1, "→"), note)
	return res
}

func (c claudeImpl) edit(env Env, a args) Result {
	if n, ok := a.required("file_path", "old_string", "new_string"); !ok {
		return c.missing(n)
	}
	p, old, repl, all := a.str("file_path"), a.str("old_string"), a.str("new_string"), a.boolean("replace_all")
	if old == repl {
		return c.fail(Def{}, "No changes to make: old_string and new_string are exactly the same.")
	}
	abs, err := resolve(env, p, true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		if old != "" {
			return c.fail(Def{}, "File does not exist.")
		}
		// An empty old_string on a missing file creates it (cli.js Edit
		// validateInput: result true when the file is absent and Q==="").
		if _, err := writeFile(abs, []byte(repl)); err != nil {
			return c.fail(Def{}, err.Error())
		}
		return Result{Content: "File created successfully at: " + p, Wrote: []string{abs}}
	}
	content, err := loadForEdit(abs, p)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if old == "" {
		return c.fail(Def{}, "Cannot create new file - file already exists.")
	}
	updated, n := replaceIn(content, old, repl, all)
	switch {
	case n == 0:
		return c.fail(Def{}, "String to replace not found in file.\nString: "+old)
	case n > 1 && !all:
		return c.fail(Def{}, fmt.Sprintf("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s", n, old))
	}
	if _, err := writeFile(abs, []byte(updated)); err != nil {
		return c.fail(Def{}, err.Error())
	}
	res := Result{Wrote: []string{abs}}
	if all {
		res.Content = fmt.Sprintf("The file %s has been updated. All occurrences of '%s' were successfully replaced with '%s'.", p, old, repl)
		return res
	}
	// The snippet: four lines around the change in the new text (HN2).
	base := strings.ReplaceAll(content, "\r\n", "\n")
	first := strings.Count(base[:max(0, strings.Index(base, strings.ReplaceAll(old, "\r\n", "\n")))], "\n")
	lines := strings.Split(strings.ReplaceAll(updated, "\r\n", "\n"), "\n")
	from := max(0, first-claudeSnip)
	to := min(len(lines), first+claudeSnip+strings.Count(repl, "\n")+1)
	res.Content = fmt.Sprintf("The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s", p, numbered(lines[from:to], from+1, "→"))
	return res
}

func (c claudeImpl) glob(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("pattern"); !ok {
		return c.missing(n)
	}
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	// rg --files --glob P --sort=modified --no-ignore --hidden (cli.js
	// Wu2): oldest first, VCS folders included.
	hits, truncated, err := globFiles(ctx, dir, a.str("pattern"), claudeGlobN, globOpts{keepVCS: true, oldestFirst: true})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(hits) == 0 {
		return Result{Content: "No files found"}
	}
	var b strings.Builder
	for i, h := range hits {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(h.Path)
	}
	if truncated {
		b.WriteString("\n(Results are truncated. Consider using a more specific path or pattern.)")
	}
	return Result{Content: b.String()}
}

// rgTypes are the rg --type names Grep's type argument most often uses.
var rgTypes = map[string]string{
	"js": "*.{js,jsx,mjs,cjs,vue}", "ts": "*.{ts,tsx,cts,mts}", "py": "*.{py,pyi}", "go": "*.go",
	"rust": "*.rs", "java": "*.{java,jsp}", "c": "*.{c,h}", "cpp": "*.{cpp,cc,cxx,hpp,hh,hxx,h}",
	"rb": "*.{rb,gemspec}", "ruby": "*.{rb,gemspec}", "md": "*.{md,markdown,mdx}", "markdown": "*.{md,markdown,mdx}",
	"json": "*.json", "yaml": "*.{yaml,yml}", "toml": "*.toml", "sh": "*.{sh,bash,zsh}", "html": "*.{html,htm}",
	"css": "*.{css,scss,less}", "php": "*.php", "swift": "*.swift", "kotlin": "*.{kt,kts}", "sql": "*.sql", "txt": "*.txt",
}

func (c claudeImpl) grep(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("pattern"); !ok {
		return c.missing(n)
	}
	root := env.Files.Root()
	if p := a.str("path"); p != "" {
		abs, err := resolve(env, p, false)
		if err != nil {
			return c.fail(Def{}, err.Error())
		}
		if _, err := os.Stat(abs); err != nil {
			return c.fail(Def{}, "Path does not exist: "+p) // cli.js Grep validateInput
		}
		root = abs
	}
	mode := a.str("output_mode")
	if mode == "" {
		mode = "files_with_matches"
	}
	if mode != "content" && mode != "files_with_matches" && mode != "count" {
		return c.fail(Def{}, fmt.Sprintf("output_mode must be content, files_with_matches or count, not %q", mode))
	}
	include := a.str("glob")
	if t := a.str("type"); t != "" {
		g, ok := rgTypes[t]
		if !ok {
			return c.fail(Def{}, fmt.Sprintf("unknown file type %q (known: %s)", t, strings.Join(sortedKeys(rgTypes), ", ")))
		}
		if include == "" {
			include = g
		}
	}
	// -C (or context) wins over -B and -A (cli.js Grep call).
	before, after := a.integer("-B", 0), a.integer("-A", 0)
	if a.has("-C") || a.has("context") {
		n := a.integer("-C", a.integer("context", 0))
		before, after = n, n
	}
	head := claudeGrepN
	if a.has("head_limit") {
		head = a.integer("head_limit", claudeGrepN)
	}
	skip := max(0, a.integer("offset", 0))
	// Search a little past what is shown, so the cut can be reported.
	cap := 1 << 30
	if head > 0 {
		cap = skip + head + 1
	}
	o := grepOpts{pattern: a.str("pattern"), ignoreCase: a.boolean("-i"), multiline: a.boolean("multiline"),
		include: include, limit: cap, filesOnly: mode == "files_with_matches"}
	if mode == "content" {
		o.before, o.after = before, after
	}
	res, err := grepFiles(ctx, root, o)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	showNums := !a.has("-n") || a.boolean("-n")
	rel := func(p string) string {
		if r, err := filepath.Rel(env.Files.Root(), p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	var entries []string
	switch mode {
	case "files_with_matches":
		// Newest first, ties by name, paths relative to the workspace
		// (cli.js Grep call: sort by mtimeMs, then jC0).
		sort.SliceStable(res.Files, func(i, j int) bool {
			if !res.Files[i].ModTime.Equal(res.Files[j].ModTime) {
				return res.Files[i].ModTime.After(res.Files[j].ModTime)
			}
			return res.Files[i].Path < res.Files[j].Path
		})
		for _, f := range res.Files {
			entries = append(entries, rel(f.Path))
		}
	case "count":
		for _, f := range res.Files {
			entries = append(entries, fmt.Sprintf("%s:%d", rel(f.Path), f.Count))
		}
	default:
		var only *regexp.Regexp
		if a.boolean("-o") {
			only = o.compiled()
		}
		for _, f := range res.Files {
			for _, l := range f.Lines {
				if only != nil {
					// rg -o: each match on its own line, context dropped.
					if l.Context {
						continue
					}
					for _, m := range only.FindAllString(l.Text, -1) {
						if m == "" {
							continue
						}
						if showNums {
							entries = append(entries, fmt.Sprintf("%s:%d:%s", rel(f.Path), l.Num, m))
						} else {
							entries = append(entries, rel(f.Path)+":"+m)
						}
					}
					continue
				}
				sep := ":"
				if l.Context {
					sep = "-"
				}
				// rg --max-columns 500 (cli.js Grep call) replaces long lines.
				if len(l.Text) > claudeGrepCol {
					if l.Context {
						l.Text = "[Omitted long context line]"
					} else {
						l.Text = "[Omitted long line with 1 matches]"
					}
				}
				if showNums {
					entries = append(entries, fmt.Sprintf("%s%s%d%s%s", rel(f.Path), sep, l.Num, sep, l.Text))
				} else {
					entries = append(entries, rel(f.Path)+sep+l.Text)
				}
			}
		}
	}
	// head_limit and offset page the entries (cli.js _C0); the
	// pagination note appears only when the limit cut something (TC0).
	if skip > len(entries) {
		entries = nil
	} else {
		entries = entries[skip:]
	}
	// The pagination note names the limit and offset in force when the
	// call set them or the limit cut something (cli.js TC0).
	pagination := ""
	cutByLimit := head > 0 && len(entries) > head
	if cutByLimit {
		entries = entries[:head]
	}
	if cutByLimit || a.has("head_limit") || skip > 0 {
		pagination = fmt.Sprintf("limit: %d, offset: %d", head, skip)
	}
	switch mode {
	case "content":
		text := claudeCut(orDefault(strings.Join(entries, "\n"), "No matches found"), claudeGrepCh)
		if pagination != "" {
			text += "\n\n[Showing results with pagination = " + pagination + "]"
		}
		return Result{Content: text}
	case "count":
		occ := 0
		for _, f := range res.Files {
			occ += f.Count
		}
		text := claudeCut(orDefault(strings.Join(entries, "\n"), "No matches found"), claudeGrepCh)
		text += fmt.Sprintf("\n\nFound %d total %s across %d %s.", occ, plural(occ, "occurrence", "occurrences"), len(res.Files), plural(len(res.Files), "file", "files"))
		if pagination != "" {
			text = strings.TrimSuffix(text, ".") + " with pagination = " + pagination
		}
		return Result{Content: text}
	}
	if len(entries) == 0 {
		return Result{Content: "No files found"}
	}
	hdr := fmt.Sprintf("Found %d %s", len(entries), plural(len(entries), "file", "files"))
	if pagination != "" {
		hdr += " " + pagination
	}
	return Result{Content: claudeCut(hdr+"\n"+strings.Join(entries, "\n"), claudeGrepCh)}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
