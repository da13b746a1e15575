package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"

	"skillet/harness"
	"skillet/ui"
)

const tuiUsage = commandsUsage + `
The terminal UI shows the transcript, the loaded skills, the exact
<current_context> and the tools side by side. Type /help inside for
commands and ? for keys; ctrl+c twice quits. It needs a terminal; for
headless turns use skillet run.

Flags of the terminal UI:
`

// runTUI starts the terminal UI.
func runTUI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c common
	var style string
	fs := flag.NewFlagSet("skillet", flag.ContinueOnError)
	c.register(fs)
	fs.StringVar(&style, "style", "", "Markdown `STYLE` of messages: "+strings.Join(ui.MarkdownStyles(), ", ")+" (default: follows the terminal)")
	if code, done := parseFlags(fs, args, tuiUsage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "skillet: unexpected argument %q (to run turns headless: skillet run MESSAGE...)\n", fs.Arg(0))
		return 2
	}
	if style != "" && !ui.IsMarkdownStyle(style) {
		fmt.Fprintf(stderr, "skillet: --style %s: not a style; the styles are %s\n", style, strings.Join(ui.MarkdownStyles(), ", "))
		return 2
	}
	if !isTerminal(stdin) || !isTerminal(stdout) {
		fmt.Fprintln(stderr, "skillet needs a terminal; for headless turns use: skillet run MESSAGE...")
		return 2
	}
	w, err := wire(&c)
	if err != nil {
		return reportStartError(stderr, err)
	}
	defer w.close()
	sink := ui.NewEventSink()
	s, err := openSession(&c, w, harness.Options{OnEvent: sink.OnEvent, Approver: ui.NewApprover(sink)})
	if err != nil {
		return reportStartError(stderr, err)
	}
	defer s.Close()
	for _, n := range w.notices {
		sink.OnEvent(&harness.Warning{Message: n})
	}
	// SIGINT ends the program as ctrl+c twice does (the UI handles it);
	// SIGTERM cancels it from here.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	why := func(skill string) (string, error) {
		var out, errOut strings.Builder
		// the journal holds every turn that ended, so the card reads it as
		// `skillet why` does
		args := []string{skill, "--session", s.Dir()}
		for _, d := range c.skills {
			args = append(args, "--skills", d)
		}
		if c.config != "" {
			args = append(args, "--config", c.config)
		}
		if code := runWhy(args, &out, &errOut); code != 0 {
			return out.String(), errors.New(strings.TrimSpace(errOut.String()))
		}
		return out.String(), nil
	}
	if err := ui.Run(ctx, s, sink, ui.Options{Style: style, Resumed: w.journal, Why: why}); err != nil {
		fmt.Fprintln(stderr, "skillet:", err)
		return 1
	}
	fmt.Fprintf(stdout, "session %s saved in %s (resume: %s)\n", s.ID(), s.Dir(), resumeCommand(&c, s.ID(), s.Dir()))
	return 0
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}

// resumeCommand is the command line that reopens the session with the same
// model choice: the ID when the session lives in the default folder, else
// its folder.
func resumeCommand(c *common, id, dir string) string {
	parts := []string{"skillet"}
	if c.offline {
		parts = append(parts, "--offline")
	}
	if c.baseURL != "" {
		parts = append(parts, "--base-url", shellQuote(c.baseURL))
	}
	if c.model != "" {
		parts = append(parts, "--model", shellQuote(c.model))
	}
	target := dir
	if c.sessionDir == "" && filepath.Clean(filepath.Dir(dir)) == filepath.Clean(sessionsDir("")) {
		target = id
	}
	return strings.Join(append(parts, "--resume", shellQuote(target)), " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
