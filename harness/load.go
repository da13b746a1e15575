package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"skillet/harness/rulebook"
	"strings"
	"unicode/utf8"

	"skillet/harness/chat"
	"skillet/harness/tools"
	"skillet/skills"
)

// excerptChars is how much of each line a load's contextChanged record
// carries (R7).
const excerptChars = 200

// loadOutcome is what a load_skill call answers.
type loadOutcome struct {
	content string
	isError bool
	refused bool
}

// modelLoad carries out the model's load_skill call (R2, R3, R11–R14, R16).
func (s *Session) modelLoad(ctx context.Context, tc chat.ToolCall) loadOutcome {
	argsJSON, err := tools.ValidateArgs(loadSkillSchema, tc.Function.Arguments)
	if err != nil {
		return loadOutcome{content: "load_skill: " + err.Error(), isError: true, refused: true}
	}
	var args struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(argsJSON, &args)
	name := strings.TrimSpace(args.Name)

	s.mu.Lock()
	set := s.st.Settings
	delivery := set.Delivery
	if set.FreezePrompt {
		// a frozen prompt cannot show new text: the result carries it (R23)
		delivery = DeliveryToolResult
	}
	if ls := s.st.FindPreload(name); ls != nil {
		s.mu.Unlock()
		return loadOutcome{content: fmt.Sprintf("%s is preloaded this turn (execution %s): its guidance is already in the instructions and its tools are offered.", name, ls.ExecID)}
	}
	sk := s.w.sel.enabledSkill(name)
	if sk == nil {
		msg := s.unknownSkill(name)
		s.mu.Unlock()
		return loadOutcome{content: msg, isError: true, refused: true}
	}
	resident := s.st.FindLoaded(name)
	exec, readThisTurn := s.st.Cur.Execs[name]
	readThisTurn = readThisTurn && s.st.Cur.ExecVersion[name] == sk.Version
	if readThisTurn && resident != nil && resident.ExecID == exec {
		// R13: within a turn, loads of one version share one execution
		wasActive := s.st.Loaded[0] == resident
		s.mu.Unlock()
		line := fmt.Sprintf("contextChanged: %s was already read this turn as execution %s", name, exec)
		if !wasActive {
			line += "; it is the active skill again"
			s.emit(&SkillActivated{Skill: name, ExecutionID: exec, By: ByModel})
		}
		s.emit(&ContextChanged{Line: line, ToolCallID: tc.ID})
		return loadOutcome{content: s.loadResult([]string{line}, resident, delivery)}
	}
	if err := s.pinConflict(sk, s.victims(resident)); err != nil {
		s.mu.Unlock()
		return loadOutcome{content: "load refused: " + err.Error(), isError: true, refused: true}
	}
	if readThisTurn {
		// read this turn and unloaded since: back under the same execution,
		// not counted again
		s.mu.Unlock()
		lines := s.insert(ctx, sk, exec, ByModel, delivery, tc.ID, true)
		return loadOutcome{content: s.loadResult(lines, s.loadedNamed(name), delivery)}
	}
	text := skillText(sk)
	tokens := s.count(text)
	if n := utf8.RuneCountInString(text); n > set.MaxSkillChars {
		s.mu.Unlock()
		return loadOutcome{content: fmt.Sprintf("load refused: %s is %d characters, over max_skill_chars (%d); a skill arrives whole or not at all", name, n, set.MaxSkillChars), isError: true, refused: true}
	}
	if s.st.Cur.Usage.Loads >= set.MaxLoadsPerTurn {
		s.mu.Unlock()
		return loadOutcome{content: fmt.Sprintf("load refused: this turn already made %d loads, the max_loads_per_turn limit", set.MaxLoadsPerTurn), isError: true, refused: true}
	}
	if used := s.st.Cur.Usage.LoadTokens; used+tokens > set.LoadTokenBudget {
		s.mu.Unlock()
		return loadOutcome{content: fmt.Sprintf("load refused: %s is %d tokens and this turn has delivered %d of its load_token_budget of %d", name, tokens, used, set.LoadTokenBudget), isError: true, refused: true}
	}
	exec = s.nextExecID()
	s.mu.Unlock()

	if resident == nil {
		lines := s.insert(ctx, sk, exec, ByModel, delivery, tc.ID, false)
		return loadOutcome{content: s.loadResult(lines, s.loadedNamed(name), delivery)}
	}
	s.emit(&SkillActivated{Skill: name, ExecutionID: exec, By: ByModel})
	line := fmt.Sprintf("contextChanged: %s read again as execution %s; it is the active skill", name, exec)
	s.emit(&ContextChanged{Line: line, ToolCallID: tc.ID})
	return loadOutcome{content: s.loadResult([]string{line}, s.loadedNamed(name), delivery)}
}

// victims names the skills a load would unload to stay within
// max_loaded_skills: none when the skill is already loaded. Called with
// s.mu held.
func (s *Session) victims(resident *rulebook.Loaded) map[string]bool {
	out := map[string]bool{}
	if resident != nil || !s.lifecycle() {
		return out
	}
	for i := len(s.st.Loaded) - 1; i >= 0 && i >= s.st.Settings.MaxLoadedSkills-1; i-- {
		out[s.st.Loaded[i].Name] = true
	}
	return out
}

func (s *Session) loadedNamed(name string) *rulebook.Loaded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.FindLoaded(name)
}

// insert loads a skill that is not loaded: it unloads the least recently
// used skills past max_loaded_skills (R2), then loads it and records the
// contextChanged lines (R7). toolCallID "" records them as notes. The
// skill's MCP servers are asked for their tools first, outside the lock.
func (s *Session) insert(ctx context.Context, sk *skills.Skill, exec string, by LoadedBy, delivery Delivery, toolCallID string, repeat bool) []string {
	s.mu.Lock()
	refs := s.mcpRefs([]*skills.Skill{sk})
	s.mu.Unlock()
	failures := s.prefetchMCP(ctx, refs)

	s.mu.Lock()
	ls := &rulebook.Loaded{Name: sk.Name, ExecID: exec, ExecTurn: s.st.Turn, LoadedTurn: s.st.Turn, By: by, Delivery: delivery, ResultMsg: -1}
	if by != ByModel {
		ls.Delivery = DeliveryContext // only a tool result can carry text
	}
	s.render(ls, sk, by == ByModel || by == ByPaste)
	var evicted []string
	keep := s.st.Loaded
	for s.lifecycle() && len(keep) >= s.st.Settings.MaxLoadedSkills && len(keep) > 0 {
		evicted = append(evicted, keep[len(keep)-1].Name)
		keep = keep[:len(keep)-1]
	}
	before := s.buildTools()
	after := s.buildToolsWith(s.st.Preloads, append([]*rulebook.Loaded{ls}, keep...))
	ls.Tools = madeAvailable(before, after, ls)
	max := s.st.Settings.MaxLoadedSkills
	s.mu.Unlock()

	for _, f := range failures {
		s.logWarn(f + " (a call of it will try the server again)")
	}
	var lines []string
	for _, name := range evicted {
		s.emit(&SkillUnloaded{Skill: name, Reason: UnloadLRU})
		line := fmt.Sprintf("contextChanged: unloaded %s (least recently used; max_loaded_skills is %d): its instructions and tools left", name, max)
		lines = append(lines, line)
		s.emit(&ContextChanged{Line: line, ToolCallID: toolCallID})
	}
	s.emit(&SkillLoaded{Skill: sk.Name, Version: sk.Version, ExecutionID: exec, Evicted: nonNil(evicted), Tools: nonNil(ls.Tools), By: by, Tokens: ls.Tokens, Delivery: ls.Delivery, Repeat: repeat, Body: ls.Body})
	line := loadLine(ls, by)
	lines = append(lines, line)
	s.emit(&ContextChanged{Line: line, ToolCallID: toolCallID})
	return lines
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// loadLine is the contextChanged record of a load, with the first 200
// characters of each line the skill added (R7).
func loadLine(ls *rulebook.Loaded, by LoadedBy) string {
	var b strings.Builder
	fmt.Fprintf(&b, "contextChanged: loaded %s version %s as execution %s", ls.Name, orNone(ls.Version), ls.ExecID)
	if by == ByUser {
		b.WriteString(" by the user")
	}
	b.WriteString("; it is the active skill")
	if len(ls.Tools) > 0 {
		b.WriteString("; tools: " + strings.Join(ls.Tools, ", "))
	}
	for _, l := range firstChars(ls.Body.Text, excerptChars) {
		b.WriteString("\n  | ")
		b.WriteString(l)
	}
	return b.String()
}

// loadResult is the load_skill answer: the contextChanged lines, and in
// tool-result delivery the skill's whole text after them (R11).
func (s *Session) loadResult(lines []string, ls *rulebook.Loaded, delivery Delivery) string {
	out := strings.Join(lines, "\n")
	if delivery == DeliveryToolResult && ls != nil {
		out += "\n\n" + skillElement(ls.Name, ls.Version, ls.ExecID, true, "", ls.Body.Text)
	}
	return out
}

// unknownSkill explains a load of a name that is not an enabled skill,
// naming the closest ones.
func (s *Session) unknownSkill(name string) string {
	if sk := s.opts.Catalog.Get(name); sk != nil {
		if !sk.Valid() {
			return fmt.Sprintf("load_skill: skill %q is invalid and left out: %s", name, problemsText(sk.Problems))
		}
		if p := s.w.sel.problems[name]; len(p) > 0 {
			return fmt.Sprintf("load_skill: skill %q is left out: %s", name, problemsText(p))
		}
		return fmt.Sprintf("load_skill: skill %q is not enabled (the config does not name it)", name)
	}
	names := make([]string, 0, len(s.w.sel.enabled))
	for _, sk := range s.w.sel.enabled {
		names = append(names, sk.Name)
	}
	if near := Closest(name, names, 3); len(near) > 0 {
		return fmt.Sprintf("load_skill: no skill named %q; the closest are: %s", name, strings.Join(near, ", "))
	}
	if len(names) == 0 {
		return fmt.Sprintf("load_skill: no skill named %q, and no skills are enabled", name)
	}
	return fmt.Sprintf("load_skill: no skill named %q (enabled: %s)", name, strings.Join(names, ", "))
}

// LoadSkill loads a skill at the user's request (/load), between turns. It
// counts as Delivered, never Loaded (R20).
func (s *Session) LoadSkill(name string) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.syncSkills() // read from disk, as a turn would (R17)
	s.mu.Lock()
	if s.st.Settings.FreezePrompt {
		s.mu.Unlock()
		return fmt.Errorf("load %s: with freeze_prompt the instructions cannot change, so only the model can load a skill (its text arrives as the load_skill result)", name)
	}
	for _, p := range s.w.sel.preload {
		if p.Name == name {
			s.mu.Unlock()
			return fmt.Errorf("load %s: it is preloaded: its guidance is in the instructions at every turn", name)
		}
	}
	if ls := s.st.FindLoaded(name); ls != nil {
		active := s.st.Loaded[0] == ls
		s.mu.Unlock()
		if !active {
			s.emit(&SkillActivated{Skill: name, ExecutionID: ls.ExecID, By: ByUser})
			s.emit(&ContextChanged{Line: fmt.Sprintf("contextChanged: %s made the active skill by the user", name)})
		}
		return nil
	}
	sk := s.w.sel.enabledSkill(name)
	if sk == nil {
		msg := s.unknownSkill(name)
		s.mu.Unlock()
		return fmt.Errorf("load %s: %s", name, strings.TrimPrefix(msg, "load_skill: "))
	}
	if n := utf8.RuneCountInString(skillText(sk)); n > s.st.Settings.MaxSkillChars {
		s.mu.Unlock()
		return fmt.Errorf("load %s: %d characters, over max_skill_chars (%d)", name, n, s.st.Settings.MaxSkillChars)
	}
	if err := s.pinConflict(sk, s.victims(nil)); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("load %s: %w", name, err)
	}
	exec := s.nextExecID()
	s.mu.Unlock()
	s.insert(context.Background(), sk, exec, ByUser, DeliveryContext, "", false)
	return s.syncJournal()
}

// UnloadSkill unloads a skill at the user's request (/unload).
func (s *Session) UnloadSkill(name string) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.mu.Lock()
	ls := s.st.FindLoaded(name)
	s.mu.Unlock()
	if ls == nil {
		return fmt.Errorf("unload %s: it is not loaded", name)
	}
	s.emit(&SkillUnloaded{Skill: name, Reason: UnloadUser})
	s.emit(&ContextChanged{Line: fmt.Sprintf("contextChanged: unloaded %s by the user: its instructions and tools left", name)})
	return s.syncJournal()
}

// preloadSkills loads the preloaded skills at the start of a turn, in
// config order, each an execution of its own (R16).
func (s *Session) preloadSkills() {
	s.mu.Lock()
	var todo []*rulebook.Loaded
	var refused []string
	for _, sk := range s.w.sel.preload {
		ls := &rulebook.Loaded{Name: sk.Name, LoadedTurn: s.st.Turn, ExecTurn: s.st.Turn, By: ByPreload, Delivery: DeliveryContext, ResultMsg: -1}
		s.render(ls, sk, false) // preloads count against no limit (R16)
		if n := utf8.RuneCountInString(ls.Body.Text); n > s.st.Settings.MaxSkillChars {
			refused = append(refused, fmt.Sprintf("preloaded skill %s is %d characters, over max_skill_chars (%d): not preloaded", sk.Name, n, s.st.Settings.MaxSkillChars))
			continue
		}
		ls.ExecID = s.nextExecID()
		todo = append(todo, ls)
	}
	s.mu.Unlock()
	for _, r := range refused {
		s.logWarn(r)
	}
	for _, ls := range todo {
		s.emit(&SkillPreload{Skill: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Tokens: ls.Tokens, Body: ls.Body})
	}
}

// pasteSkills puts the top-ranked skills that fit the load limits into the
// instructions, when there is no load_skill tool (R22). They are Delivered,
// not Loaded.
func (s *Session) pasteSkills(text string) {
	s.mu.Lock()
	set := s.st.Settings
	ranked, scores := s.w.ranker.rank(s.w.sel.enabled, text)
	var chosen []*skills.Skill
	tokens := 0
	for i, sk := range ranked {
		if scores[i] <= 0 || len(chosen) >= set.MaxLoadsPerTurn || len(chosen) >= set.MaxLoadedSkills {
			break
		}
		t := skillText(sk)
		n := s.opts.Tokenizer.Count(t)
		if utf8.RuneCountInString(t) > set.MaxSkillChars || tokens+n > set.LoadTokenBudget || s.pinConflictWith(sk, chosen) != nil {
			continue
		}
		tokens += n
		chosen = append(chosen, sk)
	}
	keep := map[string]bool{}
	for _, sk := range chosen {
		keep[sk.Name] = true
	}
	var drop []string
	for _, ls := range s.st.Loaded {
		if !keep[ls.Name] {
			drop = append(drop, ls.Name)
		}
	}
	s.mu.Unlock()
	for _, name := range drop {
		s.emit(&SkillUnloaded{Skill: name, Reason: UnloadPaste})
		s.emit(&ContextChanged{Line: fmt.Sprintf("contextChanged: unloaded %s: it no longer ranks among the skills pasted for this message", name)})
	}
	// the best match goes last so it ends up most recent: the active one
	for i := len(chosen) - 1; i >= 0; i-- {
		sk := chosen[i]
		s.mu.Lock()
		exec := s.nextExecID()
		resident := s.st.FindLoaded(sk.Name)
		s.mu.Unlock()
		if resident != nil {
			s.emit(&SkillActivated{Skill: sk.Name, ExecutionID: exec, By: ByPaste})
			s.emit(&ContextChanged{Line: fmt.Sprintf("contextChanged: %s pasted again for this message as execution %s", sk.Name, exec)})
			continue
		}
		s.insert(context.Background(), sk, exec, ByPaste, DeliveryContext, "", false)
	}
}
