package steps

import (
	"flag"
)

func flagSet() *flag.FlagSet { return flag.CommandLine }

func updateFlag() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}
