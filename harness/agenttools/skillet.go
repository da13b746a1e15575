package agenttools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Skillet's own tools: a small, plainly framed set. Every result is text
// with a one-line header or footer saying what was done and what was cut;
// errors start with "error: ".
const (
	skilletSrc     = "skillet (harness/agenttools/skillet.go)"
	skilletLines   = 2000
	skilletLine    = 2000
	skilletOut     = 30000
	skilletSearchN = 100
)

func skilletDefs() []Def {
	return []Def{
		{Name: "shell", Kind: KindShell, Source: skilletSrc,
			Description: "Run a shell command in the sandboxed workspace (or workdir). Returns the exit code, the time taken and the output; " +
				"output past 30,000 bytes keeps its start and end.",
			Parameters: schema([]string{"command"}, map[string]any{
				"command":    prop("string", "The shell command to run."),
				"workdir":    prop("string", "Folder to run it in, relative to the workspace; the workspace when omitted."),
				"timeout_ms": prop("integer", "Time limit in milliseconds; the sandbox's limit when omitted."),
			})},
		{Name: "read", Kind: KindRead, ReadOnly: true, Source: skilletSrc,
			Description: "Read a text file with numbered lines: up to 2000 lines from offset (1-based), lines over 2000 bytes cut. " +
				"Binary files are refused with their size.",
			Parameters: schema([]string{"path"}, map[string]any{
				"path":   prop("string", "File path, relative to the workspace or absolute (skill folders are readable)."),
				"offset": prop("integer", "First line to read (1-based).", "default", 1),
				"limit":  prop("integer", "How many lines to read.", "default", skilletLines),
			})},
		{Name: "write", Kind: KindWrite, Source: skilletSrc,
			Description: "Write a file in the workspace, replacing it if it exists; missing folders are created.",
			Parameters: schema([]string{"path", "content"}, map[string]any{
				"path":    prop("string", "File path, relative to the workspace."),
				"content": prop("string", "The whole new content."),
			})},
		{Name: "edit", Kind: KindEdit, Source: skilletSrc,
			Description: "Replace exact text in a workspace file: old_text must occur exactly once unless replace_all is set.",
			Parameters: schema([]string{"path", "old_text", "new_text"}, map[string]any{
				"path":        prop("string", "File path, relative to the workspace."),
				"old_text":    prop("string", "The exact text to replace."),
				"new_text":    prop("string", "The text to put in its place."),
				"replace_all": prop("boolean", "Replace every occurrence.", "default", false),
			})},
		{Name: "glob", Kind: KindGlob, ReadOnly: true, Source: skilletSrc,
			Description: "List files matching a glob pattern (** for any depth), newest first; at most 100.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern": prop("string", "The glob pattern, e.g. **/*.md."),
				"path":    prop("string", "Folder to search; the workspace when omitted."),
			})},
		{Name: "grep", Kind: KindGrep, ReadOnly: true, Source: skilletSrc,
			Description: "Search file contents with a regular expression (RE2 syntax); at most 100 matching lines as path:line: text.",
			Parameters: schema([]string{"pattern"}, map[string]any{
				"pattern":     prop("string", "Regular expression to look for."),
				"path":        prop("string", "File or folder to search; the workspace when omitted."),
				"glob":        prop("string", "Only files matching this glob, e.g. *.py."),
				"ignore_case": prop("boolean", "Ignore case.", "default", false),
			})},
	}
}

type skilletImpl struct{}

func (skilletImpl) names(def Def) argNames { return argNames{command: "command", path: "path"} }

func (skilletImpl) fail(_ Def, msg string) Result {
	return Result{Content: "error: " + msg, IsError: true}
}

func (c skilletImpl) run(ctx context.Context, env Env, def Def, a args) Result {
	need := map[Kind][]string{KindShell: {"command"}, KindRead: {"path"}, KindWrite: {"path", "content"},
		KindEdit: {"path", "old_text", "new_text"}, KindGlob: {"pattern"}, KindGrep: {"pattern"}}
	if n, ok := a.required(need[def.Kind]...); !ok {
		return c.fail(def, fmt.Sprintf("%s needs the %q argument", def.Name, n))
	}
	switch def.Kind {
	case KindShell:
		return c.shell(ctx, env, a)
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

func (c skilletImpl) shell(ctx context.Context, env Env, a args) Result {
	call := shellCall{command: a.str("command"), workdir: a.str("workdir"),
		timeout: time.Duration(max(0, a.integer("timeout_ms", 0))) * time.Millisecond}
	o := runShell(ctx, env, call)
	if o.refused != "" {
		return c.fail(Def{}, o.refused)
	}
	out := o.combined()
	var b strings.Builder
	fmt.Fprintf(&b, "exit code: %d", o.res.ExitCode)
	if o.res.Signal != "" {
		fmt.Fprintf(&b, " (signal %s)", o.res.Signal)
	}
	fmt.Fprintf(&b, "\nduration: %.2fs\n", o.res.Duration.Seconds())
	if note := o.limitNote(); note != "" {
		b.WriteString("note: " + note + "\n")
	}
	head, tail, lines, cut := middleCut(out, skilletOut)
	if cut {
		fmt.Fprintf(&b, "note: output is %d bytes; the middle %d lines are left out\n", len(out), lines)
	}
	b.WriteString("output:\n")
	b.WriteString(head)
	if cut {
		fmt.Fprintf(&b, "\n[… %d lines left out …]\n", lines)
		b.WriteString(tail)
	}
	return Result{Content: b.String(), IsError: o.res.ExitCode != 0, Shell: o.run(call)}
}

func (c skilletImpl) read(env Env, a args) Result {
	p := a.str("path")
	abs, err := resolve(env, p, false)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	f, _, err := openText(abs, p)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	defer f.Close()
	offset, limit := max(1, a.integer("offset", 1)), a.integer("limit", skilletLines)
	if limit <= 0 {
		limit = skilletLines
	}
	w, err := readWindow(f, windowOpts{offset: offset, limit: limit, maxLine: skilletLine, lineSuffix: " [line cut]"})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(w.Lines) == 0 {
		if w.Total == 0 {
			return Result{Content: fmt.Sprintf("[%s is empty]", p)}
		}
		return c.fail(Def{}, fmt.Sprintf("%s has %d lines; offset %d is past the end", p, w.Total, offset))
	}
	var b strings.Builder
	b.WriteString(numbered(w.Lines, offset, "\t"))
	last := offset + len(w.Lines) - 1
	switch {
	case w.More:
		fmt.Fprintf(&b, "\n[lines %d-%d shown; more follow: read again with offset=%d]", offset, last, last+1)
	default:
		fmt.Fprintf(&b, "\n[lines %d-%d of %d]", offset, last, w.Total)
	}
	if w.LongLines > 0 {
		fmt.Fprintf(&b, "\n[%d lines longer than %d bytes were cut]", w.LongLines, skilletLine)
	}
	if w.Invalid {
		b.WriteString("\n[bytes that are not UTF-8 are shown as \uFFFD]")
	}
	return Result{Content: b.String()}
}

func (c skilletImpl) write(env Env, a args) Result {
	p, content := a.str("path"), a.str("content")
	abs, err := resolve(env, p, true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	existed, err := writeFile(abs, []byte(content))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	verb := "created"
	if existed {
		verb = "replaced"
	}
	return Result{Content: fmt.Sprintf("%s %s (%d bytes)", verb, p, len(content)), Wrote: []string{abs}}
}

func (c skilletImpl) edit(env Env, a args) Result {
	p, old, repl, all := a.str("path"), a.str("old_text"), a.str("new_text"), a.boolean("replace_all")
	if old == "" {
		return c.fail(Def{}, "old_text is empty; use write to create a file")
	}
	abs, err := resolve(env, p, true)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	content, err := loadForEdit(abs, p)
	if err != nil {
		var oe *openErr
		if errors.As(err, &oe) && oe.kind == "missing" {
			return c.fail(Def{}, p+" does not exist")
		}
		return c.fail(Def{}, err.Error())
	}
	updated, n := replaceIn(content, old, repl, all)
	switch {
	case n == 0:
		return c.fail(Def{}, "old_text was not found in "+p)
	case n > 1 && !all:
		return c.fail(Def{}, fmt.Sprintf("old_text occurs %d times in %s; include more context or set replace_all", n, p))
	}
	if _, err := writeFile(abs, []byte(updated)); err != nil {
		return c.fail(Def{}, err.Error())
	}
	return Result{Content: fmt.Sprintf("edited %s (%d %s)", p, n, plural(n, "replacement", "replacements")), Wrote: []string{abs}}
}

func (c skilletImpl) rel(env Env, p string) string {
	if r, err := filepath.Rel(env.Files.Root(), p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

func (c skilletImpl) glob(ctx context.Context, env Env, a args) Result {
	dir, err := dirOf(env, a.str("path"))
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	hits, truncated, err := globFiles(ctx, dir, a.str("pattern"), skilletSearchN)
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if len(hits) == 0 {
		return Result{Content: "[no files match]"}
	}
	var b strings.Builder
	for _, h := range hits {
		b.WriteString(c.rel(env, h.Path) + "\n")
	}
	if truncated {
		fmt.Fprintf(&b, "[first %d files shown; more match: narrow the pattern or path]", skilletSearchN)
	} else {
		fmt.Fprintf(&b, "[%d %s]", len(hits), plural(len(hits), "file", "files"))
	}
	return Result{Content: b.String()}
}

func (c skilletImpl) grep(ctx context.Context, env Env, a args) Result {
	root := env.Files.Root()
	if p := a.str("path"); p != "" {
		abs, err := resolve(env, p, false)
		if err != nil {
			return c.fail(Def{}, err.Error())
		}
		if _, err := os.Stat(abs); err != nil {
			return c.fail(Def{}, p+" does not exist")
		}
		root = abs
	}
	res, err := grepFiles(ctx, root, grepOpts{pattern: a.str("pattern"), ignoreCase: a.boolean("ignore_case"),
		include: a.str("glob"), limit: skilletSearchN, maxLine: skilletLine})
	if err != nil {
		return c.fail(Def{}, err.Error())
	}
	if res.Matches == 0 {
		return Result{Content: "[no matches]"}
	}
	var b strings.Builder
	for _, f := range res.Files {
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "%s:%d: %s\n", c.rel(env, f.Path), l.Num, l.Text)
		}
	}
	if res.Truncated {
		fmt.Fprintf(&b, "[first %d matching lines shown; more match: narrow the pattern, path or glob]", skilletSearchN)
	} else {
		fmt.Fprintf(&b, "[%d matching %s in %d %s]", res.Matches, plural(res.Matches, "line", "lines"), len(res.Files), plural(len(res.Files), "file", "files"))
	}
	return Result{Content: b.String()}
}
