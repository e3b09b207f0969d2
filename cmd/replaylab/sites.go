package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/testsite"
	"github.com/replaylab/replaylab/zoo"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// parseBaseURLs splits --base-url values into the override of --site's
// profile (a bare URL) and overrides by site name (NAME=URL).
func parseBaseURLs(vals []string, siteFile string) (string, map[string]string, error) {
	bare := ""
	byName := map[string]string{}
	for _, v := range vals {
		name, u, named := strings.Cut(v, "=")
		if !named || strings.Contains(name, "/") || strings.Contains(name, ":") {
			name, u = "", v
		}
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return "", nil, badInput("--base-url %q: want an absolute http(s) URL (or NAME=URL)", v)
		}
		if name == "" {
			if siteFile == "" {
				return "", nil, badInput("--base-url %s needs --site (the sim's address is its own); for a site a feature chooses, write NAME=URL", u)
			}
			if bare != "" {
				return "", nil, badInput("--base-url given twice for --site")
			}
			bare = u
			continue
		}
		byName[name] = u
	}
	return bare, byName, nil
}

// serveBuiltinSites starts the repo's test site for live runs whose
// features choose it (testsite/testsite.json, or its chat app:
// testsite/chatapp.json), unless --base-url names where it already runs.
// It returns the function that stops it.
func serveBuiltinSites(mode harness.Mode, byName map[string]string) (func(), error) {
	if !mode.MayGoLive() {
		return func() {}, nil
	}
	missing := false
	for _, name := range testsite.ProfileNames {
		_, ok := byName[name]
		missing = missing || !ok
	}
	if !missing {
		return serveZoo(byName)
	}
	srv, err := testsite.Start(testsite.Options{})
	if err != nil {
		return nil, fmt.Errorf("run: start the test site: %w", err)
	}
	for _, name := range testsite.ProfileNames {
		if _, ok := byName[name]; !ok {
			byName[name] = srv.URL
		}
	}
	stopZoo, err := serveZoo(byName)
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	return func() { stopZoo(); _ = srv.Close() }, nil
}

// serveZoo starts the zoo (package zoo) for live runs whose features choose
// one of its sites (zoo/<lib>/<lib>.json, named zoo-<lib>), unless
// --base-url names where each already runs.
func serveZoo(byName map[string]string) (func(), error) {
	var missing []string
	for _, lib := range zoo.Libs {
		if _, ok := byName["zoo-"+lib]; !ok {
			missing = append(missing, "zoo-"+lib)
		}
	}
	if len(missing) == 0 {
		return func() {}, nil
	}
	srv, err := zoo.Start(zoo.Options{})
	if err != nil {
		return nil, fmt.Errorf("run: start the zoo: %w", err)
	}
	for _, name := range missing {
		byName[name] = srv.URL
	}
	return func() { _ = srv.Close() }, nil
}
