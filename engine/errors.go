package engine

import (
	"errors"
	"fmt"

	"github.com/replaylab/replaylab/engine/locate"
)

// Code is a stable machine code of the page API. Codes are errors, so
// errors.Is(err, engine.OutcomeUnknown) works on every *Error carrying one.
type Code string

func (c Code) Error() string { return string(c) }

// The codes the page API returns itself; locate, answer and replay add
// their own (TARGET_AMBIGUOUS, NO_NEW_ANSWER, REPLAY_DIVERGED, …).
const (
	InvalidExpectation Code = "INVALID_EXPECTATION"
	MissingExpectation Code = "MISSING_EXPECTATION"
	OutcomeUnknown     Code = "OUTCOME_UNKNOWN"
	TaskBlocked        Code = "TASK_BLOCKED"
	TaskFinished       Code = "TASK_FINISHED"
	FieldMismatch      Code = "FIELD_MISMATCH"
	NoBaseline         Code = "NO_BASELINE"
	InvalidArgument    Code = "INVALID_ARGUMENT"
)

// Error is a page API failure with its code.
type Error struct {
	Code   Code
	Op     string
	Detail string
	Err    error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("engine: %s: %s", e.Op, e.Code)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is matches the code.
func (e *Error) Is(target error) bool { return target == e.Code }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the stable code.
func (e *Error) ErrorCode() string { return string(e.Code) }

// CodeOf returns the stable code of any engine, locate or replay error, or
// "" when err carries none.
func CodeOf(err error) string {
	var c interface{ ErrorCode() string }
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	var code Code
	if errors.As(err, &code) {
		return string(code)
	}
	return ""
}

func asLocate(err error, target **locate.Error) bool { return errors.As(err, target) }
