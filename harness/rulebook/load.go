// Rules R12 (a turn's loads are limited: max_skill_chars per skill,
// max_loads_per_turn, load_token_budget) and R13 (within a turn, loads of
// one version of a skill share one execution), as the shell asks them
// before it records a load.

package rulebook

import "fmt"

// OverLimit says why a load of a skill whose text is chars characters and
// tokens tokens would break a limit of the running turn (R12); "" when it
// breaks none.
func OverLimit(st *State, name string, chars, tokens int) string {
	set := st.Settings
	var usage Usage
	if st.Cur != nil {
		usage = st.Cur.Usage
	}
	switch {
	case chars > set.MaxSkillChars:
		return fmt.Sprintf("%s is %d characters, over max_skill_chars (%d); a skill arrives whole or not at all", name, chars, set.MaxSkillChars)
	case usage.Loads >= set.MaxLoadsPerTurn:
		return fmt.Sprintf("this turn already made %d loads, the max_loads_per_turn limit", set.MaxLoadsPerTurn)
	case usage.LoadTokens+tokens > set.LoadTokenBudget:
		return fmt.Sprintf("%s is %d tokens and this turn has delivered %d of its load_token_budget of %d", name, tokens, usage.LoadTokens, set.LoadTokenBudget)
	}
	return ""
}

// ReadThisTurn returns the execution under which the running turn read
// this version of a skill (R13), if it did.
func ReadThisTurn(st *State, name, version string) (string, bool) {
	if st.Cur == nil {
		return "", false
	}
	exec, ok := st.Cur.Execs[name]
	return exec, ok && st.Cur.ExecVersion[name] == version
}
