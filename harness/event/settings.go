package event

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Settings are the limits and modes of the rule book, as events record
// them; Get and Set are their text codec for `--set`, `/set` and the config. The toml and json
// names are the keys of `--set`, `/set` and the [session] table.
type Settings struct {
	MaxLoadedSkills       int      `toml:"max_loaded_skills" json:"max_loaded_skills"`
	MaxTranscriptMessages int      `toml:"max_transcript_messages" json:"max_transcript_messages"`
	ListSize              int      `toml:"list_size" json:"list_size"`
	MaxLoadsPerTurn       int      `toml:"max_loads_per_turn" json:"max_loads_per_turn"`
	LoadTokenBudget       int      `toml:"load_token_budget" json:"load_token_budget"`
	MaxSkillChars         int      `toml:"max_skill_chars" json:"max_skill_chars"`
	MaxToolCalls          int      `toml:"max_tool_calls" json:"max_tool_calls"`
	Delivery              Delivery `toml:"delivery" json:"delivery"`
	LoadSkillTool         bool     `toml:"load_skill_tool" json:"load_skill_tool"`
	FreezePrompt          bool     `toml:"freeze_prompt" json:"freeze_prompt"`
	// AgentTools offers the profile's own shell and file tools, working in
	// the session's workspace.
	AgentTools bool `toml:"agent_tools" json:"agent_tools,omitempty"`
	// Lifecycle switches Skillet's own lifecycle rules (LRU eviction, load
	// limits, the transcript window) under a profile other than skillet;
	// nil means the profile's default (on only for skillet).
	Lifecycle *bool `toml:"lifecycle" json:"lifecycle,omitempty"`
	// BundledSkills lists, under a profile other than skillet, the skills
	// the agent ships with beside the user's, sharing the budget as they
	// do in the agent; nil means true.
	BundledSkills *bool `toml:"bundled_skills" json:"bundled_skills,omitempty"`
}

// Bundled reports whether a profile lists the agent's bundled skills.
func (s Settings) Bundled() bool { return s.BundledSkills == nil || *s.BundledSkills }

// LifecycleDefault is the text of an unset lifecycle: the profile decides.
const LifecycleDefault = "default"

// DefaultSettings are the rule book's defaults.
func DefaultSettings() Settings {
	return Settings{
		MaxLoadedSkills:       3,
		MaxTranscriptMessages: 60,
		ListSize:              30,
		MaxLoadsPerTurn:       3,
		LoadTokenBudget:       6000,
		MaxSkillChars:         24000,
		MaxToolCalls:          25,
		Delivery:              DeliveryContext,
		LoadSkillTool:         true,
		AgentTools:            true,
	}
}

type setting struct {
	doc string
	get func(*Settings) string
	set func(*Settings, string) error
}

func intSetting(doc string, field func(*Settings) *int, min int) setting {
	return setting{
		doc: doc,
		get: func(s *Settings) string { return strconv.Itoa(*field(s)) },
		set: func(s *Settings, v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("want a whole number, got %q", v)
			}
			if n < min {
				return fmt.Errorf("want at least %d, got %d", min, n)
			}
			*field(s) = n
			return nil
		},
	}
}

func boolSetting(doc string, field func(*Settings) *bool) setting {
	return setting{
		doc: doc,
		get: func(s *Settings) string { return strconv.FormatBool(*field(s)) },
		set: func(s *Settings, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("want true or false, got %q", v)
			}
			*field(s) = b
			return nil
		},
	}
}

var settingsTable = map[string]setting{
	"max_loaded_skills":       intSetting("R2: skills loaded at once", func(s *Settings) *int { return &s.MaxLoadedSkills }, 1),
	"max_transcript_messages": intSetting("R9: transcript messages per request", func(s *Settings) *int { return &s.MaxTranscriptMessages }, 1),
	"list_size":               intSetting("R10: skills on the list", func(s *Settings) *int { return &s.ListSize }, 0),
	"max_loads_per_turn":      intSetting("R12: load_skill loads per turn", func(s *Settings) *int { return &s.MaxLoadsPerTurn }, 0),
	"load_token_budget":       intSetting("R12: tokens delivered by loads per turn", func(s *Settings) *int { return &s.LoadTokenBudget }, 0),
	"max_skill_chars":         intSetting("R12: characters of a skill that can load", func(s *Settings) *int { return &s.MaxSkillChars }, 0),
	"max_tool_calls":          intSetting("R24: tool calls per turn", func(s *Settings) *int { return &s.MaxToolCalls }, 1),
	"delivery": {
		doc: "R11: context or tool-result",
		get: func(s *Settings) string { return string(s.Delivery) },
		set: func(s *Settings, v string) error {
			d := Delivery(strings.TrimSpace(v))
			if d != DeliveryContext && d != DeliveryToolResult {
				return fmt.Errorf("want %q or %q, got %q", DeliveryContext, DeliveryToolResult, v)
			}
			s.Delivery = d
			return nil
		},
	},
	"load_skill_tool": boolSetting("R22: false pastes skills instead of offering load_skill", func(s *Settings) *bool { return &s.LoadSkillTool }),
	"freeze_prompt":   boolSetting("R23: keep the first request's instructions and tools", func(s *Settings) *bool { return &s.FreezePrompt }),
	"agent_tools":     boolSetting("R5: the profile's shell and file tools, in the session's workspace", func(s *Settings) *bool { return &s.AgentTools }),
	"bundled_skills": {
		doc: "under a profile: list the agent's bundled skills beside the user's (true or false)",
		get: func(s *Settings) string { return strconv.FormatBool(s.Bundled()) },
		set: func(s *Settings, v string) error {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("want true or false, got %q", v)
			}
			s.BundledSkills = &b
			return nil
		},
	},
	"lifecycle": {
		doc: "R2-R4, R9, R12 under a profile: true, false or default (on only for skillet)",
		get: func(s *Settings) string {
			if s.Lifecycle == nil {
				return LifecycleDefault
			}
			return strconv.FormatBool(*s.Lifecycle)
		},
		set: func(s *Settings, v string) error {
			v = strings.TrimSpace(v)
			if v == LifecycleDefault {
				s.Lifecycle = nil
				return nil
			}
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("want true, false or %s, got %q", LifecycleDefault, v)
			}
			s.Lifecycle = &b
			return nil
		},
	},
}

// SettingKeys lists the keys Set accepts, sorted.
func SettingKeys() []string {
	keys := make([]string, 0, len(settingsTable))
	for k := range settingsTable {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SettingDoc says what a key controls, with its rule number.
func SettingDoc(key string) string { return settingsTable[key].doc }

// Get returns a setting's value as text.
func (s *Settings) Get(key string) (string, error) {
	st, ok := settingsTable[key]
	if !ok {
		return "", unknownSetting(key)
	}
	return st.get(s), nil
}

// Set changes one setting from text, as `--set KEY=VALUE` and `/set` do.
func (s *Settings) Set(key, value string) error {
	st, ok := settingsTable[strings.TrimSpace(key)]
	if !ok {
		return unknownSetting(key)
	}
	if err := st.set(s, value); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

func unknownSetting(key string) error {
	return fmt.Errorf("unknown setting %q (known: %s)", key, strings.Join(SettingKeys(), ", "))
}
