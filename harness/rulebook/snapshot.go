// A stored copy of the state, so that reopening a long session folds only
// what its journal gained since.

package rulebook

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/paged"
)

// stateWire is State as gob writes it: the paged lists as their pages'
// bytes (already gob and deflate, stored as they are rather than decoded)
// and their unsealed items, the long plain lists as gob values, and the
// rest as JSON. Gob reads an empty list back as none, where JSON keeps
// the difference that skillet show --json prints; the events are the
// journal's own JSON, as a reopening reads them.
type stateWire struct {
	EntryPages, MsgPages, EndPages, MarkPages [][]byte
	Entries                                   []Entry
	Msgs                                      []chat.Message
	// Ends, Marks and Last are events as event.Marshal writes them.
	Ends, Marks        [][]byte
	Last               []byte
	MsgEntry, UserMsgs []int
	Calls              []CallRecord
	CallIDs            map[string]bool
	// FrozenAsMain says a checkpoint's frozen prompt is its session's,
	// stored once with the session's state.
	FrozenAsMain bool
	// Rest is the rest of the state, as JSON.
	Rest []byte
}

// restWire is what stateWire keeps as JSON.
type restWire struct {
	ID, Model     string
	Demo          bool
	Settings      event.Settings
	Profile       string
	ContextWindow int
	ProfileAgent  string
	Loaded        []*Loaded
	Preloads      []*Loaded
	ExecSeq, Turn int
	Running       bool
	Cur           *turnWire
	Approvals     map[string]event.Decision
	Approved      map[string]bool
	Frozen        *frozenWire
	Stores        map[string]json.RawMessage
	Gone          []GoneTool
	LastDropped   int
	OutOfWindow   map[string]bool
	Unsent        []string
	Workspace     *event.WorkspaceInfo
	Files         map[string]event.FileChange
	Listings      []ListingAt
	// NilStates and NilPreStates are the loads, and NilStores the stores,
	// whose JSON is nil rather than a value: JSON reads a nil one back as
	// null, which a view shows otherwise.
	NilStates, NilPreStates []int
	NilStores               []string
}

// nilStates are the positions of the loads whose state is nil.
func nilStates(ls []*Loaded) []int {
	var out []int
	for i, l := range ls {
		if l.State == nil {
			out = append(out, i)
		}
	}
	return out
}

// turnWire is TurnState with its ordered sets as their names.
type turnWire struct {
	UserText                        string
	UserMsg                         int
	UserNotes                       []string
	Ended                           bool
	Usage                           Usage
	Execs, ExecVersion              map[string]string
	Offered, Delivered, LoadedNames []string
	SkillUses                       map[string]event.Use
	ToolUses                        []event.Use
	Reused, Warned                  map[string]bool
	LeftOff                         []string
}

type frozenWire struct {
	Instructions string
	Tools        []toolWire
	Infos        []event.ToolInfo
	Offered      []string
	LeftOff      []string
	Context      map[string]string
}

type toolWire struct {
	Type        string
	HasFunction bool
	Name        string
	Description string
	Strict      bool
	// Parameters is the function's parameters as JSON, nil when none.
	Parameters []byte
}

func marshalEvents[E event.Event](items []E) ([][]byte, error) {
	out := make([][]byte, len(items))
	for i, e := range items {
		b, err := event.Marshal(e)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func unmarshalEvents[E event.Event](lines [][]byte) ([]E, error) {
	out := make([]E, len(lines))
	for i, b := range lines {
		e, err := event.Unmarshal(b)
		if err != nil {
			return nil, err
		}
		v, ok := e.(E)
		if !ok {
			return nil, fmt.Errorf("item %d is a %s", i, e.EventType())
		}
		out[i] = v
	}
	return out, nil
}

// EncodeState writes st to enc, for DecodeState to give back. Its
// transcript's sealed pages are written as the bytes they are held as.
// main is the session's state when st is one of its checkpoints (see
// Checkpoint), whose frozen prompt is then written once, with main; nil
// for the session's own.
func EncodeState(enc *gob.Encoder, st, main *State) error {
	w := stateWire{MsgEntry: st.MsgEntry, UserMsgs: st.UserMsgs, Calls: st.Calls, CallIDs: st.CallIDs}
	r := restWire{ID: st.ID, Model: st.Model, Demo: st.Demo, Settings: st.Settings, Profile: st.Profile, ContextWindow: st.ContextWindow,
		ProfileAgent: st.ProfileAgent, Loaded: st.Loaded, Preloads: st.Preloads, ExecSeq: st.ExecSeq, Turn: st.Turn, Running: st.Running,
		Approvals: st.Approvals, Approved: st.Approved, Stores: st.Stores, Gone: st.Gone, LastDropped: st.LastDropped,
		OutOfWindow: st.OutOfWindow, Unsent: st.Unsent, Workspace: st.Workspace, Files: st.Files, Listings: st.Listings}
	r.NilStates, r.NilPreStates = nilStates(st.Loaded), nilStates(st.Preloads)
	for name, v := range st.Stores {
		if v == nil {
			r.NilStores = append(r.NilStores, name)
		}
	}
	var err error
	if w.EntryPages, w.Entries, err = st.Entries.Export(); err != nil {
		return fmt.Errorf("store state: transcript: %w", err)
	}
	if w.MsgPages, w.Msgs, err = st.Msgs.Export(); err != nil {
		return fmt.Errorf("store state: messages: %w", err)
	}
	var ends []*event.TurnEnd
	if w.EndPages, ends, err = st.Ends.Export(); err != nil {
		return fmt.Errorf("store state: turn records: %w", err)
	}
	if w.Ends, err = marshalEvents(ends); err != nil {
		return fmt.Errorf("store state: turn records: %w", err)
	}
	var marks []event.Event
	if w.MarkPages, marks, err = st.Marks.Export(); err != nil {
		return fmt.Errorf("store state: marks: %w", err)
	}
	if w.Marks, err = marshalEvents(marks); err != nil {
		return fmt.Errorf("store state: marks: %w", err)
	}
	if st.Last != nil {
		if w.Last, err = event.Marshal(st.Last); err != nil {
			return fmt.Errorf("store state: last turn: %w", err)
		}
	}
	if c := st.Cur; c != nil {
		r.Cur = &turnWire{UserText: c.UserText, UserMsg: c.UserMsg, UserNotes: c.UserNotes, Ended: c.Ended, Usage: c.Usage,
			Execs: c.Execs, ExecVersion: c.ExecVersion, Offered: c.Offered.Names, Delivered: c.Delivered.Names,
			LoadedNames: c.LoadedNames.Names, SkillUses: c.SkillUses, ToolUses: c.ToolUses, Reused: c.Reused, Warned: c.Warned, LeftOff: c.LeftOff}
	}
	switch {
	case main != nil && st.Frozen == main.Frozen:
		w.FrozenAsMain = true
	case st.Frozen != nil:
		if r.Frozen, err = frozenOut(st.Frozen); err != nil {
			return err
		}
	}
	if w.Rest, err = json.Marshal(&r); err != nil {
		return fmt.Errorf("store state: %w", err)
	}
	if err := enc.Encode(&w); err != nil {
		return fmt.Errorf("store state: %w", err)
	}
	return nil
}

// DecodeState reads a state EncodeState wrote; main is as it was given to
// EncodeState. The pages' bytes are trusted as EncodeState wrote them: the
// caller checks what it read for damage.
func DecodeState(dec *gob.Decoder, main *State) (*State, error) {
	var w stateWire
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("read stored state: %w", err)
	}
	var r restWire
	if err := json.Unmarshal(w.Rest, &r); err != nil {
		return nil, fmt.Errorf("read stored state: %w", err)
	}
	st := &State{ID: r.ID, Model: r.Model, Demo: r.Demo, Settings: r.Settings, Profile: r.Profile, ContextWindow: r.ContextWindow,
		ProfileAgent: r.ProfileAgent, MsgEntry: w.MsgEntry, UserMsgs: w.UserMsgs, Loaded: r.Loaded, Preloads: r.Preloads,
		ExecSeq: r.ExecSeq, Turn: r.Turn, Running: r.Running, Approvals: r.Approvals, Approved: r.Approved,
		Calls: w.Calls, CallIDs: w.CallIDs, Stores: r.Stores, Gone: r.Gone, LastDropped: r.LastDropped,
		OutOfWindow: r.OutOfWindow, Unsent: r.Unsent, Workspace: r.Workspace, Files: r.Files, Listings: r.Listings}
	for _, set := range []struct {
		ls  []*Loaded
		nil []int
	}{{st.Loaded, r.NilStates}, {st.Preloads, r.NilPreStates}} {
		for _, i := range set.nil {
			if i < 0 || i >= len(set.ls) || set.ls[i] == nil {
				return nil, fmt.Errorf("read stored state: load %d of %d", i, len(set.ls))
			}
			set.ls[i].State = nil
		}
	}
	for _, name := range r.NilStores {
		if _, ok := st.Stores[name]; ok {
			st.Stores[name] = nil
		}
	}
	for _, ls := range append(slices.Clone(st.Loaded), st.Preloads...) {
		if ls == nil {
			return nil, fmt.Errorf("read stored state: a load is missing")
		}
	}
	var err error
	if st.Entries, err = paged.Restore(w.EntryPages, w.Entries); err != nil {
		return nil, fmt.Errorf("read stored state: transcript: %w", err)
	}
	if st.Msgs, err = paged.Restore(w.MsgPages, w.Msgs); err != nil {
		return nil, fmt.Errorf("read stored state: messages: %w", err)
	}
	ends, err := unmarshalEvents[*event.TurnEnd](w.Ends)
	if err != nil {
		return nil, fmt.Errorf("read stored state: turn records: %w", err)
	}
	if st.Ends, err = paged.Restore(w.EndPages, ends); err != nil {
		return nil, fmt.Errorf("read stored state: turn records: %w", err)
	}
	marks, err := unmarshalEvents[event.Event](w.Marks)
	if err != nil {
		return nil, fmt.Errorf("read stored state: marks: %w", err)
	}
	if st.Marks, err = paged.Restore(w.MarkPages, marks); err != nil {
		return nil, fmt.Errorf("read stored state: marks: %w", err)
	}
	if w.Last != nil {
		last, err := unmarshalEvents[*event.TurnEnd]([][]byte{w.Last})
		if err != nil {
			return nil, fmt.Errorf("read stored state: last turn: %w", err)
		}
		st.Last = last[0]
		// the latest turn record is the latest mark and turn record, as
		// Apply left them: one value, not copies
		if n := len(marks); n > 0 && bytes.Equal(w.Marks[n-1], w.Last) {
			if te, ok := marks[n-1].(*event.TurnEnd); ok {
				st.Last = te
			}
		}
	}
	if c := r.Cur; c != nil {
		cur := &TurnState{UserText: c.UserText, UserMsg: c.UserMsg, UserNotes: c.UserNotes, Ended: c.Ended, Usage: c.Usage,
			Execs: c.Execs, ExecVersion: c.ExecVersion, SkillUses: c.SkillUses, ToolUses: c.ToolUses, Reused: c.Reused, Warned: c.Warned, LeftOff: c.LeftOff}
		for _, n := range c.Offered {
			cur.Offered.Add(n)
		}
		for _, n := range c.Delivered {
			cur.Delivered.Add(n)
		}
		for _, n := range c.LoadedNames {
			cur.LoadedNames.Add(n)
		}
		st.Cur = cur
	}
	switch {
	case w.FrozenAsMain && main != nil:
		st.Frozen = main.Frozen
	case w.FrozenAsMain:
		return nil, fmt.Errorf("read stored state: a checkpoint names its session's frozen prompt, read without it")
	case r.Frozen != nil:
		st.Frozen = frozenIn(r.Frozen)
	}
	return st, nil
}

func frozenOut(f *Frozen) (*frozenWire, error) {
	w := &frozenWire{Instructions: f.Instructions, Infos: f.Infos, Offered: f.Offered, LeftOff: f.LeftOff, Context: f.Context}
	for _, t := range f.Tools {
		tw := toolWire{Type: t.Type}
		if fn := t.Function; fn != nil {
			tw.HasFunction, tw.Name, tw.Description, tw.Strict = true, fn.Name, fn.Description, fn.Strict
			if fn.Parameters != nil {
				b, err := json.Marshal(fn.Parameters)
				if err != nil {
					return nil, fmt.Errorf("store state: frozen tool %s: %w", fn.Name, err)
				}
				tw.Parameters = b
			}
		}
		w.Tools = append(w.Tools, tw)
	}
	return w, nil
}

func frozenIn(w *frozenWire) *Frozen {
	f := &Frozen{Instructions: w.Instructions, Infos: w.Infos, Offered: w.Offered, LeftOff: w.LeftOff, Context: w.Context}
	for _, tw := range w.Tools {
		t := chat.Tool{Type: tw.Type}
		if tw.HasFunction {
			t.Function = &chat.FunctionDefinition{Name: tw.Name, Description: tw.Description, Strict: tw.Strict}
			if tw.Parameters != nil {
				t.Function.Parameters = json.RawMessage(tw.Parameters)
			}
		}
		f.Tools = append(f.Tools, t)
	}
	return f
}

// RepairState is what a Repairer carries from one event to the next, for
// a reader that stops at a turn's boundary and goes on later.
type RepairState struct {
	Open    []event.ToolCallRecord
	Owed    map[string]int
	Started map[string]bool
	Turn    int
	Notes   []string
}

// State returns what r carries, copied.
func (r *Repairer) State() RepairState {
	s := RepairState{Open: append([]event.ToolCallRecord(nil), r.open...), Owed: map[string]int{}, Started: map[string]bool{}, Turn: r.turn,
		Notes: append([]string(nil), r.notes...)}
	for k, v := range r.owed {
		s.Owed[k] = v
	}
	for k, v := range r.started {
		s.Started[k] = v
	}
	return s
}

// ResumeRepairer is a Repairer that goes on from s.
func ResumeRepairer(s RepairState) *Repairer {
	r := &Repairer{open: s.Open, owed: s.Owed, started: s.Started, turn: s.Turn, notes: s.Notes}
	if r.owed == nil {
		r.owed = map[string]int{}
	}
	if r.started == nil {
		r.started = map[string]bool{}
	}
	return r
}

// StateLayout describes the Go types a stored state is made of, field by
// field: a stored state written by a build whose layout differs is not
// read back (gob would read it, leaving out or zeroing what changed).
func StateLayout() string { return stateLayout }

var stateLayout = func() string {
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		fmt.Fprintf(&b, "%s:%s", t.String(), t.Kind())
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				fmt.Fprintf(&b, "{%s %s %s}", f.Name, f.Type, f.Tag)
			}
			for i := range t.NumField() {
				walk(t.Field(i).Type)
			}
		}
		b.WriteByte(';')
	}
	walk(reflect.TypeOf(stateWire{}))
	walk(reflect.TypeOf(State{}))
	types := make([]string, 0, len(markTypes))
	for _, e := range markTypes {
		types = append(types, reflect.TypeOf(e).String())
		walk(reflect.TypeOf(e))
	}
	sort.Strings(types)
	b.WriteString(strings.Join(types, ","))
	return b.String()
}()

// CheckStored refuses a state read back from storage that Skillet would act
// on unsafely or could not show: a skill name, execution id or store name
// that is no file name (see event.CheckName), settings out of range, or a
// position in the transcript past its end. A journal's lines are checked
// as they are read; a stored state is checked as a whole instead.
func (st *State) CheckStored() error {
	if st.ID != "" {
		if err := event.CheckName("session_id", st.ID); err != nil {
			return err
		}
	}
	if err := st.Settings.Check("settings."); err != nil {
		return err
	}
	msgs, entries := st.Msgs.Len(), st.Entries.Len()
	inRange := func(what string, v, lo, hi int) error {
		if v < lo || v >= hi {
			return fmt.Errorf("%s %d is outside [%d, %d)", what, v, lo, hi)
		}
		return nil
	}
	for _, ls := range append(slices.Clone(st.Loaded), st.Preloads...) {
		if ls == nil {
			return fmt.Errorf("a load is missing")
		}
		if err := event.CheckName("skill", ls.Name); err != nil {
			return err
		}
		for _, id := range []string{ls.ExecID, ls.LoadExec} {
			if id != "" {
				if err := event.CheckName("execution_id", id); err != nil {
					return err
				}
			}
		}
		if err := errors.Join(inRange("the message of "+ls.Name+"'s last read", ls.ResultMsg, -1, msgs), inRange("the message "+ls.Name+" joined at", ls.JoinedMsg, 0, msgs+1)); err != nil {
			return err
		}
	}
	for name := range st.Stores {
		if err := event.CheckName("store", name); err != nil {
			return err
		}
	}
	if len(st.MsgEntry) != msgs {
		return fmt.Errorf("%d messages but the entries of %d", msgs, len(st.MsgEntry))
	}
	for _, e := range st.MsgEntry {
		if err := inRange("a message's entry", e, 0, entries); err != nil {
			return err
		}
	}
	for _, m := range st.UserMsgs {
		if err := inRange("a user message", m, 0, msgs); err != nil {
			return err
		}
	}
	if st.Cur != nil {
		if err := inRange("this turn's user message", st.Cur.UserMsg, -1, msgs); err != nil {
			return err
		}
	}
	for _, l := range st.Listings {
		if err := inRange("a listing's message", l.Msg, -1, msgs); err != nil {
			return err
		}
	}
	return nil
}
