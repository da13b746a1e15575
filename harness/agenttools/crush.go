package agenttools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Crush's tools. Source: charmbracelet/crush internal/agent/tools
// (bash.go, view.go, write.go, edit.go, glob.go, grep.go, ls.go) at
// 37f36e9 (2026-08-21).
const (
	crushSrc      = "charmbracelet/crush internal/agent/tools (bash.go view.go write.go edit.go glob.go grep.go ls.go)"
	crushReadN    = 200        // view.go DefaultReadLimit
	crushLine     = 2000       // view.go MaxLineLength
	crushViewMax  = 200 * 1024 // view.go MaxViewSize
	crushBashOut  = 30000      // bash.go MaxOutputLength
	crushSearchN  = 100        // glob.go and grep.go limits
	crushGrepLine = 500        // grep.go maxGrepContentWidth
	crushLsMax    = 1000       // ls.go maxLSFiles
)

func crushDefs() []Def {
	return []Def{
		{Name: "bash", Kind: KindShell, Source: crushSrc,
			Description: "Run a shell command (sandboxed) in the workspace or working_dir. Output is returned with the exit code when it fails; " +
				"past 30,000 characters the middle is cut. Skillet runs commands to completion: there are no background jobs.",
			Parameters: schema([]string{"description", "command"}, map[string]any{
				"description":           prop("string", "A few words saying what the command does."),
				"command":               prop("string", "The shell command to run."),
				"working_dir":           prop("string", "Folder to run it in; the workspace when omitted."),
				"run_in_background":     prop("boolean", "Ask for a background job; Skillet runs it in the foreground."),
				"auto_background_after": prop("integer", "Seconds before a long command would move to the background (default 60); not used by Skillet."),
			})},
		{Name: "view", Kind: KindRead, ReadOnly: true, Source: crushSrc,
			Description: "Read a text file with numbered lines: 200 lines from offset (0-based) unless limit says otherwise, " +
				"lines over 2000 characters cut, at most 200 KB in one read. Binary files are refused.",
			Parameters: schema([]string{"file_path"}, map[string]any{
				"file_path": prop("string", "Path of the file."),
				"offset":    prop("integer", "Lines to skip first (0-based)."),
				"limit":     prop("integer", "How many lines to read (default 200)."),
			})},
		{Name: "write", Kind: KindWrite, Source: crushSrc,
			Description: "Write a file, replacing it if it exists; missing folders are created.",
			Parameters: schema([]string{"file_path", "content"}, map[string]any{
				"file_path": prop("string", "Path of the file to write."),
				"content":   prop("string", "The whole new content."),
			})},
		{Name: "edit", Kind: KindEdit, Source: crushSrc,
			Description: "Replace exact text in a file (once, or everywhere with replace_all). An empty old_string creates a new file; " +
				"an empty new_string deletes the text.",
			Parameters: schema([]string{"file_path", "old_string", "new_string"}, map[string]any{
				"file_path":   prop("string", "Path of the file to change."),
				"old_string":  prop("string", "The exact text to replace."),
				"new_string":  prop("string", "The text to put in its place."),
				"replace_all": prop("boolean", "Replace every occurrence (default false)."),
			})},
		{Name: "glob", Kind: KindGlob, ReadOnly: true, Source: crushSrc,
			Description: "Find files by glob pattern (** for any depth), newest first; at most 100 results.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern": prop("string", "The glob pattern."),
				"path":    prop("string", "Folder to search in; the workspace when omitted."),
			})},
		{Name: "grep", Kind: KindGrep, ReadOnly: true, Source: crushSrc,
			Description: "Search file contents with a regular expression (or literal text); at most 100 matching lines, grouped by file.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern":      prop("string", "Regular expression to look for."),
				"path":         prop("string", "Folder to search; the workspace when omitted."),
				"include":      prop("string", "Only files matching this pattern, e.g. *.{ts,tsx}."),
				"literal_text": prop("boolean", "Treat the pattern as plain text."),
			})},
		{Name: "ls", Kind: KindList, ReadOnly: true, Source: crushSrc,
			Description: "List a folder as a tree (at most 1000 entries), skipping ignored patterns.",
			Parameters: schema(nil, map[string]any{
				"path":   prop("string", "Folder to list; the workspace when omitted."),
				"ignore": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Glob patterns to leave out."},
				"depth":  prop("integer", "How many levels to show."),
			})},
	}
}

type crushImpl struct{}

func (crushImpl) names(def Def) argNames {
	return argNames{command: "command", path: pathArg(def, "file_path", "path")}
}

// fail: Crush's NewTextErrorResponse, plain text with is_error.
func (crushImpl) fail(_ Def, msg string) Result { return Result{Content: msg, IsError: true} }

func (c crushImpl) run(ctx context.Context, env Env, def Def, a args) Result {
	switch def.Kind {
	case KindShell:
		return c.bash(ctx, env, a)
	case KindRead:
		return c.view(env, a)
	case KindWrite:
		return c.write(env, a)
	case KindEdit:
		return c.edit(env, a)
	case KindGlob:
		return c.glob(ctx, env, a)
	case KindGrep:
		return c.grep(ctx, env, a)
	case KindList:
		return c.ls(ctx, env, a)
	}
	return c.fail(def, "unsupported tool "+def.Name)
}

func (c crushImpl) bash(ctx context.Context, env Env, a args) Result {
	if a.str("command") == "" {
		return c.fail(Def{}, "missing command") // bash.go
	}
	call := shellCall{command: a.str("command"), workdir: a.str("working_dir")}
	o := runShell(ctx, env, call)
	if o.refused != "" {
		return c.fail(Def{}, o.refused)
	}
	// formatOutput: stdout, then stderr and "Exit code N" (or the abort
	// note), each stream cut in the middle at 30,000 characters.
	stdout, stderr := validText(o.res.Stdout), validText(o.res.Stderr)
	if o.res.Stdout == "" && o.res.Stderr == "" {
		stdout = o.combined()
	}
	stdout, stderr = crushCut(stdout), crushCut(stderr)
	msg := stderr
	if note := o.limitNote(); note != "" {
		msg = strings.TrimSpace(msg + "\n" + note)
	}
	if o.timedOut() {
		if msg != "" {
			msg += "\n"
		}
		msg += "Command was aborted before completion"
	} else if o.res.ExitCode != 0 {
		if msg != "" {
			msg += "\n"
		}
		msg += fmt.Sprintf("Exit code %d", o.res.ExitCode)
	}
	out := stdout
	if stdout != "" && stderr != "" {
		out += "\n"
	}
	if msg != "" {
		out += "\n" + msg
	}
	res := Result{Shell: o.run(call)}
	if out == "" {
		res.Content = "no output" // bash.go BashNoOutput
		return res
	}
	res.Content = out + "\n\n<cwd>" + filepath.ToSlash(o.dir) + "</cwd>"
	return res
}

func crushCut(s string) string {
	head, tail, lines, cut := middleCut(s, crushBashOut)
	if !cut {
		return s
	}
	return fmt.Sprintf("%s\n\n... [%d lines truncated] ...\n\n%s", head, lines, tail)
}

func (c crushImpl) view(env Env, a args) Result {
	p := a.str("file_path")
	if p == "" {
		return c.fail(Def{}, "file_path is required")
	}
	abs, err := resolve(env, p, false)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	f, _, err := openText(abs, p)
	if err != nil {
		var oe *openErr
		if errors.As(err, &oe) {
			switch oe.kind {
			case "missing":
				return c.fail(Def{}, "File not found: "+p)
			case "dir":
				return c.fail(Def{}, "Path is a directory, not a file: "+p)
			}
		}
		return c.fail(Def{}, err.Error())
	}
	defer f.Close()
	offset := max(0, a.integer("offset", 0))
	limit := a.integer("limit", 0)
	// A file in a skill folder is read whole: no line limit, no size cap
	// (view.go isSkillFile: Limit 1000000, maxContentSize 0).
	skillFile := false
	for _, d := range env.SkillDirs {
		if within(d, abs) {
			skillFile = true
		}
	}
	if limit <= 0 {
		limit = crushReadN
		if skillFile {
			limit = 1000000
		}
	}
	w, err := readWindow(f, windowOpts{offset: offset + 1, limit: limit, maxLine: crushLine, lineSuffix: "..."})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	size := 0
	for _, l := range w.Lines {
		size += len(l) + 1
	}
	if size > crushViewMax && !skillFile {
		return c.fail(Def{}, fmt.Sprintf("Content section is too large (%d bytes). Maximum size is %d bytes", size, crushViewMax))
	}
	if w.Invalid {
		return c.fail(Def{}, "File content is not valid UTF-8") // view.go
	}
	var b strings.Builder
	b.WriteString("<file>\n")
	if len(w.Lines) > 0 {
		b.WriteString(numbered(w.Lines, offset+1, "|")) // view.go addLineNumbers
	}
	if w.More {
		fmt.Fprintf(&b, "\n\n(File has more lines. Use 'offset' parameter to read beyond line %d)", offset+len(w.Lines))
	}
	b.WriteString("\n</file>\n")
	return Result{Content: b.String()}
}

func (c crushImpl) write(env Env, a args) Result {
	p := a.str("file_path")
	if p == "" {
		return c.fail(Def{}, "file_path is required")
	}
	abs, err := resolve(env, p, true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	content := a.str("content")
	if st, err := os.Stat(abs); err == nil {
		if st.IsDir() {
			return c.fail(Def{}, "Path is a directory, not a file: "+p)
		}
		if old, err := os.ReadFile(abs); err == nil && string(old) == content {
			return c.fail(Def{}, fmt.Sprintf("File %s already contains the exact content. No changes made.", p))
		}
	}
	if _, err := writeFile(abs, []byte(content)); err != nil {
		return c.fail(Def{}, err.Error())
	}
	return Result{Content: fmt.Sprintf("<result>\nFile successfully written: %s\n</result>", p), Wrote: []string{abs}}
}

func (c crushImpl) edit(env Env, a args) Result {
	p := a.str("file_path")
	if p == "" {
		return c.fail(Def{}, "file_path is required")
	}
	old, repl, all := a.str("old_string"), a.str("new_string"), a.boolean("replace_all")
	abs, err := resolve(env, p, true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	st, statErr := os.Stat(abs)
	if old == "" {
		// edit.go createNewFile
		if statErr == nil {
			if st.IsDir() {
				return c.fail(Def{}, "path is a directory, not a file: "+p)
			}
			return c.fail(Def{}, "file already exists: "+p)
		}
		if _, err := writeFile(abs, []byte(repl)); err != nil {
			return c.fail(Def{}, err.Error())
		}
		return Result{Content: "<result>\nFile created: " + p + "\n</result>\n", Wrote: []string{abs}}
	}
	if statErr != nil {
		return c.fail(Def{}, "file not found: "+p)
	}
	if st.IsDir() {
		return c.fail(Def{}, "path is a directory, not a file: "+p)
	}
	content, err := loadForEdit(abs, p)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	updated, n := replaceIn(content, old, repl, all)
	switch {
	case n == 0:
		return c.fail(Def{}, "old_string not found in file. Make sure it matches exactly, including whitespace and line breaks")
	case n > 1 && !all:
		return c.fail(Def{}, "old_string appears multiple times in the file. Please provide more context to ensure a unique match, or set replace_all to true")
	case updated == content:
		return c.fail(Def{}, "new content is the same as old content. No changes made.")
	}
	if _, err := writeFile(abs, []byte(updated)); err != nil {
		return c.fail(Def{}, err.Error())
	}
	verb := "Content replaced in file: "
	if repl == "" {
		verb = "Content deleted from file: "
	}
	return Result{Content: "<result>\n" + verb + p + "\n</result>\n", Wrote: []string{abs}}
}

func (c crushImpl) glob(ctx context.Context, env Env, a args) Result {
	if a.str("pattern") == "" {
		return c.fail(Def{}, "pattern is required")
	}
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	hits, truncated, err := globFiles(ctx, dir, a.str("pattern"), crushSearchN)
	if err != nil {
		return c.fail(Def{}, "error finding files: "+err.Error())
	}
	if len(hits) == 0 {
		return Result{Content: "No files found"}
	}
	paths := make([]string, len(hits))
	for i, h := range hits {
		paths[i] = filepath.ToSlash(h.Path)
	}
	out := strings.Join(paths, "\n")
	if truncated {
		out += "\n\n(Results are truncated. Consider using a more specific path or pattern.)"
	}
	return Result{Content: out}
}

func (c crushImpl) grep(ctx context.Context, env Env, a args) Result {
	if a.str("pattern") == "" {
		return c.fail(Def{}, "pattern is required")
	}
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	res, err := grepFiles(ctx, dir, grepOpts{pattern: a.str("pattern"), literal: a.boolean("literal_text"),
		include: a.str("include"), limit: crushSearchN, maxLine: crushGrepLine})
	if err != nil {
		return c.fail(Def{}, "error searching files: "+err.Error())
	}
	if res.Matches == 0 {
		return Result{Content: "No files found"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d matches\n", res.Matches)
	for i, f := range res.Files {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s:\n", filepath.ToSlash(f.Path))
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "  Line %d: %s\n", l.Num, l.Text)
		}
	}
	if res.Truncated {
		b.WriteString("\n(Results are truncated. Consider using a more specific path or pattern.)")
	}
	return Result{Content: b.String()}
}

func (c crushImpl) ls(ctx context.Context, env Env, a args) Result {
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, "error resolving search path: "+err.Error())
	}
	depth := a.integer("depth", 0)
	walkDepth := depth
	if walkDepth <= 0 {
		walkDepth = 1 << 20
	}
	ents, truncated, err := listTree(ctx, dir, walkDepth, a.strings("ignore"), crushLsMax)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	var b strings.Builder
	if truncated {
		fmt.Fprintf(&b, "There are more than %d files in the directory. Use a more specific path or use the Glob tool to find specific files. The first %d files and directories are included below.\n", crushLsMax, crushLsMax)
	}
	if depth > 0 {
		fmt.Fprintf(&b, "The directory tree is shown up to a depth of %d. Use a higher depth and a specific path to see more levels.\n", depth)
	}
	b.WriteString("\n")
	b.WriteString(tree(dir, ents, "- ", "  "))
	return Result{Content: b.String()}
}

// tree renders entries as an indented list under the folder's path, as
// Crush's ls (printTree) and opencode's list do.
func tree(dir string, ents []listEntry, bullet, indent string) string {
	var b strings.Builder
	root := filepath.ToSlash(dir)
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	b.WriteString(bullet + root + "\n")
	for _, e := range ents {
		name := e.Name
		if e.Dir {
			name += "/"
		}
		b.WriteString(strings.Repeat(indent, e.Depth) + bullet + name + "\n")
	}
	return b.String()
}
