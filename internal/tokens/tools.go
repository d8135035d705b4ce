package tokens

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// toolConstants are the cookbook's num_tokens_for_tools constants.
type toolConstants struct {
	funcInit, propInit, propKey, enumInit, enumItem, funcEnd int
}

// toolConstantsFor returns the constants for an encoding: the cookbook gives
// func_init 7 for gpt-4o/gpt-4o-mini (o200k_base) and 10 for gpt-3.5/gpt-4
// (cl100k_base); everything else is shared.
func toolConstantsFor(encoding string) toolConstants {
	k := toolConstants{funcInit: 7, propInit: 3, propKey: 3, enumInit: -3, enumItem: 3, funcEnd: 12}
	if encoding == Cl100kBase {
		k.funcInit = 10
	}
	return k
}

type toolSchema struct {
	Properties map[string]toolProperty `json:"properties"`
}

type toolProperty struct {
	Type        json.RawMessage   `json:"type"`
	Description string            `json:"description"`
	Enum        []json.RawMessage `json:"enum"`
}

// Tools returns the tokens tool definitions add to a request (cookbook
// num_tokens_for_tools): per function its framing plus "name:description",
// per top-level property "key:type:description", per enum value its text,
// and a closing constant once when there is any tool.
//
// Like the cookbook, only top-level properties are charged. Parameters that
// are not a JSON object schema are charged as their raw text, so a broken
// definition still costs what it weighs.
func (c *Counter) Tools(defs []chat.ToolDef) int {
	n, texts := toolTexts(c.encoding, defs)
	return n + c.sum(texts)
}

// EstimateTools is Tools with each text sized by estimate (Estimate when
// nil) instead of counted: the same framing, no encoder. It is as close
// to Tools as estimate is to the count of a text.
func EstimateTools(encoding string, defs []chat.ToolDef, estimate func(string) int) int {
	if estimate == nil {
		estimate = Estimate
	}
	n, texts := toolTexts(encoding, defs)
	for _, s := range texts {
		n += estimate(s)
	}
	return n
}

// toolTexts returns the texts of defs that Tools counts, and the tokens
// their framing adds besides them.
func toolTexts(encoding string, defs []chat.ToolDef) (int, []string) {
	if len(defs) == 0 {
		return 0, nil
	}
	k := toolConstantsFor(encoding)
	n := k.funcEnd
	var texts []string
	for _, d := range defs {
		n += k.funcInit
		texts = append(texts, d.Name+":"+strings.TrimSuffix(d.Description, "."))
		if len(bytes.TrimSpace(d.Parameters)) == 0 {
			continue
		}
		var schema toolSchema
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			n += k.propInit
			texts = append(texts, string(d.Parameters))
			continue
		}
		if len(schema.Properties) == 0 {
			continue
		}
		n += k.propInit
		for key, p := range schema.Properties {
			n += k.propKey
			if len(p.Enum) > 0 {
				n += k.enumInit
				for _, item := range p.Enum {
					n += k.enumItem
					texts = append(texts, jsonText(item))
				}
			}
			texts = append(texts, key+":"+jsonText(p.Type)+":"+strings.TrimSuffix(p.Description, "."))
		}
	}
	return n, texts
}

// jsonText is a JSON string's value, or any other JSON value's compact text
// (a type list like ["string","null"], a numeric enum value).
func jsonText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
