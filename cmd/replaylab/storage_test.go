package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
