package agenttools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Gemini CLI's tools. Source: google-gemini/gemini-cli packages/core/src/
// tools (shell.ts, read-file.ts, write-file.ts, edit.ts, glob.ts, grep.ts,
// grep-utils.ts, ls.ts), the declarations in tools/definitions
// (base-declarations.ts, model-family-sets/default-legacy.ts,
// dynamic-declaration-helpers.ts) and utils/constants.ts, at 5411f11
// (2026-08-21). The content search tool is grep_search since the rename
// of search_file_content (#18003).
const (
	geminiSrc    = "google-gemini/gemini-cli packages/core/src/tools (shell.ts read-file.ts write-file.ts edit.ts glob.ts grep.ts ls.ts, definitions/)"
	geminiLines  = 2000 // utils/constants.ts DEFAULT_MAX_LINES_TEXT_FILE
	geminiLine   = 2000 // MAX_LINE_LENGTH_TEXT_FILE
	geminiGrepN  = 100  // tools/constants.ts DEFAULT_TOTAL_MAX_MATCHES
	geminiGlobN  = 1000 // Skillet's cap: Gemini CLI's glob has none
	geminiListN  = 1000 // Skillet's cap for list_directory
	geminiReadMx = 20 << 20
)

func geminiDefs() []Def {
	return []Def{
		{Name: "run_shell_command", Kind: KindShell, Source: geminiSrc,
			Description: "Run a shell command (sandboxed) in the project folder or dir_path and return its output, exit code and signal. " +
				"Skillet runs commands to completion: is_background is not reproduced.",
			Parameters: schema([]string{"command"}, map[string]any{
				"command":       prop("string", "The shell command to run."),
				"description":   prop("string", "A short sentence saying what the command does."),
				"dir_path":      prop("string", "Folder to run it in; the project folder when omitted. It must exist."),
				"is_background": prop("boolean", "Ask for the command to keep running in the background."),
				"delay_ms":      prop("integer", "Wait after starting a background command, in milliseconds."),
			})},
		{Name: "read_file", Kind: KindRead, ReadOnly: true, Source: geminiSrc,
			Description: "Read a text file as it is (no line numbers): up to 2000 lines, or start_line to end_line; lines over 2000 characters cut. " +
				"Binary files are refused.",
			Parameters: schema([]string{"file_path"}, map[string]any{
				"file_path":  prop("string", "Path of the file."),
				"start_line": prop("integer", "First line to read (1-based).", "minimum", 1),
				"end_line":   prop("integer", "Last line to read (1-based, inclusive).", "minimum", 1),
			})},
		{Name: "write_file", Kind: KindWrite, Source: geminiSrc,
			Description: "Write a file, replacing it if it exists; missing folders are created.",
			Parameters: schema([]string{"file_path", "content"}, map[string]any{
				"file_path": prop("string", "Path of the file to write."),
				"content":   prop("string", "The whole new content."),
			})},
		{Name: "replace", Kind: KindEdit, Source: geminiSrc,
			Description: "Replace exact text in a file: old_string must occur once unless allow_multiple is set; an empty old_string creates a new file.",
			Parameters: schema([]string{"file_path", "instruction", "old_string", "new_string"}, map[string]any{
				"file_path":      prop("string", "Path of the file to change."),
				"instruction":    prop("string", "What the change is for, in a sentence."),
				"old_string":     prop("string", "The exact text to replace, with a few lines around it."),
				"new_string":     prop("string", "The text to put in its place."),
				"allow_multiple": prop("boolean", "Replace every occurrence instead of exactly one."),
			})},
		{Name: "glob", Kind: KindGlob, ReadOnly: true, Source: geminiSrc,
			Description: "Find files by glob pattern (** for any depth), newest first; Skillet returns at most 1000.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern":               prop("string", "The glob pattern, e.g. src/**/*.ts."),
				"dir_path":              prop("string", "Folder to search in; the project folder when omitted."),
				"case_sensitive":        prop("boolean", "Match case (default false)."),
				"respect_git_ignore":    prop("boolean", "Leave out git-ignored files (default true)."),
				"respect_gemini_ignore": prop("boolean", "Leave out .geminiignore'd files (default true)."),
			})},
		{Name: "grep_search", Kind: KindGrep, ReadOnly: true, Source: geminiSrc,
			Description: "Search file contents with a regular expression; matches grouped by file with line numbers, at most total_max_matches (default 100).",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern":              prop("string", "Regular expression to look for."),
				"dir_path":             prop("string", "Folder to search; the project folder when omitted."),
				"include_pattern":      prop("string", "Only files matching this glob, e.g. *.js."),
				"exclude_pattern":      prop("string", "Leave out files matching this glob."),
				"names_only":           prop("boolean", "Return only the names of files that match."),
				"max_matches_per_file": prop("integer", "Most matches to keep per file.", "minimum", 1),
				"total_max_matches":    prop("integer", "Most matches in all (default 100).", "minimum", 1),
			})},
		{Name: "list_directory", Kind: KindList, ReadOnly: true, Source: geminiSrc,
			Description: "List the entries of one folder, folders first, with file sizes.",
			Parameters: schema([]string{"dir_path"}, map[string]any{
				"dir_path": prop("string", "Folder to list."),
				"ignore":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Glob patterns to leave out."},
			})},
	}
}

type geminiImpl struct{}

func (geminiImpl) names(def Def) argNames {
	return argNames{command: "command", path: pathArg(def, "file_path", "dir_path")}
}

// fail: a failed Gemini CLI tool puts its message, unprefixed, in
// llmContent and error.message (tools.ts ToolResult; edit.ts error.raw).
func (geminiImpl) fail(_ Def, msg string) Result { return Result{Content: msg, IsError: true} }

func (c geminiImpl) run(ctx context.Context, env Env, def Def, a args) Result {
	switch def.Kind {
	case KindShell:
		return c.shell(ctx, env, a)
	case KindRead:
		return c.read(env, a)
	case KindWrite:
		return c.write(env, a)
	case KindEdit:
		return c.replace(env, a)
	case KindGlob:
		return c.glob(ctx, env, a)
	case KindGrep:
		return c.grep(ctx, env, a)
	case KindList:
		return c.list(ctx, env, a)
	}
	return c.fail(def, "unsupported tool "+def.Name)
}

func (c geminiImpl) invalid(name string) Result {
	return c.fail(Def{}, fmt.Sprintf("params must have required property '%s'", name))
}

func (c geminiImpl) shell(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("command"); !ok {
		return c.invalid(n)
	}
	call := shellCall{command: a.str("command"), workdir: a.str("dir_path")}
	o := runShell(ctx, env, call)
	if o.refused != "" {
		return c.fail(Def{}, o.refused)
	}
	out := o.combined()
	if o.timedOut() {
		// shell.ts: the cancelled-command wording.
		text := "Command was automatically cancelled because it exceeded its time limit."
		if strings.TrimSpace(out) != "" {
			text += " Below is the output before it was cancelled:\n" + out
		} else {
			text += " There was no output before it was cancelled."
		}
		return Result{Content: text, Shell: o.run(call)}
	}
	parts := []string{"Output: " + orDefault(strings.TrimRight(out, "\n"), "(empty)")}
	if note := o.limitNote(); note != "" {
		parts = append(parts, "Error: "+note)
	}
	if o.res.ExitCode != 0 {
		parts = append(parts, fmt.Sprintf("Exit Code: %d", o.res.ExitCode))
	}
	if o.res.Signal != "" {
		parts = append(parts, "Signal: "+o.res.Signal)
	}
	return Result{Content: strings.Join(parts, "\n"), Shell: o.run(call)}
}

func (c geminiImpl) read(env Env, a args) Result {
	if n, ok := a.required("file_path"); !ok {
		return c.invalid(n)
	}
	p := a.str("file_path")
	abs, err := resolve(env, p, false)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	start, end := a.integer("start_line", 1), a.integer("end_line", 0)
	if start < 1 || (a.has("end_line") && end < start) {
		return c.fail(Def{}, "start_line must be at least 1 and end_line at least start_line")
	}
	f, st, err := openText(abs, p)
	if err != nil {
		var oe *openErr
		if errors.As(err, &oe) {
			switch oe.kind {
			case "missing":
				return c.fail(Def{}, "File not found: "+abs)
			case "dir":
				return c.fail(Def{}, "Path is a directory, not a file: "+abs)
			case "binary":
				return c.fail(Def{}, fmt.Sprintf("Cannot display content of binary file: %s (%s)", p, humanBytes(oe.size)))
			}
		}
		return c.fail(Def{}, err.Error())
	}
	defer f.Close()
	if st.Size() > geminiReadMx {
		return c.fail(Def{}, fmt.Sprintf("File size exceeds the %dMB limit: %s (%s)", geminiReadMx>>20, p, humanBytes(st.Size())))
	}
	limit := geminiLines
	if a.has("end_line") {
		limit = end - start + 1
	}
	w, err := readWindow(f, windowOpts{offset: start, limit: limit, maxLine: geminiLine, lineSuffix: "... [truncated]", countTotal: true})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	text := strings.Join(w.Lines, "\n")
	if !w.More && w.LongLines == 0 {
		return Result{Content: text}
	}
	last := start + len(w.Lines) - 1
	// read-file.ts: the truncation header.
	return Result{Content: fmt.Sprintf("\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines %d-%d of %d total lines.\n"+
		"Action: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: %d.\n\n--- FILE CONTENT (truncated) ---\n%s",
		start, last, w.Total, last+1, text)}
}

func (c geminiImpl) write(env Env, a args) Result {
	if n, ok := a.required("file_path", "content"); !ok {
		return c.invalid(n)
	}
	abs, err := resolve(env, a.str("file_path"), true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	existed, err := writeFile(abs, []byte(a.str("content")))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	msg := "Successfully created and wrote to new file: " + abs + "."
	if existed {
		msg = "Successfully overwrote file: " + abs + "."
	}
	return Result{Content: msg, Wrote: []string{abs}}
}

func (c geminiImpl) replace(env Env, a args) Result {
	if n, ok := a.required("file_path", "old_string", "new_string"); !ok {
		return c.invalid(n)
	}
	p, old, repl, all := a.str("file_path"), a.str("old_string"), a.str("new_string"), a.boolean("allow_multiple")
	abs, err := resolve(env, p, true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	_, statErr := os.Stat(abs)
	if old == "" {
		if statErr == nil {
			return c.fail(Def{}, "Attempted to create a file that already exists: "+abs)
		}
		if _, err := writeFile(abs, []byte(repl)); err != nil {
			return c.fail(Def{}, err.Error())
		}
		return Result{Content: "Created new file: " + abs + " with provided content.", Wrote: []string{abs}}
	}
	if statErr != nil {
		return c.fail(Def{}, "File not found: "+abs)
	}
	content, err := loadForEdit(abs, p)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if old == repl {
		return c.fail(Def{}, "No changes to apply. The old_string and new_string are identical in file: "+p)
	}
	updated, n := replaceIn(content, old, repl, all)
	switch {
	case n == 0:
		return c.fail(Def{}, fmt.Sprintf("Failed to edit, 0 occurrences found for old_string in %s. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.", p))
	case n > 1 && !all:
		return c.fail(Def{}, fmt.Sprintf("Failed to edit, Expected 1 occurrence but found %d for old_string in file: %s. If you intended to replace multiple occurrences, set 'allow_multiple' to true.", n, p))
	}
	if _, err := writeFile(abs, []byte(updated)); err != nil {
		return c.fail(Def{}, err.Error())
	}
	return Result{Content: fmt.Sprintf("Successfully modified file: %s (%d replacements).", abs, n), Wrote: []string{abs}}
}

func (c geminiImpl) glob(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("pattern"); !ok {
		return c.invalid(n)
	}
	dir, err := dirOf(env, a.str("dir_path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	pat := a.str("pattern")
	hits, truncated, err := globFiles(ctx, dir, pat, geminiGlobN)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(hits) == 0 {
		return Result{Content: fmt.Sprintf("No files found matching pattern %q within %s", pat, dir)}
	}
	paths := make([]string, len(hits))
	for i, h := range hits {
		paths[i] = h.Path
	}
	msg := fmt.Sprintf("Found %d file(s) matching %q within %s, sorted by modification time (newest first):\n%s", len(hits), pat, dir, strings.Join(paths, "\n"))
	if truncated {
		msg += fmt.Sprintf("\n(Skillet stopped at %d files; more match. Use a more specific pattern.)", geminiGlobN)
	}
	return Result{Content: msg}
}

func (c geminiImpl) grep(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("pattern"); !ok {
		return c.invalid(n)
	}
	dir, err := dirOf(env, a.str("dir_path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	pat, inc := a.str("pattern"), a.str("include_pattern")
	total := a.integer("total_max_matches", geminiGrepN)
	if total < 1 {
		total = geminiGrepN
	}
	namesOnly := a.boolean("names_only")
	res, err := grepFiles(ctx, dir, grepOpts{pattern: pat, include: inc, exclude: a.str("exclude_pattern"), limit: total, filesOnly: namesOnly})
	if err != nil {
		return c.fail(Def{}, "Error during grep search operation: "+err.Error())
	}
	where := fmt.Sprintf("in path %q", dir)
	filter := ""
	if inc != "" {
		filter = fmt.Sprintf(" (filter: %q)", inc)
	}
	if len(res.Files) == 0 {
		return Result{Content: fmt.Sprintf("No matches found for pattern %q %s%s.", pat, where, filter)}
	}
	limited := ""
	if res.Truncated {
		limited = fmt.Sprintf(" (results limited to %d matches for performance)", total)
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(dir, p); err == nil {
			return filepath.ToSlash(r)
		}
		return p
	}
	var b strings.Builder
	if namesOnly {
		fmt.Fprintf(&b, "Found %d files with matches for pattern %q %s%s%s:\n", len(res.Files), pat, where, filter, limited)
		for _, f := range res.Files {
			b.WriteString(rel(f.Path) + "\n")
		}
		return Result{Content: strings.TrimRight(b.String(), "\n")}
	}
	perFile := a.integer("max_matches_per_file", 0)
	fmt.Fprintf(&b, "Found %d %s for pattern %q %s%s%s:\n---\n", res.Matches, plural(res.Matches, "match", "matches"), pat, where, filter, limited)
	files := res.Files
	sort.SliceStable(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for _, f := range files {
		fmt.Fprintf(&b, "File: %s\n", rel(f.Path))
		kept := 0
		for _, l := range f.Lines {
			if perFile > 0 && kept >= perFile {
				break
			}
			kept++
			fmt.Fprintf(&b, "L%d: %s\n", l.Num, l.Text)
		}
		b.WriteString("---\n")
	}
	return Result{Content: b.String()}
}

func (c geminiImpl) list(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("dir_path"); !ok {
		return c.invalid(n)
	}
	dir, err := dirOf(env, a.str("dir_path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	ents, truncated, err := listTree(ctx, dir, 1, a.strings("ignore"), geminiListN)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(ents) == 0 {
		return Result{Content: "Directory " + dir + " is empty."}
	}
	// ls.ts: folders first, then by name; files with their size.
	sort.SliceStable(ents, func(i, j int) bool {
		if ents[i].Dir != ents[j].Dir {
			return ents[i].Dir
		}
		return ents[i].Name < ents[j].Name
	})
	lines := make([]string, len(ents))
	for i, e := range ents {
		if e.Dir {
			lines[i] = "[DIR] " + e.Name
			continue
		}
		size := int64(0)
		if st, err := os.Stat(filepath.Join(dir, e.Name)); err == nil {
			size = st.Size()
		}
		lines[i] = fmt.Sprintf("%s (%d bytes)", e.Name, size)
	}
	msg := "Directory listing for " + dir + ":\n" + strings.Join(lines, "\n")
	if truncated {
		msg += fmt.Sprintf("\n\n(Skillet listed the first %d entries only.)", geminiListN)
	}
	return Result{Content: msg}
}
