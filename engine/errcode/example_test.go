package errcode_test

import (
	"errors"
	"fmt"

	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/locate"
)

func ExampleOf() {
	err := fmt.Errorf("fill: %w", &locate.Error{Code: locate.TargetAmbiguous, Locator: locate.Locator{Role: "button", Name: "Send"}, Count: 2})
	fmt.Println(errcode.Of(err))
	fmt.Println(errors.Is(err, errcode.TargetAmbiguous), errors.Is(err, locate.TargetNotFound))
	fmt.Println(errcode.OfOr(errors.New("disk full"), errcode.Internal))
	// Output:
	// TARGET_AMBIGUOUS
	// true false
	// INTERNAL
}
