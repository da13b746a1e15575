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

	"skillet/harness/tools"
)

// commandsUsage lists the subcommands; the terminal UI's -h starts with it.
const commandsUsage = `Skillet: try out agent skills live.

usage:
  skillet [flags]                  the terminal UI (its flags below)
  skillet run [flags] MESSAGE...   run turns headless and print the answers
                                   (skillet run -h)
  skillet eval [flags] [SKILL...] [--queries FILE]
                                   measure whether skills trigger, with
                                   repeated runs and intervals (skillet eval -h)
  skillet bench [flags] [SKILL...] [--evals FILE]
                                   measure whether a skill helps: its evals
                                   with the skill and against a baseline,
                                   graded, with intervals (skillet bench -h)
  skillet validate [--json] [PATH...]
                                   check skills against the Agent Skills spec
                                   (skillet validate -h)
  skillet offered [--profile NAME|all] [--context-window N] [--json] [DIR...]
                                   what each agent's presentation keeps of
                                   every skill, without a model
                                   (skillet offered -h)
  skillet show [--json] SESSION    the state of a session, folded from its
                                   journal (skillet show -h)
  skillet demo [flags] [SCRIPT]    the terminal UI with a script of messages
                                   the presenter sends one by one with
                                   ctrl+n (skillet demo -h)
  skillet export [--md FILE] [--cast FILE] [--html FILE] SESSION
                                   a session as Markdown, an asciicast
                                   recording or an HTML replay
                                   (skillet export -h)
  skillet --version                the version and commit of this build
  skillet replay diff [flags] FILE
                                   replay a cassette against today's skills
                                   and print what changed (skillet replay -h)
  skillet why SKILL [--session ID|DIR] [--turn N] [--message TEXT] [--json]
                                   why a skill was or was not offered,
                                   loaded or kept, turn by turn
                                   (skillet why -h)
  skillet workspace SESSION [--at CALL] --out DIR
                                   a session's workspace as it was at a
                                   call (skillet workspace -h)
  skillet help                     this text

With no OPENAI_API_KEY and no endpoint, Skillet uses its built-in offline
demo model (rule-based, not an LLM). With no skills folder, it uses its
built-in sample skills.
`

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
		switch args[0] {
		case "run":
			return runHeadless(args[1:], stdin, stdout, stderr)
		case "--version", "-version", "version":
			fmt.Fprintln(stdout, versionLine())
			return 0
		case "eval":
			return runEval(args[1:], stdout, stderr)
		case "bench":
			return runBench(args[1:], stdout, stderr)
		case "validate":
			return runValidate(args[1:], stdout, stderr)
		case "show":
			// these print fields of journals and cassettes, which anyone may
			// have written: no escape sequence of theirs reaches the terminal
			return runShow(args[1:], plainWriter{stdout}, plainWriter{stderr})
		case "demo":
			return runDemo(args[1:], stdin, stdout, stderr)
		case "export":
			return runExport(args[1:], stdout, stderr)
		case "offered":
			return runOffered(args[1:], stdout, stderr)
		case "replay":
			return runReplay(args[1:], plainWriter{stdout}, plainWriter{stderr})
		case "why":
			return runWhy(args[1:], plainWriter{stdout}, plainWriter{stderr})
		case "workspace":
			return runWorkspace(args[1:], stdout, stderr)
		case "help":
			return runTUI([]string{"-h"}, stdin, stdout, stderr)
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
