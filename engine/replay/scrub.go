package replay

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Scrubbing: every recording and golden passes one policy before anything
// touches disk. Values typed into sensitive fields (password, one-time
// code, card fields — decided from the live capture of the field) and every
// match of a configured pattern (e-mail addresses, API tokens, bearer
// credentials) are replaced by placeholders such as __rl_secret_1__ and
// __rl_email_2__. Placeholders are numbered per scenario in the order they
// are first met, and one Scrubber is shared by the recorder and the trace,
// so a recording and its golden name the same value the same way.
//
// Replay keeps working: a typed step whose text was scrubbed accepts the
// text the engine types and puts it back into the captures it returns, so
// the fill's verification reads the value the engine typed — without the
// secret ever being on disk.

// Pattern is one kind of secret found by a regular expression.
type Pattern struct {
	Name string
	Re   *regexp.Regexp
}

// DefaultPatterns are scrubbed from every recording and golden.
var DefaultPatterns = []Pattern{
	{"email", regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)},
	{"token", regexp.MustCompile(`\b(?:sk|pk|rk|ghp|gho|ghs|xox[abpr]|AKIA)[-_]?[A-Za-z0-9_-]{16,}\b`)},
	{"bearer", regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}`)},
}

// ErrSecretInRecording is returned when a recording about to be written
// still holds a secret.
var ErrSecretInRecording = errors.New("replay: recording still contains a secret")

// Scrubber replaces secrets with placeholders. It is safe for concurrent
// use.
type Scrubber struct {
	patterns []Pattern

	mu      sync.Mutex
	secrets map[string]string // secret value → placeholder
	counts  map[string]int
}

// NewScrubber returns a scrubber for the patterns and the literal secrets
// (values that must never reach disk, e.g. from REPLAYLAB_SECRETS).
func NewScrubber(patterns []Pattern, secrets ...string) *Scrubber {
	s := &Scrubber{patterns: patterns, secrets: map[string]string{}, counts: map[string]int{}}
	for _, v := range secrets {
		s.AddSecret(v)
	}
	return s
}

// SecretsFromEnv splits a comma-separated list of literal secrets.
func SecretsFromEnv(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// AddSecret registers a literal secret and returns its placeholder.
func (s *Scrubber) AddSecret(v string) string {
	if s == nil || v == "" {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.placeholder("secret", v)
}

func (s *Scrubber) placeholder(kind, v string) string {
	if p, ok := s.secrets[v]; ok {
		return p
	}
	s.counts[kind]++
	p := "__rl_" + kind + "_" + strconv.Itoa(s.counts[kind]) + "__"
	s.secrets[v] = p
	return p
}

// IsPlaceholder reports whether v is a placeholder this package makes.
func IsPlaceholder(v string) bool {
	return strings.HasPrefix(v, "__rl_") && strings.HasSuffix(v, "__")
}

// Scrub replaces every known secret and every pattern match in v.
func (s *Scrubber) Scrub(v string) string {
	if s == nil || v == "" {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.patterns {
		v = p.Re.ReplaceAllStringFunc(v, func(m string) string { return s.placeholder(p.Name, m) })
	}
	if len(s.secrets) == 0 {
		return v
	}
	// longest first, so a secret that contains another is replaced whole
	keys := make([]string, 0, len(s.secrets))
	for k := range s.secrets {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	pairs := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		pairs = append(pairs, k, s.secrets[k])
	}
	return strings.NewReplacer(pairs...).Replace(v)
}

// Check refuses data that still holds a known secret or a pattern match.
func (s *Scrubber) Check(data []byte) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for v, p := range s.secrets {
		if bytes.Contains(data, []byte(v)) {
			return fmt.Errorf("%w: the value scrubbed as %s appears at byte %d", ErrSecretInRecording, p, bytes.Index(data, []byte(v)))
		}
	}
	for _, p := range s.patterns {
		if loc := p.Re.FindIndex(data); loc != nil {
			return fmt.Errorf("%w: a %s at byte %d", ErrSecretInRecording, p.Name, loc[0])
		}
	}
	return nil
}
