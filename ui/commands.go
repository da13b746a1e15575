package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/harness/view"
)

// command is one slash command.
type command struct {
	name, args, help string
	// between marks commands that change the session: refused while a
	// turn runs.
	between bool
	run     func(m *model, args string) tea.Cmd
	// complete lists candidates for the argument being typed.
	complete func(m *model) []string
}

func commandList() []command {
	return []command{
		{name: "load", args: "NAME", help: "load a skill by hand", between: true, run: (*model).cmdLoad, complete: (*model).enabledSkills},
		{name: "unload", args: "NAME", help: "unload a skill", between: true, run: (*model).cmdUnload, complete: (*model).loadedSkills},
		{name: "reload", help: "re-read skills from disk", between: true, run: (*model).cmdReload},
		{name: "skills", help: "every skill found: errors, shadowed, tools", run: (*model).cmdSkills},
		{name: "why", args: "NAME", help: "a skill's card: why it was or was not offered, loaded or kept", run: (*model).cmdWhy, complete: (*model).knownSkills},
		{name: "set", args: "KEY VALUE", help: "change a limit or mode (no args: list them)", between: true, run: (*model).cmdSet, complete: func(*model) []string { return event.SettingKeys() }},
		{name: "model", args: "[NAME]", help: "switch model (no name: pick one)", between: true, run: (*model).cmdModel},
		{name: "call", args: "[TOOL [JSON]]", help: "call a tool of the next request by hand", between: true, run: (*model).cmdCall, complete: (*model).toolNames},
		{name: "inspect", help: "model requests and replies (ctrl+o)", run: (*model).cmdInspect},
		{name: "history", args: "[TURN]", help: "the side panes as a turn's first model call went out (alt+[ alt+] step, esc live)", run: (*model).cmdHistory},
		{name: "mcp", help: "MCP servers and the end of their logs", run: (*model).cmdMCP},
		{name: "bench", args: "[SKILL]", help: "does the skill help? its evals with and without it, in the background (skillet bench); enter in its report opens a run read-only", run: (*model).cmdBench, complete: (*model).knownSkills},
		{name: "files", help: "the workspace files the agent tools changed, with each call's diff (alt+f)", run: (*model).cmdFiles},
		{name: "export", args: "FILE", help: "write the transcript: FILE.md Markdown, .cast asciicast, .html replay", run: (*model).cmdExport},
		{name: "clear", help: "start a new session", between: true, run: (*model).cmdClear},
		{name: "profile", args: "NAME", help: "start a new session under a profile: " + strings.Join(profile.Names(), ", "), between: true, run: (*model).cmdProfile, complete: func(*model) []string { return profile.Names() }},
		{name: "help", help: "commands and keys (?)", run: (*model).cmdHelp},
		{name: "quit", help: "leave skillet", run: func(m *model, _ string) tea.Cmd { return m.quit() }},
	}
}

func findCommand(name string) (command, bool) {
	for _, c := range commandList() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// runLine runs a typed slash command.
func (m *model) runLine(line string) tea.Cmd {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "/"))
	name, args, _ := strings.Cut(line, " ")
	name = strings.ToLower(name)
	args = strings.TrimSpace(args)
	c, ok := findCommand(name)
	if !ok {
		return m.flashErr(fmt.Errorf("unknown command /%s — /help lists them", name))
	}
	if cmd, ok := m.refuseWhileOpening(name, line); ok {
		return cmd
	}
	if c.between && m.running {
		return m.flashErr(fmt.Errorf("/%s changes the session: wait for the turn to end (esc cancels it)", name))
	}
	return c.run(m, args)
}

// engineCmd runs an engine call in a command and reports the outcome.
type cmdDoneMsg struct {
	ok  string
	err error
}

func (m *model) engineCmd(ok string, f func() error) tea.Cmd {
	return func() tea.Msg {
		return cmdDoneMsg{ok: ok, err: f()}
	}
}

func needArg(name, what string) error {
	return fmt.Errorf("/%s needs %s", name, what)
}

func (m *model) cmdLoad(args string) tea.Cmd {
	if args == "" {
		return m.flashErr(needArg("load", "a skill name (tab completes)"))
	}
	eng := m.eng
	return m.engineCmd("loaded "+args, func() error {
		return prefixed("load "+args, eng.LoadSkill(args))
	})
}

func (m *model) cmdUnload(args string) tea.Cmd {
	if args == "" {
		return m.flashErr(needArg("unload", "a loaded skill's name"))
	}
	eng := m.eng
	return m.engineCmd("unloaded "+args, func() error {
		return prefixed("unload "+args, eng.UnloadSkill(args))
	})
}

func (m *model) cmdReload(string) tea.Cmd {
	eng := m.eng
	return m.engineCmd("skills re-read from disk", func() error {
		return prefixed("reload", eng.Reload())
	})
}

func (m *model) cmdSet(args string) tea.Cmd {
	key, value, _ := strings.Cut(args, " ")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if key == "" {
		m.overlay = newTextOverlay(m.th, "Settings (/set KEY VALUE)", "", m.settingsLines(), "skillet-settings.txt", m.opts.ExportDir)
		return nil
	}
	if k, v, ok := strings.Cut(key, "="); ok && value == "" {
		key, value = k, v
	}
	if value == "" {
		return m.flashErr(needArg("set", "KEY VALUE, e.g. /set max_loaded_skills 2"))
	}
	eng := m.eng
	return m.engineCmd(key+" = "+value, func() error {
		return prefixed("set "+key, eng.Set(key, value))
	})
}

// settingsLines lists every setting with its value and rule.
func (m *model) settingsLines() []string {
	var lim event.Settings
	if m.snap != nil {
		lim = m.snap.Limits
	}
	var out []string
	for _, k := range event.SettingKeys() {
		v, err := lim.Get(k)
		if err != nil {
			v = "?"
		}
		out = append(out, m.th.bold.Render(k)+" = "+m.th.accent.Render(v)+m.th.faint.Render("  "+event.SettingDoc(k)))
	}
	return out
}

func (m *model) cmdModel(args string) tea.Cmd {
	eng := m.eng
	if args != "" && m.snap != nil && m.snap.Demo {
		// as --model does: the offline demo model answers whatever the name
		return m.flashErr(fmt.Errorf("/model %s is ignored: the offline demo model answers (set OPENAI_API_KEY or --base-url for a real model)", args))
	}
	if args != "" {
		return m.engineCmd("model is now "+args, func() error {
			return prefixed("model "+args, eng.SetModel(args))
		})
	}
	current := ""
	if m.snap != nil {
		current = m.snap.Model
	}
	p := newPicker(m.th, "Model", nil, current, func(name string) tea.Cmd { return runCommand("/model " + name) })
	p.loading = true
	m.overlay = p
	return fetchModels(eng)
}

func (m *model) cmdCall(args string) tea.Cmd {
	name, js, _ := strings.Cut(args, " ")
	name, js = strings.TrimSpace(name), strings.TrimSpace(js)
	if name == "" {
		m.overlay = newPicker(m.th, "Call which tool?", m.toolNames(), "", func(n string) tea.Cmd { return runCommand("/call " + n) })
		return nil
	}
	var tool *event.ToolInfo
	if m.snap != nil {
		for i := range m.snap.Tools {
			if t := &m.snap.Tools[i]; t.Name == name && !t.Gone {
				tool = t
			}
		}
	}
	if js == "" {
		if tool == nil {
			return m.flashErr(fmt.Errorf("/call %s: not a tool of the next request (the tools pane lists them)", name))
		}
		m.overlay = newCallForm(m.th, m.eng, *tool)
		return nil
	}
	eng := m.eng
	ctx := m.base
	return func() tea.Msg {
		res, err := eng.CallTool(ctx, name, js)
		if err != nil {
			return cmdDoneMsg{err: prefixed("call "+name, err)}
		}
		state := "ok"
		if res != nil && res.IsError {
			state = "error result"
		}
		return cmdDoneMsg{ok: fmt.Sprintf("called %s: %s (in the transcript)", name, state)}
	}
}

func (m *model) cmdExport(args string) tea.Cmd {
	path := exportPath(args)
	if path == "" {
		return m.flashErr(needArg("export", "a file name, e.g. /export session.md"))
	}
	eng := m.eng
	return m.engineCmd("exported the transcript to "+path, func() error {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600) // as the journal
		if err != nil {
			return fmt.Errorf("export: %w", err) // the error names the path
		}
		if err := exportAs(eng, path, f); err != nil {
			f.Close()
			return fmt.Errorf("export %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("export %s: %w", path, err)
		}
		return nil
	})
}

// exportPath is the file /export names, as a shell would read it: one
// pair of surrounding quotes goes, and a leading ~/ is the home folder.
func exportPath(arg string) string {
	p := strings.TrimSpace(arg)
	if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	return p
}

// prefixed names the command an engine error came from, unless the engine
// already did: its errors begin with their command ("load X: ...").
func prefixed(prefix string, err error) error {
	if err == nil {
		return nil
	}
	word, _, _ := strings.Cut(prefix, " ")
	if msg := err.Error(); strings.HasPrefix(msg, word+" ") || strings.HasPrefix(msg, word+":") {
		return err
	}
	return fmt.Errorf("%s: %w", prefix, err)
}

// clearedMsg says the engine started a new session.
type clearedMsg struct{ err error }

func (m *model) cmdClear(string) tea.Cmd {
	eng := m.eng
	return func() tea.Msg { return clearedMsg{err: eng.Clear()} }
}

// cmdProfile starts a new session under another profile, as /clear does.
func (m *model) cmdProfile(args string) tea.Cmd {
	sw := m.eng
	if args == "" {
		return m.flashErr(fmt.Errorf("profile: give a profile name: %s", strings.Join(profile.Names(), ", ")))
	}
	return func() tea.Msg { return clearedMsg{err: sw.SwitchProfile(args)} }
}

func (m *model) cmdSkills(string) tea.Cmd {
	o := newTextOverlay(m.th, "Skills", "", m.skillsLines(), "skillet-skills.txt", m.opts.ExportDir)
	if m.opts.Why != nil {
		o.enter = func() tea.Cmd { return runCommand("/why") } // pick a skill for its card
		o.hint = "enter a skill's card · " + o.hint
	}
	m.overlay = o
	return nil
}

func (m *model) cmdInspect(string) tea.Cmd { return m.openInspector(0) }

// filesAt lists the files tool calls had changed as a call went out, and
// how to write that workspace out.
func filesAt(snap *view.Snapshot) string {
	var b strings.Builder
	if len(snap.Files) == 0 {
		b.WriteString("no tool call had changed a workspace file yet\n")
	}
	for _, f := range snap.Files {
		fmt.Fprintf(&b, "%-6s %s (%d bytes)\n", f.Op, f.Path, f.Size)
	}
	fmt.Fprintf(&b, "\nskillet workspace %s --at %d --out DIR writes the whole workspace as it was then\n", snap.SessionID, snap.Call)
	return b.String()
}

// cmdBench runs a skill's evals with and without it in the background
// and shows the report when they are done; with no name, the active
// skill's.
func (m *model) cmdBench(args string) tea.Cmd {
	if m.opts.Bench == nil {
		return m.flashErr(fmt.Errorf("/bench: this session cannot run benchmarks"))
	}
	skill := args
	if skill == "" && m.snap != nil && len(m.snap.Loaded) > 0 {
		skill = m.snap.Loaded[0].Name
	}
	if skill == "" {
		if len(m.knownSkills()) == 0 {
			return m.flashErr(needArg("bench", "a skill name (tab completes)"))
		}
		m.overlay = newPicker(m.th, "Benchmark which skill?", m.knownSkills(), "", func(n string) tea.Cmd { return runCommand("/bench " + n) })
		return nil
	}
	run := m.opts.Bench
	return tea.Batch(m.flashInfo(fmt.Sprintf("bench %s runs in the background; its verdict shows when it is done", skill)), func() tea.Msg {
		res, err := run(skill)
		return benchDoneMsg{skill: skill, res: res, err: err}
	})
}

// cmdFiles shows, call by call, what the agent tools changed in the
// workspace: each shell command and its exit, each file's diff.
func (m *model) cmdFiles(string) tea.Cmd {
	if m.travel != nil {
		// the workspace as the viewed call went out
		snap := m.travel.light
		return func() tea.Msg {
			return openViewerMsg{title: fmt.Sprintf("workspace at call %d", snap.Call), text: filesAt(snap)}
		}
	}
	text := m.tr.filesText()
	if text == "" {
		return m.flashErr(fmt.Errorf("no tool call has changed a workspace file yet"))
	}
	return func() tea.Msg { return openViewerMsg{title: "changed files", text: text} }
}

// cmdMCP shows each MCP server of the config with the end of its stderr
// log, read off the UI's path.
func (m *model) cmdMCP(string) tea.Cmd {
	if m.snap == nil || len(m.snap.MCP) == 0 {
		return m.flashErr(fmt.Errorf("no MCP servers: declare them under [mcp.servers.NAME] in skillet.toml"))
	}
	servers := append([]view.MCPServerInfo(nil), m.snap.MCP...)
	return func() tea.Msg {
		var b strings.Builder
		for _, srv := range servers {
			fmt.Fprintf(&b, "%s — %s\n", srv.Name, srv.Target)
			state := "  state: " + orDash(srv.State)
			if srv.Why != "" {
				state += ": " + srv.Why
			}
			if srv.NextTry != "" {
				state += "; next try " + srv.NextTry
			}
			if len(srv.Tools) > 0 {
				state += "; tools: " + strings.Join(srv.Tools, ", ")
			}
			b.WriteString(state + "\n")
			if srv.Log == "" {
				b.WriteString("  not started yet (it starts when the first skill that needs it loads)\n\n")
				continue
			}
			fmt.Fprintf(&b, "  log: %s\n", srv.Log)
			tail, err := logTail(srv.Log, 40)
			switch {
			case err != nil:
				fmt.Fprintf(&b, "  (%v)\n", err)
			case tail == "":
				b.WriteString("  (the log is empty)\n")
			default:
				b.WriteString(tail)
			}
			b.WriteString("\n")
		}
		return openViewerMsg{title: "MCP servers", text: b.String()}
	}
}

// logTail returns the last n lines of a log file.
func logTail(path string, n int) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ") + "\n", nil
}

func (m *model) cmdHelp(string) tea.Cmd {
	m.overlay = newTextOverlay(m.th, "Help", "", m.helpLines(), "skillet-help.txt", m.opts.ExportDir)
	return nil
}

func (m *model) enabledSkills() []string {
	var out []string
	if m.snap != nil {
		for _, s := range m.snap.Skills {
			if s.Enabled && len(s.Problems) == 0 && !s.Shadowed {
				out = append(out, s.Name)
			}
		}
	}
	return out
}

func (m *model) loadedSkills() []string {
	var out []string
	if m.snap != nil {
		for _, s := range m.snap.Loaded {
			out = append(out, s.Name)
		}
	}
	return out
}

func (m *model) toolNames() []string {
	var out []string
	if m.snap != nil {
		for _, t := range m.snap.Tools {
			if !t.Gone {
				out = append(out, t.Name)
			}
		}
	}
	return out
}

// complete finishes the command or argument being typed. It returns the
// new text and, when ambiguous, the candidates.
func (m *model) complete(text string) (string, []string) {
	prefix, typed, cands, ok := m.candidates(text)
	if !ok {
		return text, nil
	}
	words := make([]string, len(cands))
	for i, c := range cands {
		words[i] = c.word
	}
	return completeFrom(prefix, typed, words, true)
}

// completeFrom extends typed to the candidates' common prefix; a single
// candidate is finished with a space when more may follow.
func completeFrom(prefix, typed string, cands []string, space bool) (string, []string) {
	if len(cands) == 0 {
		return prefix + typed, nil
	}
	sort.Strings(cands)
	if len(cands) == 1 {
		s := prefix + cands[0]
		if space {
			s += " "
		}
		return s, nil
	}
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if len(common) < len(typed) {
		common = typed
	}
	return prefix + common, cands
}
