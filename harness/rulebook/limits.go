// Rule R12: a skill arrives whole or not at all (max_skill_chars), and a
// turn's loads are limited (max_loads_per_turn, load_token_budget).
// LoadLimits decides it for every way a skill's text reaches the model;
// the shell, skillet why, skillet validate and the snapshot ask it.

package rulebook

import (
	"fmt"

	"skillet/harness/event"
)

// LoadPath is a way a skill's text reaches the model, as R12 treats it.
type LoadPath int

const (
	// PathModel is a load the model asks for: load_skill, or an agent's
	// activation tool under the lifecycle rules. Every limit applies.
	PathModel LoadPath = iota
	// PathPaste is a skill pasted into the instructions for a message
	// (R22): every limit applies, against the skills chosen so far.
	PathPaste
	// PathUser is a load the user asks for (/load): whole or not at all,
	// counted against no per-turn limit.
	PathUser
	// PathPreload is a preload at the start of a turn (R16): the same.
	PathPreload
	// PathEdit is a loaded skill's text as edited on disk (R17): the same.
	PathEdit
	// PathEver asks whether any load by the model could take the text:
	// its size alone against the per-skill limit and the whole budget.
	PathEver
)

// Names of the settings a load can break.
const (
	LimitChars  = "max_skill_chars"
	LimitLoads  = "max_loads_per_turn"
	LimitTokens = "load_token_budget"
)

// Refusal is a limit a load breaks, and why in words.
type Refusal struct {
	Limit string
	Why   string
}

// LoadLimits decides R12: the limits a load of skill name, whose text is
// chars characters and tokens tokens, breaks when it comes by path after
// the turn used what used holds — most telling first, none when it may
// load.
func LoadLimits(set event.Settings, used Usage, path LoadPath, name string, chars, tokens int) []Refusal {
	var out []Refusal
	if chars > set.MaxSkillChars {
		out = append(out, Refusal{LimitChars, fmt.Sprintf("%s is %d characters, over max_skill_chars (%d); a skill arrives whole or not at all", name, chars, set.MaxSkillChars)})
	}
	switch path {
	case PathModel, PathPaste:
		if used.Loads >= set.MaxLoadsPerTurn {
			out = append(out, Refusal{LimitLoads, fmt.Sprintf("this turn already made %d loads, the max_loads_per_turn limit", set.MaxLoadsPerTurn)})
		}
		if used.LoadTokens+tokens > set.LoadTokenBudget {
			out = append(out, Refusal{LimitTokens, fmt.Sprintf("%s is %d tokens and this turn has delivered %d of its load_token_budget of %d", name, tokens, used.LoadTokens, set.LoadTokenBudget)})
		}
	case PathEver:
		if tokens > set.LoadTokenBudget {
			out = append(out, Refusal{LimitTokens, fmt.Sprintf("%s is %d tokens, alone over load_token_budget (%d)", name, tokens, set.LoadTokenBudget)})
		}
	}
	return out
}

// Breaks reports whether the refusals name the limit.
func Breaks(rs []Refusal, limit string) bool {
	for _, r := range rs {
		if r.Limit == limit {
			return true
		}
	}
	return false
}
