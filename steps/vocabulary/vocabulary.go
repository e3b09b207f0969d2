// Package vocabulary is replaylab's step vocabulary as one piece: the
// runtime and the tables kept in package steps, with the domain groups
// kept in packages of their own under steps/ (steps/ledgersteps: the
// ledger and its job API), bound through steps.Group like anyone's.
// Whoever builds a fixture of the whole vocabulary builds it here (the
// replaylab binary, the self-tests, the zoo's project); a second team's
// program may build steps.New with only the groups it wants.
package vocabulary

import (
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/ledgersteps"
)

// Groups are the vocabulary's domain groups, in catalogue order (each
// after the tables of package steps whose headings it shares).
func Groups() []steps.Group {
	return []steps.Group{ledgersteps.Group()}
}

// with is the domain groups, then extra.
func with(extra []steps.Group) []steps.Group {
	return append(Groups(), extra...)
}

// New is steps.New with the domain groups before opt.Groups.
func New(opt steps.Options) (*steps.Fixture, error) {
	opt.Groups = with(opt.Groups)
	return steps.New(opt)
}

// NewRunner is steps.NewRunner with the domain groups before v.Groups.
func NewRunner(h harness.Options, v steps.Options) (*harness.Runner, error) {
	v.Groups = with(v.Groups)
	return steps.NewRunner(h, v)
}

// Catalogue is every step of the vocabulary and of extra, grouped and in
// table order (steps.Catalogue).
func Catalogue(extra ...steps.Group) []steps.StepDef { return steps.Catalogue(with(extra)...) }

// CheckCatalogue verifies the catalogue of the vocabulary and extra
// (steps.CheckCatalogue).
func CheckCatalogue(extra ...steps.Group) error { return steps.CheckCatalogue(with(extra)...) }
