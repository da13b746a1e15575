package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"os/signal"
	"syscall"

	"skillet/harness"
	"skillet/ui"
)

const tuiUsage = `usage: skillet [flags]

Starts the terminal UI: the transcript, the loaded skills, the exact
<current_context> and the tools side by side. Type /help inside for
commands and ? for keys.

Flags:
`

// runTUI starts the terminal UI.
func runTUI(args []string, stdout, stderr io.Writer) int {
	var c common
	var style string
	fs := flag.NewFlagSet("skillet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, tuiUsage); fs.PrintDefaults() }
	c.register(fs)
	fs.StringVar(&style, "style", "", "Markdown `STYLE` of messages: dark, light, ascii, ... (default: follows the terminal)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "skillet: unexpected argument %q (to run turns headless: skillet run MESSAGE...)\n", fs.Arg(0))
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
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := ui.Run(ctx, s, sink, ui.Options{Style: style}); err != nil {
		fmt.Fprintln(stderr, "skillet:", err)
		return 1
	}
	fmt.Fprintf(stdout, "session %s saved in %s (skillet --resume %s)\n", s.ID(), s.Dir(), s.ID())
	return 0
}
