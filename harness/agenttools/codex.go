package agenttools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Codex's tools. Source: openai/codex codex-rs/tools/src/local_tool.rs
// (create_exec_command_tool: cmd, workdir, shell, tty, yield_time_ms,
// max_output_tokens, login), codex-rs/core/src/unified_exec (the
// "Chunk ID / Wall time / Process exited with code / Original token count
// / Output:" framing, 10,000-token default), codex-rs/core/src/tools/
// handlers/apply_patch.rs (the JSON apply_patch tool and its
// "apply_patch verification failed" errors) and codex-rs/apply-patch.
const (
	codexSrc       = "openai/codex codex-rs/tools/src/local_tool.rs, codex-rs/core/src/unified_exec, codex-rs/apply-patch"
	codexMaxTokens = 10000 // exec_command's max_output_tokens default
	codexBytesTok  = 4     // tokens are approximated as bytes / 4
)

func codexDefs() []Def {
	return []Def{
		{Name: "exec_command", Kind: KindShell, Source: codexSrc,
			Description: "Run a shell command in the workspace (sandboxed) and return its exit code and output. " +
				"Output past max_output_tokens (default 10000, about 4 bytes a token) is cut in the middle. " +
				"Skillet waits for the command to finish; there are no background sessions.",
			Parameters: schema([]string{"cmd"}, map[string]any{
				"cmd":               prop("string", "The shell command to run."),
				"workdir":           prop("string", "Folder to run it in; the workspace when omitted."),
				"shell":             prop("string", "Shell to launch; Skillet always uses the sandbox's shell."),
				"tty":               prop("boolean", "Ask for a terminal; Skillet runs with plain pipes."),
				"yield_time_ms":     prop("number", "How long to wait for output, in milliseconds; Skillet waits for the command to end."),
				"max_output_tokens": prop("number", "Most output to return, in tokens (default 10000)."),
				"login":             prop("boolean", "Run as a login shell (default true)."),
			})},
		{Name: "apply_patch", Kind: KindPatch, Source: codexSrc,
			Description: "Change files with a patch in Codex's format: *** Begin Patch, then *** Add File: / *** Update File: " +
				"(optionally *** Move to:) / *** Delete File: sections, @@ hunks of ' ', '-' and '+' lines, *** End Patch. " +
				"Every hunk is checked against the files before any is written.",
			Parameters: schema([]string{"input"}, map[string]any{
				"input": prop("string", "The whole patch, from *** Begin Patch to *** End Patch."),
			})},
	}
}

type codexImpl struct{}

func (codexImpl) names(Def) argNames { return argNames{command: "cmd", path: ""} }

// fail: Codex answers a bad call with plain text the model reads
// (FunctionCallError::RespondToModel).
func (codexImpl) fail(_ Def, msg string) Result { return Result{Content: msg, IsError: true} }

func (c codexImpl) run(ctx context.Context, env Env, def Def, a args) Result {
	switch def.Kind {
	case KindShell:
		return c.exec(ctx, env, a)
	case KindPatch:
		return c.patch(env, a)
	}
	return c.fail(def, "unsupported call: "+def.Name)
}

func (c codexImpl) exec(ctx context.Context, env Env, a args) Result {
	if !a.has("cmd") {
		return c.fail(Def{}, "failed to parse function arguments: missing field `cmd`")
	}
	call := shellCall{command: a.str("cmd"), workdir: a.str("workdir")}
	// `apply_patch <<'EOF' … EOF` through the shell is applied as a patch,
	// as Codex intercepts it (codex-rs/apply-patch/src/lib.rs
	// maybe_parse_apply_patch).
	if dir, body, ok := heredocPatch(call.command); ok {
		base := call.workdir
		if dir != "" {
			base = filepath.Join(base, dir)
		}
		return c.applyIn(env, body, base)
	}
	o := runShell(ctx, env, call)
	if o.refused != "" {
		return c.fail(Def{}, o.refused)
	}
	out := o.combined()
	if note := o.limitNote(); note != "" {
		out = strings.TrimRight(out, "\n") + "\n(" + note + ")\n"
	}
	maxTok := a.integer("max_output_tokens", codexMaxTokens)
	if maxTok <= 0 {
		maxTok = codexMaxTokens
	}
	origTokens := (len(out) + codexBytesTok - 1) / codexBytesTok
	text := codexTruncate(out, maxTok)
	sum := sha256.Sum256([]byte(call.command + "\x00" + out))
	var b strings.Builder
	fmt.Fprintf(&b, "Chunk ID: %s\n", hex.EncodeToString(sum[:3]))
	fmt.Fprintf(&b, "Wall time: %.4f seconds\n", o.res.Duration.Seconds())
	fmt.Fprintf(&b, "Process exited with code %d\n", o.res.ExitCode)
	fmt.Fprintf(&b, "Original token count: %d\n", origTokens)
	b.WriteString("Output:\n")
	b.WriteString(text)
	return Result{Content: b.String(), Shell: o.run(call)}
}

// codexTruncate keeps the head and tail of the output within max tokens,
// with Codex's marker of what was dropped in between
// (codex-rs/utils/output-truncation: "…N tokens truncated…").
func codexTruncate(s string, maxTok int) string {
	limit := maxTok * codexBytesTok
	head, tail, _, cut := middleCut(s, limit)
	if !cut {
		return s
	}
	dropped := (len(s) - len(head) - len(tail) + codexBytesTok - 1) / codexBytesTok
	return fmt.Sprintf("Total output lines: %d\n\n%s…%d tokens truncated…%s", strings.Count(s, "\n")+1, head, dropped, tail)
}

func (c codexImpl) patch(env Env, a args) Result {
	if !a.has("input") {
		return c.fail(Def{}, "failed to parse function arguments: missing field `input`")
	}
	return c.applyIn(env, a.str("input"), "")
}

// applyIn applies a patch whose relative paths are taken in base.
func (c codexImpl) applyIn(env Env, patch, base string) Result {
	if base != "" {
		dir, err := dirOf(env, base)
		if err != nil {
			return Result{Content: "apply_patch verification failed: " + err.Error(), IsError: true}
		}
		base = dir
	}
	start := time.Now()
	summary, wrote, err := applyPatch(env, patch, base)
	if err != nil {
		// Codex reports a patch it cannot verify this way
		// (codex-rs/core/src/tools/handlers/apply_patch.rs).
		return Result{Content: "apply_patch verification failed: " + err.Error(), IsError: true, Wrote: wrote}
	}
	// A verified patch runs like an exec call; its output is framed as
	// exec output is (Exit code / Wall time / Output).
	text := fmt.Sprintf("Exit code: 0\nWall time: %.1f seconds\nOutput:\n%s", time.Since(start).Seconds(), summary)
	return Result{Content: text, Wrote: wrote}
}

// heredocPatch recognises `apply_patch <<'EOF'\n…\nEOF` as the whole
// command, optionally after `cd DIR &&` (the two forms Codex intercepts:
// extract_apply_patch_from_bash); dir is the cd target.
func heredocPatch(cmd string) (dir, body string, ok bool) {
	cmd = strings.TrimSpace(cmd)
	if rest, found := strings.CutPrefix(cmd, "cd "); found {
		i := strings.Index(rest, "&&")
		if i < 0 {
			return "", "", false
		}
		dir = strings.Trim(strings.TrimSpace(rest[:i]), `'"`)
		if dir == "" || strings.ContainsAny(dir, " \t;|&$`") {
			return "", "", false
		}
		cmd = strings.TrimSpace(rest[i+2:])
	}
	var rest string
	for _, name := range []string{"apply_patch", "applypatch"} {
		if r, found := strings.CutPrefix(cmd, name); found {
			rest = strings.TrimLeft(r, " ")
			break
		}
	}
	if !strings.HasPrefix(rest, "<<") {
		return "", "", false
	}
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return "", "", false
	}
	marker := strings.Trim(strings.TrimSpace(rest[2:nl]), `'"`)
	if marker == "" || strings.ContainsAny(marker, " \t;|&") {
		return "", "", false
	}
	text := rest[nl+1:]
	end := strings.LastIndex(text, "\n"+marker)
	if end < 0 || strings.TrimSpace(text[end+1:]) != marker {
		return "", "", false
	}
	return dir, text[:end+1], true
}
