package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// parsePointer splits an RFC 6901 JSON pointer into its unescaped tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, errors.New(`a JSON pointer is "" or starts with "/"`)
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		for j := 0; j < len(s); j++ {
			if s[j] == '~' && (j+1 >= len(s) || (s[j+1] != '0' && s[j+1] != '1')) {
				return nil, fmt.Errorf("token %q: ~ must be followed by 0 or 1", s)
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// lookup follows a pointer through a decoded JSON document.
func lookup(doc any, pointer string) (any, error) {
	tokens, err := parsePointer(pointer)
	if err != nil {
		return nil, err
	}
	cur := doc
	for i, t := range tokens {
		at := "/" + strings.Join(tokens[:i+1], "/")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[t]
			if !ok {
				return nil, fmt.Errorf("%s: no member %q", at, t)
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(t)
			if err != nil || n < 0 || (len(t) > 1 && t[0] == '0') {
				return nil, fmt.Errorf("%s: %q is not an array index", at, t)
			}
			if n >= len(v) {
				return nil, fmt.Errorf("%s: index %d past the array's %d items", at, n, len(v))
			}
			cur = v[n]
		default:
			return nil, fmt.Errorf("%s: %s has no members", at, kindOf(cur))
		}
	}
	return cur, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	}
	return "a value"
}

// jsonEqual compares decoded JSON values; numbers compare as numbers.
func jsonEqual(a any, raw json.RawMessage) bool {
	var b any
	if json.Unmarshal(raw, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// workspacePath resolves a check's path inside the workspace root.
func workspacePath(root, p string) (string, error) {
	if filepath.IsAbs(p) {
		return "", fmt.Errorf("%s is absolute; paths are relative to the run's workspace", p)
	}
	full := filepath.Join(root, filepath.FromSlash(p))
	rel, err := filepath.Rel(root, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s leaves the run's workspace", p)
	}
	return full, nil
}
