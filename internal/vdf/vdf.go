// Package vdf reads Valve's KeyValues text format (VDF), as Steam writes
// libraryfolders.vdf: quoted keys, each followed by a quoted value or a
// block of keys in braces, with // comments. The reader is strict and
// bounded: anything else (an unquoted token, an unclosed string or
// block, text after the root, input or nesting past its bounds) is an
// error naming its line.
package vdf

import (
	"errors"
	"fmt"
	"strings"
)

// MaxBytes bounds the input Parse reads; MaxDepth bounds how deep blocks
// nest.
const (
	MaxBytes = 1 << 20
	maxDepth = 32
)

// errSyntax is returned, wrapped with the line and what was wrong, for
// input that is not VDF.
var errSyntax = errors.New("vdf: syntax error")

// Node is a key's value: a string, or a block of keys (Keys, in the order
// they came; a key given twice keeps both).
type Node struct {
	Key   string
	Value string
	Keys  []*Node // nil for a string value
}

// Block reports whether n is a block of keys rather than a string.
func (n *Node) Block() bool { return n.Keys != nil }

// Get returns the first key of the block n named key, compared without
// regard to case as Steam does; nil when there is none.
func (n *Node) Get(key string) *Node {
	for _, k := range n.Keys {
		if strings.EqualFold(k.Key, key) {
			return k
		}
	}
	return nil
}

// Parse reads one root key and its block from data.
func Parse(data []byte) (*Node, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", errSyntax, MaxBytes)
	}
	p := &parser{s: strings.TrimPrefix(string(data), "\ufeff"), line: 1}
	root, err := p.pair(0)
	if err != nil {
		return nil, err
	}
	if !root.Block() {
		return nil, p.fail("the root key %q holds a string, not a block", root.Key)
	}
	if tok, _, err := p.next(); err != nil {
		return nil, err
	} else if tok != "" {
		return nil, p.fail("text after the root block")
	}
	return root, nil
}

// parser is a position in the input.
type parser struct {
	s    string
	i    int
	line int
}

func (p *parser) fail(format string, a ...any) error {
	return fmt.Errorf("%w: line %d: %s", errSyntax, p.line, fmt.Sprintf(format, a...))
}

// pair reads a key and its value at depth.
func (p *parser) pair(depth int) (*Node, error) {
	tok, key, err := p.next()
	if err != nil {
		return nil, err
	}
	if tok != "string" {
		return nil, p.fail("want a quoted key, got %s", describe(tok))
	}
	return p.value(key, depth)
}

// value reads the value of key: a string or a block.
func (p *parser) value(key string, depth int) (*Node, error) {
	tok, s, err := p.next()
	switch {
	case err != nil:
		return nil, err
	case tok == "string":
		return &Node{Key: key, Value: s}, nil
	case tok != "{":
		return nil, p.fail("want a value or { after the key %q, got %s", key, describe(tok))
	case depth+1 > maxDepth:
		return nil, p.fail("blocks nested deeper than %d", maxDepth)
	}
	n := &Node{Key: key, Keys: []*Node{}}
	for {
		tok, k, err := p.next()
		switch {
		case err != nil:
			return nil, err
		case tok == "}":
			return n, nil
		case tok != "string":
			return nil, p.fail("want a quoted key or } in the block %q, got %s", key, describe(tok))
		}
		child, err := p.value(k, depth+1)
		if err != nil {
			return nil, err
		}
		n.Keys = append(n.Keys, child)
	}
}

// describe names a token for an error.
func describe(tok string) string {
	if tok == "" {
		return "the end of the input"
	}
	return tok
}

// next returns the next token: "string" with its text, "{", "}", or ""
// at the end of the input.
func (p *parser) next() (tok, text string, err error) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "//"):
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '{' || c == '}':
			p.i++
			return string(c), "", nil
		case c == '"':
			s, err := p.quoted()
			return "string", s, err
		default:
			return "", "", p.fail("unexpected %q: keys and values are quoted", c)
		}
	}
	return "", "", nil
}

// quoted reads a quoted string from its opening quote: \\, \", \n and \t
// are escapes, as Steam writes them (a Windows path doubles its
// backslashes).
func (p *parser) quoted() (string, error) {
	start := p.line
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return b.String(), nil
		case '\n':
			p.line++
			b.WriteByte(c)
		case '\\':
			if p.i+1 >= len(p.s) {
				break
			}
			p.i++
			switch e := p.s[p.i]; e {
			case '\\', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return "", p.fail("unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("%w: line %d: a string that never ends", errSyntax, start)
}
