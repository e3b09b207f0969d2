package ledger

// PlantedBug names a deliberate defect a Service can be built with. It
// exists only so that the seeded explorer (package explore, SPEC EXP-2)
// can prove it finds and shrinks a real bug in the real ledger; nothing
// outside the explorer's self-test plants one, and the zero value plants
// none.
type PlantedBug string

// Planted bugs.
const (
	// PlantClaimWithoutCheck: a success callback claims the winner without
	// checking what the job's version says about it (cancelled, or already
	// completed by another attempt): a result arriving after a cancel is
	// applied to the cancelled job.
	PlantClaimWithoutCheck PlantedBug = "claim-without-check"
)

// WithPlantedBug builds the Service with a deliberate defect, for the
// explorer's self-test only.
func WithPlantedBug(b PlantedBug) Option { return func(s *Service) { s.planted = b } }
