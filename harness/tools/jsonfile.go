package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"skillet/harness/atomicfile"
)

// ReadJSONObject reads a state or store file (R26). A missing or empty file
// is the empty object; anything but a JSON object is an error naming the
// file.
func ReadJSONObject(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("read %s: not valid JSON: %w", path, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("read %s: holds %s, want a JSON object", path, aJSONKind(v))
	}
	return obj, nil
}

// WriteJSONObject writes v to path as indented JSON, atomically: readers
// see the old file or the new one, never half of it. A nil map is written
// as {}. Missing parent folders are made. The file is 0600 and folders
// made 0700: a skill's state may hold its user's data.
func WriteJSONObject(path string, v map[string]any) error {
	if v == nil {
		v = map[string]any{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// jsonKind names the JSON type of a decoded value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, float32, int, int64, int32, json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// aJSONKind is jsonKind with its article, for messages.
func aJSONKind(v any) string {
	k := jsonKind(v)
	switch k {
	case "array", "object":
		return "an " + k
	}
	return "a " + k
}
