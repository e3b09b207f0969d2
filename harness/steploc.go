package harness

import (
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cucumber/godog"
)

// Step locations. godog records where a step was registered
// (runtime.Caller of ScenarioContext.Step), and every catalogue step is
// registered by the one loop in bind, so godog's pretty output and
// Cucumber JSON would name catalogue.go for every step. realLocations
// sets each definition's file and line to the Go function that implements
// it, which is what a reader of a failing step wants to open.

// Location is the file:line of the Go function implementing the step.
func (d StepDef) Location() string {
	file, line := funcFileLine(d.Fn)
	if file == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}

// FileLine is the file and line of the Go function implementing the step
// ("" and 0 when it has none): what a front end jumps to. A step bound
// elsewhere (StepDef.Source, "file:line") answers with that place.
func (d StepDef) FileLine() (file string, line int) {
	if i := strings.LastIndexByte(d.Source, ':'); i > 0 {
		if n, err := strconv.Atoi(d.Source[i+1:]); err == nil {
			return d.Source[:i], n
		}
	}
	return funcFileLine(d.Fn)
}

// funcFileLine is where fn is declared.
func funcFileLine(fn any) (string, int) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return "", 0
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return "", 0
	}
	return f.FileLine(f.Entry())
}

// realLocations rewrites the File and Line godog stored for each step
// definition of sc to those of its handler. It reaches into godog's
// unexported suite (pinned at v0.16.0; TestStepLocations fails if that
// layout changes) and leaves a definition alone when the layout is not
// the expected one.
func realLocations(sc *godog.ScenarioContext) {
	v := reflect.ValueOf(sc).Elem()
	suite := v.FieldByName("suite")
	if !suite.IsValid() || suite.Kind() != reflect.Pointer || suite.IsNil() {
		return
	}
	suite = reflect.NewAt(suite.Type(), unsafe.Pointer(suite.UnsafeAddr())).Elem().Elem()
	steps := suite.FieldByName("steps")
	if !steps.IsValid() || steps.Kind() != reflect.Slice {
		return
	}
	steps = reflect.NewAt(steps.Type(), unsafe.Pointer(steps.UnsafeAddr())).Elem()
	for i := 0; i < steps.Len(); i++ {
		def := steps.Index(i)
		if def.Kind() != reflect.Pointer || def.IsNil() {
			continue
		}
		def = def.Elem()
		h, file, line := def.FieldByName("HandlerValue"), def.FieldByName("File"), def.FieldByName("Line")
		if !h.IsValid() || !file.IsValid() || !line.IsValid() || file.Kind() != reflect.String || line.Kind() != reflect.Int {
			continue
		}
		hv, ok := h.Interface().(reflect.Value)
		if !ok || !hv.IsValid() {
			continue
		}
		f, l := funcFileLine(hv.Interface())
		if f == "" {
			continue
		}
		file.SetString(f)
		line.SetInt(int64(l))
	}
}
