package harness

import (
	"context"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/harness/tools"
)

// activation is what a call of the activation tool comes to (see
// rulebook.Activation).
type activation = rulebook.Activation

// modelActivate answers a call of the profile's activation tool: it finds
// the skill, applies the lifecycle rules when they are on (R2, R12–R14),
// records the activation as the model's load (SkillLoaded, or
// SkillActivated when the skill is already loaded) and returns what the
// profile renders, with the user messages it adds.
func (s *Session) modelActivate(ctx context.Context, tc chat.ToolCall, b *binding) *event.ToolResult {
	tool := tc.Function.Name
	argsJSON, err := tools.ValidateArgs(b.Info.Parameters, tc.Function.Arguments)
	if err != nil {
		return &event.ToolResult{Content: tool + ": " + err.Error(), IsError: true, Refused: true}
	}
	d := read(s, func(f *frame) activation { return rulebook.DecideActivation(f.st, f.w.World, tool, argsJSON, tc.ID) })
	switch {
	case d.Result != nil:
		return d.Result
	case d.Resource != "":
		text, err := tools.ReadResource(d.Skill.Dir, d.Resource, maxResourceBytes)
		if err != nil {
			return &event.ToolResult{Content: tool + ": " + err.Error(), IsError: true}
		}
		return &event.ToolResult{Content: text}
	case d.Plan != nil:
		s.insert(ctx, *d.Plan)
	default:
		s.emit(&event.SkillActivated{Skill: d.Skill.Name, ExecutionID: d.Exec, By: event.ByModel})
	}
	resident := d.Plan == nil
	act := d.Profile.Activate(withFiles(profileSkill(d.Skill)), profile.Request{Args: d.Args, Repeat: resident})
	res := &event.ToolResult{Content: act.ToolResult, Activated: d.Skill.Name, Delivers: !(resident && profile.HarnessOf(d.Profile).RepeatSilent)}
	if res.Content == "" {
		res.Content = "activated " + d.Skill.Name
	}
	for _, m := range act.Messages {
		res.Messages = append(res.Messages, m.Text)
	}
	return res
}
