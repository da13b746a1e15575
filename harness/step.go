package harness

import (
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/tokens"
)

// frame is what a read sees: the rule book's state, what the shell knows
// of the world, the session's options and folder. Only read (and step,
// for the file effects of its events) hands one out, with the session's
// lock held, so a function that takes a frame needs no lock of its own and
// cannot be called without one. Every field is guarded by the session's
// lock, and a frame is used only while the read or step that made it runs.
type frame struct {
	st   *rulebook.State
	w    *world
	opts *Options
	dir  string
	tok  *tokens.Counter
}

// read runs f with the session's frame, under the lock, and returns what it
// returns. f may update what the shell knows of the world (frame.w), never
// the rule book's state, which only step changes.
func read[T any](s *Session, f func(*frame) T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f(s.frame())
}

// frame is the session's frame. Called by read and step only.
func (s *Session) frame() *frame {
	return &frame{st: s.st, w: &s.w, opts: &s.opts, dir: s.dir, tok: s.tok}
}

// step runs one rule of the rule book: under the lock, the rule decides
// from the state and the world the shell built before the step and
// returns its events, which are stamped and applied in order (each sees the
// state the one before made). Then, with the lock released, their file
// effects are carried out, and they are journaled and handed to OnEvent.
// Every state change goes through here, which is what lets a journal
// reopen a session; I/O happens before or after a step, never inside one.
func (s *Session) step(rule func(*rulebook.State, *rulebook.World) []event.Event) []event.Event {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	f := s.frame()
	events := rule(f.st, f.w.World)
	fxs := make([]effects, len(events))
	for i, e := range events {
		h := e.Head()
		h.Type = e.EventType()
		s.scrub(e)
		if h.Turn == 0 {
			h.Turn = s.st.Turn
		}
		if h.Time.IsZero() {
			h.Time = s.opts.Now().UTC()
		}
		fxs[i] = f.effectsOf(e)
		s.st.Apply(e)
	}
	j := s.journal
	if s.readOnly {
		j = nil
	}
	s.mu.Unlock()
	for i, e := range events {
		if !s.readOnly {
			fxs[i].run()
		}
		for _, why := range fxs[i].refused {
			if s.opts.OnEvent != nil {
				h := e.Head()
				s.opts.OnEvent(&event.Warning{Header: event.Header{Type: event.TypeWarning, Turn: h.Turn, Time: h.Time}, Message: why})
			}
		}
		if j != nil && event.Journaled(e) {
			if err := j.Write(e); err != nil && s.opts.OnEvent != nil {
				h := e.Head()
				s.opts.OnEvent(&event.Error{Header: event.Header{Type: event.TypeError, Turn: h.Turn, Time: h.Time}, Message: err.Error()})
			}
		}
		if s.opts.OnEvent != nil {
			s.opts.OnEvent(e)
		}
	}
	return events
}

// emit records events decided outside a rule: step with a rule that
// returns them.
func (s *Session) emit(events ...event.Event) {
	s.step(func(*rulebook.State, *rulebook.World) []event.Event { return events })
}

func (s *Session) warn(msg string) { s.emit(&event.Warning{Message: msg}) }

// with runs f with the session's frame under the lock, like read, for
// work that only updates what the shell knows of the world.
func (s *Session) with(f func(*frame)) {
	read(s, func(fr *frame) struct{} { f(fr); return struct{}{} })
}
