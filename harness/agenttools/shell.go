package agenttools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// shellCall is a shell call read from a profile's arguments.
type shellCall struct {
	command string
	workdir string // as given; "" = workspace root
	timeout time.Duration
}

// shellOutcome is a command's run, or why it did not run.
type shellOutcome struct {
	res ShellResult
	dir string
	// refused is set when the command did not run (no shell, bad folder,
	// the shell failed to start); it is the reason.
	refused string
}

// runShell runs a call in its folder: the workspace root, or the tool's
// folder argument resolved and confined like any path.
func runShell(ctx context.Context, env Env, c shellCall) shellOutcome {
	if env.Shell == nil {
		msg := env.ShellUnavailable
		if msg == "" {
			msg = "shell commands are not available in this session"
		}
		return shellOutcome{refused: msg}
	}
	if strings.TrimSpace(c.command) == "" {
		return shellOutcome{refused: "the command is empty"}
	}
	if strings.ContainsRune(c.command, 0) {
		return shellOutcome{refused: "the command contains a NUL byte"}
	}
	dir := ""
	if env.Files != nil {
		d, err := dirOf(env, c.workdir)
		if err != nil {
			return shellOutcome{refused: "working directory: " + err.Error()}
		}
		dir = d
	} else if c.workdir != "" {
		return shellOutcome{refused: "no workspace is set up, so a working directory cannot be used"}
	}
	res, err := env.Shell.Run(ctx, ShellRequest{Command: c.command, Dir: dir, Timeout: c.timeout})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return shellOutcome{dir: dir, refused: "the command was cancelled"}
		}
		return shellOutcome{dir: dir, refused: err.Error()}
	}
	return shellOutcome{res: res, dir: dir}
}

// combined is the command's output as one text: the interleaved stream
// when the shell kept one, else stdout then stderr. Bytes that are not
// UTF-8 are replaced, so a model never gets broken text.
func (o shellOutcome) combined() string {
	s := o.res.Output
	if s == "" {
		s = o.res.Stdout
		if o.res.Stderr != "" {
			if s != "" && !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			s += o.res.Stderr
		}
	}
	return validText(s)
}

// validText replaces each byte that is not UTF-8 with U+FFFD, as a
// JavaScript agent decoding output with TextDecoder does.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// run is the record of the call for display and journaling.
func (o shellOutcome) run(c shellCall) *ShellRun {
	return &ShellRun{Command: c.command, Dir: o.dir, ExitCode: o.res.ExitCode, Signal: o.res.Signal,
		Duration: o.res.Duration, Output: o.combined(), Limit: o.res.Limit}
}

// limitNote says which limit stopped a command and whether the shell cut
// its output, in plain words shared by the profiles.
func (o shellOutcome) limitNote() string {
	var parts []string
	switch l := o.res.Limit; {
	case l == "cancelled":
		parts = append(parts, "the command was cancelled")
	case l != "":
		// The sandbox names the limit with its value ("wall time 120s",
		// "memory 1 GiB", "processes 256").
		parts = append(parts, "the command was stopped by the sandbox's limit on "+l)
	}
	if o.res.Truncated {
		parts = append(parts, fmt.Sprintf("the sandbox kept only part of the output (%d bytes in all)", o.res.OutputBytes))
	}
	return strings.Join(parts, "; ")
}

// timedOut reports that the agent's own timeout (or the shell's wall time
// limit) ended the command.
func (o shellOutcome) timedOut() bool {
	l := strings.ToLower(o.res.Limit)
	return strings.Contains(l, "wall") || strings.Contains(l, "timeout") || strings.Contains(l, "time limit")
}

// middleCut keeps the first and last half of s when it is longer than n
// bytes (cut at rune boundaries) and reports how many lines it dropped.
func middleCut(s string, n int) (head, tail string, droppedLines int, cut bool) {
	if len(s) <= n {
		return s, "", 0, false
	}
	h := runeFloor(s, n/2)
	t := runeCeil(s, len(s)-n/2)
	return s[:h], s[t:], strings.Count(s[h:t], "\n"), true
}

func runeFloor(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

func runeCeil(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
