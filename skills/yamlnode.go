package skills

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// isText reports whether a node is a string scalar under YAML 1.2, which
// has no timestamps: an unquoted 2026-03-06 is text, not a date.
func isText(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	tag := n.ShortTag()
	return tag == "!!str" || tag == "!!timestamp"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "map"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}

func tagName(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!int":
		return "the number"
	case "!!float":
		return "the number"
	case "!!bool":
		return "the boolean"
	case "!!timestamp":
		return "the date"
	}
	return "the value"
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s %q", tagName(n), n.Value)
	}
	return "a " + kindName(n)
}

// nodeText is a node's YAML text, for keeping unknown keys showable.
func nodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
