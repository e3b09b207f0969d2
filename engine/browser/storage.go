package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// StorageState is a signed-in browser's state in Playwright's
// storageState shape (SPEC APP-5): cookies, and each origin's local
// storage. Options.StorageState puts it into every page the browser
// opens, before the page's first document runs.
//
//	{"cookies": [{"name": "sid", "value": "…", "domain": "127.0.0.1", "path": "/",
//	              "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}],
//	 "origins": [{"origin": "http://127.0.0.1:8700",
//	              "localStorage": [{"name": "token", "value": "…"}]}]}
//
// Its values are secrets: Secrets lists them for the scrubber, so no
// recording, golden or report holds one.
type StorageState struct {
	Cookies []StateCookie `json:"cookies"`
	Origins []StateOrigin `json:"origins"`
}

// StateCookie is one cookie of a StorageState.
type StateCookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"` // seconds since the epoch; -1: a session cookie
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"` // Strict, Lax or None
}

// StateOrigin is one origin's local storage.
type StateOrigin struct {
	Origin       string      `json:"origin"`
	LocalStorage []StateItem `json:"localStorage"`
}

// StateItem is one local-storage entry.
type StateItem struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ErrBadStorageState is wrapped by every refusal of a storage state file.
var ErrBadStorageState = errors.New("bad storage state")

// StorageStateBytesMax bounds a storage state file.
const StorageStateBytesMax = 4 << 20

// LoadStorageState reads and checks a storage state file.
func LoadStorageState(path string) (*StorageState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("browser: storage state: %w", err)
	}
	if len(data) > StorageStateBytesMax {
		return nil, fmt.Errorf("browser: storage state %s: %w: larger than %d bytes", path, ErrBadStorageState, StorageStateBytesMax)
	}
	var s StorageState
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("browser: storage state %s: %w: %v (want Playwright's storageState: {\"cookies\": [...], \"origins\": [...]})", path, ErrBadStorageState, err)
	}
	bad := func(field, reason string) error {
		return fmt.Errorf("browser: storage state %s: %w: %s: %s", path, ErrBadStorageState, field, reason)
	}
	for i, c := range s.Cookies {
		f := fmt.Sprintf("cookies[%d]", i)
		switch {
		case c.Name == "":
			return nil, bad(f+".name", "missing")
		case c.Domain == "":
			return nil, bad(f+".domain", "missing")
		case c.SameSite != "" && c.SameSite != "Strict" && c.SameSite != "Lax" && c.SameSite != "None":
			return nil, bad(f+".sameSite", fmt.Sprintf("%q (want Strict, Lax or None)", c.SameSite))
		}
	}
	for i, o := range s.Origins {
		u, err := url.Parse(o.Origin)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, bad(fmt.Sprintf("origins[%d].origin", i), fmt.Sprintf("%q is not an origin (scheme://host[:port])", o.Origin))
		}
		s.Origins[i].Origin = u.Scheme + "://" + u.Host
		for j, it := range o.LocalStorage {
			if it.Name == "" {
				return nil, bad(fmt.Sprintf("origins[%d].localStorage[%d].name", i, j), "missing")
			}
		}
	}
	return &s, nil
}

// Secrets lists the state's values (cookie and local-storage values),
// for the scrubber.
func (s *StorageState) Secrets() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, c := range s.Cookies {
		if c.Value != "" {
			out = append(out, c.Value)
		}
	}
	for _, o := range s.Origins {
		for _, it := range o.LocalStorage {
			if it.Value != "" {
				out = append(out, it.Value)
			}
		}
	}
	return out
}

// storageScript writes each origin's local storage once per tab (the
// first document of that origin), before the page's own scripts run.
func (s *StorageState) storageScript() string {
	m := map[string]map[string]string{}
	for _, o := range s.Origins {
		kv := map[string]string{}
		for _, it := range o.LocalStorage {
			kv[it.Name] = it.Value
		}
		m[o.Origin] = kv
	}
	data, _ := json.Marshal(m)
	return `(() => { try {
  const all = ` + string(data) + `;
  const kv = all[location.origin];
  if (!kv || sessionStorage.getItem("__replaylabState") === "1") return;
  for (const k in kv) localStorage.setItem(k, kv[k]);
  sessionStorage.setItem("__replaylabState", "1");
} catch (e) {} })()`
}

// ApplyStorageState puts s into the page's browser context (cookies, and
// the local storage of each origin written before the first document of
// that origin runs), as Options.StorageState does for every page: call it
// before the page's first navigation.
func (p *Page) ApplyStorageState(ctx context.Context, s *StorageState) error {
	if err := s.apply(ctx, p); err != nil {
		return fmt.Errorf("browser: storage state: %w", err)
	}
	return nil
}

// apply puts the state into the page's browser context.
func (s *StorageState) apply(ctx context.Context, p *Page) error {
	return p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if len(s.Cookies) > 0 {
			var cs []*network.CookieParam
			for _, c := range s.Cookies {
				cp := &network.CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: network.CookieSameSite(c.SameSite)}
				if cp.Path == "" {
					cp.Path = "/"
				}
				if c.Expires > 0 {
					cp.Expires = cdp.TimeSinceEpoch(c.Expires)
				}
				cs = append(cs, cp)
			}
			if _, err := cdp.Call(ctx, t, network.SetCookies, network.SetCookiesParams{Cookies: cs}); err != nil {
				return fmt.Errorf("set cookies: %w", err)
			}
		}
		if len(s.Origins) > 0 {
			if _, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: s.storageScript()}); err != nil {
				return fmt.Errorf("local storage: %w", err)
			}
		}
		return nil
	}))
}
