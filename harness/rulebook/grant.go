// Rule R15 for the profile's own shell and file tools: the config's
// [[permissions]] deny or allow a call; under claude-code a loaded skill's
// allowed-tools approves it (elsewhere it is only noted as what Claude Code
// would have approved it by); under codex a known-safe read runs without
// asking.

package rulebook

import (
	"encoding/json"
	"fmt"
	"strings"

	"skillet/harness/agenttools"
	"skillet/harness/chat"
	"skillet/harness/event"
)

// Permission is one [[permissions]] entry: Claude Code rules that allow
// or deny calls of the profile's own tools.
type Permission struct {
	Allow string `toml:"allow"`
	Deny  string `toml:"deny"`
}

// Grant is what the permission rules say of one agent tool call (R15):
// denied by a rule, approved by one (by), or what Claude Code would have
// approved it by under a profile where skills grant nothing (would).
type Grant struct {
	Denied, By, Would string
}

// AgentGrant applies [[permissions]] and, under claude-code, the loaded
// skills' allowed-tools to a call of one of the profile's own tools (R15:
// under every other profile a skill grants nothing).
func AgentGrant(st *State, w *World, d *agenttools.Def, args json.RawMessage) Grant {
	prof := ProfileName(st)
	skillsGrant := harnessOf(st).SkillsGrant
	var g Grant
	for _, p := range w.Permissions {
		rules, err := agenttools.ParseAllowed(p.Allow + p.Deny)
		if err != nil {
			continue // checked when the config was read
		}
		if m, ok := agenttools.MatchRule(rules, *d, args, prof); ok {
			if p.Deny != "" {
				return Grant{Denied: fmt.Sprintf("denied: [[permissions]] deny %s", m)}
			}
			if g.By == "" {
				g.By = "[[permissions]] allow " + m
			}
		}
	}
	for _, ls := range append(append([]*Loaded{}, st.Loaded...), st.Preloads...) {
		if len(ls.Body.AllowedTools) == 0 {
			continue
		}
		rules, err := agenttools.ParseAllowed(strings.Join(ls.Body.AllowedTools, " "))
		if err != nil {
			continue
		}
		m, ok := agenttools.MatchRule(rules, *d, args, prof)
		if !ok {
			continue
		}
		by := fmt.Sprintf("%s's allowed-tools (%s)", ls.Name, m)
		if skillsGrant {
			if g.By == "" {
				g.By = by
			}
		} else if g.Would == "" {
			g.Would = by
		}
	}
	return g
}

// KnownSafe names the profile's rule when it would run command without
// asking (Codex's known-safe reads); "" asks.
func KnownSafe(st *State, command string) string {
	if h := harnessOf(st); h.KnownSafe != nil {
		return h.KnownSafe(command)
	}
	return ""
}

// Authorization is what the policy says of a call before it runs (R15):
// Refusal, when not "", is the result instead of running it; Ask means the
// user must answer first (the shell asks, then records it with Answered);
// Events are the approvals to record now.
type Authorization struct {
	Refusal string
	Ask     bool
	Events  []event.Event
}

// Authorize applies the agent's policy to a call (R15): never, ask or
// always-deny. An ask is answered by an approval saved for the session, by
// the user making the call by hand (manual), by the user when someone can
// be asked (canAsk), or headless by a flag that approves the tool
// (flagApproved); else it is denied.
func Authorize(st *State, b *Binding, tc chat.ToolCall, manual, canAsk, flagApproved bool) Authorization {
	name := tc.Function.Name
	approval := func(d event.Decision) []event.Event {
		return []event.Event{&event.Approval{ToolCallID: tc.ID, Name: name, Decision: d}}
	}
	switch b.Info.Approval {
	case ApproveDeny:
		return Authorization{Refusal: fmt.Sprintf("denied: the policy for %s is always-deny", name), Events: approval(event.DecisionPolicyDeny)}
	case ApproveAsk:
	default:
		return Authorization{}
	}
	switch {
	case st.Approved[name], manual:
		return Authorization{}
	case canAsk:
		return Authorization{Ask: true}
	case flagApproved:
		return Authorization{Events: approval(event.DecisionOnce)}
	}
	return Authorization{Refusal: fmt.Sprintf("denied: %s needs approval (approval = ask) and nobody can answer here; approve it with --approve %s or --approve-all", name, name),
		Events: approval(event.DecisionDeny)}
}

// Answered records the user's answer to an ask: anything but a clear yes
// is a no; a cancelled ask refuses the call as cancelled (R25) and records
// nothing.
func Answered(tc chat.ToolCall, d event.Decision, cancelled bool) (string, []event.Event) {
	if cancelled {
		return CancelledResult, nil
	}
	if d != event.DecisionOnce && d != event.DecisionAll {
		d = event.DecisionDeny
	}
	events := []event.Event{&event.Approval{ToolCallID: tc.ID, Name: tc.Function.Name, Decision: d}}
	if d == event.DecisionDeny {
		return "denied by the user", events
	}
	return "", events
}
