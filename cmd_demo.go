package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"skillet/ui"
)

const demoUsage = `usage: skillet demo [flags] [SCRIPT]

Opens the terminal UI with a script of user messages that the presenter
sends one at a time with ` + ui.DemoKey + `: each is typed into the input, character
by character, then sent. The line below the UI says which message is next.
SCRIPT is a text file with one message per line (blank lines and lines
starting with # are skipped; a line starting with / is a command, such as
/load NAME); without it, the README's five messages are the script. It
works with the demo model, a replay (--replay FILE) or a live model, and
takes every flag of the terminal UI.

Flags:
`

// builtinScript is the README's headless example: with the demo model it
// shows loads, a store, an eviction, an approval and a tool that left with
// its skill.
var builtinScript = []string{
	"review account ACC-1042 for anomalies",
	"write an incident report for yesterday's outage",
	`capture meeting notes: we decided to ship on Friday, task="ship v1.4" owner=Ana`,
	"run the release checks for v1.4.0",
	"get account activity for ACC-1042 again",
}

// runDemo is `skillet demo`.
func runDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f tuiFlags
	fs := flag.NewFlagSet("skillet demo", flag.ContinueOnError)
	f.register(fs)
	keystroke := fs.Duration("keystroke", ui.DefaultKeystroke, "the `PAUSE` between typed characters, such as 30ms")
	if code, done := parseFlags(fs, args, demoUsage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "skillet demo: one SCRIPT at most; %q is one too many\n", fs.Arg(1))
		return 2
	}
	if *keystroke < 0 || *keystroke > 2*time.Second {
		fmt.Fprintf(stderr, "skillet demo: --keystroke %s: want a pause from 0s to 2s, such as 45ms\n", *keystroke)
		return 2
	}
	script := builtinScript
	if fs.NArg() == 1 {
		var err error
		if script, err = readScript(fs.Arg(0)); err != nil {
			fmt.Fprintln(stderr, "skillet demo:", err)
			return 2
		}
	}
	// 0 would be the default pace: the shortest pause types at once
	pause := max(*keystroke, time.Nanosecond)
	return f.start(ui.Options{Demo: &ui.Demo{Messages: script, Keystroke: pause}}, stdin, stdout, stderr)
}

// readScript reads a demo script: one message per line.
func readScript(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("script %s: no such file", path)
		}
		return nil, fmt.Errorf("script %s: %w", path, errors.Unwrap(err))
	}
	var msgs []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.ContainsFunc(line, func(r rune) bool { return r < ' ' && r != '\t' }) {
			return nil, fmt.Errorf("script %s: line %q holds a control character; a script is plain text, one message per line", path, line)
		}
		msgs = append(msgs, line)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("script %s holds no message: write one message per line", path)
	}
	return msgs, nil
}
