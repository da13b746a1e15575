package agenttools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// opencode's tools. Source: sst/opencode packages/opencode/src/tool
// (bash.ts, read.ts, write.ts, edit.ts, glob.ts, grep.ts, ls.ts), read
// through the anomalyco/opencode copy of the repository.
const (
	opencodeSrc     = "sst/opencode packages/opencode/src/tool (bash.ts read.ts write.ts edit.ts glob.ts grep.ts ls.ts)"
	opencodeReadN   = 2000      // read.ts DEFAULT_READ_LIMIT
	opencodeLine    = 2000      // read.ts MAX_LINE_LENGTH
	opencodeBytes   = 50 * 1024 // read.ts MAX_BYTES
	opencodeBashMs  = 120000    // bash.ts DEFAULT_TIMEOUT (2 minutes)
	opencodeBashOut = 30000     // bash.ts MAX_OUTPUT_LENGTH
	opencodeLimit   = 100       // glob.ts, grep.ts and ls.ts limits
	opencodeCount   = 64 << 20  // Skillet counts a file's lines only up to here
)

// opencodeIgnore are the folders ls leaves out unless asked (ls.ts
// IGNORE_PATTERNS, the common ones).
var opencodeIgnore = []string{"node_modules/", "__pycache__/", ".git/", "dist/", "build/", "target/", "vendor/",
	"bin/", "obj/", ".idea/", ".vscode/", ".zig-cache/", "zig-out", ".coverage", "coverage/", "tmp/", "temp/",
	".cache/", "cache/", "logs/", ".venv/", "venv/", "env/"}

func opencodeDefs() []Def {
	return []Def{
		{Name: "bash", Kind: KindShell, Source: opencodeSrc,
			Description: "Run a shell command (sandboxed) in the workspace or workdir; stdout and stderr come back together. " +
				"It stops after timeout milliseconds (default 120000); output past 30,000 characters is cut.",
			Parameters: schema([]string{"command", "description"}, map[string]any{
				"command":     prop("string", "The shell command to run."),
				"timeout":     prop("number", "Time limit in milliseconds."),
				"workdir":     prop("string", "Folder to run it in; the workspace when omitted."),
				"description": prop("string", "A few words saying what the command does."),
			})},
		{Name: "read", Kind: KindRead, ReadOnly: true, Source: opencodeSrc,
			Description: "Read a text file (or list a folder): numbered lines, 2000 from offset (1-based) unless limit says otherwise, " +
				"lines over 2000 characters cut, at most 50 KB in one read. Binary files are refused.",
			Parameters: schema([]string{"filePath"}, map[string]any{
				"filePath": prop("string", "Path of the file or folder."),
				"offset":   prop("number", "Line number to start at (1-based)."),
				"limit":    prop("number", "How many lines to read (default 2000)."),
			})},
		{Name: "write", Kind: KindWrite, Source: opencodeSrc,
			Description: "Write a file, replacing it if it exists; missing folders are created.",
			Parameters: schema([]string{"content", "filePath"}, map[string]any{
				"content":  prop("string", "The whole new content."),
				"filePath": prop("string", "Path of the file to write."),
			})},
		{Name: "edit", Kind: KindEdit, Source: opencodeSrc,
			Description: "Replace exact text in a file (once, or everywhere with replaceAll); an empty oldString writes newString as the whole file.",
			Parameters: schema([]string{"filePath", "oldString", "newString"}, map[string]any{
				"filePath":   prop("string", "Path of the file to change."),
				"oldString":  prop("string", "The exact text to replace."),
				"newString":  prop("string", "The text to put in its place (must differ)."),
				"replaceAll": prop("boolean", "Replace every occurrence (default false)."),
			})},
		{Name: "glob", Kind: KindGlob, ReadOnly: true, Source: opencodeSrc,
			Description: "Find files by glob pattern (** for any depth), newest first; at most 100 results.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern": prop("string", "The glob pattern."),
				"path":    prop("string", "Folder to search in; the workspace when omitted."),
			})},
		{Name: "grep", Kind: KindGrep, ReadOnly: true, Source: opencodeSrc,
			Description: "Search file contents with a regular expression; at most 100 matching lines, grouped by file.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern": prop("string", "Regular expression to look for."),
				"path":    prop("string", "Folder to search; the workspace when omitted."),
				"include": prop("string", "Only files matching this pattern, e.g. *.{ts,tsx}."),
			})},
		{Name: "list", Kind: KindList, ReadOnly: true, Source: opencodeSrc,
			Description: "List a folder as a tree (at most 100 entries); build, cache and dependency folders are left out.",
			Parameters: schema(nil, map[string]any{
				"path":   prop("string", "Folder to list; the workspace when omitted."),
				"ignore": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Glob patterns to leave out."},
			})},
	}
}

type opencodeImpl struct{}

func (opencodeImpl) names(def Def) argNames {
	return argNames{command: "command", path: pathArg(def, "filePath", "path")}
}

// fail: opencode throws; the model gets "Error: <message>" with is_error
// (packages/opencode/src/session/prompt.ts, tool error parts).
func (opencodeImpl) fail(_ Def, msg string) Result {
	return Result{Content: "Error: " + msg, IsError: true}
}

func (c opencodeImpl) run(ctx context.Context, env Env, def Def, a args) Result {
	switch def.Kind {
	case KindShell:
		return c.bash(ctx, env, a)
	case KindRead:
		return c.read(ctx, env, a)
	case KindWrite:
		return c.write(env, a)
	case KindEdit:
		return c.edit(env, a)
	case KindGlob:
		return c.glob(ctx, env, a)
	case KindGrep:
		return c.grep(ctx, env, a)
	case KindList:
		return c.list(ctx, env, a)
	}
	return c.fail(def, "unsupported tool "+def.Name)
}

func (c opencodeImpl) invalid(name string) Result {
	return c.fail(Def{}, fmt.Sprintf("The tool was called with invalid arguments: %s is required", name))
}

func (c opencodeImpl) bash(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("command"); !ok {
		return c.invalid(n)
	}
	ms := a.integer("timeout", opencodeBashMs)
	if ms <= 0 {
		return c.fail(Def{}, fmt.Sprintf("Invalid timeout value: %d. Timeout must be a positive number.", ms))
	}
	call := shellCall{command: a.str("command"), workdir: a.str("workdir"), timeout: time.Duration(ms) * time.Millisecond}
	o := runShell(ctx, env, call)
	if o.refused != "" {
		return c.fail(Def{}, o.refused)
	}
	out := o.combined()
	var meta []string
	if len(out) > opencodeBashOut {
		out = out[:runeFloor(out, opencodeBashOut)]
		meta = append(meta, fmt.Sprintf("bash tool truncated output as it exceeded %d char limit", opencodeBashOut))
	}
	if o.timedOut() {
		meta = append(meta, fmt.Sprintf("bash tool terminated command after exceeding timeout %d ms", ms))
	} else if note := o.limitNote(); note != "" {
		meta = append(meta, note)
	}
	if len(meta) > 0 {
		out += "\n\n<bash_metadata>\n" + strings.Join(meta, "\n") + "\n</bash_metadata>"
	}
	return Result{Content: out, Shell: o.run(call)}
}

func (c opencodeImpl) read(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("filePath"); !ok {
		return c.invalid(n)
	}
	p := a.str("filePath")
	if a.has("offset") && a.integer("offset", 1) < 1 {
		return c.fail(Def{}, "offset must be greater than or equal to 1")
	}
	abs, err := resolve(env, p, false)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	offset, limit := a.integer("offset", 1), a.integer("limit", opencodeReadN)
	if limit <= 0 {
		limit = opencodeReadN
	}
	f, _, err := openText(abs, abs)
	if err != nil {
		var oe *openErr
		if errors.As(err, &oe) {
			switch oe.kind {
			case "missing":
				return c.fail(Def{}, "File not found: "+abs)
			case "dir":
				return c.readDir(ctx, abs, offset, limit)
			case "binary":
				return c.fail(Def{}, fmt.Sprintf("Cannot read binary file: %s (%s)", abs, humanBytes(oe.size)))
			}
		}
		return c.fail(Def{}, err.Error())
	}
	defer f.Close()
	w, err := readWindow(f, windowOpts{offset: offset, limit: limit, maxLine: opencodeLine,
		lineSuffix: fmt.Sprintf("... (line truncated to %d chars)", opencodeLine), maxBytes: opencodeBytes,
		countTotal: true, countCap: opencodeCount})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(w.Lines) == 0 && !(w.Total == 0 && offset == 1) {
		return c.fail(Def{}, fmt.Sprintf("Offset %d is out of range for this file (%d lines)", offset, w.Total))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<path>%s</path>\n<type>file</type>\n<content>\n", abs)
	for i, l := range w.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d: %s", offset+i, l) // read.ts: `${n}: ${line}`
	}
	last := offset + len(w.Lines) - 1
	switch {
	case w.Cut:
		fmt.Fprintf(&b, "\n\n(Output capped at %d KB. Showing lines %d-%d. Use offset=%d to continue.)", opencodeBytes/1024, offset, last, last+1)
	case w.More && w.Total >= 0:
		fmt.Fprintf(&b, "\n\n(Showing lines %d-%d of %d. Use offset=%d to continue.)", offset, last, w.Total, last+1)
	case w.More:
		fmt.Fprintf(&b, "\n\n(Showing lines %d-%d. Use offset=%d to continue.)", offset, last, last+1)
	default:
		fmt.Fprintf(&b, "\n\n(End of file - total %d lines)", w.Total)
	}
	b.WriteString("\n</content>")
	return Result{Content: b.String()}
}

func (c opencodeImpl) readDir(ctx context.Context, abs string, offset, limit int) Result {
	ents, _, err := listTree(ctx, abs, 1, nil, 1<<20)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name
		if e.Dir {
			names[i] += "/"
		}
	}
	start := min(offset-1, len(names))
	end := min(start+limit, len(names))
	var b strings.Builder
	fmt.Fprintf(&b, "<path>%s</path>\n<type>directory</type>\n<entries>\n%s\n", abs, strings.Join(names[start:end], "\n"))
	if end < len(names) {
		fmt.Fprintf(&b, "\n(Showing %d of %d entries. Use 'offset' parameter to read beyond entry %d)\n", end-start, len(names), offset+end-start)
	} else {
		fmt.Fprintf(&b, "\n(%d entries)\n", len(names))
	}
	b.WriteString("</entries>")
	return Result{Content: b.String()}
}

func (c opencodeImpl) write(env Env, a args) Result {
	if n, ok := a.required("filePath", "content"); !ok {
		return c.invalid(n)
	}
	abs, err := resolve(env, a.str("filePath"), true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if _, err := writeFile(abs, []byte(a.str("content"))); err != nil {
		return c.fail(Def{}, err.Error())
	}
	return Result{Content: "Wrote file successfully.", Wrote: []string{abs}} // write.ts
}

func (c opencodeImpl) edit(env Env, a args) Result {
	if n, ok := a.required("filePath", "oldString", "newString"); !ok {
		return c.invalid(n)
	}
	p, old, repl, all := a.str("filePath"), a.str("oldString"), a.str("newString"), a.boolean("replaceAll")
	if old == repl {
		return c.fail(Def{}, "No changes to apply: oldString and newString are identical.")
	}
	abs, err := resolve(env, p, true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if old == "" {
		if _, err := writeFile(abs, []byte(repl)); err != nil {
			return c.fail(Def{}, err.Error())
		}
		return Result{Content: "Edit applied successfully.", Wrote: []string{abs}}
	}
	if st, err := os.Stat(abs); err != nil {
		return c.fail(Def{}, "File "+abs+" not found")
	} else if st.IsDir() {
		return c.fail(Def{}, "Path is a directory, not a file: "+abs)
	}
	content, err := loadForEdit(abs, abs)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	updated, n := replaceIn(content, old, repl, all)
	switch {
	case n == 0:
		return c.fail(Def{}, "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.")
	case n > 1 && !all:
		return c.fail(Def{}, "Found multiple matches for oldString. Provide more surrounding context to make the match unique.")
	}
	if _, err := writeFile(abs, []byte(updated)); err != nil {
		return c.fail(Def{}, err.Error())
	}
	return Result{Content: "Edit applied successfully.", Wrote: []string{abs}}
}

func (c opencodeImpl) glob(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("pattern"); !ok {
		return c.invalid(n)
	}
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	hits, truncated, err := globFiles(ctx, dir, a.str("pattern"), opencodeLimit)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(hits) == 0 {
		return Result{Content: "No files found"}
	}
	lines := make([]string, len(hits))
	for i, h := range hits {
		lines[i] = h.Path
	}
	if truncated {
		lines = append(lines, "", fmt.Sprintf("(Results are truncated: showing first %d results. Consider using a more specific path or pattern.)", opencodeLimit))
	}
	return Result{Content: strings.Join(lines, "\n")}
}

func (c opencodeImpl) grep(ctx context.Context, env Env, a args) Result {
	if n, ok := a.required("pattern"); !ok {
		return c.invalid(n)
	}
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	res, err := grepFiles(ctx, dir, grepOpts{pattern: a.str("pattern"), include: a.str("include"), limit: opencodeLimit, maxLine: opencodeLine})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if res.Matches == 0 {
		return Result{Content: "No files found"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d matches", res.Matches)
	for _, f := range res.Files {
		fmt.Fprintf(&b, "\n%s:", f.Path)
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "\n  Line %d: %s", l.Num, l.Text)
		}
		b.WriteString("\n")
	}
	if res.Truncated {
		fmt.Fprintf(&b, "\n(Results are truncated: showing first %d matches. Consider using a more specific path or pattern.)", opencodeLimit)
	}
	return Result{Content: strings.TrimRight(b.String(), "\n")}
}

func (c opencodeImpl) list(ctx context.Context, env Env, a args) Result {
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	ignore := append([]string{}, a.strings("ignore")...)
	for _, g := range opencodeIgnore {
		ignore = append(ignore, strings.TrimSuffix(g, "/"))
	}
	ents, _, err := listTree(ctx, dir, 1<<20, ignore, opencodeLimit)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	return Result{Content: strings.TrimRight(tree(dir, ents, "", "  "), "\n")}
}
