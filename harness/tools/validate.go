package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// maxSchemaHint bounds the schema excerpt a validation error quotes.
const maxSchemaHint = 300

// schemaCache holds resolved schemas by their bytes: tool schemas are few
// and are checked on every call.
var schemaCache sync.Map // string -> *resolvedSchema

type resolvedSchema struct {
	once sync.Once
	rs   *jsonschema.Resolved
	raw  map[string]any
	err  error
}

// ValidateArgs checks a tool call's arguments against the tool's JSON Schema
// and returns them as compact JSON. The arguments must be a JSON object; ""
// is the empty object. An empty or null schema accepts any object. Errors
// say which argument was wrong and what was expected, for the model to act
// on.
func ValidateArgs(schema json.RawMessage, args string) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" {
		trimmed = "{}"
	}
	var inst any
	if err := json.Unmarshal([]byte(trimmed), &inst); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, ok := inst.(map[string]any); !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", aJSONKind(inst))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(trimmed)); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}

	s := bytes.TrimSpace(schema)
	if len(s) == 0 || string(s) == "null" {
		return compact.Bytes(), nil
	}
	rs, err := resolveSchema(s)
	if err != nil {
		return nil, err
	}
	if err := rs.rs.Validate(inst); err != nil {
		return nil, describeValidation(err, rs.raw)
	}
	return compact.Bytes(), nil
}

func resolveSchema(schema []byte) (*resolvedSchema, error) {
	v, _ := schemaCache.LoadOrStore(string(schema), &resolvedSchema{})
	rs := v.(*resolvedSchema)
	rs.once.Do(func() {
		schema := withSupportedDraft(schema)
		var s jsonschema.Schema
		if err := json.Unmarshal(schema, &s); err != nil {
			rs.err = fmt.Errorf("the tool's parameters are not a valid JSON Schema: %v", err)
			return
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			rs.err = fmt.Errorf("the tool's parameters are not a valid JSON Schema: %v", err)
			return
		}
		rs.rs = resolved
		_ = json.Unmarshal(schema, &rs.raw)
	})
	return rs, rs.err
}

// supportedDrafts are the $schema values the validator accepts.
var supportedDrafts = []string{
	"",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft/2020-12/schema",
}

// withSupportedDraft drops a $schema naming a draft the validator refuses
// (draft-04 and -06 are common in MCP servers' schemas): for the keywords
// tool parameters use, checking them as 2020-12 gives the same answers.
func withSupportedDraft(schema []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return schema
	}
	raw, ok := top["$schema"]
	if !ok {
		return schema
	}
	var draft string
	if json.Unmarshal(raw, &draft) == nil && slices.Contains(supportedDrafts, draft) {
		return schema
	}
	delete(top, "$schema")
	out, err := json.Marshal(top)
	if err != nil {
		return schema
	}
	return out
}

var (
	validatingPrefix = regexp.MustCompile(`^validating ([^:]*): `)
	ratInteger       = regexp.MustCompile(`\b(-?\d+)/1\b`)
	fixedSix         = regexp.MustCompile(`\b\d+\.\d{6}\b`)
	numericKeyword   = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): `)
)

// describeValidation turns the validator's nested message into one line
// naming the argument, and a second quoting what its schema expects.
func describeValidation(err error, raw map[string]any) error {
	msg := err.Error()
	path := ""
	for {
		m := validatingPrefix.FindStringSubmatch(msg)
		if m == nil {
			break
		}
		path = m[1]
		msg = msg[len(m[0]):]
	}
	if numericKeyword.MatchString(msg) {
		// The validator prints numbers as fractions and %f: 0/1, 1.000000.
		msg = ratInteger.ReplaceAllString(msg, "$1")
		msg = fixedSix.ReplaceAllStringFunc(msg, func(s string) string {
			return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
		})
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}

	where := argumentName(path)
	if where == "" {
		line := "invalid arguments: " + msg
		if strings.HasPrefix(msg, "unexpected additional properties") {
			if names := propertyNames(raw); len(names) > 0 {
				line += "\nallowed properties: " + strings.Join(names, ", ")
			}
		}
		return errors.New(line)
	}
	line := fmt.Sprintf("invalid argument %s: %s", where, msg)
	if sub := schemaAt(raw, path); sub != nil {
		if hint, err := toJSON(withoutDescriptions(sub)); err == nil && hint != "{}" {
			line += "\nexpected: " + CutOutput(hint, maxSchemaHint)
		}
	}
	return errors.New(line)
}

// argumentName turns a schema path such as /properties/filter/items into
// the argument it checks, "filter[]"; "" for the arguments object itself.
func argumentName(path string) string {
	if path == "" || path == "root" {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties", "patternProperties":
			if i+1 < len(parts) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(unescapePointer(parts[i+1]))
				i++
			}
		case "items", "additionalItems":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(parts) {
				b.WriteString("[" + parts[i+1] + "]")
				i++
			}
		case "additionalProperties":
			b.WriteString(".*")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return strconv.Quote(b.String())
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// schemaAt follows a JSON pointer into a decoded schema.
func schemaAt(raw map[string]any, path string) any {
	var cur any = raw
	for _, p := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if p == "" {
			continue
		}
		switch c := cur.(type) {
		case map[string]any:
			cur = c[unescapePointer(p)]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// withoutDescriptions drops prose from a schema excerpt: the model has the
// descriptions already and the constraint is what it needs.
func withoutDescriptions(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			switch k {
			case "description", "title", "examples", "$comment":
				continue
			}
			out[k] = withoutDescriptions(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutDescriptions(x)
		}
		return out
	}
	return v
}

func propertyNames(raw map[string]any) []string {
	props, _ := raw["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
