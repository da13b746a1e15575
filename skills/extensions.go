package skills

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Skillet's extension keys of SKILL.md (DESIGN §3): tools and examples.

func (p *parser) tools(v *yaml.Node) {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return
	}
	if !toolsListForm(v) {
		// Other agents use the same key (`tools: Read, Grep`): their value
		// must not make a skill invalid here, so it is kept as a foreign key.
		p.foreign("tools", v, "is not Skillet's list of {name, version} (another agent's tool list?); kept and ignored")
		return
	}
	seen := map[string]bool{}
	for i, item := range v.Content {
		field := fmt.Sprintf("tools[%d]", i)
		item = deref(item)
		if item.Kind != yaml.MappingNode {
			p.problem(field, "must be a map {name, version}, not a %s", kindName(item))
			continue
		}
		var ref ToolRef
		ok := true
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, val := item.Content[j].Value, deref(item.Content[j+1])
			switch k {
			case "name":
				n, good := p.str(field+".name", val)
				ok = ok && good
				ref.Name = strings.TrimSpace(n)
			case "version":
				n, good := p.version(field+".version", val)
				ok = ok && good
				ref.Version = n
			default:
				p.problem(field+"."+k, "unknown key: a tool reference has name and version")
				ok = false
			}
		}
		if !ok {
			continue
		}
		if ref.Name == "" {
			p.problem(field+".name", "missing required field")
			continue
		}
		if msg := checkToolRefName(ref); msg != "" {
			p.problem(field+".name", "%s", msg)
			continue
		}
		if seen[ref.Name] {
			p.problem(field+".name", "%q is listed twice", ref.Name)
			continue
		}
		seen[ref.Name] = true
		p.s.Tools = append(p.s.Tools, ref)
	}
}

// toolsListForm reports whether a tools value is Skillet's form: a list
// that is empty or holds at least one map. Items of such a list that are
// not maps are problems; any other value is not Skillet's at all.
func toolsListForm(v *yaml.Node) bool {
	if v.Kind != yaml.SequenceNode {
		return false
	}
	if len(v.Content) == 0 {
		return true
	}
	for _, item := range v.Content {
		if deref(item).Kind == yaml.MappingNode {
			return true
		}
	}
	return false
}

func checkToolRefName(ref ToolRef) string {
	server, tool, mcp := ref.MCP()
	if !mcp {
		if !toolNameRE.MatchString(ref.Name) {
			return fmt.Sprintf("%q is not a tool name (1-64 letters, digits, _ and -) or SERVER/TOOL", ref.Name)
		}
		return ""
	}
	if !toolNameRE.MatchString(server) || !toolNameRE.MatchString(tool) {
		return fmt.Sprintf("%q is not SERVER/TOOL with each part 1-64 letters, digits, _ and -", ref.Name)
	}
	if ref.Version != 0 {
		return fmt.Sprintf("%q is a tool of an MCP server, which has no versions; leave version out", ref.Name)
	}
	return ""
}

// version reads a tool version: a whole number of at least 1.
func (p *parser) version(field string, v *yaml.Node) (int, bool) {
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" {
		p.problem(field, "must be a whole number of at least 1, not %s", describe(v))
		return 0, false
	}
	n, err := strconv.ParseInt(v.Value, 0, 32)
	if err != nil || n < 1 {
		p.problem(field, "must be a whole number of at least 1, not %s", v.Value)
		return 0, false
	}
	return int(n), true
}

func (p *parser) examples(v *yaml.Node) {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.problem("examples", "must be a list of {situation, resolution, reason}, not a %s", kindName(v))
		return
	}
	if len(v.Content) > MaxExamples {
		p.problem("examples", "has %d examples, at most %d are allowed", len(v.Content), MaxExamples)
	}
	for i, item := range v.Content {
		field := fmt.Sprintf("examples[%d]", i)
		item = deref(item)
		if item.Kind != yaml.MappingNode {
			p.problem(field, "must be a map {situation, resolution, reason}, not a %s", kindName(item))
			continue
		}
		var ex Example
		ok := true
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, val := item.Content[j].Value, deref(item.Content[j+1])
			var dst *string
			switch k {
			case "situation":
				dst = &ex.Situation
			case "resolution":
				dst = &ex.Resolution
			case "reason":
				dst = &ex.Reason
			default:
				p.warn(field+"."+k, "is not a key of an example (situation, resolution, reason); ignored")
				continue
			}
			s, good := p.str(field+"."+k, val)
			ok = ok && good
			*dst = s
		}
		if strings.TrimSpace(ex.Situation) == "" && ok {
			p.problem(field+".situation", "must not be empty")
			ok = false
		}
		if strings.TrimSpace(ex.Resolution) == "" && ok {
			p.problem(field+".resolution", "must not be empty")
			ok = false
		}
		if n := len(ex.Situation) + len(ex.Resolution) + len(ex.Reason); n > MaxExampleBytes {
			p.problem(field, "is %d bytes, over the 4 KiB (%d bytes) limit", n, MaxExampleBytes)
			ok = false
		}
		if ok {
			p.s.Examples = append(p.s.Examples, ex)
		}
	}
}
