package why

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"skillet/harness/rulebook"
	"skillet/skills"
)

// Counter counts tokens; *tokens.Tokenizer is one.
type Counter interface {
	Count(s string) int
	Name() string
}

// estimate counts four characters a token, as the catalog estimates a
// skill, for when no tokenizer is given.
type estimate struct{}

func (estimate) Count(s string) int { return skills.EstimateTokens(utf8.RuneCountInString(s)) }
func (estimate) Name() string       { return "estimate (chars/4)" }

// Facts are what disk and config say of one skill name.
type Facts struct {
	Name  string
	Found bool
	// Dir, Root and Version are of the copy the config selects (the
	// pinned one, else the folder that wins).
	Dir, Root, Version, Description string
	// Problems make it invalid.
	Problems []string
	// Shadowed are the folders of other copies that one of them hides,
	// and ShadowedBy the winning folder.
	Shadowed   []string
	ShadowedBy string
	// ConfigNames is set when the config's [[skills]] names skills, and
	// Named when it names this one.
	ConfigNames bool
	Named       bool
	Enabled     bool
	Preload     bool
	// PinProblem says why a pin in the config matches no copy.
	PinProblem string
	// Chars and Tokens measure the text a load would deliver.
	Chars, Tokens int
	// ListEntry is the tokens of its entry on the list.
	ListEntry int
	Tools     []ToolFact
	Tokenizer string
}

// ToolFact is one tool a skill's `tools:` field names.
type ToolFact struct {
	Name string `json:"name"`
	// Schema is the tokens of its name, description and parameters.
	Schema  int    `json:"schema"`
	Problem string `json:"problem,omitempty"`
}

// Names returns every skill name the catalog knows, shadowed copies once.
func Names(cat *skills.Catalog) []string {
	seen := map[string]bool{}
	var out []string
	for _, sk := range append(cat.All(), cat.Shadowed()...) {
		if n := sk.Folder(); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// FactsOf reads the facts of one skill from the catalog and the config's
// [[skills]] refs. A nil counter estimates tokens.
func FactsOf(cat *skills.Catalog, refs []skills.Ref, name string, count Counter) Facts {
	if count == nil {
		count = estimate{}
	}
	f := Facts{Name: name, ConfigNames: len(refs) > 0, Tokenizer: count.Name()}
	win := cat.Get(name)
	cands := []*skills.Skill{}
	if win != nil {
		cands = append(cands, win)
	}
	for _, sk := range cat.Shadowed() {
		if sk.Folder() == name {
			cands = append(cands, sk)
		}
	}
	if len(cands) == 0 {
		return f
	}
	f.Found = true
	var ref *skills.Ref
	for i := range refs {
		if strings.TrimSpace(refs[i].Name) == name {
			ref = &refs[i]
			break
		}
	}
	sk := cands[0]
	if ref != nil && ref.Version != "" {
		var pinned *skills.Skill
		var have []string
		for _, c := range cands {
			if c.Version == ref.Version && pinned == nil {
				pinned = c
			}
			have = append(have, fmt.Sprintf("version %q in %s", c.Version, c.Dir))
		}
		if pinned == nil {
			f.PinProblem = fmt.Sprintf("the config pins version %q; found %s", ref.Version, strings.Join(have, ", "))
		} else {
			sk = pinned
		}
	}
	if len(cands) > 1 {
		f.ShadowedBy = cands[0].Dir
		for _, c := range cands[1:] {
			f.Shadowed = append(f.Shadowed, c.Dir)
		}
	}
	f.Dir, f.Root, f.Version, f.Description = sk.Dir, sk.Root, sk.Version, sk.Description
	for _, p := range sk.Problems {
		f.Problems = append(f.Problems, p.String())
	}
	f.Named = ref != nil
	f.Preload = ref != nil && ref.Preload
	f.Enabled = sk.Valid() && f.PinProblem == "" && (!f.ConfigNames || f.Named)
	text := sk.LoadText()
	f.Chars = utf8.RuneCountInString(text)
	f.Tokens = count.Count(text)
	f.ListEntry = count.Count(listEntry(sk))
	for _, r := range sk.Tools {
		tf := ToolFact{Name: strings.ReplaceAll(r.Name, "/", "__")}
		def, err := cat.Tool(sk, r)
		if err != nil {
			tf.Problem = err.Error()
		} else {
			schema, _ := json.Marshal(map[string]any{"name": tf.Name, "description": def.Description, "parameters": def.Parameters})
			tf.Schema = count.Count(string(schema))
		}
		f.Tools = append(f.Tools, tf)
	}
	return f
}

func listEntry(s *skills.Skill) string { return rulebook.ListEntry(s.Name, s.Description) }
