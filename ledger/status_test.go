package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/ledger"
)

// TestHTTPStatus is the job API's mapping, checked against net/http.
func TestHTTPStatus(t *testing.T) {
	want := map[errcode.Code]int{
		errcode.IdempotencyKeyMissing: http.StatusBadRequest,
		errcode.InvalidInput:          http.StatusBadRequest,
		errcode.BodyInvalidJSON:       http.StatusBadRequest,
		errcode.BodyNotObject:         http.StatusBadRequest,
		errcode.BodyTooLarge:          http.StatusBadRequest,
		errcode.IdempotencyKeyReused:  http.StatusUnprocessableEntity,
		errcode.ReviewRequired:        http.StatusConflict,
		errcode.FallbackDisabled:      http.StatusConflict,
		errcode.NoWinner:              http.StatusConflict,
		errcode.InvalidTransition:     http.StatusConflict,
		errcode.NotFound:              http.StatusNotFound,
		errcode.Forbidden:             http.StatusForbidden,
		errcode.Unauthorized:          http.StatusUnauthorized,
		errcode.CallbackUnverified:    http.StatusUnauthorized,
		errcode.BodyTimeout:           http.StatusRequestTimeout,
		errcode.OutcomeUncertain:      http.StatusServiceUnavailable,
		errcode.StoreBusy:             http.StatusServiceUnavailable,
	}
	for _, c := range errcode.All() {
		w, ok := want[c]
		if !ok {
			w = http.StatusInternalServerError
		}
		if got := ledger.HTTPStatus(c); got != w {
			t.Errorf("HTTPStatus(%s) = %d, want %d", c, got, w)
		}
	}
	if got := ledger.HTTPStatus("SOMETHING_ELSE"); got != http.StatusInternalServerError {
		t.Errorf("an unknown code's status = %d, want 500", got)
	}
}

// TestErrorCarriesItsCode: a ledger.Error wrapped anywhere answers
// errcode.Of and errors.As.
func TestErrorCarriesItsCode(t *testing.T) {
	for _, c := range errcode.All() {
		err := error(&ledger.Error{Code: c, Status: ledger.HTTPStatus(c)})
		if got := errcode.Of(err); got != c {
			t.Errorf("errcode.Of = %q, want %q", got, c)
		}
		var e *ledger.Error
		if !errors.As(err, &e) || e.Status != ledger.HTTPStatus(c) {
			t.Errorf("%s: errors.As gave %+v", c, e)
		}
	}
}

// TestProblemCode: the job API's reading of errors without a code.
func TestProblemCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want errcode.Code
	}{
		{"nil", nil, ""},
		{"coded", fmt.Errorf("svc: %w", &ledger.Error{Code: ledger.CodeNoWinner}), ledger.CodeNoWinner},
		{"bare code", ledger.CodeForbidden, ledger.CodeForbidden},
		{"commit uncertain", fmt.Errorf("%w: sqlite: disk I/O", ledger.ErrCommitUncertain), ledger.CodeUncertain},
		{"store did not answer", fmt.Errorf("store: %w", context.DeadlineExceeded), ledger.CodeBusy},
		{"uncoded", errors.New("boom"), ledger.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ledger.ProblemCode(tt.err); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestErrorText: the ledger's error texts that reach goldens and problem
// documents.
func TestErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"ledger", &ledger.Error{Code: ledger.CodeNotFound, Detail: "job j1 not found"}, "ledger: NOT_FOUND: job j1 not found"},
		{"ledger without detail", &ledger.Error{Code: ledger.CodeBusy}, "ledger: STORE_BUSY"},
		{"commit uncertain", ledger.ErrCommitUncertain, "ledger: commit outcome uncertain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
