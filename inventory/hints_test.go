package inventory

import (
	"errors"
	"testing"
)

// TestJSONHints: the mistakes people carry into JSON from JavaScript,
// YAML or Python are named, at the line and column of the mistake itself,
// not where the parser next stumbles.
func TestJSONHints(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"trailing comma in object", "{\n  \"schema\": 1,\n  \"id\": \"neon-halls\",\n}\n",
			`forgepack.json:3:21: JSON allows no trailing comma (before '}')`},
		{"trailing comma in list", "{\n  \"tags\": [\"a\",\n  ]\n}",
			`forgepack.json:2:15: JSON allows no trailing comma (before ']')`},
		{"line comment before a key", "{\n  // the pack\n  \"schema\": 1\n}",
			`forgepack.json:2:3: JSON allows no comments (//)`},
		{"line comment after a value", "{\n  \"schema\": 1 // one\n}",
			`forgepack.json:2:15: JSON allows no comments (//)`},
		{"block comment before the object", "/* pack */\n{}",
			`forgepack.json:1:1: JSON allows no comments (/*)`},
		{"comment after the object", "{\"schema\": 1}\n// end\n",
			`forgepack.json:2:1: JSON allows no comments (//)`},
		{"single-quoted value", "{\n  \"id\": 'neon-halls'\n}",
			`forgepack.json:2:9: JSON allows no single quotes: write strings and keys in double quotes`},
		{"single-quoted key", "{\n  'id': \"neon-halls\"\n}",
			`forgepack.json:2:3: JSON allows no single quotes: write strings and keys in double quotes`},
		{"unquoted key", "{\n  \"schema\": 1,\n  id: \"neon-halls\"\n}",
			`forgepack.json:3:3: JSON keys take double quotes: write "id", not id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("forgepack.json", []byte(tt.data))
			var me *ManifestError
			if !errors.As(err, &me) || len(me.Errors) != 1 || me.Errors[0].Rule != RuleSyntax {
				t.Fatalf("Decode = %v; want one syntax error", err)
			}
			if err.Error() != tt.want {
				t.Fatalf("Decode =\n%s\nwant\n%s", err, tt.want)
			}
		})
	}
}
