package journal

// A compact-JSON scanner for the journal's writer. A request body is cut
// at its messages on every model call; scanning it with encoding/json's
// decoder, and checking each message again when it is written as a blob,
// costs several passes over a body that holds a long skill text. This
// scanner finds where a value ends in one pass and accepts exactly the
// JSON that encoding/json accepts and leaves unchanged when compacting
// it: no space outside strings. What it accepts can be written into a
// journal line as it is.

// maxDepth bounds nesting as encoding/json does.
const maxDepth = 10000

// plainInString marks the bytes a string holds as they are: not a quote,
// a backslash or a control character.
var plainInString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// compactEnd returns where the compact JSON value starting at b[i] ends,
// or ok false when there is none.
func compactEnd(b []byte, i int) (int, bool) { return valueEnd(b, i, 0) }

func valueEnd(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return stringEnd(b, i)
	case c == '{':
		if depth >= maxDepth {
			return 0, false
		}
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			var ok bool
			if i >= len(b) || b[i] != '"' {
				return 0, false
			}
			if i, ok = stringEnd(b, i); !ok || i >= len(b) || b[i] != ':' {
				return 0, false
			}
			if i, ok = valueEnd(b, i+1, depth+1); !ok || i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i++
			case '}':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case c == '[':
		if depth >= maxDepth {
			return 0, false
		}
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = valueEnd(b, i, depth+1); !ok || i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i++
			case ']':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return numberEnd(b, i)
	}
	return 0, false
}

func literalEnd(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// stringEnd scans the string whose opening quote is b[i].
func stringEnd(b []byte, i int) (int, bool) {
	i++
	for {
		for i < len(b) && plainInString[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return 0, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 {
					return 0, false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return 0, false
					}
				}
				i += 6
			default:
				return 0, false
			}
		default: // a control character
			return 0, false
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// numberEnd scans a number as JSON's grammar has it.
func numberEnd(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsEnd(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}
