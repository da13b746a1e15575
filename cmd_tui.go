package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"skillet/harness"
	"skillet/harness/cassette"
	"skillet/harness/event"
	"skillet/harness/llm"
	"skillet/ui"
)

var tuiUsage = commandsUsage() + `
The terminal UI shows the transcript, the loaded skills, the exact
<current_context> and the tools side by side. Type /help inside for
commands and ? for keys; ctrl+c twice quits. It needs a terminal; for
headless turns use skillet run.

Flags of the terminal UI:
`

// runTUI starts the terminal UI.
func runTUI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f tuiFlags
	fs := flag.NewFlagSet("skillet", flag.ContinueOnError)
	f.register(fs)
	view := fs.String("view", "", "open a session read-only: a session `ID`, folder or journal, or a bench run's folder\n"+
		"(BENCH/SKILL/eval-ID/CONFIG/run-N); its panes and time travel work, it takes no turns, ctrl+q quits")
	if code, done := parseFlags(fs, bareResume(args), tuiUsage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "skillet: unexpected argument %q (to run turns headless: skillet run MESSAGE...)\n", fs.Arg(0))
		return 2
	}
	if *view != "" {
		return runView(*view, &f, stdin, stdout, stderr)
	}
	return f.start(ui.Options{}, stdin, stdout, stderr)
}

// tuiFlags are the flags of every command that opens the terminal UI.
type tuiFlags struct {
	common
	style   string
	present bool
}

func (f *tuiFlags) register(fs *flag.FlagSet) {
	f.common.register(fs)
	fs.StringVar(&f.style, "style", "", "Markdown `STYLE` of messages: "+strings.Join(ui.MarkdownStyles(), ", ")+" (default: follows the terminal)")
	fs.BoolVar(&f.present, "present", false, "presenter mode: a clean chrome without rule numbers, call ids or paths, suggested prompts on the first screen, large marks for loads and evictions (f2 toggles it)")
}

// start opens the session the flags describe and shows it in the terminal
// UI until the user quits; opts are the command's own UI options.
func (f *tuiFlags) start(opts ui.Options, stdin io.Reader, stdout, stderr io.Writer) int {
	c, style := &f.common, f.style
	if style != "" && !ui.IsMarkdownStyle(style) {
		fmt.Fprintf(stderr, "skillet: --style %s: not a style; the styles are %s\n", style, strings.Join(ui.MarkdownStyles(), ", "))
		return 2
	}
	if !isTerminal(stdin) || !isTerminal(stdout) {
		fmt.Fprintln(stderr, "skillet needs a terminal; for headless turns use: skillet run MESSAGE...")
		return 2
	}
	if c.resume == resumePick {
		id, err := pickSession(c, stdin, stdout)
		if err != nil {
			return reportError(stderr, "skillet", err)
		}
		if id == "" {
			fmt.Fprintln(stderr, "skillet: no session chosen")
			return 0
		}
		c.resume = id
	}
	if c.resume == "" {
		// token counts are estimates until the tables load; a reopened
		// session loads them once its journal is folded
		harness.WarmTokenizer()
	}
	c.readPace = ui.StreamReadPace
	w, err := wire(c)
	if err != nil {
		return reportError(stderr, "skillet", err)
	}
	defer w.close()
	sink := ui.NewEventSink()
	turns := &turnTracker{idle: make(chan struct{})}
	onEvent := func(ev event.Event) {
		turns.note(ev)
		sink.OnEvent(ev)
	}
	open := func(progress func(done, total int64)) (*harness.Session, error) {
		// set before the fold: a journal streams through it, so the heap
		// it makes is the session's own
		limitMemory()
		s, err := openSession(c, w, harness.Options{OnEvent: onEvent, Approver: ui.NewApprover(sink), OnProgress: progress})
		if err != nil {
			return nil, err
		}
		if w.journal != "" {
			settleMemory()
		}
		for _, n := range w.notices {
			sink.OnEvent(&event.Warning{Message: n})
		}
		w.tape.reportTo(func(m *cassette.Mismatch) { sink.OnEvent(&event.Warning{Message: m.Error()}) })
		return s, nil
	}
	var s *harness.Session
	var re *reopening
	if w.journal == "" {
		// a new session opens in milliseconds: the first frame shows it
		if s, err = open(nil); err != nil {
			return reportError(stderr, "skillet", err)
		}
		defer s.Close()
	} else {
		// a long journal takes a while to fold: the UI draws at once with
		// a progress line and fills its panes when the session is open
		re = startReopen(open)
		opts.Opening = &ui.Opening{Label: w.journal, Progress: re.progress, Wait: re.wait}
	}
	// SIGINT ends the program as ctrl+c twice does (the UI handles it);
	why := func(skill string) (string, error) {
		var out, errOut strings.Builder
		// the journal holds every turn that ended, so the card reads it as
		// `skillet why` does
		sess := s
		if re != nil {
			sess = re.s // the UI asks only once it holds the session
		}
		args := []string{skill, "--session", sess.Dir()}
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
	// SIGTERM (kill, timeout, docker stop, systemd) and SIGHUP (the
	// terminal closed) end it from here, the same way.
	ctx, sigs := catchSignals(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer sigs.stop()
	opts.Style, opts.Resumed, opts.Present, opts.Why = style, w.journal, f.present, why
	opts.Bench, opts.OpenRun = tuiBench(c), tuiOpenRun(c)
	var eng ui.Engine
	if s != nil {
		eng = s
	}
	err = ui.Run(ctx, eng, sink, opts)
	if re != nil {
		// also after a quit during the reopen: the session is closed
		// only once the reopen is done with its journal
		<-re.done
		if re.err != nil {
			return reportError(stderr, "skillet", re.err)
		}
		s = re.s
		defer s.Close()
	}
	// The UI cancels a running turn as it quits; the turn still has to
	// stop its tools and close itself in the journal before the session
	// closes.
	turns.wait(turnStopWait)
	if err != nil {
		fmt.Fprintln(stderr, "skillet:", err)
		return 1
	}
	if sig := sigs.signal(); sig != nil {
		fmt.Fprintf(stderr, "skillet: %s: session %s saved in %s\n", sigs.cancelled(), s.ID(), s.Dir())
		return sigs.exitCode(1)
	}
	fmt.Fprintf(stdout, "session %s saved in %s (resume: %s)\n", s.ID(), s.Dir(), resumeCommand(c, s.ID(), s.Dir()))
	return 0
}

// reopening is a session being reopened in the background while the UI
// already shows.
type reopening struct {
	done        chan struct{} // closed once the reopen has returned
	s           *harness.Session
	err         error
	read, total atomic.Int64
}

// startReopen runs open in a goroutine of its own.
func startReopen(open func(progress func(done, total int64)) (*harness.Session, error)) *reopening {
	r := &reopening{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.s, r.err = open(func(done, total int64) {
			r.read.Store(done)
			r.total.Store(total)
		})
		// the tables load once the transcript is in: on two cores they
		// would slow the first frame and the fold, and the counts are
		// estimates until they are ready
		harness.WarmTokenizer()
	}()
	return r
}

func (r *reopening) progress() (done, total int64) { return r.read.Load(), r.total.Load() }

// wait returns the reopened session once it is open.
func (r *reopening) wait() (ui.Engine, error) {
	<-r.done
	if r.err != nil {
		return nil, r.err
	}
	return r.s, nil
}

// turnStopWait bounds the wait for a cancelled turn to end when the UI
// quits: a tool that ignores being stopped must not keep Skillet open.
const turnStopWait = 10 * time.Second

// turnTracker knows from the session's events whether a turn is open.
type turnTracker struct {
	mu   sync.Mutex
	open bool
	idle chan struct{} // closed while no turn is open
}

func (t *turnTracker) note(ev event.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev.(type) {
	case *event.TurnStart:
		if !t.open {
			t.open, t.idle = true, make(chan struct{})
		}
	case *event.TurnEnd:
		if t.open {
			t.open = false
			close(t.idle)
		}
	}
}

// wait returns once no turn is open, or after d.
func (t *turnTracker) wait(d time.Duration) {
	t.mu.Lock()
	open, idle := t.open, t.idle
	t.mu.Unlock()
	if !open {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-idle:
	case <-timer.C:
	}
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
	switch {
	case c.baseURL == "":
	case hasCredentials(c.baseURL):
		// never printed: the command reads them from the environment
		parts = append([]string{"OPENAI_BASE_URL=" + shellQuote(llm.Redacted(c.baseURL))}, parts...)
	default:
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
