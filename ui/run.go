package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2/styles"
)

// Options tunes the program.
type Options struct {
	// Style is the Markdown style of messages: "dark", "light" or another
	// glamour standard style. Empty follows the terminal's background
	// ("dark" until the terminal answers).
	Style string
	// ExportDir is where the inspector and the viewer write files (w);
	// empty is the working directory.
	ExportDir string
	// Resumed is the journal a reopened session came from; the transcript
	// says so on its first line.
	Resumed string
	// Present starts in presenter mode: a clean chrome without rule
	// numbers, call ids or cache paths, suggested prompts on the first
	// screen and large marks for loads and evictions (f2 toggles it).
	Present bool
	// Demo, when set, is a script the presenter sends with DemoKey.
	Demo *Demo
	// Why explains a skill's fate in the session, as `skillet why` prints
	// it, for the /why card; nil leaves /why out. It may read files.
	Why func(skill string) (string, error)
	// Bench runs a skill's evals (skillet bench) and returns its report
	// and runs, for /bench; nil leaves /bench out. It runs for a while:
	// the UI calls it off its own path and shows the verdict when it
	// returns.
	Bench func(skill string) (*BenchResult, error)
	// OpenRun folds a bench run's session (BenchRun.Session) read-only,
	// for the report's view to show. nil: runs are not opened.
	OpenRun func(session string) (*OpenedRun, error)
	// ReadOnly shows the engine's session without taking turns.
	ReadOnly *ReadOnly
	// Opening, when set, opens the engine while the program already
	// shows a progress line; Run is then given a nil engine.
	Opening *Opening
	// Input and Output replace the terminal when set.
	Input  io.Reader
	Output io.Writer
}

// interruptMsg is SIGINT (kill -INT, or ^C where the input is no
// terminal): the program quits as on ctrl+c twice, the session saved.
type interruptMsg struct{}

// quitOnInterrupt hands SIGINT to the model instead of letting the program
// end with an error: a clean quit cancels the turn and answers any open
// approval first.
func quitOnInterrupt(_ tea.Model, msg tea.Msg) tea.Msg {
	if _, ok := msg.(tea.InterruptMsg); ok {
		return interruptMsg{}
	}
	return msg
}

// MarkdownStyles are the names Options.Style takes: glamour's standard
// styles, sorted.
func MarkdownStyles() []string {
	names := make([]string, 0, len(styles.DefaultStyles))
	for name := range styles.DefaultStyles {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// IsMarkdownStyle reports whether name is one of MarkdownStyles.
func IsMarkdownStyle(name string) bool {
	_, ok := styles.DefaultStyles[name]
	return ok
}

// Run shows the interface for eng until the user quits or ctx is
// cancelled. sink must be the one whose OnEvent and approver (NewApprover)
// the engine was given; events it queued before Run show once the program
// starts. The screen is the alternate screen with mouse cell motion, so a
// terminal multiplexer (tmux) can drive it with send-keys. A turn still
// running when Run returns is cancelled. With Options.Opening, eng is nil
// and the engine comes from Opening.Open; if that fails, Run returns its
// error.
func Run(ctx context.Context, eng Engine, sink *Sink, opts Options) error {
	if eng == nil && opts.Opening == nil {
		return errors.New("ui: no engine to show")
	}
	if sink == nil {
		sink = NewEventSink()
	}
	if opts.Style != "" && !IsMarkdownStyle(opts.Style) {
		return fmt.Errorf("ui: unknown style %q (styles: %s)", opts.Style, strings.Join(MarkdownStyles(), ", "))
	}
	m := newModel(ctx, eng, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFilter(quitOnInterrupt)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	p := tea.NewProgram(program(m, opts), popts...)
	stop := sink.attach(p)
	_, err := p.Run()
	stop()
	if m.turnCancel != nil {
		m.turnCancel()
	}
	if m.openErr != nil {
		return m.openErr
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return nil // the caller asked us to stop
	}
	if err != nil {
		return fmt.Errorf("terminal interface: %w", err)
	}
	return nil
}
