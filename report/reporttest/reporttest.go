// Package reporttest checks report files the way the CI systems that read
// them do: a JUnit file against the schema Jenkins validates with
// (junit-10.xsd of the xunit plugin, through xmllint) and a Cucumber JSON
// file against cucumber-js's schema (from cucumber/cucumber-json-schema,
// no unknown property allowed). Both schemas are embedded (testdata/).
// The report package's tests and the CLI's check their files with it.
package reporttest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// JUnitXSD is Jenkins's junit-10.xsd.
//
//go:embed testdata/junit-10.xsd
var JUnitXSD []byte

// CucumberSchema is cucumber-js's JSON schema of its json formatter.
//
//go:embed testdata/cucumber-js.schema.json
var CucumberSchema []byte

// CheckJUnit validates the JUnit document doc against JUnitXSD with
// xmllint. Without xmllint it fails the test where CI is set and
// otherwise says SKIPPING on stderr and returns, so the caller's own
// checks of the file still run.
func CheckJUnit(tb testing.TB, doc []byte) {
	tb.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatal("xmllint not found (apt-get install libxml2-utils); CI needs it to validate the JUnit schema")
		}
		fmt.Fprintln(os.Stderr, "SKIPPING the JUnit schema check: xmllint not found (apt-get install libxml2-utils)")
		return
	}
	if err := validateJUnit(xmllint, tb.TempDir(), doc); err != nil {
		tb.Errorf("%v\n%s", err, doc)
	}
}

func validateJUnit(xmllint, dir string, doc []byte) error {
	xsd, path := filepath.Join(dir, "junit-10.xsd"), filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(xsd, JUnitXSD, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		return err
	}
	if out, err := exec.Command(xmllint, "--noout", "--schema", xsd, path).CombinedOutput(); err != nil {
		return fmt.Errorf("junit: xmllint: %w\n%s", err, out)
	}
	return nil
}

// unknownProperty is a Cucumber JSON document with a property the schema
// does not name.
const unknownProperty = `[{"uri":"x","id":"x","line":1,"keyword":"Feature","name":"x","tags":[],"elements":[{"id":"a","line":1,"keyword":"Scenario","name":"a","tags":[],"steps":[],"extra":1}]}]`

// CheckCucumber validates the Cucumber JSON document doc against
// CucumberSchema, after checking that the schema refuses an unknown
// property (or the check would prove nothing).
func CheckCucumber(tb testing.TB, doc []byte) {
	tb.Helper()
	if err := validateCucumber([]byte(unknownProperty)); err == nil {
		tb.Fatal("the cucumber-js schema accepted an unknown property")
	}
	if err := validateCucumber(doc); err != nil {
		tb.Error(err)
	}
}

func validateCucumber(doc []byte) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(CucumberSchema, &s); err != nil {
		return fmt.Errorf("cucumber-js schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("cucumber-js schema: %w", err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("cucumber json: %w", err)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("cucumber json: %w", err)
	}
	return nil
}
