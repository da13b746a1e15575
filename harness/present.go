package harness

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/harness/tools"
	"skillet/skills"
)

// DefaultProfile is the profile of a session that names none: Skillet's
// own rule book, composed by compose.
const DefaultProfile = rulebook.DefaultProfile

func isSkilletProfile(name string) bool { return rulebook.IsSkilletProfile(name) }

func (f *frame) profileName() string { return rulebook.ProfileName(f.st) }

func (f *frame) agentProfile() profile.Profile { return rulebook.ProfileOf(f.st) }

func (f *frame) lifecycle() bool { return rulebook.Lifecycle(f.st) }

func lifecycleOf(prof string, set Settings) bool { return rulebook.LifecycleOf(prof, set) }

// CheckProfileSettings refuses settings that mean nothing under a profile:
// freeze_prompt and pasting are Skillet's composition, and the skillet
// profile is Skillet's lifecycle, so it cannot be switched off there.
func CheckProfileSettings(prof string, set Settings) error {
	if isSkilletProfile(prof) {
		if set.Lifecycle != nil && !*set.Lifecycle {
			return errors.New("lifecycle=false needs a profile other than skillet: the skillet profile is Skillet's own lifecycle")
		}
		return nil
	}
	if set.FreezePrompt {
		return fmt.Errorf("freeze_prompt applies to the skillet profile only, not %s", prof)
	}
	if !set.LoadSkillTool {
		return fmt.Errorf("load_skill_tool=false applies to the skillet profile only: %s activates skills with its own tool", prof)
	}
	return nil
}

func (f *frame) profileInput() profile.Input { return rulebook.ProfileInput(f.st, f.w.World) }

func profileSkill(sk *skills.Skill) profile.Skill { return rulebook.ProfileSkill(sk) }

// ProfileSkill is a parsed skill as a profile sees it (see
// rulebook.ProfileSkill).
func ProfileSkill(sk *skills.Skill) profile.Skill { return rulebook.ProfileSkill(sk) }

// withFiles adds what an activation shows: the SKILL.md file as a file
// read returns it and the folder's files, both read inside the skill's
// folder as read_skill_resource reads.
func withFiles(ps profile.Skill) profile.Skill {
	if src, err := tools.ReadResource(ps.Dir, "SKILL.md", maxResourceBytes); err == nil {
		ps.Source = src
	}
	if files, err := tools.ListResources(ps.Dir); err == nil {
		ps.Files = files
	}
	return ps
}

// composeProfile builds the next request under another agent's profile:
// the catalogue goes where the profile places it (system prompt, a second
// system message for Codex's developer message, Claude Code's reminder
// before the first user message, the activation tool's description), the
// activation tool replaces load_skill, and activated text stays in the
// history unless the lifecycle rules unloaded its skill. Like compose, it
// changes nothing.
func (f *frame) composeProfile(p profile.Profile) *composition {
	c := &composition{}
	set := f.st.Settings
	c.parts = append(c.parts, ContextPart{Kind: "prompt", Text: f.opts.Config.Agent.Prompt})
	pre := f.composePreloads(c)

	cat := p.Catalogue(f.profileInput())
	c.catalogue = &cat
	for _, e := range cat.Entries {
		switch e.State {
		case profile.Full, profile.Truncated:
			c.offered = append(c.offered, e.Name)
		case profile.Omitted:
			c.leftOff = append(c.leftOff, e.Name)
		}
	}
	c.warnings = cat.Warnings
	var system, developer, reminder []string
	for _, b := range cat.Blocks {
		c.parts = append(c.parts, ContextPart{Kind: "list", Placement: string(b.Placement), Text: b.Text})
		switch b.Placement {
		case profile.SystemPrompt:
			system = append(system, b.Text)
		case profile.DeveloperMessage:
			developer = append(developer, b.Text)
		case profile.ReminderMessage:
			reminder = append(reminder, b.Text)
		}
		// a ToolDescription block is the activation tool's description,
		// which buildTools declares
	}

	lifecycle := f.lifecycle()
	limit := set.MaxTranscriptMessages
	if !lifecycle {
		limit = 0 // the whole history
	}
	c.win = rulebook.ComputeWindow(f.st.Msgs.Len(), limit, f.st.UserMsgs)
	var ctxElems []string
	for i, ls := range f.st.Loaded {
		if ls.Delivery == DeliveryToolResult {
			continue // its text is in the history
		}
		// a /load by the user: the profile has no place for it, so it
		// goes where Skillet puts it
		el := rulebook.SkillElement(ls.Name, ls.Version, ls.ExecID, i == 0, "", ls.Body.Text)
		ctxElems = append(ctxElems, el)
		c.parts = append(c.parts, ContextPart{Kind: "skill", Skill: ls.Name, Text: el, Tokens: ls.Tokens})
		c.delivered = append(c.delivered, ls)
	}
	c.context = rulebook.WrapBlock("current_context", ctxElems)
	c.instructions = rulebook.JoinBlocks(append(append([]string{f.opts.Config.Agent.Prompt, rulebook.WrapBlock("preloaded_skills", pre)}, system...), c.context)...)

	c.live = rulebook.BuildTools(f.st, f.w.World)
	c.infos = c.live.Infos()

	var msgs []chat.Message
	if c.instructions != "" {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: c.instructions})
	}
	for _, d := range developer {
		msgs = append(msgs, chat.Message{Role: chat.RoleSystem, Content: d})
	}
	c.msgs = f.profileHistory(c, lifecycle, reminder)
	msgs = append(msgs, c.msgs...)
	c.req = &chat.Request{Model: f.st.Model, Messages: msgs, Tools: c.live.ChatTools(), Stream: true, StreamOptions: &chat.StreamOptions{IncludeUsage: true}}
	return c
}

// profileHistory is the window's messages as a profile sends them: after
// each run of tool results, the user messages its activations add; the
// reminder before the first user message the window keeps (or last,
// before a turn). With
// the lifecycle rules on, the text of an activation whose skill has since
// unloaded is replaced by a line saying so. The skills whose text the
// history carries are Delivered.
func (f *frame) profileHistory(c *composition, lifecycle bool, reminder []string) []chat.Message {
	out := make([]chat.Message, 0, c.win.Kept()+len(reminder)+2)
	var follow []string
	flush := func() {
		for _, t := range follow {
			out = append(out, chat.Message{Role: chat.RoleUser, Content: t})
		}
		follow = nil
	}
	// Claude Code 2.1.332 sends its listing once, with the first user
	// message; the reminder goes before the first one the window keeps
	first := -1
	for _, k := range f.st.UserMsgs {
		if k >= c.win.Start {
			first = k
			break
		}
	}
	at := -1
	seen := map[string]bool{}
	for k := c.win.Start; k < c.win.N; k++ {
		m := f.st.Msgs.At(k)
		en := f.st.Entries.At(f.st.MsgEntry[k])
		if m.Role != chat.RoleTool {
			flush()
		}
		if k == first {
			at = len(out)
		}
		if en.Kind == EntryUser && len(en.Mentions) > 0 {
			for _, u := range en.Mentions {
				c.delivered = append(c.delivered, &rulebook.Loaded{Name: u.Name, Version: u.Version, ExecID: u.ExecutionID, ExecTurn: en.Turn})
			}
			c.parts = append(c.parts, ContextPart{Kind: "activation", Skill: en.Mentions[0].Name, Placement: "user-message", Text: strings.Join(en.Messages, "\n\n")})
			follow = append(follow, en.Messages...)
		}
		if en.Kind == EntryTool && en.Activated != "" {
			ls := f.st.FindLoaded(en.Activated)
			if lifecycle && (ls == nil || k < ls.JoinedMsg) {
				m.Content = fmt.Sprintf("[skill %s is no longer loaded (max_loaded_skills is %d, least recently used first): the text this call returned has left the conversation]", en.Activated, f.st.Settings.MaxLoadedSkills)
				out = append(out, m)
				continue
			}
			if en.Delivers && ls != nil && !seen[ls.Name] {
				seen[ls.Name] = true
				c.delivered = append(c.delivered, ls)
			}
			if en.Delivers {
				place := "tool-result"
				text := en.Text
				if len(en.Messages) > 0 {
					place, text = "user-message", strings.Join(en.Messages, "\n\n")
				}
				c.parts = append(c.parts, ContextPart{Kind: "activation", Skill: en.Activated, Placement: place, Text: text})
			}
			follow = append(follow, en.Messages...)
		}
		out = append(out, m)
	}
	flush()
	if len(reminder) == 0 {
		return out
	}
	if at < 0 {
		at = len(out)
	}
	rem := make([]chat.Message, len(reminder))
	for i, r := range reminder {
		rem[i] = chat.Message{Role: chat.RoleUser, Content: r}
	}
	return append(out[:at:at], append(rem, out[at:]...)...)
}

func (f *frame) activationTool(p profile.Profile) *binding {
	return rulebook.ActivationTool(f.st, f.w.World, p)
}

// mentionRE finds $name in a user message (Codex's explicit skill
// mention).
var mentionRE = regexp.MustCompile(`\$([A-Za-z0-9][A-Za-z0-9_.-]*)`)

// mentioned is what the next turn's user message names as $name under a
// profile that injects the skills named (Codex): each once, in the order
// named.
type mentioned struct {
	turn   int
	p      profile.Profile
	skills []*skills.Skill
}

// mentioned finds the skills text names, for the turn after this one.
func (f *frame) mentioned(text string) mentioned {
	m := mentioned{turn: f.st.Turn + 1}
	p := f.agentProfile()
	if p == nil || p.Name() != "codex" {
		return m
	}
	m.p = p
	seen := map[string]bool{}
	for _, sub := range mentionRE.FindAllStringSubmatch(text, -1) {
		sk := f.w.Sel.AgentSkill(strings.TrimRight(sub[1], "."))
		if sk == nil || seen[sk.Name] {
			continue
		}
		seen[sk.Name] = true
		m.skills = append(m.skills, sk)
	}
	return m
}

// activate reads the mentioned skills' files and returns their uses and
// the messages the profile adds for them.
func (m mentioned) activate() ([]Use, []string) {
	var uses []Use
	var msgs []string
	for _, sk := range m.skills {
		act := m.p.Activate(withFiles(profileSkill(sk)), profile.Request{Mention: true})
		for _, msg := range act.Messages {
			msgs = append(msgs, msg.Text)
		}
		uses = append(uses, Use{Role: "SKILL", Name: sk.Name, Version: sk.Version, ExecutionID: fmt.Sprintf("mention-%d", m.turn)})
	}
	return uses, msgs
}

// composePreloads renders this turn's preloads (R16) for a profile's
// instructions and counts them as delivered.
func (f *frame) composePreloads(c *composition) []string {
	preloads := f.st.Preloads
	if preloads == nil {
		preloads = f.pendingPreloads()
	}
	pre, parts := rulebook.Preloaded(preloads)
	c.parts = append(c.parts, parts...)
	c.delivered = append(c.delivered, preloads...)
	return pre
}
