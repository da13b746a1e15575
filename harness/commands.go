package harness

import (
	"errors"
	"fmt"
	"strings"

	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/skills"
)

// Set changes a limit or mode of the rule book (/set, --set); it applies
// from the next model call. Lowering max_loaded_skills unloads the least
// recently used skills past it at once.
func (s *Session) Set(key, value string) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	key = strings.TrimSpace(key)
	var err error
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		probe := st.Settings
		if err = probe.Set(key, value); err != nil {
			err = fmt.Errorf("set %w", err)
			return nil
		}
		if err = CheckProfileSettings(rulebook.ProfileName(st), probe); err != nil {
			err = fmt.Errorf("set %s: %w", key, err)
			return nil
		}
		return rulebook.SetLimit(st, key, probe, rulebook.LifecycleOf(rulebook.ProfileName(st), probe))
	})
	if err != nil {
		return err
	}
	return s.syncJournal()
}

// Settings returns the session's current limits and modes.
func (s *Session) Settings() event.Settings {
	return s.settingsNow()
}

// SetModel switches the model name sent with each request, from the next
// model call.
func (s *Session) SetModel(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("model: give a model name")
	}
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.emit(&event.SettingChanged{Key: "model", Value: name})
	return s.syncJournal()
}

// Clear starts a new session with the same skills, config, model and
// profile; the old session's journal stays on disk.
func (s *Session) Clear() error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	prof, win := read(s, func(f *frame) string { return f.profileName() }), read(s, func(f *frame) int { return f.st.ContextWindow })
	return s.start("", prof, win)
}

// SwitchProfile starts a new session like Clear, under another profile
// (/profile NAME). The context window given for the session carries over;
// without one, the new profile's default applies.
func (s *Session) SwitchProfile(name string) error {
	p, err := profile.Get(strings.TrimSpace(name))
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	name = p.Name()
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	return s.start("", name, s.opts.ContextWindow)
}

// Reload re-reads skills from disk now (/reload); turns do this anyway.
func (s *Session) Reload() error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.syncSkills()
	return nil
}

// resolveAgentTools finds the definitions of the agent's own tools.
func (s *Session) resolveAgentTools() error {
	s.w.AgentDefs = map[string]*skills.ToolDef{}
	var errs []error
	for _, ref := range s.opts.Config.Agent.Tools {
		def, err := s.opts.Catalog.Tool(nil, skills.ToolRef{Name: ref.Name, Version: ref.Version})
		if err != nil {
			errs = append(errs, fmt.Errorf("agent tool %s: %w", ref.Name, err))
			continue
		}
		s.w.AgentDefs[ref.Name] = def
	}
	return errors.Join(errs...)
}
