package view

import (
	"encoding/json"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/rulebook"
)

// Ledger is the token count of the next request, part by part. The parts
// add up to Total, which is the count of the exact body that will be sent
// plus the notes waiting to join the next user message.
type Ledger struct {
	// Tokenizer names the encoding the counts come from.
	Tokenizer string       `json:"tokenizer"`
	Parts     []LedgerPart `json:"parts"`
	Total     int          `json:"total"`
	// Reported is what the endpoint said the last request used
	// (prompt_tokens), beside LastEstimate, this ledger's count of that
	// request's body; both 0 when unknown.
	Reported     int `json:"reported_prompt_tokens,omitempty"`
	LastEstimate int `json:"last_request_estimate,omitempty"`
}

// LedgerPart is one part of the request.
type LedgerPart struct {
	// Kind is "prompt", "preload", "list", "context" (a skill's text in
	// <current_context>), "messages" (the window's messages, less the
	// next part), "skill_copies" (skill text the window's contextChanged
	// lines and tool-result loads carry again), "tools" (their schemas),
	// "pending_notes" (notes that join the next user message) or
	// "framing" (JSON, roles and XML wrappers: the rest of the body).
	Kind   string `json:"kind"`
	Skill  string `json:"skill,omitempty"`
	Tokens int    `json:"tokens"`
}

// NewLedger counts the parts of a composed request with count, with the
// notes waiting for the next user message (unsent) and the last call whose
// usage the endpoint reported (nil for none); tokenizer names the
// encoding count uses.
func NewLedger(c *rulebook.Next, count func(string) int, tokenizer, unsent string, reported *rulebook.CallRecord) Ledger {
	l := Ledger{Tokenizer: tokenizer}
	add := func(kind, skill string, n int) {
		l.Parts = append(l.Parts, LedgerPart{Kind: kind, Skill: skill, Tokens: n})
	}
	sum := 0
	for _, p := range c.Parts {
		if p.Text == "" || inMessages(p) {
			continue // counted with the messages or the tools
		}
		n := p.Tokens
		if n == 0 || p.Kind == "preload" || p.Kind == "skill" || p.Kind == "paste" {
			n = count(p.Text) // the whole element, wrapper included
		}
		kind := p.Kind
		if kind == "skill" || kind == "paste" {
			kind = "context"
		}
		add(kind, p.Skill, n)
		sum += n
	}
	msgs := 0
	copies := 0
	for _, m := range c.Msgs {
		msgs += count(m.Content)
		for _, tc := range m.ToolCalls {
			msgs += count(tc.Function.Name) + count(tc.Function.Arguments)
		}
		copies += count(skillCopies(m))
	}
	copies = min(copies, msgs)
	add("messages", "", msgs-copies)
	add("skill_copies", "", copies)
	sum += msgs
	tools := 0
	if len(c.Request.Tools) > 0 {
		if b, err := json.Marshal(c.Request.Tools); err == nil {
			tools = count(string(b))
		}
	}
	add("tools", "", tools)
	sum += tools
	pending := count(unsent)
	add("pending_notes", "", pending)
	sum += pending
	body, _ := c.Request.Body()
	l.Total = count(string(body)) + pending
	add("framing", "", l.Total-sum)
	if reported != nil {
		l.Reported = reported.Usage.PromptTokens
		l.LastEstimate = count(string(reported.Request))
	}
	return l
}

// skillCopies is the skill text a message carries besides its own words:
// the "  | " excerpt lines of contextChanged records (R7) and the <skill>
// element of a tool-result load (R11).
func skillCopies(m chat.Message) string {
	var b strings.Builder
	text := m.Content
	if i := strings.Index(text, "<skill name="); i >= 0 && m.Role == chat.RoleTool {
		b.WriteString(text[i:])
		text = text[:i]
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "  | ") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// inMessages reports whether a part of a profile's request is inside the
// window's messages or the tools rather than beside them.
func inMessages(p rulebook.Part) bool {
	switch p.Placement {
	case "reminder-message", "tool-description", "tool-result", "user-message":
		return true
	}
	return false
}
