package ledger

// Callbacks a provider can prove (LED-11). Every attempt gets its own
// callback secret when it starts (Attempt.CallbackSecret, stored with the
// attempt, handed to the provider with the work by the Dispatcher, never
// shown by the job API). A callback carries
//
//	Replaylab-Signature: t=UNIX_SECONDS,v1=HEX(HMAC-SHA256(secret, "UNIX_SECONDS." + body))
//
// in the manner of Stripe's webhook signatures: the timestamp is signed
// with the body, compared in constant time (hmac.Equal), and refused when
// it is further than CallbackTolerance from the ledger's clock, so a
// captured callback cannot be replayed later. A missing, malformed, stale
// or wrong signature, a signature made with another attempt's secret, and
// an attempt id that does not exist all get the same 401
// CALLBACK_UNVERIFIED, which says nothing about the attempt or its job.
// Bearer tokens (owners, reviewers) do not authorise callbacks.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/errcode"
)

// CallbackSignatureHeader is the header that carries a callback's signature.
const CallbackSignatureHeader = "Replaylab-Signature"

// CallbackTolerance is how far a callback signature's timestamp may be from
// the ledger's clock, either way.
const CallbackTolerance = 5 * time.Minute

// callbackSecretPrefix starts every callback secret (it reads as one).
const callbackSecretPrefix = "whsec_"

func newCallbackSecret() string { return callbackSecretPrefix + randomHex(32) }

// CallbackBody is the JSON body of a provider callback. Output is the
// provider's result text.
type CallbackBody struct {
	AttemptID string `json:"attemptId"`
	Status    string `json:"status"`
	Output    string `json:"output"`
}

// SignCallback returns the Replaylab-Signature header value for body,
// signed with secret at time at.
func SignCallback(secret string, at time.Time, body []byte) string {
	ts := strconv.FormatInt(at.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(callbackMAC(secret, ts, body))
}

func callbackMAC(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// NewSignedCallback builds what a provider holding the attempt's secret
// sends: the JSON body and its signature header value at time at. It is
// the in-process way for Go callers (the sim's providers, tests, the
// explorer) to produce a valid callback for Service.VerifiedCallback or
// POST /api/providers/callback.
func NewSignedCallback(attemptID, secret, status, output string, at time.Time) (body []byte, signature string) {
	body, _ = json.Marshal(CallbackBody{AttemptID: attemptID, Status: status, Output: output}) // strings only: never fails
	return body, SignCallback(secret, at, body)
}

// errUnverified is the one answer to every callback that does not prove
// its attempt.
func errUnverified() *Error {
	return errorf(CodeCallbackUnverified,
		"a provider callback must carry a valid %s header for its attempt", CallbackSignatureHeader)
}

// parseSignature reads "t=…,v1=…[,v1=…]"; ok is false when it is malformed.
func parseSignature(h string) (ts string, at time.Time, macs [][]byte, ok bool) {
	for _, part := range strings.Split(h, ",") {
		k, v, found := strings.Cut(strings.TrimSpace(part), "=")
		if !found {
			return "", time.Time{}, nil, false
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || ts != "" {
				return "", time.Time{}, nil, false
			}
			ts, at = v, time.Unix(n, 0)
		case "v1":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != sha256.Size {
				return "", time.Time{}, nil, false
			}
			if len(macs) < 4 { // a few, for secret rotation; more are ignored
				macs = append(macs, b)
			}
		}
	}
	return ts, at, macs, ts != "" && len(macs) > 0
}

// decodeCallbackBody parses a callback body: attemptId, status, and output
// as a JSON string (its text) or any other JSON value (its compact text).
func decodeCallbackBody(body []byte) (CallbackBody, error) {
	if err := CheckJSONText("body", body); err != nil {
		return CallbackBody{}, err
	}
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return CallbackBody{}, errorf(CodeBodyInvalidJSON, "body is not valid JSON")
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return CallbackBody{}, errorf(CodeBodyNotObject, "body must be a JSON object")
	}
	var in struct {
		AttemptID string          `json:"attemptId"`
		Status    string          `json:"status"`
		Output    json.RawMessage `json:"output"`
	}
	if err := decodeFields(trimmed, &in); err != nil {
		return CallbackBody{}, err
	}
	if in.AttemptID == "" {
		return CallbackBody{}, errorf(CodeInvalidInput, "attemptId is required")
	}
	out := CallbackBody{AttemptID: in.AttemptID, Status: in.Status}
	if len(in.Output) > 0 && string(in.Output) != "null" {
		if err := json.Unmarshal(in.Output, &out.Output); err != nil {
			var buf bytes.Buffer
			_ = json.Compact(&buf, in.Output)
			out.Output = buf.String()
		}
	}
	return out, nil
}

// VerifiedCallback checks a provider callback's signature against its
// attempt's secret and then reconciles it (Callback). body is the raw
// request body (CallbackBody JSON) and signature the Replaylab-Signature
// header. Anything that does not prove the attempt is
// CALLBACK_UNVERIFIED (401) with one fixed detail; a body that is not a
// callback at all is a 400 that names no attempt.
func (s *Service) VerifiedCallback(ctx context.Context, signature string, body []byte) (Reconciliation, error) {
	start := time.Now()
	rec, err := s.verifiedCallback(ctx, signature, body)
	if errcode.Of(err) == CodeCallbackUnverified {
		// Every refusal takes at least CallbackRefusalMin, so how long it
		// took says nothing of whether the attempt exists (LED-17).
		t := time.NewTimer(time.Until(start.Add(CallbackRefusalMin)))
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return rec, err
}

// CallbackRefusalMin is the least time a refused callback takes: the
// lookup of an existing and of a missing attempt differ by microseconds,
// which this hides (and it slows guessing).
const CallbackRefusalMin = 5 * time.Millisecond

func (s *Service) verifiedCallback(ctx context.Context, signature string, body []byte) (Reconciliation, error) {
	ts, at, macs, ok := parseSignature(signature)
	now := s.now()
	if !ok || at.Before(now.Add(-CallbackTolerance)) || at.After(now.Add(CallbackTolerance)) {
		return Reconciliation{}, errUnverified()
	}
	in, err := decodeCallbackBody(body)
	if err != nil {
		return Reconciliation{}, err
	}
	if err := checkID("attempt", in.AttemptID); err != nil {
		return Reconciliation{}, err
	}
	secret, err := s.callbackSecret(ctx, in.AttemptID)
	if err != nil && !errors.Is(err, ErrNoRow) {
		return Reconciliation{}, err
	}
	known := err == nil && secret != ""
	if !known {
		secret = s.decoySecret // same work whether or not the attempt exists
	}
	want := callbackMAC(secret, ts, body)
	match := false
	for _, m := range macs {
		if hmac.Equal(m, want) {
			match = true
		}
	}
	if !known || !match {
		return Reconciliation{}, errUnverified()
	}
	return s.Callback(ctx, in.AttemptID, in.Status, in.Output)
}

// SignCallback is the in-process way for a trusted Go caller (the sim's
// steps, the explorer) to produce a valid signed callback for an attempt
// it did not dispatch itself: it reads the attempt's secret and signs the
// body at the ledger's clock. It is an operator API: it checks no
// ownership and is not served over HTTP.
func (s *Service) SignCallback(ctx context.Context, attemptID, status, output string) (body []byte, signature string, err error) {
	if err := checkID("attempt", attemptID); err != nil {
		return nil, "", err
	}
	secret, err := s.callbackSecret(ctx, attemptID)
	if errors.Is(err, ErrNoRow) {
		return nil, "", notFound("attempt", attemptID)
	} else if err != nil {
		return nil, "", err
	}
	body, sig := NewSignedCallback(attemptID, secret, status, output, s.now())
	return body, sig, nil
}

func (s *Service) callbackSecret(ctx context.Context, attemptID string) (string, error) {
	var secret string
	err := s.view(ctx, func(tx Tx) error {
		a, err := tx.Attempt(ctx, attemptID)
		if err != nil {
			return err
		}
		secret = a.CallbackSecret
		return nil
	})
	return secret, err
}
