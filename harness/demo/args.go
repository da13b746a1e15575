package demo

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// schema is the part of a tool's JSON Schema the demo model reads to build
// arguments.
type schema struct {
	Type       any                `json:"type"` // a string, or a list like ["string","null"]
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Enum       []any              `json:"enum"`
	// Description is read for an example value ("such as TX-88412").
	Description string `json:"description"`

	// remembered is the value this property had in an earlier call of a
	// tool no longer offered; it stands in for the schema's missing detail.
	remembered any
}

// parseSchema reads a tool's parameters, whatever Go value holds them (a
// decoded map, json.RawMessage or a schema struct). Unreadable parameters
// give an empty schema: the call then carries "{}".
func parseSchema(params any) *schema {
	s := &schema{}
	if params == nil {
		return s
	}
	b, err := json.Marshal(params)
	if err != nil {
		return s
	}
	if err := json.Unmarshal(b, s); err != nil {
		return &schema{}
	}
	return s
}

// kind is the property's type, as the demo model treats it.
func (s *schema) kind() string {
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if str, ok := v.(string); ok && str != "null" {
				return str
			}
		}
	}
	switch {
	case len(s.Enum) > 0:
		return "enum"
	case len(s.Properties) > 0:
		return "object"
	}
	return "string"
}

// rememberSchema makes a schema out of an earlier call's arguments, so a
// call of a tool that is no longer offered carries the same keys, with
// fresh values from the user's message where it gives some.
func rememberSchema(args string) *schema {
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&obj) != nil {
		return &schema{}
	}
	s := &schema{Type: "object", Properties: map[string]*schema{}}
	for k, v := range obj {
		p := &schema{remembered: v}
		switch x := v.(type) {
		case string:
			p.Type = "string"
		case json.Number:
			p.Type = "number"
			if _, err := x.Int64(); err == nil {
				p.Type = "integer"
			}
		case bool:
			p.Type = "boolean"
		case []any:
			p.Type = "array"
		case map[string]any:
			p.Type = "object"
		default:
			p.Type = "null"
		}
		s.Properties[k] = p
		s.Required = append(s.Required, k)
	}
	return s
}

// argSource hands out values found in the user's message. Identifiers and
// quoted strings are used once each, in order, so two string properties get
// two different values when the message has them.
type argSource struct {
	u      string
	ids    []string
	quotes []string
}

func newArgSource(u string, known map[string]bool, s *schema) *argSource {
	keys := map[string]bool{}
	s.keys(keys)
	return &argSource{u: u, ids: identifiers(u, known, keys), quotes: quoted(u, keys)}
}

// keys collects the property names of s and of its nested objects.
func (s *schema) keys(into map[string]bool) {
	for n, p := range s.Properties {
		into[strings.ToLower(n)] = true
		if p != nil {
			p.keys(into)
		}
	}
}

// buildArgs builds the arguments object for s as compact JSON with sorted
// keys.
func buildArgs(s *schema, u string, known map[string]bool) string {
	return encode(newArgSource(u, known, s).object(s))
}

func (src *argSource) object(s *schema) map[string]any {
	out := map[string]any{}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	required := map[string]bool{}
	for _, n := range s.Required {
		required[n] = true
		if _, ok := s.Properties[n]; !ok { // required but not described: a string
			names = append(names, n)
		}
	}
	sort.Strings(names)
	prop := func(n string) *schema {
		if p := s.Properties[n]; p != nil {
			return p
		}
		return &schema{}
	}
	// Values the message gives by name come first, for any property.
	for _, n := range names {
		if v, ok := src.explicit(n, prop(n)); ok {
			out[n] = v
		} else if v, ok := src.enumMention(prop(n)); ok {
			out[n] = v
		}
	}
	// Then identifiers go to the properties that hold ids, so "flag TX-9"
	// fills transaction_id rather than the first string in key order; those
	// whose description shows an example choose first.
	for _, withExample := range []bool{true, false} {
		for _, n := range names {
			p := prop(n)
			if _, done := out[n]; done || !required[n] || p.kind() != "string" || len(p.Enum) > 0 ||
				!p.idLike(n) || (p.example() != "") != withExample {
				continue
			}
			if v, ok := src.takeID(p.example(), n); ok {
				out[n] = v
			}
		}
	}
	for _, n := range names {
		if _, done := out[n]; !done && required[n] {
			out[n] = src.value(prop(n))
		}
	}
	return out
}

// idSuffixes end the names of properties that hold identifiers.
var idSuffixes = map[string]bool{"id": true, "ids": true, "version": true, "key": true, "ref": true, "code": true,
	"number": true, "num": true, "uuid": true, "sku": true, "tag": true}

// idLike reports whether property name (with schema p) holds an identifier:
// its name ends in a word like id or version, or its description gives an
// example that does.
func (p *schema) idLike(name string) bool {
	parts := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' })
	if len(parts) > 0 && idSuffixes[parts[len(parts)-1]] {
		return true
	}
	return strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID") || p.example() != ""
}

// example is an identifier the property's description shows ("such as
// TX-88412"), or the value an earlier call gave it.
func (p *schema) example() string {
	if s, ok := p.remembered.(string); ok {
		if ids := identifiers(s, nil, nil); len(ids) > 0 && ids[0] == s {
			return s
		}
	}
	for _, raw := range strings.Fields(p.Description) {
		t := cleanToken(raw)
		if strings.IndexFunc(t, unicode.IsDigit) < 0 || strings.IndexFunc(t, unicode.IsLetter) < 0 {
			continue
		}
		return t
	}
	return ""
}

// takeID hands out the first identifier left that starts like example
// (the same letters before the first digit or dash: TX-… for TX-88412) or,
// with no example, like a word of the property's name (ACC-… for
// account_id); else the first identifier left.
func (src *argSource) takeID(example, name string) (string, bool) {
	if len(src.ids) == 0 {
		return "", false
	}
	at := -1
	if pre := idPrefix(example); pre != "" {
		at = slices.IndexFunc(src.ids, func(id string) bool { return idPrefix(id) == pre })
	} else {
		words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' })
		at = slices.IndexFunc(src.ids, func(id string) bool {
			pre := idPrefix(id)
			return len(pre) >= 2 && slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, pre) })
		})
	}
	at = max(at, 0)
	v := src.ids[at]
	src.ids = slices.Delete(slices.Clone(src.ids), at, at+1)
	return v, true
}

// idPrefix is the lower-cased letters an identifier starts with.
func idPrefix(id string) string {
	end := strings.IndexFunc(id, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(id)
	}
	return strings.ToLower(id[:end])
}

// value is the value of a required property the message gives no explicit
// value for.
func (src *argSource) value(p *schema) any {
	switch p.kind() {
	case "enum":
		return p.Enum[0]
	case "integer", "number":
		if n, ok := firstNumber(src.u, p.kind() == "integer"); ok {
			return json.Number(n)
		}
		if p.remembered != nil {
			return p.remembered
		}
		return 1
	case "boolean":
		if p.remembered != nil {
			return p.remembered
		}
		return true
	case "array":
		if p.remembered != nil {
			return p.remembered
		}
		return []any{}
	case "object":
		if p.remembered != nil {
			return p.remembered
		}
		return src.object(p)
	case "null":
		return nil
	}
	if len(p.Enum) > 0 {
		return p.Enum[0]
	}
	if len(src.ids) > 0 {
		v := src.ids[0]
		src.ids = src.ids[1:]
		return v
	}
	if len(src.quotes) > 0 {
		v := src.quotes[0]
		src.quotes = src.quotes[1:]
		return v
	}
	if p.remembered != nil {
		return p.remembered
	}
	if ex := p.example(); ex != "" {
		return ex // the schema's own example before the whole message
	}
	return shorten(src.u, 80)
}

// explicit finds a value the message gives by name: `key: value`,
// `key=value` or `key: "a value"`.
func (src *argSource) explicit(key string, p *schema) (any, bool) {
	re, err := regexp.Compile(`(?i)(?:^|[\s,;({])` + regexp.QuoteMeta(key) + `\s*[:=]\s*(?:"([^"]*)"|([^\s,;)}]+))`)
	if err != nil {
		return nil, false
	}
	m := re.FindStringSubmatch(src.u)
	if m == nil {
		return nil, false
	}
	raw := m[1] + m[2]
	if m[2] != "" {
		raw = strings.TrimRight(m[2], ".!?")
	}
	switch p.kind() {
	case "integer":
		if _, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return json.Number(raw), true
		}
		return nil, false
	case "number":
		if _, err := strconv.ParseFloat(raw, 64); err == nil {
			return json.Number(raw), true
		}
		return nil, false
	case "boolean":
		switch strings.ToLower(raw) {
		case "true", "yes", "on":
			return true, true
		case "false", "no", "off":
			return false, true
		}
		return nil, false
	case "array", "object", "null":
		return nil, false
	}
	if len(p.Enum) > 0 {
		for _, e := range p.Enum {
			if str, ok := e.(string); ok && strings.EqualFold(str, raw) {
				return str, true
			}
		}
		return nil, false
	}
	return raw, true
}

// enumMention finds an enum value the message names as a word.
func (src *argSource) enumMention(p *schema) (any, bool) {
	for _, e := range p.Enum {
		if str, ok := e.(string); ok && mentions(src.u, str) {
			return str, true
		}
	}
	return nil, false
}

// encode writes v as compact JSON with sorted keys and without HTML
// escaping, so arguments read as the user typed them.
func encode(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "{}"
	}
	return strings.TrimRight(buf.String(), "\n")
}

// canonical rewrites JSON arguments compact with sorted keys, so two calls
// compare equal whatever their spacing; text that is not one JSON value is
// only trimmed.
func canonical(args string) string {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return strings.TrimSpace(args)
	}
	if _, err := dec.Token(); err != io.EOF {
		return strings.TrimSpace(args)
	}
	return encode(v)
}

// leadingObject decodes the JSON object text starts with, ignoring what
// follows it.
func leadingObject(text string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return "", false
	}
	return encode(obj), true
}
