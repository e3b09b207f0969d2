package engine

import (
	"errors"
	"fmt"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
)

// The codes the page API returns itself (they are errcode values); locate
// and replay add their own (TARGET_AMBIGUOUS, REPLAY_DIVERGED, …).
// errors.Is(err, engine.OutcomeUnknown) works on every *Error carrying one.
const (
	InvalidExpectation = errcode.InvalidExpectation
	MissingExpectation = errcode.MissingExpectation
	OutcomeUnknown     = errcode.OutcomeUnknown
	TaskBlocked        = errcode.TaskBlocked
	TaskFinished       = errcode.TaskFinished
	FieldMismatch      = errcode.FieldMismatch
	NoBaseline         = errcode.NoBaseline
	InvalidArgument    = errcode.InvalidArgument
	// NavigationFailed: the page could not be opened; the error says why
	// (the network error, e.g. net::ERR_CONNECTION_REFUSED).
	NavigationFailed = errcode.NavigationFailed
	// ControlDisabled: the control an action targets stayed disabled
	// (disabled or aria-disabled="true") until the action's timeout, on
	// the driver's clock; nothing was clicked or pressed (LIB-5).
	ControlDisabled = errcode.ControlDisabled
)

// Error is a page API failure with its code.
type Error struct {
	Code   errcode.Code
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

func asLocate(err error, target **locate.Error) bool { return errors.As(err, target) }
