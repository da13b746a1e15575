// The state every rule reads (R1–R26): plain values, written only by
// Apply.

package rulebook

import (
	"encoding/json"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/paged"
)

// State is everything a session is, as plain values: the transcript (R1),
// the loaded set (R2, R3) and preloads (R16), turn counters and records
// (R20, R21), the frozen prompt (R23), approvals (R15), stores and per-load
// states (R26). Apply is its only writer; everything else only reads it.
// It is not safe for concurrent use: the shell serializes access.
type State struct {
	ID    string
	Model string
	// Demo marks a session started on the offline demo model.
	Demo     bool
	Settings event.Settings
	// Profile is how skills reach the model, "" for Skillet's own rule
	// book; ContextWindow the tokens its listing budget derives from.
	Profile       string
	ContextWindow int
	// ProfileAgent is the agent version the profile reproduced when the
	// session started, as its journal recorded it ("" for skillet, or a
	// journal older than the field).
	ProfileAgent string

	// Entries is the transcript; Msgs the chat messages among them, with
	// MsgEntry the entry of each message and UserMsgs the positions of the
	// user messages, ascending. Entries and messages the window has left
	// are sealed at the end of a turn (see sealOld).
	Entries  paged.List[Entry]
	Msgs     paged.List[chat.Message]
	MsgEntry []int
	UserMsgs []int

	// Loaded is the loaded set, most recent (the active skill) first.
	Loaded   []*Loaded
	Preloads []*Loaded
	// ExecSeq is the highest execution number recorded.
	ExecSeq int
	Turn    int
	// Running is set between a turn's start and its end.
	Running bool
	Cur     *TurnState
	Last    *event.TurnEnd
	// Ends are the turns' records, the oldest sealed (see sealOld).
	Ends paged.List[*event.TurnEnd]
	// Approvals are the decisions per tool call; Approved the tools
	// approved for the rest of the session.
	Approvals map[string]event.Decision
	Approved  map[string]bool
	Calls     []CallRecord
	Frozen    *Frozen
	// CallIDs are the tool call ids of the session, kept unique.
	CallIDs map[string]bool
	Stores  map[string]json.RawMessage
	// Gone keeps tools that left with their skill visible for a turn.
	Gone []GoneTool
	// LastDropped is how many messages the last trimmed window left out.
	LastDropped int
	// OutOfWindow names tool-result loads whose text left the window and
	// were warned about (R11).
	OutOfWindow map[string]bool
	// Unsent are notes for the model not yet on the wire.
	Unsent []string
	// Marks are the events that stand between transcript entries (loads,
	// unloads, trims, warnings, approvals, settings, turn ends), each
	// with its Header.Entry, so a reopened session shows them where they
	// happened. All but the latest are sealed (see sealOld): the UI reads
	// them once, when it opens a session.
	Marks paged.List[event.Event]
	// Workspace is where the agent tools work (nil without them); Files
	// the workspace files tool calls have changed so far, by path, without
	// their content (the journal keeps it), deleted ones with Op delete.
	Workspace *event.WorkspaceInfo
	Files     map[string]event.FileChange
	// Listings are the skill listings attached to user messages (see
	// event.ModelCall.Listing), oldest first.
	Listings []ListingAt
}

// ListingAt is a skill listing and the chat message it is attached to.
type ListingAt struct {
	Msg int
	event.Listing
}

// Loaded is one skill in the loaded set or among this turn's preloads.
type Loaded struct {
	Name    string
	Version string
	// ExecID is the current execution; LoadExec the one that loaded it,
	// which names its per-load state for as long as it stays (R13, R26).
	ExecID     string
	LoadExec   string
	ExecTurn   int
	LoadedTurn int
	By         event.LoadedBy
	Body       event.SkillBody
	Tokens     int
	// Changed is set when the file changed on disk since it loaded (R17).
	Changed bool
	// Tools are the tools this load made available, as name@version.
	Tools []string
	// Delivery is how the text reaches the model, fixed at load (R11).
	Delivery event.Delivery
	// ResultMsg is the message holding the result of the model's last
	// read, which carries the text in tool-result delivery; -1 if none.
	ResultMsg int
	// JoinedMsg is how many chat messages the transcript held when the
	// skill joined the loaded set: under a profile, activation results
	// before it belong to an earlier load.
	JoinedMsg int
	// State is the per-load state last recorded (R26).
	State json.RawMessage
}

// TurnState is what one turn tracks; none of it outlives the turn except
// through the TurnEnd event.
type TurnState struct {
	UserText  string
	UserMsg   int
	UserNotes []string
	Ended     bool
	Usage     Usage
	// Execs is the execution of each skill the model read this turn, and
	// ExecVersion its version (R13).
	Execs       map[string]string
	ExecVersion map[string]string
	Offered     OrderedSet
	Delivered   OrderedSet
	LoadedNames OrderedSet
	SkillUses   map[string]event.Use
	ToolUses    []event.Use
	Reused      map[string]bool
	// Warned holds the warnings given this turn, so none repeats.
	Warned  map[string]bool
	LeftOff []string
}

// NewTurnState returns the empty record of a turn.
func NewTurnState() *TurnState {
	return &TurnState{UserMsg: -1, Execs: map[string]string{}, ExecVersion: map[string]string{}, SkillUses: map[string]event.Use{},
		Reused: map[string]bool{}, Warned: map[string]bool{}}
}

// Usage is what a turn used of each limit.
type Usage struct {
	Loads      int `json:"loads"`
	LoadTokens int `json:"load_tokens"`
	ToolCalls  int `json:"tool_calls"`
	ModelCalls int `json:"model_calls"`
}

// OrderedSet keeps names in the order first added.
type OrderedSet struct {
	Names []string
	seen  map[string]bool
}

// Add adds a name unless it is there already.
func (o *OrderedSet) Add(name string) {
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	if !o.seen[name] {
		o.seen[name] = true
		o.Names = append(o.Names, name)
	}
}

// List returns a copy of the names, never nil.
func (o *OrderedSet) List() []string { return append([]string{}, o.Names...) }

// Frozen is the first request's instructions and tools (R23), with what its
// instructions carry.
type Frozen struct {
	Instructions string
	Tools        []chat.Tool
	Infos        []event.ToolInfo
	Offered      []string
	LeftOff      []string
	// Context maps each skill rendered in the frozen <current_context> to
	// its execution then.
	Context map[string]string
}

// GoneTool is a tool that left with its skill, and the turn it left.
type GoneTool struct {
	event.ToolInfo
	LeftTurn int
}

// CallRecord is one model call of the session, for the inspector. Only the
// latest KeepCallBodies keep Request and Reply.
type CallRecord struct {
	Turn    int             `json:"turn"`
	Call    int             `json:"call"`
	Request json.RawMessage `json:"request"`
	// Reply is the raw reply, "" while it streams or when none came.
	Reply string `json:"reply"`
	Error string `json:"error,omitempty"`
	// Usage is what the endpoint said the call used, when it said.
	Usage *chat.Usage `json:"usage,omitempty"`
}

// New returns the state of a fresh session.
func New(id, model string, settings event.Settings) *State {
	return &State{ID: id, Model: model, Settings: settings, Approvals: map[string]event.Decision{},
		Approved: map[string]bool{}, CallIDs: map[string]bool{}, Stores: map[string]json.RawMessage{}, OutOfWindow: map[string]bool{}, Files: map[string]event.FileChange{}}
}

// FindLoaded returns the loaded skill of that name, or nil.
func (st *State) FindLoaded(name string) *Loaded {
	for _, ls := range st.Loaded {
		if ls.Name == name {
			return ls
		}
	}
	return nil
}

// FindPreload returns this turn's preload of that name, or nil.
func (st *State) FindPreload(name string) *Loaded {
	for _, ls := range st.Preloads {
		if ls.Name == name {
			return ls
		}
	}
	return nil
}
