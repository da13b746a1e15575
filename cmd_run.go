package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"skillet/harness"
	"skillet/harness/cassette"
	"skillet/harness/event"
	"skillet/harness/view"
)

const runUsage = `usage: skillet run [flags] MESSAGE...

Runs one turn per MESSAGE (with - reading one message per line from stdin)
and prints each final answer; notices and warnings go to stderr. Escape
sequences and control characters other than newlines and tabs are left
out of what is printed (not of --events). A tool whose approval policy is
ask is denied unless --approve or --approve-all allows it. SIGINT, SIGTERM
and SIGHUP cancel the running turn as a user's cancel does: its tools
stop and the journal closes the turn. Exit status: 0 when every turn
finished, 1 on a model or tool error (the message on stderr), 2 on a usage
error, 128 + the signal's number when a signal ended the run (130 SIGINT,
143 SIGTERM, 129 SIGHUP).

Flags:
`

// runFlags are `skillet run`'s own flags.
type runFlags struct {
	common
	events     string
	approveAll bool
	approve    listFlag
	showState  string
}

// runHeadless is `skillet run`.
func runHeadless(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	// The engine reports warnings from its own goroutines: one lock keeps
	// lines whole. Answers, warnings and errors carry text from the model,
	// the server and tools, which must not drive the terminal.
	rawStdout := stdout
	stdout = plainWriter{stdout}
	stderr = &lockedWriter{w: plainWriter{stderr}}
	var f runFlags
	fs := flag.NewFlagSet("skillet run", flag.ContinueOnError)
	f.register(fs)
	fs.StringVar(&f.events, "events", "", "write the session's events as JSON lines to `FILE` (- for stdout)")
	fs.BoolVar(&f.approveAll, "approve-all", false, "approve every tool whose policy is ask")
	fs.Var(&f.approve, "approve", "approve the ask-policy `TOOL` (repeatable)")
	fs.StringVar(&f.showState, "show-state", "", "when the run ends, write the session's state to `FILE` as skillet show --json prints it (- for stdout, after everything else)")
	if code, done := parseFlags(fs, args, runUsage, stdout, stderr); done {
		return code
	}
	msgs, err := messages(fs.Args(), stdin)
	if err != nil {
		fmt.Fprintln(stderr, "skillet run:", err)
		return 2
	}
	if len(msgs) == 0 {
		fmt.Fprintln(stderr, "skillet run: give at least one MESSAGE (or - to read them from stdin)")
		printUsage(fs, stderr, runUsage)
		return 2
	}
	ctx, sigs := catchStops(context.Background())
	defer sigs.stop()

	w, err := wire(&f.common)
	if err != nil {
		return reportError(stderr, "skillet", err)
	}
	defer w.close()
	// before the session opens, so that what went missing is said before
	// the warnings it causes
	printNotices(stderr, w)

	// The events file is opened only once every flag has been checked, so
	// a mistyped flag never empties it.
	answers := stdout
	var events io.Writer
	switch f.events {
	case "":
	case "-":
		// with events on stdout, answers go to stderr so stdout stays JSON
		// lines, exactly as journaled
		events, answers = rawStdout, stderr
	default:
		// the events hold the conversation: the owner's only, as the journal
		file, err := os.OpenFile(f.events, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(stderr, "skillet run:", err)
			return 2
		}
		defer file.Close()
		events = file
	}

	ev := &eventWriter{w: events, stderr: stderr}
	opts := harness.Options{OnEvent: ev.write, ApproveAll: f.approveAll, Approve: f.approve}
	if cas := w.tape.cassette; cas != nil && f.tape.tools && !f.approveAll && len(f.approve) == 0 {
		// no tool runs: the recorded answer only picks the recorded
		// result; a replay whose tools run is approved as a live run is
		opts.Approver = cas.ServedApprover()
	}
	w.tape.reportTo(func(m *cassette.Mismatch) { fmt.Fprintln(stderr, "skillet: warning:", m.Error()) })
	s, err := openSession(&f.common, w, opts)
	if err != nil {
		return reportError(stderr, "skillet", err)
	}
	defer s.Close()
	// what reopening repaired (a tool a crash interrupted) belongs to the
	// earlier run: said, but not this run's failure
	for _, failure := range ev.takeFailures() {
		fmt.Fprintln(stderr, "skillet: warning: before this run,", failure)
	}
	limitMemory()
	snap := s.Snapshot()
	for _, n := range snap.Notices {
		fmt.Fprintln(stderr, "skillet: "+n)
	}
	if sum, bad := snap.SkillsSummary("skillet validate lists them, skillet why NAME explains one"); bad {
		fmt.Fprintln(stderr, "skillet: "+sum)
	}
	for _, warning := range unknownApprovals(f.approve, snap) {
		fmt.Fprintln(stderr, "skillet: warning:", warning)
	}
	if w.demo && w.tape.player == nil {
		fmt.Fprintln(stderr, "skillet: using the offline demo model (rule-based, not an LLM)")
	}

	status := 0
	if f.showState != "" {
		// after the last turn, whatever ended the run; before s.Close
		defer func() {
			if c := writeShowState(f.showState, s, stdout, stderr); c != 0 && code == 0 {
				code = c
			}
		}()
	}
	printed := 0
	for _, m := range msgs {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "skillet run:", sigs.cancelled())
			return sigs.exitCode(1)
		}
		end, err := s.Turn(ctx, m)
		if end != nil && strings.TrimSpace(end.Answer) != "" {
			if len(msgs) > 1 {
				// a line of its own says where each turn's answer starts
				if printed > 0 {
					fmt.Fprintln(answers)
				}
				fmt.Fprintln(answers, turnRule(event.TurnOf(end), m))
			}
			fmt.Fprintln(answers, unescapeMarkdown(end.Answer))
			printed++
		}
		for _, failure := range ev.takeFailures() {
			fmt.Fprintln(stderr, "skillet run:", failure)
			status = 1
		}
		switch {
		case err != nil:
			fmt.Fprintln(stderr, "skillet run:", err)
			status = 1
		case end.StopReason == event.StopCancelled:
			fmt.Fprintln(stderr, "skillet run:", sigs.cancelled())
			return sigs.exitCode(1)
		case end.StopReason == event.StopInterrupted:
			fmt.Fprintln(stderr, "skillet run: the model's reply was interrupted")
			status = 1
		}
		if ev.err != nil {
			fmt.Fprintln(stderr, "skillet run: writing events:", ev.err)
			return 1
		}
	}
	if note := w.tape.endNote(); note != "" {
		fmt.Fprintln(stderr, "skillet:", note)
	}
	return status
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

// eventWriter writes journaled events as JSON lines, prints warnings on
// stderr and remembers tool failures to report.
type eventWriter struct {
	mu       sync.Mutex
	w        io.Writer
	stderr   io.Writer
	err      error
	failures []string
}

func (e *eventWriter) write(ev event.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch x := ev.(type) {
	case *event.ToolResult:
		if f := toolFailure(x); f != "" {
			e.failures = append(e.failures, f)
		}
	case *event.Warning:
		if e.stderr != nil {
			fmt.Fprintln(e.stderr, "skillet: warning:", x.Message)
		}
	}
	if e.w == nil || e.err != nil || !event.Journaled(ev) {
		return
	}
	b, err := event.Marshal(ev)
	if err == nil {
		_, err = e.w.Write(append(b, '\n'))
	}
	e.err = err
}

// toolFailure is the line a failed tool result is reported with, "" when
// the result is no failure: a refusal the model was told about, or a call
// cut short because the user cancelled the turn.
func toolFailure(r *event.ToolResult) string {
	if !r.IsError || r.Refused || r.Cancelled {
		return ""
	}
	line := firstLine(r.Content)
	if strings.HasPrefix(line, "tool "+r.Name) { // the runner already names it
		return line
	}
	return fmt.Sprintf("tool %s failed: %s", r.Name, line)
}

func (e *eventWriter) takeFailures() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.failures
	e.failures = nil
	return f
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// unknownApprovals warns about --approve names no enabled skill nor the
// agent lists: such a flag approves nothing, most often through a typo.
func unknownApprovals(names []string, snap *view.Snapshot) []string {
	known := map[string]bool{}
	for _, t := range snap.Tools {
		known[t.Name] = true
	}
	for _, sk := range snap.Skills {
		if !sk.Enabled {
			continue
		}
		for _, ref := range sk.Tools {
			// the model calls an MCP tool SERVER/TOOL as SERVER__TOOL
			known[strings.ReplaceAll(ref.Name, "/", "__")] = true
		}
	}
	var out []string
	for _, n := range names {
		if known[n] {
			continue
		}
		msg := fmt.Sprintf("--approve %s: no enabled skill nor the agent lists a tool %s", n, n)
		if near := harness.Closest(n, slices.Sorted(maps.Keys(known)), 3); len(near) > 0 {
			msg += "; closest: " + strings.Join(near, ", ")
		} else if len(known) > 0 {
			msg += "; the tools are " + strings.Join(slices.Sorted(maps.Keys(known)), ", ")
		}
		out = append(out, msg)
	}
	return out
}

// writeShowState writes the session's state view (--show-state), for
// the user alone.
func writeShowState(path string, s *harness.Session, stdout, stderr io.Writer) int {
	v := s.State()
	if !writeFile("skillet run: --show-state", path, 0o600, stdout, stderr, func(w io.Writer) error { return encodeJSON(w, v) }) {
		return 1
	}
	return 0
}
