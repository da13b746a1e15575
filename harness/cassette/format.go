// Package cassette records a session's model traffic to a file and plays it
// back as the model: a header (the Skillet version, the model, the endpoint
// without secrets, the settings and a hash of every skill file), then per
// model call the exact request body and the raw reply with the time each
// piece arrived, the tool results and what the user did. A cassette is JSON
// lines, one record per line, written as the session goes, so a session
// that dies midway leaves a cassette that replays as far as it got.
//
// A cassette never holds an API key or an Authorization header: headers are
// not recorded (except Content-Type and Retry-After), and every secret the
// Recorder is given is cut out of request bodies, replies and tool results
// before a line is written, even when a server echoes it back.
package cassette

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/journal"
	"unicode/utf8"
)

// Format is the version of the cassette layout this package writes.
const Format = 1

// Kinds of cassette lines.
const (
	KindHeader = "header"
	KindCall   = "call"
	KindTool   = "tool"
	KindAction = "action"
	KindTurn   = "turn_end"
	KindChoice = "decision"
)

// Actions a user took that replay repeats.
const (
	ActionTurn   = "turn"   // a message that starts a turn
	ActionLoad   = "load"   // a skill loaded by hand
	ActionUnload = "unload" // a skill unloaded by hand
	ActionSet    = "set"    // a setting changed between turns
)

// Header opens a cassette.
type Header struct {
	Kind    string `json:"kind"`
	Format  int    `json:"format"`
	Skillet string `json:"skillet"`
	Model   string `json:"model"`
	// Endpoint is the API root with any credentials, query and fragment cut.
	Endpoint string `json:"endpoint"`
	Demo     bool   `json:"demo,omitempty"`
	// Settings are the rule book's limits and modes, as KEY → value.
	Settings map[string]string `json:"settings,omitempty"`
	// Config and Roots say where the skills came from, so a replay can find
	// them again.
	Config string   `json:"config,omitempty"`
	Roots  []string `json:"roots,omitempty"`
	// Skills hashes every file of every skill of the catalog.
	Skills []SkillHash `json:"skills"`
	// Profile is how skills reached the model and ContextWindow the window
	// its listing was budgeted for (0: the profile's own), so a replay
	// composes its requests the same way. A cassette without them was
	// recorded under the config's profile.
	Profile       string `json:"profile,omitempty"`
	ContextWindow int    `json:"context_window,omitempty"`
}

// SkillHash is the SHA-256 of every file of one skill's folder.
type SkillHash struct {
	Name string `json:"name"`
	// Files maps a path relative to the skill's folder to its hex SHA-256.
	Files map[string]string `json:"files"`
}

// Chunk is one piece of a reply and when it arrived, in milliseconds since
// the request was sent. Data holds the text; B64 the bytes when they are not
// UTF-8.
type Chunk struct {
	MS   float64 `json:"ms"`
	Data string  `json:"data,omitempty"`
	B64  string  `json:"b64,omitempty"`
}

// Bytes is the chunk's content.
func (c Chunk) Bytes() []byte {
	if c.B64 != "" {
		b, err := base64.StdEncoding.DecodeString(c.B64)
		if err == nil {
			return b
		}
	}
	return []byte(c.Data)
}

func newChunk(ms float64, b []byte) Chunk {
	if utf8.Valid(b) {
		return Chunk{MS: ms, Data: string(b)}
	}
	return Chunk{MS: ms, B64: base64.StdEncoding.EncodeToString(b)}
}

// Call is one HTTP round trip to the model: a retried request is two calls.
type Call struct {
	Kind string `json:"kind"`
	// N numbers the calls of the cassette from 1.
	N int `json:"n"`
	// Request is the exact request body when it is compact JSON (as the
	// client sends it); RequestText holds any other body verbatim.
	Request     json.RawMessage `json:"request,omitempty"`
	RequestText string          `json:"request_text,omitempty"`
	Status      int             `json:"status,omitempty"`
	ContentType string          `json:"content_type,omitempty"`
	RetryAfter  string          `json:"retry_after,omitempty"`
	Chunks      []Chunk         `json:"chunks,omitempty"`
	// Cut marks a reply the client stopped reading before its end; Error
	// says why a call got no reply at all.
	Cut   bool   `json:"cut,omitempty"`
	Error string `json:"error,omitempty"`
}

// Body is the request body as it was sent.
func (c *Call) Body() []byte {
	if c.RequestText != "" {
		return []byte(c.RequestText)
	}
	return c.Request
}

// Tool is one tool result of the session.
type Tool struct {
	Kind       string `json:"kind"`
	Turn       int    `json:"turn"`
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Arguments  string `json:"arguments,omitempty"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error,omitempty"`
	Refused    bool   `json:"refused,omitempty"`
	// Approval is how an ask tool was answered, "" when none was asked.
	Approval event.Decision `json:"approval,omitempty"`
	// Shell and Changes are an agent tool's command run and the workspace
	// files it changed, with their content, so --replay-tools can make
	// the same changes again.
	Shell   *event.ShellRun    `json:"shell,omitempty"`
	Changes []event.FileChange `json:"changes,omitempty"`
}

// Action is something the user did: a message, a load, an unload, a set.
type Action struct {
	Kind   string `json:"kind"`
	Action string `json:"action"`
	Text   string `json:"text,omitempty"`
	Skill  string `json:"skill,omitempty"`
	Key    string `json:"key,omitempty"`
	Value  string `json:"value,omitempty"`
}

// TurnEnd records the rule book's decisions at the end of a turn (R20).
type TurnEnd struct {
	Kind      string           `json:"kind"`
	Turn      int              `json:"turn"`
	Offered   []string         `json:"offered"`
	Delivered []string         `json:"delivered"`
	Loaded    []string         `json:"loaded"`
	Stop      event.StopReason `json:"stop_reason,omitempty"`
}

// errNewer is a cassette written in a later format than this build reads.
var errNewer = errors.New("the cassette is from a newer Skillet")

// Decision records what the rule book decided for one model call, before
// it was sent: the skills on its list and left off (R10) and the guidance
// and tool answers it delivers (R20, R21) as "skill NAME" and "tool NAME".
type Decision struct {
	Kind      string   `json:"kind"`
	Turn      int      `json:"turn"`
	Call      int      `json:"call"`
	Offered   []string `json:"offered"`
	LeftOff   []string `json:"left_off,omitempty"`
	Delivered []string `json:"delivered"`
}

// Cassette is a cassette read back.
type Cassette struct {
	Header  Header
	Calls   []*Call
	Tools   []*Tool
	Actions []*Action
	Turns   []*TurnEnd
	// Decisions are the rule book's per-call decisions, in call order.
	Decisions []*Decision
	// Truncated says the file ends inside a line (the recording stopped
	// mid-write) or a later line could not be read; Problem says where and
	// what. What came before it is kept.
	Truncated bool
	Problem   string
}

// Open reads the cassette at path.
func Open(path string) (*Cassette, error) {
	f, err := journal.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("open cassette: %w", err)
	}
	defer f.Close()
	c, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	return c, nil
}

// Read reads a cassette. A file that is no cassette at all (no header on
// its first line) is an error; a damaged or cut line later keeps what came
// before and sets Truncated.
func Read(r io.Reader) (*Cassette, error) {
	lr := journal.NewLineReader(r, 0)
	c := &Cassette{}
	for n := 1; ; n++ {
		line, err := lr.Next()
		var tooLong *journal.LineTooLongError
		if errors.As(err, &tooLong) {
			return nil, err
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read line %d: %w", n, err)
		}
		complete := bytes.HasSuffix(line, []byte("\n"))
		if len(bytes.TrimSpace(line)) > 0 {
			if perr := c.add(n, line); perr != nil {
				if errors.Is(perr, errNewer) {
					return nil, perr
				}
				if n == 1 {
					return nil, fmt.Errorf("not a cassette: line 1 is no cassette header (%v)", perr)
				}
				c.Truncated = true
				if complete {
					c.Problem = fmt.Sprintf("line %d is damaged (%v); replaying what came before it", n, perr)
				} else {
					c.Problem = fmt.Sprintf("the cassette is cut at line %d (the recording stopped mid-write); replaying what came before it", n)
				}
				return c, nil
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if c.Header.Kind == "" {
		return nil, errors.New("not a cassette: it is empty")
	}
	return c, nil
}

func (c *Cassette) add(n int, line []byte) error {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(line, &k); err != nil {
		return err
	}
	if n == 1 {
		if k.Kind != KindHeader {
			return fmt.Errorf("kind %q", k.Kind)
		}
		if err := json.Unmarshal(line, &c.Header); err != nil {
			return err
		}
		if c.Header.Format > Format {
			return fmt.Errorf("%w: it has format %d, this Skillet reads format %d (recorded by Skillet %s)", errNewer, c.Header.Format, Format, c.Header.Skillet)
		}
		return nil
	}
	var v any
	switch k.Kind {
	case KindCall:
		call := &Call{}
		c.Calls, v = append(c.Calls, call), call
	case KindTool:
		t := &Tool{}
		c.Tools, v = append(c.Tools, t), t
	case KindAction:
		a := &Action{}
		c.Actions, v = append(c.Actions, a), a
	case KindTurn:
		t := &TurnEnd{}
		c.Turns, v = append(c.Turns, t), t
	case KindChoice:
		d := &Decision{}
		c.Decisions, v = append(c.Decisions, d), d
	default:
		return nil // a kind from a later format: skipped
	}
	return json.Unmarshal(line, v)
}

// encodeLine is one cassette line: compact JSON, <, > and & as they are.
func encodeLine(v any) ([]byte, error) {
	b, err := chat.MarshalPlain(v)
	return append(b, '\n'), err
}
