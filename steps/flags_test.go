package steps

import (
	"flag"
)

// update is go test's -update: the browser run re-records sessions and
// rewrites goldens (go test ./steps -update).
var update = flag.Bool("update", false, "re-record sessions and rewrite golden traces (browser run)")

func flagSet() *flag.FlagSet { return flag.CommandLine }

func updateFlag() bool { return *update }
