package selftest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	messages "github.com/cucumber/messages/go/v34"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/steps"
)

// Steps that read the Cucumber Messages stream and the GitHub workflow
// commands the last harness run wrote (ECO-1, ECO-2; the run writes them
// beside its other reports, see runHarnessOpts).

// Names of those files in the run's report directory.
const (
	messagesName = "messages.ndjson"
	githubName   = "github.txt"
)

func ecosystemSteps(r *steps.Table) {
	r.Step(`^the message stream has "([^"]*)" as attempts 0 and 1, the first failed and retried$`,
		"the Cucumber Messages stream (message:FILE) of the last harness run: the scenario's test case has a testCaseStarted with attempt 0, a FAILED step and willBeRetried, then attempt 1 with every step PASSED",
		`And the message stream has "Fails once" as attempts 0 and 1, the first failed and retried`, messagesRetried)
	r.Step(`^the GitHub annotations are a warning for "([^"]*)" and an error on the undefined step of "([^"]*)"$`,
		"the workflow commands (--format github) of the last harness run: ::warning on the flaky scenario's line, ::error on the undefined step's line, nothing else",
		`And the GitHub annotations are a warning for "Fails once" and an error on the undefined step of "Never written"`, githubAnnotated)
}

// messagesRetried checks the message stream's attempts of scenario name.
func messagesRetried(ctx context.Context, name string) error {
	_, r, err := harnessReports(ctx)
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(r.out, messagesName))
	if err != nil {
		return err
	}
	defer f.Close()
	type attempt struct {
		n        int64
		statuses []string
		retried  bool
	}
	var pickle, tcase string
	var attempts []*attempt
	byID := map[string]*attempt{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var env messages.Envelope
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			return fmt.Errorf("%s: %w", messagesName, err)
		}
		switch {
		case env.Pickle != nil && env.Pickle.Name == name:
			pickle = env.Pickle.Id
		case env.TestCase != nil && pickle != "" && env.TestCase.PickleId == pickle:
			tcase = env.TestCase.Id
		case env.TestCaseStarted != nil && tcase != "" && env.TestCaseStarted.TestCaseId == tcase:
			a := &attempt{n: env.TestCaseStarted.Attempt}
			attempts = append(attempts, a)
			byID[env.TestCaseStarted.Id] = a
		case env.TestStepFinished != nil && byID[env.TestStepFinished.TestCaseStartedId] != nil:
			a := byID[env.TestStepFinished.TestCaseStartedId]
			a.statuses = append(a.statuses, string(env.TestStepFinished.TestStepResult.Status))
		case env.TestCaseFinished != nil && byID[env.TestCaseFinished.TestCaseStartedId] != nil:
			byID[env.TestCaseFinished.TestCaseStartedId].retried = env.TestCaseFinished.WillBeRetried
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(attempts) != 2 {
		return fmt.Errorf("%s: %q has %d attempts, want 2", messagesName, name, len(attempts))
	}
	first, second := attempts[0], attempts[1]
	if first.n != 0 || !first.retried || !strings.Contains(strings.Join(first.statuses, " "), "FAILED") {
		return fmt.Errorf("%s: %q attempt %d: %v, retried %v; want attempt 0 failed and retried", messagesName, name, first.n, first.statuses, first.retried)
	}
	if second.n != 1 || second.retried || strings.Trim(strings.Join(second.statuses, " "), "PASED ") != "" {
		return fmt.Errorf("%s: %q attempt %d: %v, retried %v; want attempt 1 passed", messagesName, name, second.n, second.statuses, second.retried)
	}
	steps.WorldOf(ctx).Emit(trace.E("report.messages", trace.A("scenario", name), trace.A("attempts", len(attempts)),
		trace.A("first", strings.Join(first.statuses, ",")), trace.A("second", strings.Join(second.statuses, ","))))
	return nil
}

// githubAnnotated checks the workflow commands of the last run.
func githubAnnotated(ctx context.Context, flaky, undefined string) error {
	_, r, err := harnessReports(ctx)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(r.out, githubName))
	if err != nil {
		return err
	}
	var warning, errorLine string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(line, "::") {
			return fmt.Errorf("%s: not a workflow command: %s", githubName, line)
		}
		head, _, _ := strings.Cut(line[2:], "::") // the command and its properties
		switch {
		case strings.HasPrefix(head, "warning ") && strings.HasSuffix(head, ",title=flaky%3A "+flaky):
			warning = head
		case strings.HasPrefix(head, "error ") && strings.HasSuffix(head, ",title=undefined step%3A "+undefined):
			errorLine = head
		default:
			return fmt.Errorf("%s: an annotation neither for %q nor %q: %s", githubName, flaky, undefined, line)
		}
	}
	if warning == "" || errorLine == "" {
		return fmt.Errorf("%s: want a warning for %q and an error for %q, got:\n%s", githubName, flaky, undefined, data)
	}
	steps.WorldOf(ctx).Emit(trace.E("report.github", trace.A("warning", warning), trace.A("error", errorLine)))
	return nil
}
