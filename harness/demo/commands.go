package demo

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// command is one explicit instruction found in U, as the call it makes.
type command struct {
	name string
	args string
}

// commands reads the explicit commands of U, one per line that starts with
// a command word, in order:
//
//	load NAME | use NAME | read skill NAME   → load_skill {"name": NAME}
//	call TOOL [{json}]                       → TOOL with that JSON, or arguments from its schema
//	read NAME/PATH                           → read_skill_resource {"path": PATH, "skill": NAME}
//
// A NAME that is a stop word or under 3 characters ("use the …", "call me")
// is ordinary prose, not a command.
func (v *view) commands() []command {
	var out []command
	lines := strings.Split(v.user, "\n")
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		arg := cleanToken(f[1])
		switch strings.ToLower(f[0]) {
		case "load", "use":
			if isName(arg) {
				out = append(out, command{toolLoadSkill, encode(map[string]string{"name": arg})})
			}
		case "read":
			if strings.EqualFold(f[1], "skill") && len(f) > 2 {
				if name := cleanToken(f[2]); isName(name) {
					out = append(out, command{toolLoadSkill, encode(map[string]string{"name": name})})
				}
				continue
			}
			skill, path, ok := strings.Cut(strings.Trim(f[1], "\"'`"), "/")
			path = strings.TrimRight(path, ".,;:!?")
			if ok && isName(skill) {
				out = append(out, command{toolReadResource, encode(map[string]string{"skill": skill, "path": path})})
			}
		case "call":
			body := strings.TrimSpace(strings.TrimSpace(line)[len(f[0]):])
			end := strings.IndexFunc(body, func(r rune) bool { return unicode.IsSpace(r) || r == '{' })
			if end < 0 {
				end = len(body)
			}
			tool := cleanToken(body[:end])
			if !isName(tool) {
				continue
			}
			// The JSON may follow the name on the same line or the next,
			// and run on over several lines.
			after := strings.TrimSpace(body[end:])
			if (after == "" || strings.HasPrefix(after, "{")) && i+1 < len(lines) {
				after = strings.TrimSpace(after + "\n" + strings.Join(lines[i+1:], "\n"))
			}
			out = append(out, command{tool, v.callArgs(tool, after)})
		}
	}
	return out
}

// callArgs are the arguments of "call TOOL …": the JSON object that follows
// the name; text that starts like JSON but is not valid is sent as it is, so
// a demo can show how the engine answers malformed arguments; otherwise
// arguments built from the tool's schema, or from its last call when it is
// not offered.
func (v *view) callArgs(tool, after string) string {
	if strings.HasPrefix(after, "{") {
		if obj, ok := leadingObject(after); ok {
			return obj
		}
		line, _, _ := strings.Cut(after, "\n")
		return strings.TrimSpace(line)
	}
	for _, t := range v.tools {
		if t.Name == tool {
			return buildArgs(parseSchema(t.Params), v.user, v.known)
		}
	}
	all := append(append([]callRecord{}, v.past...), v.turn...)
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Name == tool {
			return buildArgs(rememberSchema(all[i].Args), v.user, v.known)
		}
	}
	return "{}"
}

// isName reports whether s can be a skill or tool name in a command rather
// than a word of a sentence.
func isName(s string) bool {
	return utf8.RuneCountInString(s) >= 3 && !stopWords[strings.ToLower(s)] && !strings.ContainsAny(s, "{}\"")
}
