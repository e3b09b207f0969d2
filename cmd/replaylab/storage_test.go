package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
)

// A storage state signs the page in (cookie and local storage) for
// observe and record, and its values are never written (APP-5).
func TestStorageStateSignsInAndIsScrubbed(t *testing.T) {
	srv := startTestSite(t)
	const sid, token = "sid-7f3a9c41e2", "tok-b81d55aa90"
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	host := strings.TrimPrefix(srv.URL, "http://")
	data := `{"cookies": [{"name": "nova_sid", "value": "` + sid + `", "domain": "` + strings.Split(host, ":")[0] + `", "path": "/", "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}],
 "origins": [{"origin": "` + srv.URL + `", "localStorage": [{"name": "nova_token", "value": "` + token + `"}]}]}`
	if err := os.WriteFile(state, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"observe", "--json", "--storage-state", state, srv.URL + "/app/account"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("observe: %d %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "Signed in, session") || !strings.Contains(out, "Token ") {
		t.Fatalf("the page was not signed in:\n%s", out)
	}
	if strings.Contains(out, sid) || strings.Contains(out, token) {
		t.Fatalf("observe printed a storage state value:\n%s", out)
	}
	rec := filepath.Join(dir, "rec")
	stdout.Reset()
	if code := run(ctx, []string{"record", "--storage-state", state, "--url", srv.URL + "/app/account", "--out", rec, "--duration", "2s"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("record: %d %s", code, stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(rec, SessionFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte("Signed in, session")) {
		t.Fatalf("the recording is not of the signed-in page")
	}
	if bytes.Contains(got, []byte(sid)) || bytes.Contains(got, []byte(token)) {
		t.Fatalf("the recording holds a storage state value")
	}
	for _, bad := range []struct{ name, file string }{
		{"not json", `{`},
		{"a cookie without a domain", `{"cookies": [{"name": "a", "value": "b"}], "origins": []}`},
		{"not an origin", `{"cookies": [], "origins": [{"origin": "/app", "localStorage": []}]}`},
	} {
		p := filepath.Join(dir, "bad.json")
		_ = os.WriteFile(p, []byte(bad.file), 0o644)
		stderr.Reset()
		if code := run(ctx, []string{"observe", "--storage-state", p, srv.URL + "/app/account"}, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "storage state") {
			t.Errorf("%s: %d %s, want bad input naming the storage state", bad.name, code, stderr.String())
		}
	}
}

// The @APP-5 scenario, run live and re-recorded in a scratch project with
// every report format: the storage state's values reached the page (the
// HTML report shows their placeholders) and appear in no file written,
// recordings, goldens or reports.
func TestStorageStateScenarioLeaksNothing(t *testing.T) {
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("SKIPPING browser test: %v", err)
	}
	root := scratchProject(t, "chatapp")
	if err := os.CopyFS(filepath.Join(root, "testsite"), os.DirFS("../../testsite")); err != nil { // the profile, the adapter, the state
		t.Fatal(err)
	}
	st, err := browser.LoadStorageState(filepath.Join(root, "testsite", "signed-in.state.json"))
	if err != nil {
		t.Fatal(err)
	}
	feature := filepath.Join(root, "features", "chatapp.feature")
	src, err := os.ReadFile(feature)
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "Scenario: A signed-in storage state") {
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatal("no signed-in scenario in features/chatapp.feature")
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	args := []string{"run", "--driver", "browser", "--update", "--root", root,
		"--format", "progress,junit:" + filepath.Join(out, "junit.xml") + ",cucumber:" + filepath.Join(out, "cucumber.json") + ",html:" + filepath.Join(out, "html"),
		fmt.Sprintf("%s:%d", feature, line)}
	if code := run(ctx, args, &stdout, &stderr); code != exitOK {
		t.Fatalf("run: %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	shown := false
	for _, dir := range []string{out, filepath.Join(root, "recordings")} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, v := range st.Secrets() {
				if bytes.Contains(data, []byte(v)) {
					t.Errorf("%s holds the storage state value %q", path, v)
				}
			}
			if strings.HasPrefix(path, filepath.Join(out, "html")) && bytes.Contains(data, []byte("__rl_secret_")) {
				shown = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if !shown {
		t.Error("the HTML report shows no placeholder: the values never reached the page, so this test proves nothing")
	}
}
