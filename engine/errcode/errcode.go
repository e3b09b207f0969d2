// Package errcode is the one error model of replaylab: a stable machine
// code (TARGET_AMBIGUOUS, OUTCOME_UNKNOWN, NOT_FOUND, …) that callers test
// with errors.Is and ==, print, and send on the wire.
//
// A Code is an error itself, so a package may return one bare, and every
// richer error type that carries a code (engine.Error, locate.Error,
// ledger.Error, replay.DivergedError, the MCP client's Error) has an
// ErrorCode() string method and an Is method that matches its Code, so
//
//	errors.Is(err, errcode.TargetAmbiguous)
//	errcode.Of(err) == errcode.TargetAmbiguous
//
// hold through any %w wrapping. The packages keep their codes reachable
// under their own names (locate.TargetAmbiguous is
// errcode.TargetAmbiguous), so either spelling is the same value.
//
// The package imports nothing but the standard library's errors: every
// package of the engine, the sim and the job API may use it.
package errcode

import "errors"

// Code is a stable machine code. Its text is the code itself
// ("TARGET_AMBIGUOUS"); error types that carry a code add their origin and
// detail to their own Error text.
type Code string

// Error returns the code.
func (c Code) Error() string { return string(c) }

// ErrorCode returns the code; with it a bare Code is read by Of like every
// error type that carries one.
func (c Code) ErrorCode() string { return string(c) }

// Of returns the code err carries: the first error in its chain (errors.As
// order) that is a Code or has an ErrorCode method. It returns "" for nil
// and for an error that carries no code.
func Of(err error) Code {
	if err == nil {
		return ""
	}
	var c interface{ ErrorCode() string }
	if errors.As(err, &c) {
		return Code(c.ErrorCode())
	}
	return ""
}

// OfOr is Of, with def for an error that is not nil but carries no code:
// the job API answers Internal for those.
func OfOr(err error, def Code) Code {
	if err == nil {
		return ""
	}
	if c := Of(err); c != "" {
		return c
	}
	return def
}
