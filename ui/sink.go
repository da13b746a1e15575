package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/view"
)

// sender is where the sink delivers: a running *tea.Program (or a test
// program).
type sender interface{ Send(tea.Msg) }

// eventsMsg carries, in order, the events and approval requests that arrived
// since the last delivery.
type eventsMsg []any

// approvalMsg asks the program to open the approval dialog for one call.
type approvalMsg struct {
	id    uint64
	req   view.ApprovalRequest
	reply chan<- event.Decision
}

// approvalGoneMsg closes the dialog of a request whose turn was cancelled.
type approvalGoneMsg struct{ id uint64 }

// delta is a run of streamed text of one model call, coalesced while the
// program was busy.
type delta struct {
	reasoning  bool
	turn, call int
	text       strings.Builder
}

func (d *delta) event() event.Event {
	h := event.Header{Turn: d.turn}
	if d.reasoning {
		h.Type = event.TypeReasoningDelta
		return &event.ReasoningDelta{Header: h, Call: d.call, Text: d.text.String()}
	}
	h.Type = event.TypeTextDelta
	return &event.TextDelta{Header: h, Call: d.call, Text: d.text.String()}
}

// frame is the shortest time between two deliveries: the program draws the
// screen after every message, and a model streams hundreds of chunks a
// second, so chunks are delivered at most once per frame of a 60 Hz
// screen, however fast they come.
const frame = time.Second / 60

// deltaFrame is the shortest time between two deliveries of streamed text
// alone. While text streams in the screen changes once per spinner frame
// (streamFrame), and the text shows when its render lands, at most once a
// frame too: delivering it more often draws frames that show nothing new.
// Any other event is delivered at the next frame, with the text queued
// before it.
const deltaFrame = streamFrame

// Sink carries the engine's events and approval requests into the running
// program. The engine calls OnEvent from its own goroutine; the sink queues
// and never blocks it. Deliveries are at most one per frame (streamed
// text alone, one per deltaFrame); streamed deltas that arrive in between
// are merged into one, every other event is delivered once, in order. (The engine journals every chunk itself; only
// the screen sees them merged.)
type Sink struct {
	mu      sync.Mutex
	pending []any
	wake    chan struct{}
	closed  chan struct{}
	once    sync.Once
	nextID  atomic.Uint64
}

// NewEventSink returns a sink to pass as the engine's OnEvent (its OnEvent
// method) and approver (NewApprover). Events that arrive before the program
// starts wait for it.
func NewEventSink() *Sink {
	return &Sink{wake: make(chan struct{}, 1), closed: make(chan struct{})}
}

// OnEvent queues one engine event for the program. It never blocks.
func (s *Sink) OnEvent(e event.Event) {
	if e == nil {
		return
	}
	s.mu.Lock()
	if s.isClosed() {
		s.mu.Unlock()
		return
	}
	// text joining a queue that waits already need not wake the
	// deliverer: it comes with what waits
	wake := len(s.pending) == 0
	switch d := e.(type) {
	case *event.TextDelta:
		s.appendDelta(false, event.TurnOf(e), d.Call, d.Text)
	case *event.ReasoningDelta:
		s.appendDelta(true, event.TurnOf(e), d.Call, d.Text)
	default:
		s.pending = append(s.pending, e)
		wake = true
	}
	s.mu.Unlock()
	if wake {
		s.signal()
	}
}

// appendDelta merges streamed text into the last queued delta of the same
// call and kind, so a burst costs the program one message.
func (s *Sink) appendDelta(reasoning bool, turn, call int, text string) {
	if n := len(s.pending); n > 0 {
		if last, ok := s.pending[n-1].(*delta); ok && last.reasoning == reasoning && last.turn == turn && last.call == call {
			last.text.WriteString(text)
			return
		}
	}
	d := &delta{reasoning: reasoning, turn: turn, call: call}
	d.text.WriteString(text)
	s.pending = append(s.pending, d)
}

func (s *Sink) push(m any) {
	s.mu.Lock()
	s.pending = append(s.pending, m)
	s.mu.Unlock()
	s.signal()
}

func (s *Sink) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Sink) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// onlyText is whether the queue holds streamed text alone.
func (s *Sink) onlyText() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range s.pending {
		if _, ok := it.(*delta); !ok {
			return false
		}
	}
	return true
}

// take empties the queue, turning coalesced deltas back into events.
func (s *Sink) take() eventsMsg {
	s.mu.Lock()
	items := s.pending
	s.pending = nil
	s.mu.Unlock()
	for i, it := range items {
		if d, ok := it.(*delta); ok {
			items[i] = d.event()
		}
	}
	return items
}

// attach starts delivering to p; the returned stop ends delivery for good
// and answers approvals still waiting with a denial.
func (s *Sink) attach(p sender) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last time.Time
		pace := time.NewTimer(frame)
		defer pace.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
			}
			// what arrives until the frame is over joins this delivery;
			// an event other than text ends a wait for text's longer frame
			for {
				gap := frame
				if s.onlyText() {
					gap = deltaFrame
				}
				wait := gap - time.Since(last)
				if wait <= 0 {
					break
				}
				pace.Reset(wait)
				select {
				case <-ctx.Done():
					return
				case <-pace.C:
				case <-s.wake:
				}
			}
			if batch := s.take(); len(batch) > 0 {
				p.Send(batch)
				last = time.Now()
			}
		}
	}()
	s.signal() // deliver what queued before the program started
	return func() {
		s.once.Do(func() { close(s.closed) })
		cancel()
		<-done
	}
}

// errUIClosed answers approvals asked after the program ended.
var errUIClosed = errors.New("the terminal interface has closed")

// Approve asks the user, through the program's approval dialog, whether one
// `ask` tool call may run (R15). It blocks until the user answers, ctx is
// cancelled (the dialog closes) or the program ends (denied).
func (s *Sink) Approve(ctx context.Context, req view.ApprovalRequest) (event.Decision, error) {
	if s.isClosed() {
		return event.DecisionDeny, fmt.Errorf("approve %s: %w", req.Name, errUIClosed)
	}
	reply := make(chan event.Decision, 1)
	id := s.nextID.Add(1)
	s.push(approvalMsg{id: id, req: req, reply: reply})
	select {
	case d := <-reply:
		return d, nil
	case <-ctx.Done():
		s.push(approvalGoneMsg{id: id})
		return event.DecisionDeny, fmt.Errorf("approve %s: %w", req.Name, ctx.Err())
	case <-s.closed:
		return event.DecisionDeny, fmt.Errorf("approve %s: %w", req.Name, errUIClosed)
	}
}

// NewApprover returns the approver to give the engine: it opens the approval
// dialog (approve once, approve for the session, deny) and returns the
// user's decision.
func NewApprover(s *Sink) view.Approver { return s.Approve }

// queued is how many deliveries wait, for tests that wait for quiet.
func (s *Sink) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}
