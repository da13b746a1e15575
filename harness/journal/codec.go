package journal

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"skillet/harness/chat"
	"skillet/harness/event"
	"slices"
	"strings"
)

// A journal stores what repeats once. Each model_call's body is split into
// segments — the bytes between messages kept as they are, each message and
// the tool list as a reference to a blob line written the first time that
// content appears — so the journal still yields the exact bytes of every
// request while a call costs about what changed since the one before.
// Skill texts of loads and preloads are blobs too, a call's left-off list
// is the change from the previous call's, and a long raw reply is
// compressed.

// blobLine is a journal line holding content that other lines reference
// by hash. It is not an event: reading a journal folds it away.
type blobLine struct {
	Type string          `json:"type"`
	Hash string          `json:"hash"`
	JSON json.RawMessage `json:"json,omitempty"`
	Text *string         `json:"text,omitempty"`
}

const typeBlob = "blob"

// A JSON blob line as encoding/json writes a blobLine, around its hash
// and content.
const blobJSONHead, blobJSONMid = `{"type":"blob","hash":"`, `","json":`

// inlineMax is the size under which content stays inline.
const inlineMax = 256

func blobHash(b []byte) string {
	h := sha256.Sum256(b)
	return hashText(h)
}

func hashText(h [sha256.Size]byte) string { return "sha256:" + hex.EncodeToString(h[:16]) }

// BlobKey is a blob's hash as a writer remembers it: a session writes one
// blob per message, and a hash kept as its text costs several times this.
type BlobKey [16]byte

// keyOf reads a blob hash as blobHash writes it.
func KeyOf(h string) (BlobKey, bool) {
	var k BlobKey
	hexPart, ok := strings.CutPrefix(h, "sha256:")
	if !ok || hex.DecodedLen(len(hexPart)) != len(k) {
		return k, false
	}
	_, err := hex.Decode(k[:], []byte(hexPart))
	return k, err == nil
}

// Codec turns events into journal lines and back. The writer and
// the reader keep the same memory: the blobs seen and the last left-off
// list.
type Codec struct {
	// lazy leaves request bodies and compressed replies for resolve and
	// unzip to put together, for the calls that need them.
	lazy bool
	// history reads only what time travel's fold needs: no blob, request
	// body or skill text, only each call's left-off list. It reads a
	// journal from any turn_start line on, given the left-off list before.
	history bool
	blobs   map[string][]byte
	// written holds the blobs a writer has written or found in the
	// journal it appends to.
	written     map[BlobKey]struct{}
	lastLeftOff []string
	// inlineLeftOff is set once a model_call carries its left-off list
	// whole, as journals written before left_off_delta did: there an
	// absent list is an empty one, not the previous call's.
	inlineLeftOff bool
	// lastMsgs are the blob refs of the last request's messages.
	lastMsgs []string
	// raw holds, when lazy, the blob lines not decoded yet, by hash; when
	// the journal can be read again at an offset (src), rawAt holds where
	// they start instead, and at is the offset of the line being decoded.
	raw map[string][]byte
	// torn is where a last line that did not read starts, for a writer to
	// cut it off; 0 when there is none (line 1 is never cut).
	torn int64
	src  io.ReaderAt
	// rawAt is keyed by BlobKey: a long journal has tens of thousands of
	// blob lines, and a map without pointers is one the collector need
	// not scan, at each collection of the fold that reads them.
	rawAt map[BlobKey]int64
	at    int64
	// texts are the skill texts read, by blob: a preload's text comes
	// back at every turn of a long journal, and each event keeps it.
	texts map[string]string
	// pending is the raw reply of the last assistant line a lazy decode
	// left undecoded (see takeRaw).
	pending pendingRaw
}

// pendingRaw is an assistant event's raw reply as its line holds it: the
// field's name and its JSON string, a view of the line valid until the
// next line is read.
type pendingRaw struct {
	of     event.Event
	quoted []byte
}

// cutRaw takes the raw reply off an assistant line as event.Marshal lays it
// out — the last field, "raw" or "raw_gzip" — returning the line without
// it and the field (name and value). A line laid out otherwise comes back
// whole, with raw nil. Both are views of line, which it changes: the
// reply is most of an assistant line's bytes, and a copy of it for every
// line of a long journal is garbage by the ten megabytes.
func cutRaw(line []byte) (rest, raw []byte) {
	if len(line) < 2 || line[len(line)-1] != '}' || line[len(line)-2] != '"' {
		return line, nil
	}
	for _, key := range []string{`,"raw":"`, `,"raw_gzip":"`} {
		i := bytes.LastIndex(line, []byte(key))
		if i < 0 {
			continue
		}
		// the value must be one string that ends the object: its first
		// unescaped quote is the line's last but one byte
		v := line[i+len(key):]
		end := -1
		for j := 0; j < len(v); j++ {
			if v[j] == '\\' {
				j++
				continue
			}
			if v[j] == '"' {
				end = j
				break
			}
		}
		if end != len(v)-2 {
			return line, nil
		}
		line[i] = '}' // the comma before the field: the field starts after it
		return line[:i+1], line[i+1 : len(line)-1]
	}
	return line, nil
}

// takeRaw puts back the raw reply a lazy decode left off assistant a
// (decoded last), compressed or not as the line held it; for any other
// event it does nothing.
func (c *Codec) TakeRaw(a *event.Assistant) error {
	p := c.pending
	if p.of != event.Event(a) {
		return nil
	}
	c.pending = pendingRaw{}
	return RestoreRaw(a, p.quoted)
}

// restoreRaw decodes a raw reply field cutRaw cut into a.
func RestoreRaw(a *event.Assistant, field []byte) error {
	var v struct {
		Raw     string `json:"raw"`
		RawGzip string `json:"raw_gzip"`
	}
	if err := json.Unmarshal(append(append([]byte{'{'}, field...), '}'), &v); err != nil {
		return fmt.Errorf("assistant reply of call %d: %w", a.Call, err)
	}
	a.Raw, a.RawGzip = v.Raw, v.RawGzip
	return nil
}

// get returns a blob's content, decoding its line the first time.
func (c *Codec) get(h string) ([]byte, bool) {
	if b, ok := c.blobs[h]; ok {
		return b, true
	}
	line, ok := c.raw[h]
	if ok {
		delete(c.raw, h)
	} else if at, found := c.rawAtHash(h); found && c.src != nil {
		l, err := LineAt(c.src, at)
		if err != nil {
			return nil, false
		}
		line = l
	} else {
		return nil, false
	}
	_, b, err := ReadBlob(line)
	if err != nil {
		return nil, false
	}
	c.blobs[h] = b
	return b, true
}

// readBlob decodes a blob line: its hash and its content, checked against
// the hash.
func ReadBlob(line []byte) (string, []byte, error) {
	var bl blobLine
	if err := json.Unmarshal(line, &bl); err != nil {
		return "", nil, fmt.Errorf("decode blob: %w", err)
	}
	b := []byte(bl.JSON)
	if bl.Text != nil {
		b = []byte(*bl.Text)
	}
	if blobHash(b) != bl.Hash {
		return "", nil, fmt.Errorf("blob %s: its content does not match its hash", bl.Hash)
	}
	return bl.Hash, b, nil
}

// blobHashOf reads the hash of a blob line as the writer lays it out.
func BlobHashOf(line []byte) (string, bool) {
	const prefix = `{"type":"blob","hash":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return "", false
	}
	rest := line[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end <= 0 {
		return "", false
	}
	return string(rest[:end]), true
}

// NewCodec is a codec that has seen no line yet.
func NewCodec() *Codec {
	return &Codec{blobs: map[string][]byte{}, raw: map[string][]byte{}, rawAt: map[BlobKey]int64{}, written: map[BlobKey]struct{}{}}
}

// Encode returns the lines an event is written as: blob lines first, then
// the event's own line. It never changes e.
func (c *Codec) Encode(e event.Event) ([][]byte, error) {
	var lines [][]byte
	// blob writes b, or text when asText, unless it is written already.
	blob := func(b []byte, text string, asText bool) (string, error) {
		var sum [sha256.Size]byte
		if asText {
			d := sha256.New()
			_, _ = io.WriteString(d, text) // hashed where it lies, not copied
			d.Sum(sum[:0])
		} else {
			sum = sha256.Sum256(b)
		}
		h, k := hashText(sum), BlobKey(sum[:16])
		if _, ok := c.written[k]; ok {
			return h, nil
		}
		var line []byte
		if asText {
			l, err := chat.MarshalPlain(blobLine{Type: typeBlob, Hash: h, Text: &text})
			if err != nil {
				return "", err
			}
			line = l
		} else {
			// b was cut from a compact body by splitRequest: it is written
			// as it is, as encoding/json would write it
			line = make([]byte, 0, len(blobJSONHead)+len(h)+len(blobJSONMid)+len(b)+1)
			line = append(append(append(append(append(line, blobJSONHead...), h...), blobJSONMid...), b...), '}')
		}
		c.written[k] = struct{}{} // a writer only needs to know it is written
		lines = append(lines, line)
		return h, nil
	}
	text := func(body *event.SkillBody) error {
		if len(body.Text) <= inlineMax {
			return nil
		}
		h, err := blob(nil, body.Text, true)
		if err != nil {
			return err
		}
		body.Text, body.TextRef = "", h
		return nil
	}
	out := e
	switch e := e.(type) {
	case *event.ModelCall:
		cp := *e
		if sp, ok := SplitRequest(e.Request); ok {
			refs := make([]string, len(sp.Msgs))
			for i, m := range sp.Msgs {
				h, err := blob(m, "", false)
				if err != nil {
					return nil, err
				}
				refs[i] = h
			}
			ref := &event.RequestRef{Head: sp.Head, Mid: sp.Mid, Tail: sp.Tail}
			ref.First, ref.Keep, ref.Last = keepRun(c.lastMsgs, refs)
			if sp.Tools != nil {
				h, err := blob(sp.Tools, "", false)
				if err != nil {
					return nil, err
				}
				ref.Tools = h
			}
			c.lastMsgs = refs
			cp.Request, cp.Ref = nil, ref
		}
		cp.LeftOff, cp.LeftOffDelta = nil, diffList(c.lastLeftOff, e.LeftOff)
		c.lastLeftOff = e.LeftOff
		out = &cp
	case *event.TurnEnd:
		if slices.Equal(e.LeftOff, c.lastLeftOff) && len(e.LeftOff) > 0 {
			cp := *e
			cp.LeftOff, cp.LeftOffAsCall = nil, true
			out = &cp
		}
	case *event.SkillLoaded:
		cp := *e
		if err := text(&cp.Body); err != nil {
			return nil, err
		}
		out = &cp
	case *event.SkillPreload:
		cp := *e
		if err := text(&cp.Body); err != nil {
			return nil, err
		}
		out = &cp
	case *event.SkillChanged:
		cp := *e
		if err := text(&cp.Body); err != nil {
			return nil, err
		}
		out = &cp
	case *event.WorkspaceChanged:
		cp := *e
		cp.Changes = slices.Clone(e.Changes)
		for i := range cp.Changes {
			ch := &cp.Changes[i]
			if len(ch.Content) <= inlineMax {
				continue
			}
			h, err := blob(nil, ch.Content, true)
			if err != nil {
				return nil, err
			}
			ch.Content, ch.TextRef = "", h
		}
		out = &cp
	case *event.Assistant:
		if len(e.Raw) > 4<<10 {
			cp := *e
			cp.Raw, cp.RawGzip = "", gzipBase64(e.Raw)
			out = &cp
		}
	}
	line, err := event.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append(lines, line), nil
}

// Decode reads one journal line: a blob (event nil) or an event with
// everything it references put back. A lazy codec may change line's bytes
// (the reader's buffer, read once) and keeps none of them past the next
// call.
func (c *Codec) Decode(line []byte) (event.Event, error) {
	c.pending = pendingRaw{} // a view of the line before this one
	typ, ok := event.TypeOf(line)
	if !ok {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return nil, fmt.Errorf("decode event: %w", err)
		}
		typ = head.Type
	}
	if typ == typeBlob && c.history {
		return nil, nil
	}
	if typ == typeBlob && c.lazy {
		// kept undecoded: most blobs of a long journal are never needed
		if h, ok := BlobHashOf(line); ok {
			if k, ok := KeyOf(h); ok && c.src != nil {
				c.rawAt[k] = c.at
			} else {
				c.raw[h] = bytes.Clone(line) // line is the reader's buffer
			}
			return nil, nil
		}
	}
	if typ == typeBlob {
		h, b, err := ReadBlob(line)
		if err != nil {
			return nil, err
		}
		c.blobs[h] = b
		return nil, nil
	}
	var raw []byte
	if typ == event.TypeAssistant && c.lazy {
		// the raw reply is most of an assistant line and is read for a
		// few calls at most: kept undecoded
		line, raw = cutRaw(line)
	}
	e, err := event.Unmarshal(line)
	if err != nil {
		return nil, err
	}
	if raw != nil {
		c.pending = pendingRaw{of: e, quoted: raw}
	}
	text := func(body *event.SkillBody) error {
		if body.TextRef == "" || c.history {
			return nil
		}
		if t, ok := c.texts[body.TextRef]; ok {
			body.Text, body.TextRef = t, ""
			return nil
		}
		b, ok := c.get(body.TextRef)
		if !ok {
			return fmt.Errorf("skill text blob %s is missing", body.TextRef)
		}
		t := string(b)
		if c.texts == nil {
			c.texts = map[string]string{}
		}
		c.texts[body.TextRef] = t
		body.Text, body.TextRef = t, ""
		return nil
	}
	switch e := e.(type) {
	case *event.ModelCall:
		if c.history {
			e.Ref = nil
		}
		if r := e.Ref; r != nil {
			if r.Keep[0] < 0 || r.Keep[0] > r.Keep[1] || r.Keep[1] > len(c.lastMsgs) {
				return nil, fmt.Errorf("model_call %d: it keeps messages %d–%d of a request that had %d", e.Call, r.Keep[0], r.Keep[1], len(c.lastMsgs))
			}
			refs := append(append(append([]string{}, r.First...), c.lastMsgs[r.Keep[0]:r.Keep[1]]...), r.Last...)
			c.lastMsgs = refs
			// the whole list, so the body can be put together later
			e.Ref = &event.RequestRef{Head: r.Head, First: refs, Mid: r.Mid, Tools: r.Tools, Tail: r.Tail}
			if !c.lazy {
				if err := c.Resolve(e); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case e.LeftOffDelta != nil:
			e.LeftOff = e.LeftOffDelta.Apply(c.lastLeftOff)
			e.LeftOffDelta = nil
		case e.LeftOff != nil:
			c.inlineLeftOff = true
		case !c.inlineLeftOff:
			// no delta: the writer found the list unchanged
			e.LeftOff = slices.Clone(c.lastLeftOff)
		}
		if len(e.LeftOff) == 0 {
			e.LeftOff = nil // as the live call has it: none left off
		}
		c.lastLeftOff = e.LeftOff
	case *event.TurnEnd:
		if e.LeftOffAsCall {
			e.LeftOff, e.LeftOffAsCall = slices.Clone(c.lastLeftOff), false
		}
	case *event.SkillLoaded:
		err = text(&e.Body)
	case *event.SkillPreload:
		err = text(&e.Body)
	case *event.SkillChanged:
		err = text(&e.Body)
	case *event.Assistant:
		if !c.lazy {
			err = Unzip(e)
		}
	case *event.WorkspaceChanged:
		// the fold keeps no file content: only a reader that rebuilds the
		// workspace needs it
		if !c.lazy {
			for i := range e.Changes {
				ch := &e.Changes[i]
				if ch.TextRef == "" {
					continue
				}
				b, ok := c.get(ch.TextRef)
				if !ok {
					return nil, fmt.Errorf("workspace_changed: the content of %s (blob %s) is missing", ch.Path, ch.TextRef)
				}
				ch.Content, ch.TextRef = string(b), ""
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// SplitBody is a request body cut at its messages and tool list.
type SplitBody struct {
	Head, Mid, Tail string
	Msgs            [][]byte
	Tools           []byte
}

// SplitRequest cuts a compact request body into the bytes before the
// first message, each message, the bytes up to the tool list, the tool
// list and the rest. ok is false for a body that is not laid out so (not
// compact JSON, a key twice, tools before the messages); it is then stored
// whole. What it cuts out is compact JSON, fit for a blob line as it is.
func SplitRequest(body []byte) (SplitBody, bool) {
	var sp SplitBody
	if len(body) < 2 || body[0] != '{' || body[1] == '}' {
		return sp, false
	}
	msgEnd, toolsStart, toolsEnd := -1, -1, -1
	for i := 1; ; {
		if i >= len(body) || body[i] != '"' {
			return sp, false
		}
		keyEnd, ok := stringEnd(body, i)
		if !ok || keyEnd >= len(body) || body[keyEnd] != ':' {
			return sp, false
		}
		key, at := string(body[i:keyEnd]), keyEnd+1
		var end int
		switch key {
		case `"messages"`:
			if msgEnd >= 0 || toolsStart >= 0 || at >= len(body) || body[at] != '[' {
				return sp, false
			}
			sp.Head = string(body[:at+1])
			end = at + 1
			if end < len(body) && body[end] == ']' {
				end++
			} else {
				for {
					e, ok := compactEnd(body, end)
					if !ok || e >= len(body) {
						return sp, false
					}
					sp.Msgs = append(sp.Msgs, body[end:e])
					end = e + 1
					if body[e] == ']' {
						break
					}
					if body[e] != ',' {
						return sp, false
					}
				}
			}
			msgEnd = end - 1
		case `"tools"`:
			if msgEnd < 0 || toolsStart >= 0 {
				return sp, false
			}
			if end, ok = compactEnd(body, at); !ok {
				return sp, false
			}
			toolsStart, toolsEnd = at, end
		default:
			if end, ok = compactEnd(body, at); !ok {
				return sp, false
			}
		}
		if end >= len(body) {
			return sp, false
		}
		if body[end] == '}' {
			if end+1 != len(body) {
				return sp, false
			}
			break
		}
		if body[end] != ',' {
			return sp, false
		}
		i = end + 1
	}
	if msgEnd < 0 {
		return sp, false
	}
	if toolsStart < 0 {
		sp.Mid = string(body[msgEnd:])
		return sp, true
	}
	sp.Mid, sp.Tools, sp.Tail = string(body[msgEnd:toolsStart]), body[toolsStart:toolsEnd], string(body[toolsEnd:])
	return sp, true
}

// keepRun finds the longest run of the previous request's messages that
// the next one carries in a row — the window moves on, messages join at
// its end and the system message changes — and returns the refs before
// it, the run, and the refs after it.
// Only where a run starts is it measured, so a request whose window is
// the whole history costs about its length, not its square.
func keepRun(prev, next []string) (first []string, keep [2]int, last []string) {
	at := make(map[string][]int, len(prev))
	for i, ref := range prev {
		at[ref] = append(at[ref], i)
	}
	bestLen, bestI, bestH := 0, 0, 0
	for h := range next {
		for _, i := range at[next[h]] {
			if h > 0 && i > 0 && next[h-1] == prev[i-1] {
				continue // inside a run measured from its start
			}
			n := 1
			for h+n < len(next) && i+n < len(prev) && next[h+n] == prev[i+n] {
				n++
			}
			if n > bestLen {
				bestLen, bestI, bestH = n, i, h
			}
		}
	}
	if bestLen == 0 {
		return next, [2]int{0, 0}, nil
	}
	return next[:bestH], [2]int{bestI, bestI + bestLen}, next[bestH+bestLen:]
}

// diffList says how next differs from prev: nil when equal.
func diffList(prev, next []string) *event.ListDelta {
	if slices.Equal(prev, next) {
		return nil
	}
	in := make(map[string]bool, len(next))
	for _, n := range next {
		in[n] = true
	}
	was := make(map[string]bool, len(prev))
	d := &event.ListDelta{}
	for _, p := range prev {
		was[p] = true
		if !in[p] {
			d.Del = append(d.Del, p)
		}
	}
	for _, n := range next {
		if !was[n] {
			d.Add = append(d.Add, n)
		}
	}
	// order is kept when removing and adding gives it back
	if !slices.Equal(d.Apply(prev), next) {
		d.Sorted = true
		if !slices.Equal(d.Apply(prev), next) {
			return &event.ListDelta{All: append([]string{}, next...)} // never null
		}
	}
	if d.Add == nil && d.Del == nil {
		return &event.ListDelta{All: []string{}}
	}
	return d
}

func gzipBase64(s string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func gunzipBase64(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	out, err := io.ReadAll(zr)
	return string(out), err
}

// resolve puts a decoded model_call's request body together from its
// blobs.
func (c *Codec) Resolve(e *event.ModelCall) error {
	r := e.Ref
	if r == nil {
		return nil
	}
	var tools *string
	if r.Tools != "" {
		tools = &r.Tools
	}
	body, err := AssembleBody(r, r.First, tools, func(h string) ([]byte, error) {
		if b, ok := c.get(h); ok {
			return b, nil
		}
		return nil, fmt.Errorf("blob %s is missing", h)
	})
	if err != nil {
		return fmt.Errorf("model_call %d: %w", e.Call, err)
	}
	e.Request, e.Ref = body, nil
	return nil
}

// AssembleBody puts a request body together: its ref's text around the
// message blobs, in order and comma-separated, and the tools blob (when
// there is one), each read by get.
func AssembleBody[K any](r *event.RequestRef, msgs []K, tools *K, get func(K) ([]byte, error)) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(r.Head)
	for i, k := range msgs {
		b, err := get(k)
		if err != nil {
			return nil, fmt.Errorf("request %w", err)
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(b)
	}
	buf.WriteString(r.Mid)
	if tools != nil {
		b, err := get(*tools)
		if err != nil {
			return nil, fmt.Errorf("tools %w", err)
		}
		buf.Write(b)
	}
	buf.WriteString(r.Tail)
	return buf.Bytes(), nil
}

// unzip puts back a compressed raw reply.
func Unzip(e *event.Assistant) error {
	if e.RawGzip == "" {
		return nil
	}
	raw, err := gunzipBase64(e.RawGzip)
	if err != nil {
		return fmt.Errorf("assistant reply of call %d: %w", e.Call, err)
	}
	e.Raw, e.RawGzip = raw, ""
	return nil
}

// Torn is where a last line that did not read starts, 0 when none did.
func (c *Codec) Torn() int64 { return c.torn }

// RawAt is where each blob line a lazy read left undecoded starts, by
// hash, for a reader that can read the journal again at an offset.
func (c *Codec) RawAt() map[BlobKey]int64 { return c.rawAt }

func (c *Codec) rawAtHash(h string) (int64, bool) {
	k, ok := KeyOf(h)
	if !ok {
		return 0, false
	}
	at, found := c.rawAt[k]
	return at, found
}

// LastMsgs are the blob refs of the last request's messages.
func (c *Codec) LastMsgs() []string { return c.lastMsgs }

// LeftOff is the last call's left-off list, and whether model calls carry
// their lists whole (journals written before left_off_delta).
func (c *Codec) LeftOff() (list []string, inline bool) { return c.lastLeftOff, c.inlineLeftOff }

// ForHistory makes the codec read only what time travel's fold needs
// (no blob, request body or skill text), from a turn_start line on, given
// the left-off list before it.
func (c *Codec) ForHistory(leftOff []string, inline bool) {
	c.history, c.lastLeftOff, c.inlineLeftOff = true, leftOff, inline
}

// PendingRaw is the raw reply, as its line quotes it, of e when e is the
// last assistant event a lazy decode left undecoded. The bytes are the
// reader's buffer: valid until the next line is read, so a caller that
// keeps them copies them.
func (c *Codec) PendingRaw(e event.Event) ([]byte, bool) {
	if c.pending.of != e {
		return nil, false
	}
	return c.pending.quoted, true
}
