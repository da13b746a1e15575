package agenttools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Claude Code's tools, as version 2.1.197 has them. Input schemas:
// sdk-tools.d.ts of npm @anthropic-ai/claude-code@2.1.197; limits, result
// framing and error wording: the CLI's JavaScript bundled in
// @anthropic-ai/claude-code-linux-x64@2.1.197 (the native binary carries
// its source). Names of its functions are minified; they are given to
// find the code again.
const (
	claudeSrc     = "npm @anthropic-ai/claude-code@2.1.197 (sdk-tools.d.ts; the CLI bundled in claude-code-linux-x64@2.1.197)"
	claudeMaxRd   = 262144 // a read without limit is refused over 256 KB (aLr, EEt)
	claudeTokens  = 25000  // and cut to a partial view over 25,000 tokens (Mkp, Nde)
	claudeBashMs  = 120000 // Bash's default timeout (BASH_DEFAULT_TIMEOUT_MS)
	claudeBashMx  = 600000 // and its maximum (BASH_MAX_TIMEOUT_MS)
	claudeBashCh  = 30000  // Bash output kept inline (BASH_MAX_OUTPUT_LENGTH)
	claudeGlobN   = 100    // Glob results (oil {limit:100})
	claudeGrepN   = 250    // Grep head_limit default (_if)
	claudeGrepCh  = 20000  // Skillet's cap on an unlimited (head_limit 0) Grep
	claudeGrepCol = 500    // rg --max-columns of Grep
	// claudeFresh ends Write and Edit results (tLn).
	claudeFresh = " (file state is current in your context \u2014 no need to Read it back)"
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
			Description: "Read a text file; each line comes as its number, a tab, and the line. Without limit the whole file is read " +
				"(at most 256 KB; past about 25,000 tokens only the first lines are shown, with a note). Binary files are refused.",
			Parameters: schema([]string{"file_path"}, map[string]any{
				"file_path": prop("string", "Path of the file (absolute, or relative to the workspace)."),
				"offset":    prop("integer", "Line number to start at (1-based).", "minimum", 0),
				"limit":     prop("integer", "How many lines to read.", "exclusiveMinimum", 0),
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
			Description: "Find files by glob pattern (** for any depth), oldest first by modification time; at most 100 results, with a note when there are more.",
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
// <tool_use_error>…</tool_use_error> with is_error (the
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
	// Since 2.1 stderr is merged into stdout: one stream reaches the
	// model (the Bash call appends both to one buffer).
	out := o.combined()
	var notes []string
	if o.timedOut() {
		// The shell's timeout note (`Command timed out after ${EK(B)}`).
		notes = append(notes, "Command timed out after "+claudeDuration(time.Duration(ms)*time.Millisecond))
	} else if note := o.limitNote(); note != "" {
		notes = append(notes, "("+note+")")
	}
	if a.boolean("run_in_background") {
		notes = append(notes, "(Skillet ran this command in the foreground: background commands are not reproduced)")
	}
	if claudeFailed(call.command, o.res.ExitCode) || o.timedOut() {
		// A failed command throws ShellError; its tool_result is
		// "Exit code N" then the output, cut to 10,000 characters in the
		// middle (PHe, DDo).
		parts := []string{fmt.Sprintf("Exit code %d", o.res.ExitCode)}
		for _, p := range append([]string{out}, notes...) {
			if strings.TrimSpace(p) != "" {
				parts = append(parts, p)
			}
		}
		text := strings.TrimSpace(strings.Join(parts, "\n"))
		if len(text) > 10000 {
			head, tail := text[:runeFloor(text, 5000)], text[runeCeil(text, len(text)-5000):]
			text = fmt.Sprintf("%s\n... [%d characters truncated] ...\n%s", head, len(text)-len(head)-len(tail), tail)
		}
		return Result{Content: text, IsError: true, Shell: run}
	}
	// Success: the output without leading blank lines and trailing space,
	// cut to 30,000 characters (mapToolResultToToolResultBlockParam, zm).
	text := claudeCut(strings.TrimRight(trimLeadingBlankLines(out), " \t\r\n"), claudeBashCh)
	parts := []string{}
	for _, p := range append([]string{text}, notes...) {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return Result{Content: strings.Join(parts, "\n"), Shell: run}
}

// claudeFailed is Claude Code's reading of an exit code: for grep, rg,
// egrep, fgrep, find, diff, test and [ as the last command, 1 is an
// answer (no match, files differ, false), not a failure (Skl and its
// PCf map).
func claudeFailed(command string, code int) bool {
	parts := splitCompound(command)
	last := command
	if len(parts) > 0 {
		last = parts[len(parts)-1]
	}
	fields := strings.Fields(last)
	if len(fields) > 0 {
		switch fields[0] {
		case "grep", "rg", "egrep", "fgrep", "find", "diff", "test", "[":
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
// dropped (zm).
func claudeCut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := runeFloor(s, n)
	return fmt.Sprintf("%s\n\n... [%d lines truncated] ...", s[:cut], strings.Count(s[cut:], "\n")+1)
}

// claudeDuration formats a duration as the CLI's EK does: 45s, 2m 0s, 1h 0m 0s.
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
	// Without limit, a file over 256 KB is refused before its content is
	// looked at (AEt throws EEt when size > maxSizeBytes).
	if st, err := os.Stat(abs); err == nil && st.Mode().IsRegular() && !a.has("limit") && st.Size() > claudeMaxRd {
		return c.fail(Def{}, fmt.Sprintf("File content (%s) exceeds maximum allowed size (%s). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.",
			humanBytes(st.Size()), humanBytes(claudeMaxRd)))
	}
	f, st, err := openText(abs, p)
	if err != nil {
		var oe *openErr
		if errors.As(err, &oe) {
			switch oe.kind {
			case "missing":
				return c.fail(Def{}, "File does not exist.") // Read validateInput
			case "dir":
				return c.fail(Def{}, fmt.Sprintf("EISDIR: illegal operation on a directory, read '%s'", abs))
			}
		}
		return c.fail(Def{}, err.Error())
	}
	defer f.Close()
	offset := max(1, a.integer("offset", 1))
	limit := a.integer("limit", 0)
	whole := offset <= 1 && limit <= 0
	if limit <= 0 {
		limit = 1 << 30 // no line limit: the whole file (Rkf)
	}
	w, err := readWindow(f, windowOpts{offset: offset, limit: limit, countTotal: true})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(w.Lines) == 0 {
		// The two warnings of an empty read (mapToolResultToToolResultBlockParam).
		if st.Size() == 0 || w.Total <= 1 && offset <= 1 {
			return Result{Content: "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"}
		}
		return Result{Content: fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", offset, w.Total)}
	}
	lines, note := w.Lines, ""
	// Tokens are estimated as characters / 4 (2 for JSON; Sf, Lcp). Over
	// 25,000 a whole-file read becomes a partial view with a note; a
	// ranged read is refused (TPl, Nde).
	if tokens := claudeTokensOf(lines, abs); tokens > claudeTokens {
		if !whole {
			return c.fail(Def{}, fmt.Sprintf("File content (%d tokens) exceeds maximum allowed tokens (%d). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.", tokens, claudeTokens))
		}
		keep := max(1, min(len(lines), int(float64(len(lines))*claudeTokens/float64(tokens)*0.85)))
		for i := 0; i < 6 && keep > 1 && claudeTokensOf(lines[:keep], abs) > claudeTokens; i++ {
			keep = max(1, int(float64(keep)*0.7))
		}
		lines = lines[:keep]
		note = fmt.Sprintf("<system-reminder>[Truncated: PARTIAL view \u2014 showing lines 1-%d of %d total (%d tokens, cap %d). Call Read with offset=%d limit=%d for the next page, or Grep to find a specific section. Do NOT answer from this page alone if the answer may be further in the file.]</system-reminder>\n",
			keep, w.Total, tokens, claudeTokens, keep+1, keep)
	}
	// Each line is its number, a tab, then the line (Emn, XTs).
	var b strings.Builder
	b.WriteString(note)
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(w.Start + i))
		b.WriteByte('\t')
		b.WriteString(l)
	}
	return Result{Content: b.String()}
}

// claudeTokensOf is Claude Code's estimate of a read's tokens.
func claudeTokensOf(lines []string, path string) int {
	n := max(0, len(lines)-1)
	for _, l := range lines {
		n += len([]rune(l))
	}
	per := 4
	switch strings.ToLower(strings.TrimPrefix(filepath.Ext(path), ".")) {
	case "json", "jsonl", "jsonc":
		per = 2
	}
	return int(float64(n)/float64(per) + 0.5)
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
	// FileWriteTool's two results.
	if !existed {
		return Result{Content: "File created successfully at: " + p + claudeFresh, Wrote: []string{abs}}
	}
	return Result{Content: "The file " + p + " has been updated successfully." + claudeFresh, Wrote: []string{abs}}
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
		// An empty old_string on a missing file creates it (Edit
		// validateInput).
		if _, err := writeFile(abs, []byte(repl)); err != nil {
			return c.fail(Def{}, err.Error())
		}
		return Result{Content: "The file " + p + " has been updated successfully." + claudeFresh, Wrote: []string{abs}}
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
	// FileEditTool's results.
	if all {
		return Result{Content: "The file " + p + " has been updated. All occurrences were successfully replaced." + claudeFresh, Wrote: []string{abs}}
	}
	return Result{Content: "The file " + p + " has been updated successfully." + claudeFresh, Wrote: []string{abs}}
}

func (c claudeImpl) glob(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("pattern"); !ok {
		return c.missing(n)
	}
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	// rg --files --glob P --sort=modified --no-ignore --hidden (oil,
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
		// Aif: the walk stopped early, so the count is a lower bound.
		fmt.Fprintf(&b, "\n(Showing the first %d files; there are more than %d matches. Narrow the pattern or path to see the rest.)", len(hits), len(hits))
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
			return c.fail(Def{}, "Path does not exist: "+p) // Grep validateInput
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
	// -C (or context) wins over -B and -A (Grep call).
	before, after := a.integer("-B", 0), a.integer("-A", 0)
	if a.has("-C") || a.has("context") {
		n := a.integer("-C", a.integer("context", 0))
		before, after = n, n
	}
	head := claudeGrepN
	if a.has("head_limit") {
		head = a.integer("head_limit", claudeGrepN)
		if head < 0 {
			head = claudeGrepN
		}
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
		// (Grep call: sort by mtimeMs, then ott).
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
				// rg --max-columns 500 (Grep call) replaces long lines.
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
	// head_limit (default 250; 0 for all) and offset page the entries;
	// the note names the limit only when it cut something and the offset
	// only when it is set (TIo, vIo).
	counts := make([]int, len(entries))
	if mode == "count" {
		for i, f := range res.Files {
			counts[i] = f.Count
		}
	}
	skip = min(skip, len(entries))
	entries, counts = entries[skip:], counts[skip:]
	var page []string
	if head > 0 && len(entries) > head {
		entries, counts = entries[:head], counts[:head]
		page = append(page, fmt.Sprintf("limit: %d", head))
	}
	if skip > 0 {
		page = append(page, fmt.Sprintf("offset: %d", skip))
	}
	pagination := strings.Join(page, ", ")
	text := strings.Join(entries, "\n")
	if head == 0 {
		text = claudeCut(text, claudeGrepCh) // Skillet's bound on an unlimited search
	}
	switch mode {
	case "content":
		text = orDefault(text, "No matches found")
		if pagination != "" {
			text += "\n[Showing results with pagination = " + pagination + "]"
		}
		return Result{Content: text}
	case "count":
		occ := 0
		for _, n := range counts {
			occ += n
		}
		text = orDefault(text, "No matches found") +
			fmt.Sprintf("\nFound %d total %s across %d %s.", occ, plural(occ, "occurrence", "occurrences"), len(counts), plural(len(counts), "file", "files"))
		if pagination != "" {
			text += " with pagination = " + pagination
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
	return Result{Content: hdr + "\n" + text}
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
