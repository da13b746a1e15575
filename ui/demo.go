package ui

import (
	"errors"
	"fmt"
	"skillet/harness/termtext"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Demo is a scripted demo: user messages the presenter sends one at a
// time with DemoKey, each typed into the input as a person would type it.
type Demo struct {
	// Messages are the script, in order.
	Messages []string
	// Keystroke is the pause between typed characters; 0 is
	// DefaultKeystroke.
	Keystroke time.Duration
}

// DemoKey types the script's next message and sends it. A chord, so it is
// never part of typed text.
const DemoKey = "ctrl+n"

// DefaultKeystroke is a pace an audience can read along with.
const DefaultKeystroke = 45 * time.Millisecond

// demoSendPause is how long a typed message stays in the input before it
// is sent, so the audience sees it whole.
const demoSendPause = 600 * time.Millisecond

// demoProgram runs the interface with a demo script: it takes DemoKey,
// types into the input and draws the script's progress on a line of its
// own below the interface, which gets one line less.
type demoProgram struct {
	m    *model
	demo Demo
	next int // the script's next message
	// typing is the message being typed, pos how many of its runes are in
	// the input, gen tells the ticks of an abandoned typing apart.
	typing []rune
	pos    int
	gen    int
}

type (
	demoKeyMsg  struct{ gen int }
	demoSendMsg struct{ gen int }
)

// withDemo is the program to run: m itself, or m driven by a script.
func withDemo(m *model, d *Demo) tea.Model {
	if d == nil || len(d.Messages) == 0 {
		return m
	}
	p := &demoProgram{m: m, demo: *d}
	if p.demo.Keystroke <= 0 {
		p.demo.Keystroke = DefaultKeystroke
	}
	return p
}

func (p *demoProgram) Init() tea.Cmd { return p.m.Init() }

func (p *demoProgram) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		msg.Height = max(1, msg.Height-1) // the demo line
		_, cmd := p.m.Update(msg)
		return p, cmd
	case tea.KeyPressMsg:
		if msg.String() == DemoKey {
			return p, p.start()
		}
	case demoKeyMsg:
		if msg.gen == p.gen {
			return p, p.typeOne()
		}
		return p, nil
	case demoSendMsg:
		if msg.gen == p.gen {
			return p, p.send()
		}
		return p, nil
	}
	_, cmd := p.m.Update(msg)
	return p, cmd
}

// start begins typing the next message, when the interface can take it.
func (p *demoProgram) start() tea.Cmd {
	m := p.m
	switch {
	case p.typing != nil:
		return nil // one message at a time
	case p.next >= len(p.demo.Messages):
		return m.flashInfo("the demo script is done: every message was sent")
	case len(m.approvals) > 0 || m.overlay != nil:
		return m.flashErr(errors.New("demo: answer or close the dialog first"))
	case m.running:
		return m.flashErr(errors.New("demo: a turn is running; the next message waits for it"))
	case m.in.value() != "":
		return m.flashErr(errors.New("demo: the input holds text; send or clear it, then " + DemoKey + " types the next message"))
	}
	p.typing, p.pos = []rune(p.demo.Messages[p.next]), 0
	p.gen++
	return tea.Batch(m.setFocus(paneInput), p.tick())
}

func (p *demoProgram) tick() tea.Cmd {
	gen := p.gen
	return tea.Tick(p.demo.Keystroke, func(time.Time) tea.Msg { return demoKeyMsg{gen} })
}

// typeOne types the next character; after the last, the message waits a
// moment in the input, then goes.
func (p *demoProgram) typeOne() tea.Cmd {
	if p.pos >= len(p.typing) {
		return nil
	}
	p.m.in.insertRune(p.typing[p.pos])
	p.pos++
	if p.pos < len(p.typing) {
		return p.tick()
	}
	gen := p.gen
	return tea.Tick(demoSendPause, func(time.Time) tea.Msg { return demoSendMsg{gen} })
}

// send sends what the input holds, as enter would: a line starting with /
// is a command.
func (p *demoProgram) send() tea.Cmd {
	m := p.m
	p.typing = nil
	if m.running || len(m.approvals) > 0 || m.overlay != nil {
		return m.flashErr(errors.New("demo: the message stays in the input; enter sends it"))
	}
	p.next++
	return m.submit(m.in.take()) // a script may load a skill by hand, say
}

func (p *demoProgram) View() tea.View {
	v := p.m.View()
	if p.m.w <= 0 {
		return v
	}
	v.Content += "\n" + termtext.Fit(p.m.th.accent.Render(p.status()), p.m.w)
	return v
}

// status is the demo line: which message is next and how to send it.
func (p *demoProgram) status() string {
	n := len(p.demo.Messages)
	switch {
	case p.typing != nil:
		return fmt.Sprintf(" demo %d/%d · typing…", p.next+1, n)
	case p.next >= n:
		return fmt.Sprintf(" demo %d/%d · done: every message of the script was sent", n, n)
	case p.m.running:
		return fmt.Sprintf(" demo %d/%d next · %s once the turn ends", p.next+1, n, DemoKey)
	}
	return fmt.Sprintf(" demo %d/%d · %s types the next message", p.next+1, n, DemoKey)
}
