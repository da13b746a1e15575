// Command skilletlist prints, as JSON, the skill listing Crush puts in its
// system prompt for the skills folders it is given, composed by Crush's
// own functions as internal/agent/prompt's promptData composes it: the
// builtin skills, then the discovered ones, deduplicated by name (the
// last wins), rendered by ToPromptXML. It also prints each SKILL.md
// discovery refused, with Crush's reason.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/charmbracelet/crush/internal/skills"
)

type refusal struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Error string `json:"error"`
}

type listing struct {
	XML     string    `json:"xml"`
	Refused []refusal `json:"refused"`
}

func main() {
	all := skills.DiscoverBuiltin()
	found, states := skills.DiscoverWithStates(os.Args[1:])
	all = skills.Deduplicate(append(all, found...))
	out := listing{XML: skills.ToPromptXML(all), Refused: []refusal{}}
	for _, st := range states {
		if st.State == skills.StateError {
			out.Refused = append(out.Refused, refusal{Name: st.Name, Path: st.Path, Error: st.Err.Error()})
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "skilletlist:", err)
		os.Exit(1)
	}
}
