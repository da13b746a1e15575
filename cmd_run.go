package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"skillet/harness"
)

const runUsage = `usage: skillet run [flags] MESSAGE...

Runs one turn per MESSAGE (with - reading one message per line from stdin)
and prints each final answer. Exit status: 0 when every turn finished, 1 on
a model or tool error (the message on stderr), 2 on a usage error.

Flags:
`

// runFlags are `skillet run`'s own flags.
type runFlags struct {
	common
	events     string
	approveAll bool
	approve    listFlag
}

// runHeadless is `skillet run`.
func runHeadless(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f runFlags
	fs := flag.NewFlagSet("skillet run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage); fs.PrintDefaults() }
	f.register(fs)
	fs.StringVar(&f.events, "events", "", "write the session's events as JSON lines to `FILE` (- for stdout)")
	fs.BoolVar(&f.approveAll, "approve-all", false, "approve every tool whose policy is ask")
	fs.Var(&f.approve, "approve", "approve the ask-policy `TOOL` (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	msgs, err := messages(fs.Args(), stdin)
	if err != nil {
		fmt.Fprintln(stderr, "skillet run:", err)
		return 2
	}
	if len(msgs) == 0 {
		fmt.Fprintln(stderr, "skillet run: give at least one MESSAGE (or - to read them from stdin)")
		fs.Usage()
		return 2
	}

	// With events on stdout, answers go to stderr so stdout stays JSON lines.
	answers := stdout
	var events io.Writer
	switch f.events {
	case "":
	case "-":
		events, answers = stdout, stderr
	default:
		file, err := os.Create(f.events)
		if err != nil {
			fmt.Fprintln(stderr, "skillet run:", err)
			return 2
		}
		defer file.Close()
		events = file
	}

	w, err := wire(&f.common)
	if err != nil {
		return reportStartError(stderr, err)
	}
	defer w.close()
	ev := &eventWriter{w: events}
	opts := harness.Options{OnEvent: ev.write, ApproveAll: f.approveAll, Approve: f.approve}
	s, err := openSession(&f.common, w, opts)
	if err != nil {
		return reportStartError(stderr, err)
	}
	defer s.Close()
	printNotices(stderr, w, s)
	if w.demo {
		fmt.Fprintln(stderr, "skillet: using the offline demo model (rule-based, not an LLM)")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	status := 0
	for _, m := range msgs {
		end, err := s.Turn(ctx, m)
		if end != nil {
			fmt.Fprintln(answers, end.Answer)
		}
		for _, failure := range ev.takeFailures() {
			fmt.Fprintln(stderr, "skillet run:", failure)
			status = 1
		}
		switch {
		case err != nil:
			fmt.Fprintln(stderr, "skillet run:", err)
			status = 1
		case end.StopReason == harness.StopCancelled:
			fmt.Fprintln(stderr, "skillet run: cancelled")
			return 1
		case end.StopReason == harness.StopInterrupted:
			fmt.Fprintln(stderr, "skillet run: the model's reply was interrupted")
			status = 1
		}
		if ev.err != nil {
			fmt.Fprintln(stderr, "skillet run: writing events:", ev.err)
			return 1
		}
	}
	return status
}

func reportStartError(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "skillet:", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// messages returns the turns to run: the arguments, with "-" standing for
// one message per line of stdin.
func messages(args []string, stdin io.Reader) ([]string, error) {
	var out []string
	for _, a := range args {
		if a != "-" {
			out = append(out, a)
			continue
		}
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				out = append(out, line)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read messages from stdin: %w", err)
		}
	}
	return out, nil
}

// eventWriter writes journaled events as JSON lines and remembers tool
// failures and model errors to report.
type eventWriter struct {
	mu       sync.Mutex
	w        io.Writer
	err      error
	failures []string
}

func (e *eventWriter) write(ev harness.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r, ok := ev.(*harness.ToolResult); ok && r.IsError && !r.Refused {
		e.failures = append(e.failures, fmt.Sprintf("tool %s failed: %s", r.Name, firstLine(r.Content)))
	}
	if e.w == nil || e.err != nil || !harness.Journaled(ev) {
		return
	}
	b, err := harness.MarshalEvent(ev)
	if err == nil {
		_, err = e.w.Write(append(b, '\n'))
	}
	e.err = err
}

func (e *eventWriter) takeFailures() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.failures
	e.failures = nil
	return f
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
