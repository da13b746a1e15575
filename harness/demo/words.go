package demo

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are left out of matching: they appear in most descriptions
// ("Use when the user asks ...") and would make every skill match.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		the and for with that this these those from into onto your yours you
		are was were been being has have had not but can could should would
		will shall may might must use used uses using when what which who whom
		whose how why where its our ours they them their there then than also
		any all some each other such only own same very just about above after
		again before below between both during further here more most once over
		under until while does did doing done out off too nor now please want
		wants need needs like get gets let lets skill skills user users ask asks
		asked help helps tool tools one two way yet via per etc him her his she
		hers itself myself yourself because whether something anything thing
		things`) {
		m[w] = true
	}
	return m
}()

// stem strips a few English endings so "checks", "checking" and "checked"
// meet "check". It is crude on purpose: both sides get the same treatment.
func stem(w string) string {
	n := utf8.RuneCountInString(w)
	switch {
	case strings.HasSuffix(w, "ies") && n-3 >= 3:
		return strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "ing") && n-3 >= 3:
		return undouble(strings.TrimSuffix(w, "ing"))
	case strings.HasSuffix(w, "ed") && n-2 >= 3:
		return undouble(strings.TrimSuffix(w, "ed"))
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && n-1 >= 3:
		return strings.TrimSuffix(w, "s")
	}
	return w
}

// dropE takes a final silent e off a stem, so "decide" meets "decided"
// ("decid") and "release" meets "released".
func dropE(w string) string {
	if strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "ee") && utf8.RuneCountInString(w) > 4 {
		return strings.TrimSuffix(w, "e")
	}
	return w
}

// undouble drops a doubled final consonant left by a cut ending
// ("flagged" → "flagg" → "flag"), but not l, s or z ("filled" → "fill",
// "passed" → "pass").
func undouble(w string) string {
	n := len(w)
	if n < 4 || w[n-1] != w[n-2] || strings.IndexByte("bcdfghjkmnpqrtvwx", w[n-1]) < 0 {
		return w
	}
	return w[:n-1]
}

// words splits s into the distinct matching terms it holds, in order:
// lower-cased runs of letters and digits, at least 3 long, stop words left
// out, stemmed.
func words(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		if utf8.RuneCountInString(f) < 3 || stopWords[f] {
			continue
		}
		w := dropE(stem(f))
		if stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// wordSet is words as a set.
func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(s) {
		m[w] = true
	}
	return m
}

// overlap counts the terms two sets share.
func overlap(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}

// edgePunct is what is trimmed off a token before it is read as a value.
const edgePunct = ".,;:!?()[]{}<>\"'`“”‘’*"

// cleanToken trims punctuation off both ends of a token.
func cleanToken(t string) string {
	return strings.Trim(t, edgePunct)
}

// identifiers returns the tokens of u that look like identifiers: those
// mixing digits with letters or punctuation first (ACC-1042, v1.4.0), then
// words with an inner dash or underscore, then plain numbers. Known skill and
// tool names, "key=value" tokens, and a property name in keys with its
// value ("version: v2") are left out: they name things or are taken
// already.
func identifiers(u string, known, keys map[string]bool) []string {
	var mixed, dashed, numbers []string
	prev := ""
	for _, raw := range strings.Fields(u) {
		after := prev
		prev = raw
		isKey := strings.HasSuffix(raw, ":") && keys[strings.ToLower(cleanToken(raw))]
		if isKey || strings.Contains(raw, "=") {
			continue
		}
		if strings.HasSuffix(after, ":") && keys[strings.ToLower(cleanToken(after))] {
			continue
		}
		t := cleanToken(raw)
		if t == "" || known[strings.ToLower(t)] {
			continue
		}
		switch {
		case strings.IndexFunc(t, unicode.IsDigit) >= 0:
			if _, err := strconv.ParseFloat(t, 64); err == nil {
				numbers = append(numbers, t)
			} else {
				mixed = append(mixed, t)
			}
		case strings.ContainsAny(t, "-_"):
			dashed = append(dashed, t)
		}
	}
	return append(append(mixed, dashed...), numbers...)
}

// quotedRE finds text in double quotes, curly quotes or backticks; single
// quotes are left alone since they are mostly apostrophes.
var quotedRE = regexp.MustCompile("\"([^\"\\n]+)\"|“([^”\\n]+)”|`([^`\\n]+)`")

// keyBeforeRE finds a "key:" or "key=" just before a quoted string.
var keyBeforeRE = regexp.MustCompile(`([A-Za-z0-9_-]+)\s*[:=]\s*$`)

// quoted returns the quoted strings of u, in order, leaving out those given
// as the value of a key in keys.
func quoted(u string, keys map[string]bool) []string {
	var out []string
	for _, m := range quotedRE.FindAllStringSubmatchIndex(u, -1) {
		if k := keyBeforeRE.FindStringSubmatch(u[:m[0]]); k != nil && keys[strings.ToLower(k[1])] {
			continue
		}
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && m[g+1] > m[g] {
				out = append(out, u[m[g]:m[g+1]])
				break
			}
		}
	}
	return out
}

// firstNumber returns the first token of u that is a number (a whole one
// when integer is set).
func firstNumber(u string, integer bool) (string, bool) {
	for _, raw := range strings.Fields(u) {
		t := strings.TrimRight(cleanToken(raw), ".")
		if t == "" {
			continue
		}
		if integer {
			if _, err := strconv.ParseInt(t, 10, 64); err == nil {
				return t, true
			}
			continue
		}
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			return t, true
		}
	}
	return "", false
}

// shorten collapses whitespace and keeps at most n characters.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = strings.TrimSpace(string(r[:n]))
	}
	return s
}

// clip collapses whitespace and keeps at most n characters, marking a cut
// with an ellipsis.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = strings.TrimSpace(string(r[:n])) + "…"
	}
	return s
}

// mentions reports whether u names name as a whole token (case-insensitive),
// not as part of a longer name.
func mentions(u, name string) bool {
	if name == "" {
		return false
	}
	lu, ln := strings.ToLower(u), strings.ToLower(name)
	for i := 0; ; {
		j := strings.Index(lu[i:], ln)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(ln)
		if !nameRune(lu, start-1, true) && !nameRune(lu, end, false) {
			return true
		}
		i = start + 1
	}
}

// nameRune reports whether the rune just before (before=true) or at index i
// of s continues a name.
func nameRune(s string, i int, before bool) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s[:i+1])
	} else {
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_'
}
