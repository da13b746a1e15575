// Command skillet is a terminal harness for trying out agent skills live:
// chat with a model over your skills and watch the transcript, the loaded
// skills, the exact <current_context> and the tools side by side, while the
// skill lifecycle rules apply at every turn.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"skillet/harness/tools"
)

// command is one of skillet's subcommands: the table below is both what
// run dispatches on and what skillet help prints, so the two cannot
// disagree.
type command struct {
	// names are what selects the command; none marks a line of the help
	// whose command another entry (or the terminal UI) runs.
	names []string
	// synopsis and summary are the help's two columns; summary's lines
	// are already wrapped.
	synopsis string
	summary  []string
	// plain commands print fields of journals and cassettes, which anyone
	// may have written: their output goes through the terminal-text
	// sanitiser so no escape sequence of a file reaches the terminal.
	plain bool
	// run is nil exactly when names is empty.
	run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is every subcommand, in the order the help lists them. The
// terminal UI (no subcommand) and help itself are not in it.
var commands = []command{
	{names: []string{"run"}, synopsis: "skillet run [flags] MESSAGE...",
		summary: []string{"run turns headless and print the answers", "(skillet run -h)"},
		run:     runHeadless},
	{names: []string{"eval"}, synopsis: "skillet eval [flags] [SKILL...] [--queries FILE]",
		summary: []string{"measure whether skills trigger, with", "repeated runs and intervals (skillet eval -h)"},
		run:     withoutStdin(runEval)},
	{names: []string{"bench"}, synopsis: "skillet bench [flags] [SKILL...] [--evals FILE]",
		summary: []string{"measure whether a skill helps: its evals", "with the skill and against a baseline,", "graded, with intervals (skillet bench -h)"},
		run:     withoutStdin(runBench)},
	{synopsis: "skillet bench report [--require helps] DIR",
		summary: []string{"score a benchmark's folder again without", "running it (skillet bench report -h)"}},
	{synopsis: "skillet --view PATH",
		summary: []string{"a session or a bench run in the terminal", "UI, read-only (panes, time travel)"}},
	{names: []string{"validate"}, synopsis: "skillet validate [--json] [PATH...]",
		summary: []string{"check skills against the Agent Skills spec", "(skillet validate -h)"},
		run:     withoutStdin(runValidate)},
	{names: []string{"offered"}, synopsis: "skillet offered [--profile NAME|all] [--context-window N] [--json] [DIR...]",
		summary: []string{"what each agent's presentation keeps of", "every skill, without a model", "(skillet offered -h)"},
		run:     withoutStdin(runOffered)},
	{names: []string{"show"}, synopsis: "skillet show [--json] SESSION",
		summary: []string{"the state of a session, folded from its", "journal (skillet show -h)"},
		plain:   true, run: withoutStdin(runShow)},
	{names: []string{"demo"}, synopsis: "skillet demo [flags] [SCRIPT]",
		summary: []string{"the terminal UI with a script of messages", "the presenter sends one by one with", "ctrl+n (skillet demo -h)"},
		run:     runDemo},
	{names: []string{"export"}, synopsis: "skillet export [--md FILE] [--cast FILE] [--html FILE] SESSION",
		summary: []string{"a session as Markdown, an asciicast", "recording or an HTML replay", "(skillet export -h)"},
		run:     withoutStdin(runExport)},
	{names: []string{"--version", "-version", "version"}, synopsis: "skillet --version",
		summary: []string{"the version and commit of this build"},
		run: func(_ []string, _ io.Reader, stdout, _ io.Writer) int {
			fmt.Fprintln(stdout, versionLine())
			return 0
		}},
	{names: []string{"replay"}, synopsis: "skillet replay diff [flags] FILE",
		summary: []string{"replay a cassette against today's skills", "and print what changed (skillet replay -h)"},
		plain:   true, run: withoutStdin(runReplay)},
	{names: []string{"why"}, synopsis: "skillet why SKILL [--session ID|DIR] [--turn N] [--message TEXT] [--json]",
		summary: []string{"why a skill was or was not offered,", "loaded or kept, turn by turn", "(skillet why -h)"},
		plain:   true, run: withoutStdin(runWhy)},
	{names: []string{"workspace"}, synopsis: "skillet workspace SESSION [--at CALL] --out DIR",
		summary: []string{"a session's workspace as it was at a", "call (skillet workspace -h)"},
		run:     withoutStdin(runWorkspace)},
}

// withoutStdin adapts a command that reads no standard input.
func withoutStdin(f func(args []string, stdout, stderr io.Writer) int) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
}

// commandsUsage is the help's list of subcommands, built from commands;
// the terminal UI's -h starts with it.
func commandsUsage() string {
	var b strings.Builder
	b.WriteString("Skillet: try out agent skills live.\n\nusage:\n")
	const col = 35 // where the summaries start
	line := func(synopsis string, summary []string) {
		pad := col - 2 - len(synopsis)
		fmt.Fprintf(&b, "  %s", synopsis)
		for i, s := range summary {
			if i > 0 || pad < 2 {
				b.WriteString("\n")
				pad = col
			}
			fmt.Fprintf(&b, "%s%s", strings.Repeat(" ", pad), s)
		}
		b.WriteString("\n")
	}
	line("skillet [flags]", []string{"the terminal UI (its flags below)"})
	for _, c := range commands {
		line(c.synopsis, c.summary)
	}
	line("skillet help", []string{"this text"})
	b.WriteString(`
With no OPENAI_API_KEY and no endpoint, Skillet uses its built-in offline
demo model (rule-based, not an LLM). With no skills folder, it uses its
built-in sample skills.
`)
	return b.String()
}

func main() {
	// First, before any tool or MCP server can start.
	if err := hideEnvironment(); err != nil {
		fmt.Fprintln(os.Stderr, "skillet: warning: other processes of this user may read skillet's environment (and OPENAI_API_KEY):", err)
	}
	_ = tools.BecomeSubreaper() // where it fails, a tool's daemons escape as before
	stop := startCPUProfile()
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "help" {
			return runTUI([]string{"-h"}, stdin, stdout, stderr)
		}
		for _, c := range commands {
			if !slices.Contains(c.names, args[0]) {
				continue
			}
			if c.plain {
				return c.run(args[1:], stdin, plainWriter{stdout}, plainWriter{stderr})
			}
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	return runTUI(args, stdin, stdout, stderr)
}

// parseFlags parses args. Asked for help (-h, --help), it prints the usage
// on stdout; on a bad flag, the error and the usage go to stderr. done
// says the command ends here with code.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(io.Discard) // the messages below say it once, in the right place
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		printUsage(fs, stdout, usage)
		return 0, true
	}
	fmt.Fprintf(stderr, "%s: %v\n\n", fs.Name(), err)
	printUsage(fs, stderr, usage)
	return 2, true
}

// parseInterleaved parses flags given before, between and after the
// positional arguments (skillet eval SKILL --queries FILE), which the flag
// package alone stops at; what follows "--" is positional, flag or not.
func parseInterleaved(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (rest []string, code int, done bool) {
	for {
		if code, done := parseFlags(fs, args, usage, stdout, stderr); done {
			return nil, code, true
		}
		left := fs.Args()
		if len(left) < len(args) && args[len(args)-len(left)-1] == "--" {
			return append(rest, left...), 0, false
		}
		if len(left) == 0 {
			return rest, 0, false
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

// printUsage writes the usage text and the flags' defaults to w.
func printUsage(fs *flag.FlagSet, w io.Writer, usage string) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
