package steps

import (
	"flag"
	"testing"

	"github.com/replaylab/replaylab/testsite"
)

// go test ./steps -replaylab.site=testsite/testsite.json [-replaylab.base-url=URL]
// runs every scenario against that site (path from the project root), as
// replaylab run --site does.
var (
	siteFlag    = flag.String("replaylab.site", "", "site profile (path from the project root) every scenario drives instead of the sim")
	baseURLFlag = flag.String("replaylab.base-url", "", "base URL of the -replaylab.site profile instead of its own")
)

// siteOptions fills the site options of a run: the flags, and for the
// browser driver the repo's test site, served for the scenarios that
// choose it.
func siteOptions(t *testing.T, driver string) Options {
	t.Helper()
	opt := Options{Site: *siteFlag, BaseURL: *baseURLFlag}
	if driver != DriverBrowser {
		return opt
	}
	srv, err := testsite.Start(testsite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	opt.BaseURLs = map[string]string{"testsite": srv.URL, "chatapp": srv.URL}
	return opt
}
