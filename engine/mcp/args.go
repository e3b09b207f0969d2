package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/errcode"
)

// argError is an argument the server refuses before running the tool,
// with its code and the field's path (e.g. "target.role").
type argError struct {
	code             errcode.Code
	tool, field, msg string
}

func (e *argError) Error() string {
	return "mcp: " + e.tool + ": " + string(e.code) + ": " + e.msg
}

// ErrorCode returns the stable code.
func (e *argError) ErrorCode() string { return string(e.code) }

// Is matches the code.
func (e *argError) Is(target error) bool { return target == e.code }

// decodeArgs checks raw against the tool's input schema — unknown
// fields, missing fields and wrong JSON types each with their own code —
// then decodes it into In.
func decodeArgs[In any](tool string, raw json.RawMessage, schema *jsonschema.Schema) (In, error) {
	var in In
	var v any = map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &v); err != nil {
			return in, &argError{WrongArgumentType, tool, "", "the arguments are not JSON: " + err.Error()}
		}
	}
	if err := checkArgs(tool, schema, v, ""); err != nil {
		return in, err
	}
	body, err := json.Marshal(v)
	if err != nil {
		return in, &argError{WrongArgumentType, tool, "", err.Error()}
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return in, &argError{WrongArgumentType, tool, "", err.Error()}
	}
	return in, nil
}

// checkArgs walks v along s: the first problem found, in field order.
func checkArgs(tool string, s *jsonschema.Schema, v any, path string) error {
	if s == nil {
		return nil
	}
	want := s.Type
	if want == "" && len(s.Types) > 0 {
		want = strings.Join(s.Types, " or ")
	}
	if want != "" && !typeMatches(s, v) {
		field := path
		if field == "" {
			field = "(arguments)"
		}
		return &argError{WrongArgumentType, tool, path, fmt.Sprintf("%s: want %s, got %s", field, want, jsonType(v))}
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		closed := s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil
		for _, k := range keys {
			ps, ok := s.Properties[k]
			if !ok {
				if closed {
					known := make([]string, 0, len(s.Properties))
					for name := range s.Properties {
						known = append(known, name)
					}
					sort.Strings(known)
					return &argError{UnknownArgument, tool, join(path, k), fmt.Sprintf("unknown field %q; the fields are %s", join(path, k), strings.Join(known, ", "))}
				}
				ps = s.AdditionalProperties
			}
			if err := checkArgs(tool, ps, x[k], join(path, k)); err != nil {
				return err
			}
		}
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				return &argError{MissingArgument, tool, join(path, r), fmt.Sprintf("missing field %q", join(path, r))}
			}
		}
	case []any:
		for i, e := range x {
			if err := checkArgs(tool, s.Items, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func typeMatches(s *jsonschema.Schema, v any) bool {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, t := range types {
		switch t {
		case "null":
			if v == nil {
				return true
			}
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "number":
			if _, ok := v.(float64); ok {
				return true
			}
		case "integer":
			if f, ok := v.(float64); ok && f == math.Trunc(f) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// AnswerStatuses are every status waitAnswer reports; its output schema
// lists them (an enum), so a client knows each one a wait can end with.
var AnswerStatuses = []string{answer.StatusComplete, answer.StatusIncomplete, answer.StatusNeedsConfirmation,
	answer.StatusFailed, answer.StatusNoNewAnswer, answer.StatusMediaNotReady, answer.StatusStructureUnknown, answer.StatusStopped}

// tuneOutput adds to an inferred output schema what the Go type cannot
// say.
func tuneOutput(tool string, s *jsonschema.Schema) {
	if tool == "waitAnswer" && s.Properties["status"] != nil {
		enum := make([]any, len(AnswerStatuses))
		for i, st := range AnswerStatuses {
			enum[i] = st
		}
		s.Properties["status"].Enum = enum
	}
}
