package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"skillet/harness/agenttools"
	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/tools"
)

// parseRules reads permission rules in Claude Code's syntax.
func parseRules(spec string) ([]agenttools.Rule, error) { return agenttools.ParseAllowed(spec) }

// runAgentTool carries out a call of one of the profile's own tools: its
// arguments checked, the permission rules and policy applied (R15), the
// tool run in the workspace, and what it changed there recorded.
func (s *Session) runAgentTool(ctx context.Context, tc chat.ToolCall, b *binding, manual bool) *event.ToolResult {
	name := tc.Function.Name
	args, err := tools.ValidateArgs(b.Info.Parameters, tc.Function.Arguments)
	if err != nil {
		return &event.ToolResult{Content: fmt.Sprintf("%s: bad arguments: %v", name, err), IsError: true, Refused: true}
	}
	var a *agentTools
	g := read(s, func(f *frame) rulebook.Grant {
		a = f.w.agent
		return rulebook.AgentGrant(f.st, f.w.World, b.ATool, args)
	})
	if a == nil {
		return &event.ToolResult{Content: name + ": the session's workspace is not available, so its tools cannot run", IsError: true, Refused: true}
	}
	if g.Denied != "" {
		s.emit(&event.Approval{ToolCallID: tc.ID, Name: name, Decision: event.DecisionPolicyDeny})
		return &event.ToolResult{Content: g.Denied, IsError: true, Refused: true}
	}
	approvedBy := ""
	if g.By == "" && b.ATool.Kind == agenttools.KindShell && b.Info.Approval == rulebook.ApproveAsk {
		g.By = read(s, func(f *frame) string {
			return rulebook.KnownSafe(f.st, agenttools.TargetOf(*b.ATool, args).Command)
		})
	}
	if g.By != "" && b.Info.Approval == rulebook.ApproveAsk {
		approvedBy = g.By
	} else if denied := s.authorize(ctx, tc, b, manual); denied != "" {
		return &event.ToolResult{Content: denied, IsError: true, Refused: true, WouldApprove: g.Would}
	}
	s.emit(&event.ToolStarted{ToolCallID: tc.ID, Name: name, Arguments: string(args)})
	var out agenttools.Result
	var changes []event.FileChange
	var diff string
	if s.opts.ReplayAgent != nil {
		rec, ok := s.opts.ReplayAgent(ctx, tc.ID)
		if !ok {
			return &event.ToolResult{Content: fmt.Sprintf("replay: the recording holds no result for tool call %s", tc.ID), IsError: true}
		}
		var warned []string
		out, changes, diff, warned = a.replay(rec)
		for _, w := range warned {
			s.warn("replay of " + name + ": " + w)
		}
	} else {
		out, changes, diff = a.call(ctx, *b.ATool, args)
	}
	res := &event.ToolResult{Content: out.Content, IsError: out.IsError, Diff: diff, ApprovedBy: approvedBy, WouldApprove: g.Would, ExecutionID: tc.ID}
	if sh := out.Shell; sh != nil {
		dir, err := filepath.Rel(a.ws.Root(), sh.Dir)
		if err != nil || strings.HasPrefix(dir, "..") {
			dir = sh.Dir
		}
		res.Shell = &event.ShellRun{Command: sh.Command, Dir: filepath.ToSlash(dir), ExitCode: sh.ExitCode, Signal: sh.Signal, DurationMS: elapsedMS(sh.Duration),
			Output: sh.Output, OutputBytes: int64(len(sh.Output)), Limit: sh.Limit, Sandbox: sandboxName(a)}
	}
	if len(changes) > 0 {
		s.emit(&event.WorkspaceChanged{ToolCallID: tc.ID, Tool: name, Changes: changes})
	}
	if ctx.Err() != nil {
		res.Content, res.IsError = cancelledResult+" while "+name+" ran", true
		return res
	}
	if !manual && !res.IsError {
		s.activateByPath(ctx, tc, b, args, res)
	}
	return res
}

// sandboxName is how a session's commands are confined, for the record.
func sandboxName(a *agentTools) string {
	if a.box == nil || !a.box.Confined() {
		return "none"
	}
	return "bubblewrap"
}

// activateByPath records the activation of a skill whose SKILL.md a read
// or shell call of the profile's tools read, under a profile whose skills
// are activated so (Codex, Crush): the model's load, with the limits of
// the lifecycle rules when they are on (R12–R14). The result stays what
// the tool returned.
func (s *Session) activateByPath(ctx context.Context, tc chat.ToolCall, b *binding, args json.RawMessage, res *event.ToolResult) {
	if b.ATool.Kind != agenttools.KindRead && b.ATool.Kind != agenttools.KindShell {
		return
	}
	t := agenttools.TargetOf(*b.ATool, args)
	d := read(s, func(f *frame) activation {
		if !rulebook.PathActivation(f.st) {
			return activation{}
		}
		path := t.Path
		if b.ATool.Kind == agenttools.KindShell {
			path = rulebook.SkillFileInCommand(f.w.World, t.Command)
		} else if path != "" && !filepath.IsAbs(path) && f.w.agent != nil {
			path = filepath.Join(f.w.agent.ws.Root(), path)
		}
		if path == "" || filepath.Base(path) != "SKILL.md" {
			return activation{}
		}
		return rulebook.DecideActivationFor(f.st, f.w.World, rulebook.ActivationArgs{Path: path}, tc.ID, b.Info.Name)
	})
	switch {
	case d.Skill == nil || d.Resource != "":
		return
	case d.Result != nil:
		// refused by a limit: the model read the file, but the skill does
		// not count as loaded; say so after what the tool returned
		res.Content += "\n\n(skillet: " + d.Result.Content + ")"
		return
	case d.Plan != nil:
		s.insert(ctx, *d.Plan)
	default:
		s.emit(&event.SkillActivated{Skill: d.Skill.Name, ExecutionID: d.Exec, By: event.ByModel})
	}
	res.Activated, res.Delivers = d.Skill.Name, true
}
