// Package share turns a session's journal into files for people who were
// not there: an asciicast v2 recording of the transcript and a
// self-contained HTML replay with the panes at every model call. It reads
// events only; it never writes to a session.
package share

import (
	"errors"
	"fmt"
	"time"

	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// Session is a journal folded for sharing: its events in order, and one
// frame per model call.
type Session struct {
	ID    string
	Model string
	Demo  bool
	// Start is the time of the first event.
	Start  time.Time
	Events []event.Event
	// Entries is the whole transcript at the end of the journal.
	Entries []rulebook.Entry
	Frames  []Frame
	// Problems name what a crash left open and the fold repaired.
	Problems []string
}

// Frame is the state of the session as one model call went out.
type Frame struct {
	Call int       `json:"call"`
	Turn int       `json:"turn"`
	Time time.Time `json:"time"`
	// Before is how many transcript entries the call's request was built
	// from; Until how many there were when the next call went out (or at
	// the end), so entries [Before, Until) are what the call brought.
	Before    int           `json:"before"`
	Until     int           `json:"until"`
	Loaded    []LoadedSkill `json:"loaded"`
	Context   string        `json:"context"`
	Tools     []Tool        `json:"tools"`
	Offered   []string      `json:"offered"`
	Delivered []string      `json:"delivered"`
}

// LoadedSkill is one skill of the loaded set, most recent first.
type LoadedSkill struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Tokens  int    `json:"tokens"`
	By      string `json:"by"`
	Preload bool   `json:"preload,omitempty"`
}

// Tool is one tool the request offered the model.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Fold replays events through the rule book and takes a frame at each
// model call. A journal cut short by a crash is repaired as reopening
// repairs it, and the repairs are named in Problems.
func Fold(events []event.Event) (*Session, error) {
	if len(events) == 0 {
		return nil, errors.New("no line is a session event: not a session journal")
	}
	start, ok := events[0].(*event.SessionStart)
	if !ok {
		return nil, errors.New("the first event is " + events[0].Head().Type + ", not session_start: not a session journal")
	}
	fold, notes, tail := rulebook.Repair(events)
	// the results a session that ended mid-call gets when it reopens
	for _, r := range tail {
		fold = append(fold, r)
		notes = append(notes, "tool call "+r.ToolCallID+" ("+r.Name+") never got its result: the journal ends while it ran")
	}
	st := rulebook.New(start.SessionID, start.Model, start.Limits)
	s := &Session{ID: start.SessionID, Model: start.Model, Demo: start.Demo, Start: start.Time, Events: fold}
	for _, n := range notes {
		s.Problems = append(s.Problems, "repaired: "+n)
	}
	for _, e := range fold {
		st.Apply(e)
		mc, ok := e.(*event.ModelCall)
		if !ok {
			continue
		}
		if n := len(s.Frames); n > 0 {
			s.Frames[n-1].Until = mc.Entry
		}
		s.Frames = append(s.Frames, frameOf(mc, st))
	}
	if n := len(s.Frames); n > 0 {
		s.Frames[n-1].Until = st.Entries.Len()
	}
	// what a call brought ends with its turn: the next user message
	// belongs to the next call
	endAt := map[int]int{} // how many entries there were when each turn ended
	for _, e := range st.Ends.All() {
		endAt[e.Turn] = e.Entry
	}
	for i := range s.Frames {
		if end, ok := endAt[s.Frames[i].Turn]; ok && end >= s.Frames[i].Before && end < s.Frames[i].Until {
			s.Frames[i].Until = end
		}
	}
	if st.Cur != nil && !st.Cur.Ended {
		s.Problems = append(s.Problems, fmt.Sprintf("turn %d never ended: the journal stops in the middle of it", st.Turn))
	}
	s.Entries = st.Entries.Items()
	return s, nil
}

func frameOf(mc *event.ModelCall, st *rulebook.State) Frame {
	f := Frame{Call: mc.Call, Turn: mc.Turn, Time: mc.Time, Before: mc.Entry, Offered: nonNil(mc.Offered),
		Loaded: []LoadedSkill{}, Tools: []Tool{}, Delivered: []string{}}
	for _, d := range mc.Delivered {
		f.Delivered = append(f.Delivered, d.Name)
	}
	for _, l := range st.Loaded {
		f.Loaded = append(f.Loaded, LoadedSkill{Name: l.Name, Version: l.Version, Tokens: l.Tokens, By: string(l.By)})
	}
	for _, l := range st.Preloads {
		f.Loaded = append(f.Loaded, LoadedSkill{Name: l.Name, Version: l.Version, Tokens: l.Tokens, By: string(l.By), Preload: true})
	}
	if req, ok := rulebook.ParseRequest(mc.Request); ok {
		for _, t := range req.Declared() {
			f.Tools = append(f.Tools, Tool{Name: t.Name, Description: t.Description})
		}
		f.Context = req.Context
	}
	return f
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
