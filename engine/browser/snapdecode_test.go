package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/chromedp"

	"github.com/replaylab/replaylab/internal/chatpage"
	"github.com/replaylab/replaylab/internal/pairbench"
)

const snapSample = `{"documents":[{"documentURL":0,"title":1,"baseURL":0,"contentLanguage":-1,"encodingName":2,"publicId":-1,"systemId":-1,"frameId":3,
"nodes":{"parentIndex":[-1,0,1],"nodeType":[9,1,3],"shadowRootType":{"index":[],"value":[]},"nodeName":[4,5,6],"nodeValue":[-1,-1,7],
"backendNodeId":[1,2,3],"attributes":[[],[8,9],[]],"textValue":{"index":[],"value":[]},"inputValue":{"index":[1],"value":[9]},
"inputChecked":{"index":[1]},"optionSelected":{"index":[]},"contentDocumentIndex":{"index":[],"value":[]},"pseudoType":{"index":[],"value":[]},
"pseudoIdentifier":{"index":[],"value":[]},"isClickable":{"index":[1]},"currentSourceURL":{"index":[],"value":[]},"originURL":{"index":[],"value":[]}},
"layout":{"nodeIndex":[1,2],"styles":[[10,11],[10,11]],"bounds":[[0,0,800.5,1.5e2],[8,8,-1,12.25]],"text":[-1,7],"stackingContexts":{"index":[0]}},
"textBoxes":{"layoutIndex":[1],"bounds":[[8,8,10,12]],"start":[0],"length":[4]},"scrollOffsetX":0,"scrollOffsetY":0,"contentWidth":800,"contentHeight":600}],
"strings":["http://x/","t\u00e9 \"q\" \\ \/ \n\t\b\f\r","UTF-8","F","#document","HTML","#text","emoji \ud83d\ude00 \u2713 \u00a0 ünï","class","v<>&","block","visible"]}`

// TestDecodeSnapshot: the fast reader reads what the generated decoder
// reads, escapes and surrogate pairs included, and refuses what it does not
// take (the caller then uses the generated decoder).
func TestDecodeSnapshot(t *testing.T) {
	got, err := decodeSnapshot([]byte(snapSample))
	if err != nil {
		t.Fatal(err)
	}
	var want domsnapshot.CaptureSnapshotResult
	if err := jsonv2.Unmarshal([]byte(snapSample), &want); err != nil {
		t.Fatal(err)
	}
	if !sameSnapshot(got, &want) {
		t.Fatalf("decoded %+v\nwant %+v", got, &want)
	}
	for name, in := range map[string]string{
		"lone surrogate": `{"documents":[],"strings":["\ud83d"]}`,
		"float index":    `{"documents":[{"documentURL":1.5}],"strings":[]}`,
		"truncated":      `{"documents":[{"nodes":{"parentIndex":[1,2`,
		"trailing":       `{"documents":[],"strings":[]} x`,
		"bad escape":     `{"documents":[],"strings":["\x"]}`,
	} {
		if _, err := decodeSnapshot([]byte(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// FuzzDecodeSnapshot: whatever the fast reader accepts, the generated
// decoder reads the same way.
func FuzzDecodeSnapshot(f *testing.F) {
	f.Add([]byte(snapSample))
	f.Add([]byte(`{"documents":[],"strings":["a\u0041"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeSnapshot(b)
		if err != nil {
			return
		}
		var want domsnapshot.CaptureSnapshotResult
		if err := jsonv2.Unmarshal(b, &want); err != nil {
			return // the generated decoder is stricter (duplicate keys, types): the capture would fail there too
		}
		if !sameSnapshot(got, &want) {
			t.Fatalf("the fast reader disagrees on %q", b)
		}
	})
}

// BenchmarkSnapshotDecode: reading one DOMSnapshot.captureSnapshot reply of a
// 2,000-turn chat page into a capture (decode, tree, HTML), the fast reader
// against the generated decoder in the same loop: x-jsonv2 is fast ÷
// generated.
//
//	go test ./engine/browser -run '^$' -bench SnapshotDecode -benchtime 10x
func BenchmarkSnapshotDecode(b *testing.B) {
	if _, err := FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatalf("CI=true and %v", err)
		}
		b.Skipf("SKIPPING browser benchmark: %v", err)
	}
	ctx := context.Background()
	br, err := Start(ctx, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = br.Close() }()
	p, err := br.NewPage(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = p.Close() }()
	page := chatpage.Render(chatpage.Options{Turns: 2000, Seed: 1})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()
	if err := p.Navigate(ctx, srv.URL); err != nil {
		b.Fatal(err)
	}
	var raw jsonv2.Value
	err = p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return t.Call(ctx, domsnapshot.CommandCaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: snapshotStyles}, &raw)
	}))
	if err != nil {
		b.Fatal(err)
	}
	var html1, html2 string
	pairbench.Run(b, "jsonv2",
		func() {
			var res domsnapshot.CaptureSnapshotResult
			if err := jsonv2.Unmarshal(raw, &res); err != nil {
				b.Fatal(err)
			}
			c, _ := fromSnapshot(res.Documents, res.Strings, nil)
			html1 = c.Frames[0].HTML
		},
		func() {
			res, err := decodeSnapshot(raw)
			if err != nil {
				b.Fatal(err)
			}
			c, _ := fromSnapshot(res.Documents, res.Strings, nil)
			html2 = c.Frames[0].HTML
		})
	if html1 != html2 {
		b.Fatal("the two readers wrote different captures")
	}
}
