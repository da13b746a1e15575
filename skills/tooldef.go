package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// EmptyParameters is the schema of a tool that takes no arguments.
var EmptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// IsToolFile reports whether a file name is a tool definition's.
func IsToolFile(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return (ext == ".yaml" || ext == ".yml") && !strings.HasPrefix(name, ".")
}

// LoadToolFile reads and validates one tool definition file. The
// definition is nil when there are problems; it is returned with its name
// whenever that could be read, so errors can say which tool a bad file was.
func LoadToolFile(path string) (*ToolDef, []Problem) {
	data, _, prob := readTextFile(path)
	if prob != nil {
		return nil, []Problem{*prob}
	}
	def, probs := ParseToolDef(data, filepath.Dir(path))
	def.File = path
	return def, probs
}

// ParseToolDef parses and validates a tool definition. dir is the folder of
// the tool file, against which a relative command program is checked ("" to
// skip that check). The returned definition is never nil, but is only usable
// when there are no problems.
func ParseToolDef(data []byte, dir string) (def *ToolDef, probs []Problem) {
	def = &ToolDef{}
	defer func() {
		if r := recover(); r != nil {
			probs = append(probs, Problem{Field: "file", Message: fmt.Sprintf("could not be parsed: %v", r)})
		}
	}()
	if p := checkText(data); p != nil {
		return def, []Problem{*p}
	}
	add := func(field, format string, args ...any) {
		probs = append(probs, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		add("file", "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		return def, probs
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		add("file", "must be a YAML map with name, version, description and an implementation")
		return def, probs
	}
	root := doc.Content[0]
	seen := map[string]bool{}
	var impls []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, v := root.Content[i].Value, deref(root.Content[i+1])
		if key == "" || root.Content[i].Kind != yaml.ScalarNode {
			add("file", "line %d: a key must be a plain name", root.Content[i].Line)
			continue
		}
		if seen[key] {
			add(key, "defined twice")
			continue
		}
		seen[key] = true
		switch key {
		case "name":
			if s, ok := toolStr(v); !ok {
				add(key, "must be a string, not %s", describe(v))
			} else if !toolNameRE.MatchString(s) {
				add(key, "%q must be 1-64 letters, digits, _ and -", s)
			} else {
				def.Name = s
			}
		case "version":
			n, err := strconv.ParseInt(v.Value, 0, 32)
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || err != nil || n < 1 {
				add(key, "must be a whole number of at least 1, not %s", describe(v))
			} else {
				def.Version = int(n)
			}
		case "description":
			if s, ok := toolStr(v); !ok {
				add(key, "must be a string, not %s", describe(v))
			} else if strings.TrimSpace(s) == "" {
				add(key, "must not be empty")
			} else {
				def.Description = s
			}
		case "parameters":
			raw, err := schemaJSON(v)
			if err != nil {
				add(key, "%v", err)
			} else {
				def.Parameters = raw
			}
		case "response":
			impls = append(impls, key)
			if s, ok := toolStr(v); !ok {
				add(key, "must be a string (a template), not %s", describe(v))
			} else {
				def.Kind, def.Response = KindResponse, s
			}
		case "command":
			impls = append(impls, key)
			if cmd, msg := commandList(v, dir); msg != "" {
				add(key, "%s", msg)
			} else {
				def.Kind, def.Command = KindCommand, cmd
			}
		case "mcp":
			impls = append(impls, key)
			server, tool, msg := mcpTarget(v)
			if msg != "" {
				add(key, "%s", msg)
			} else {
				def.Kind, def.Server, def.RemoteTool = KindMCP, server, tool
			}
		case "timeout":
			s, _ := toolStr(v)
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				add(key, "must be a positive duration such as 10s or 2m, not %s", describe(v))
			} else {
				def.Timeout = d
			}
		case "env":
			if v.Kind != yaml.SequenceNode {
				add(key, "must be a list of variable names, not %s", describe(v))
				break
			}
			for j, item := range v.Content {
				if s, ok := toolStr(deref(item)); ok && s != "" && !strings.ContainsAny(s, "= ") {
					def.Env = append(def.Env, s)
				} else {
					add(fmt.Sprintf("env[%d]", j), "must be a variable name, not %s", describe(item))
				}
			}
		case "max_output":
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || err != nil || n < 1 {
				add(key, "must be a number of bytes of at least 1, not %s", describe(v))
			} else {
				def.MaxOutput = n
			}
		default:
			add(key, "unknown key: a tool file has name, version, description, parameters, one of response, command or mcp, and timeout, env, max_output")
		}
	}
	for _, req := range []string{"name", "version", "description"} {
		if !seen[req] {
			add(req, "missing required field")
		}
	}
	switch len(impls) {
	case 0:
		add("response", "no implementation: give exactly one of response, command or mcp")
	case 1:
	default:
		add(impls[1], "more than one implementation (%s): give exactly one", strings.Join(impls, ", "))
	}
	if def.Parameters == nil {
		def.Parameters = EmptyParameters
	}
	return def, probs
}

func toolStr(v *yaml.Node) (string, bool) {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
		return v.Value, true
	}
	return "", false
}

// schemaJSON turns the YAML parameters into JSON and checks it is a JSON
// Schema describing an object.
func schemaJSON(v *yaml.Node) (json.RawMessage, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("must be a JSON Schema object (a map), not %s", describe(v))
	}
	var val any
	if err := v.Decode(&val); err != nil {
		return nil, fmt.Errorf("cannot be read: %v", err)
	}
	// the model gets the schema in the author's order, as written
	raw, err := orderedJSON(v, 0)
	if err != nil {
		if raw, err = json.Marshal(val); err != nil {
			return nil, fmt.Errorf("cannot be turned into JSON (keys must be strings): %v", err)
		}
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("is not a JSON Schema: %v", err)
	}
	if schema.Type != "object" {
		got := schema.Type
		if got == "" {
			got = strings.Join(schema.Types, ", ")
		}
		if got == "" {
			return nil, errors.New(`must have type: object at the top`)
		}
		return nil, fmt.Errorf(`must have type: object at the top, not %q`, got)
	}
	if err := checkSchemaTypes(&schema, "parameters"); err != nil {
		return nil, err
	}
	if _, err := schema.Resolve(nil); err != nil {
		return nil, fmt.Errorf("is not a valid JSON Schema: %v", err)
	}
	return raw, nil
}

var jsonTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true,
	"integer": true, "boolean": true, "null": true}

// checkSchemaTypes catches misspelt type names, which the resolver lets by.
func checkSchemaTypes(s *jsonschema.Schema, at string) error {
	var bad []string
	var walk func(s *jsonschema.Schema, at string, depth int)
	walk = func(s *jsonschema.Schema, at string, depth int) {
		if s == nil || depth > 32 {
			return
		}
		for _, t := range append([]string{s.Type}, s.Types...) {
			if t != "" && !jsonTypes[t] {
				bad = append(bad, fmt.Sprintf("%s: unknown type %q", at, t))
			}
		}
		keys := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(s.Properties[k], at+".properties."+k, depth+1)
		}
		walk(s.Items, at+".items", depth+1)
		walk(s.AdditionalProperties, at+".additionalProperties", depth+1)
		for i, sub := range s.AnyOf {
			walk(sub, fmt.Sprintf("%s.anyOf[%d]", at, i), depth+1)
		}
		for i, sub := range s.OneOf {
			walk(sub, fmt.Sprintf("%s.oneOf[%d]", at, i), depth+1)
		}
		for i, sub := range s.AllOf {
			walk(sub, fmt.Sprintf("%s.allOf[%d]", at, i), depth+1)
		}
	}
	walk(s, at, 0)
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; ") + " (want object, array, string, number, integer, boolean or null)")
	}
	return nil
}

// commandList reads a command: a string is the program alone, a list is the
// program and its arguments. A program given as a path relative to the tool
// file must exist there.
func commandList(v *yaml.Node, dir string) ([]string, string) {
	var cmd []string
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
		cmd = []string{v.Value}
	case v.Kind == yaml.SequenceNode:
		for i, item := range v.Content {
			s, ok := toolStr(deref(item))
			if !ok {
				return nil, fmt.Sprintf("item %d must be a string, not %s", i, describe(item))
			}
			cmd = append(cmd, s)
		}
	default:
		return nil, fmt.Sprintf("must be a program (a string) or a list of the program and its arguments, not %s", describe(v))
	}
	if len(cmd) == 0 || strings.TrimSpace(cmd[0]) == "" {
		return nil, "names no program"
	}
	prog := cmd[0]
	if dir != "" && !filepath.IsAbs(prog) && strings.ContainsRune(prog, '/') {
		path := filepath.Join(dir, prog)
		info, err := os.Stat(path)
		switch {
		case err != nil:
			return nil, fmt.Sprintf("program %s not found (relative to the tool file's folder: %s)", prog, path)
		case info.IsDir():
			return nil, fmt.Sprintf("program %s is a folder", prog)
		case info.Mode()&0o111 == 0:
			return nil, fmt.Sprintf("program %s is not executable (chmod +x %s)", prog, path)
		}
	}
	return cmd, ""
}

func mcpTarget(v *yaml.Node) (server, tool, msg string) {
	if v.Kind != yaml.MappingNode {
		return "", "", fmt.Sprintf("must be a map {server, tool}, not %s", describe(v))
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i].Value, deref(v.Content[i+1])
		s, ok := toolStr(val)
		switch {
		case k != "server" && k != "tool":
			return "", "", fmt.Sprintf("unknown key %q: want server and tool", k)
		case !ok || strings.TrimSpace(s) == "":
			return "", "", fmt.Sprintf("%s must be a non-empty string", k)
		case k == "server":
			server = s
		default:
			tool = s
		}
	}
	if server == "" || tool == "" {
		return "", "", "must name both server and tool"
	}
	return server, tool, ""
}

// orderedJSON writes a YAML node as compact JSON with every map's keys in
// the order the file gives them (json.Marshal of a decoded map sorts
// them).
func orderedJSON(n *yaml.Node, depth int) ([]byte, error) {
	if depth > 64 {
		return nil, errors.New("nested too deep")
	}
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		var b bytes.Buffer
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" || (k.Tag != "!!str" && k.Tag != "") {
				return nil, fmt.Errorf("key %q is not a string", k.Value)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(k.Value)
			b.Write(key)
			b.WriteByte(':')
			val, err := orderedJSON(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			b.Write(val)
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	case yaml.SequenceNode:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			val, err := orderedJSON(c, depth+1)
			if err != nil {
				return nil, err
			}
			b.Write(val)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		return json.Marshal(v)
	}
	return nil, fmt.Errorf("cannot turn %s into JSON", describe(n))
}
