// Rules R2 (the loaded set holds at most max_loaded_skills, least recently
// used out first), R4 (an unload takes a skill's text and tools) and R7
// (each unload is a contextChanged line the model reads), for the unloads
// the user and the limits decide.

package rulebook

import (
	"fmt"

	"skillet/harness/event"
)

// UnloadByUser records the user's /unload of a loaded skill.
func UnloadByUser(st *State, name string) ([]event.Event, error) {
	if st.FindLoaded(name) == nil {
		return nil, fmt.Errorf("unload %s: it is not loaded", name)
	}
	return []event.Event{
		&event.SkillUnloaded{Skill: name, Reason: event.UnloadUser},
		&event.ContextChanged{Line: fmt.Sprintf("contextChanged: unloaded %s by the user: its instructions and tools left", name)},
	}, nil
}

// SetLimit records a change of a limit or mode to the value probe holds
// for key; lowering max_loaded_skills under the lifecycle rules unloads
// the least recently used skills past it at once, least recent first.
func SetLimit(st *State, key string, probe event.Settings, lifecycle bool) []event.Event {
	v, _ := probe.Get(key)
	events := []event.Event{&event.SettingChanged{Key: key, Value: v}}
	if !lifecycle {
		return events
	}
	for i := len(st.Loaded) - 1; i >= probe.MaxLoadedSkills; i-- {
		name := st.Loaded[i].Name
		events = append(events,
			&event.SkillUnloaded{Skill: name, Reason: event.UnloadLimit},
			&event.ContextChanged{Line: fmt.Sprintf("contextChanged: unloaded %s: max_loaded_skills is now %s", name, v)})
	}
	return events
}

// Victims names the skills a load would unload to stay within
// max_loaded_skills (see Evicted); none when resident (the skill is
// loaded already).
func Victims(st *State, resident *Loaded, lifecycle bool) map[string]bool {
	out := map[string]bool{}
	if resident != nil {
		return out
	}
	for _, name := range Evicted(st, lifecycle) {
		out[name] = true
	}
	return out
}
