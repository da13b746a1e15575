// Package skills reads the Agent Skills format from disk: it discovers skill
// folders, parses and validates SKILL.md and tool definition files, selects
// the skills a config names, and re-reads them cheaply. It knows nothing of
// models or terminals.
package skills

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Skill is one parsed SKILL.md with Skillet's extension keys.
type Skill struct {
	// Name is the frontmatter name (it must equal the folder's name).
	Name string `json:"name"`
	// Description says what the skill does and when to use it.
	Description string `json:"description"`
	// License is the spec's optional license field.
	License string `json:"license,omitempty"`
	// Compatibility is the spec's optional environment note.
	Compatibility string `json:"compatibility,omitempty"`
	// Metadata is the spec's string-to-string map.
	Metadata map[string]string `json:"metadata,omitempty"`
	// AllowedTools is the space-separated allowed-tools field, split. It is
	// shown, and grants nothing (R15).
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// Version is metadata.version, or "" when the skill has none.
	Version string `json:"version,omitempty"`
	// Tools lists the tools a load makes available (R14).
	Tools []ToolRef `json:"tools,omitempty"`
	// Examples are rendered after the instructions (R18).
	Examples []Example `json:"examples,omitempty"`
	// DescriptionAtEnd: the description is a block scalar (| or >) that
	// ends the frontmatter. A reader that parses the frontmatter without
	// its final newline (Crush) reads one line break fewer at its end.
	DescriptionAtEnd bool `json:"-"`
	// Body is the Markdown after the frontmatter, trimmed: the instructions.
	Body string `json:"body"`
	// Extra holds frontmatter keys the spec and Skillet do not define, kept
	// as their YAML text so they can be shown.
	Extra map[string]string `json:"extra,omitempty"`

	// Dir is the skill's folder (absolute, symlinks as found).
	Dir string `json:"dir"`
	// Path is the SKILL.md file.
	Path string `json:"path"`
	// Root is the discovery root the skill was found under.
	Root string `json:"root"`
	// ModTime and Size are the SKILL.md stat used to skip unchanged files.
	ModTime time.Time `json:"mod_time"`
	Size    int64     `json:"size"`

	// Problems are what makes the skill invalid; an invalid skill is left out.
	Problems []Problem `json:"problems,omitempty"`
	// Warnings are accepted oddities (unknown keys, comma-separated
	// allowed-tools, a body over the recommended length).
	Warnings []Problem `json:"warnings,omitempty"`

	// ToolDefs are the tool definitions found in the skill's own tools/
	// folder, by name and version.
	ToolDefs []*ToolDef `json:"-"`
	// ToolProblems are the invalid or duplicated files of the skill's own
	// tools/ folder. They do not make the skill invalid: a reference to
	// such a tool fails when it is resolved.
	ToolProblems []FileProblem `json:"tool_problems,omitempty"`

	// loadText is LoadText, rendered once when the skill was parsed with
	// examples; a skill is not changed after parsing (a refresh parses a
	// new one).
	loadText string
}

// Valid reports whether the skill has no problems.
func (s *Skill) Valid() bool { return len(s.Problems) == 0 }

// Folder is the name of the skill's folder, which is how discovery and
// selection know a skill: it equals Name for every valid skill, and it is
// still defined when the frontmatter name is missing or wrong.
func (s *Skill) Folder() string { return filepath.Base(s.Dir) }

// FileProblem is everything wrong with one file (a tool definition).
type FileProblem struct {
	// File is the file's path.
	File string `json:"file"`
	// Problems name the field each one is about.
	Problems []Problem `json:"problems"`
}

// ToolRef names a tool a skill makes available. Version 0 means latest. A
// name of the form SERVER/TOOL names a tool of an MCP server from the config.
type ToolRef struct {
	Name    string `json:"name" yaml:"name"`
	Version int    `json:"version,omitempty" yaml:"version,omitempty"`
}

// Pinned reports whether the reference names a version.
func (r ToolRef) Pinned() bool { return r.Version > 0 }

// MCP splits a SERVER/TOOL reference; ok is false for a plain tool name.
func (r ToolRef) MCP() (server, tool string, ok bool) {
	return strings.Cut(r.Name, "/")
}

// String is name@version for a pinned reference, else the name.
func (r ToolRef) String() string {
	if r.Version > 0 {
		return toolKey(r.Name, r.Version)
	}
	return r.Name
}

// Example is one curated situation and how it was resolved.
type Example struct {
	Situation  string `json:"situation" yaml:"situation"`
	Resolution string `json:"resolution" yaml:"resolution"`
	Reason     string `json:"reason,omitempty" yaml:"reason,omitempty"`
}

// Problem is one finding about a skill or tool file, naming the field.
type Problem struct {
	// Field is the frontmatter field, tool file key or "file" for the file
	// as a whole.
	Field string `json:"field"`
	// Message says what is wrong, for a person.
	Message string `json:"message"`
	// Lax names the spec rule broken when it is one that agents read past
	// (see Readable); "" for any other problem.
	Lax LaxRule `json:"-"`
}

func (p Problem) String() string { return p.Field + ": " + p.Message }

// LaxRule is a rule of the Agent Skills spec that the coding agents do not
// all enforce: a skill breaking only such rules is invalid to Skillet and
// to `skillet validate`, but some agents still list it.
type LaxRule string

// The rules agents read past (measured against Claude Code 2.1.332, Codex
// 0.171.0, opencode 1.18.33, Crush 37f36e93 and Gemini CLI core 0.61.0).
const (
	// LaxNameFolder: the frontmatter name differs from the folder's.
	LaxNameFolder LaxRule = "name-folder"
	// LaxNameMissing: there is no name; Claude Code and Codex name the
	// skill after its folder (the Name of such a skill is the folder's).
	LaxNameMissing LaxRule = "name-missing"
	// LaxNameFormat: the name is not lowercase letters, digits and single
	// hyphens, or is over 64 characters.
	LaxNameFormat LaxRule = "name-format"
	// LaxDescriptionLength: the description is over 1,024 characters.
	LaxDescriptionLength LaxRule = "description-length"
	// LaxBodyLength: the instructions are over 65,536 characters.
	LaxBodyLength LaxRule = "body-length"
	// LaxMetadataValue: a metadata value is a list or a map, not a string.
	LaxMetadataValue LaxRule = "metadata-value"
)

// Readable reports whether the skill is valid or breaks only rules some
// agents read past (every problem has a LaxRule): such a skill still has
// a name, a description and a body an agent can list and load.
func (s *Skill) Readable() bool {
	for _, p := range s.Problems {
		if p.Lax == "" {
			return false
		}
	}
	return true
}

// ToolKind is how a tool is carried out.
type ToolKind string

// The tool kinds of DESIGN §3.
const (
	// KindResponse answers from a template over the arguments (demo tools).
	KindResponse ToolKind = "response"
	// KindCommand runs a program with the arguments as JSON on stdin.
	KindCommand ToolKind = "command"
	// KindMCP calls a tool of an MCP server declared in the config.
	KindMCP ToolKind = "mcp"
)

// ToolDef is one version of one tool, from a YAML file.
type ToolDef struct {
	Name        string          `json:"name"`
	Version     int             `json:"version"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Kind        ToolKind        `json:"kind"`

	// Response is the text/template of a response tool.
	Response string `json:"response,omitempty"`
	// Command is the program and its arguments for a command tool; a
	// relative program path is relative to the tool file's folder.
	Command []string `json:"command,omitempty"`
	// Timeout bounds a command tool's run; 0 means the default.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Env names environment variables a command tool may see although they
	// look secret (*_KEY, *_TOKEN, *_SECRET).
	Env []string `json:"env,omitempty"`
	// MaxOutput caps a command tool's stdout in bytes; 0 means the default.
	MaxOutput int `json:"max_output,omitempty"`
	// Server and RemoteTool name an MCP server and its tool.
	Server     string `json:"server,omitempty"`
	RemoteTool string `json:"remote_tool,omitempty"`

	// File is the YAML file the definition came from.
	File string `json:"file"`
}

// Key is the tool's name@version.
func (d *ToolDef) Key() string { return toolKey(d.Name, d.Version) }

func toolKey(name string, version int) string { return fmt.Sprintf("%s@%d", name, version) }

// xmlText escapes element text; only what would break the markup.
var xmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// LoadText is what a load delivers of the skill, and what the load limits
// (max_skill_chars, load_token_budget) measure: its instructions, then its
// examples as an <examples> element (R8, R18).
func (s *Skill) LoadText() string {
	if len(s.Examples) == 0 {
		return s.Body
	}
	if s.loadText != "" {
		return s.loadText
	}
	return s.renderLoadText()
}

// renderLoadText renders the instructions and the <examples> element.
func (s *Skill) renderLoadText() string {
	var b strings.Builder
	b.WriteString(s.Body)
	b.WriteString("\n\n<examples>\n")
	for _, ex := range s.Examples {
		b.WriteString("<example>\n<situation>")
		b.WriteString(xmlText.Replace(ex.Situation))
		b.WriteString("</situation>\n<resolution>")
		b.WriteString(xmlText.Replace(ex.Resolution))
		b.WriteString("</resolution>\n")
		if ex.Reason != "" {
			b.WriteString("<reason>")
			b.WriteString(xmlText.Replace(ex.Reason))
			b.WriteString("</reason>\n")
		}
		b.WriteString("</example>\n")
	}
	b.WriteString("</examples>")
	return b.String()
}
