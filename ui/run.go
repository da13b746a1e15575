package ui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"
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
	// Input and Output replace the terminal when set.
	Input  io.Reader
	Output io.Writer
}

// errTurnRunning refuses a second message while a turn runs.
var errTurnRunning = errors.New("a turn is running: wait for it, or esc cancels it")

// Run shows the interface for eng until the user quits or ctx is
// cancelled. sink must be the one whose OnEvent and approver (NewApprover)
// the engine was given; events it queued before Run show once the program
// starts. The screen is the alternate screen with mouse cell motion, so a
// terminal multiplexer (tmux) can drive it with send-keys. A turn still
// running when Run returns is cancelled.
func Run(ctx context.Context, eng Engine, sink *Sink, opts Options) error {
	if eng == nil {
		return errors.New("ui: no engine to show")
	}
	if sink == nil {
		sink = NewEventSink()
	}
	m := newModel(ctx, eng, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	p := tea.NewProgram(m, popts...)
	stop := sink.attach(p)
	_, err := p.Run()
	stop()
	if m.turnCancel != nil {
		m.turnCancel()
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return nil // the caller asked us to stop
	}
	if err != nil {
		return fmt.Errorf("terminal interface: %w", err)
	}
	return nil
}
