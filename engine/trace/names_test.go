package trace_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/trace"
)

func TestNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{
			name: "baseline positions then answers by first appearance",
			in: `baseline page=main size=2 ids=qPJnwdW,I0fngHB
outcome page=main op=click status=met evidence="new group Zx81"
answer.state page=main group=Zx81 state=generating evidence=x
answer.result page=main status=complete group=Zx81
baseline page=main size=3 ids=qPJnwdW,I0fngHB,Zx81
outcome page=main op=click status=met evidence="new group Q7; url {sim}/chat"
answer.result page=main status=complete group=Q7
readAnswer page=main group=I0fngHB offset=0
`,
			want: `baseline page=main size=2 ids=b1,b2
outcome page=main op=click status=met evidence="new group a1"
answer.state page=main group=a1 state=generating evidence=x
answer.result page=main status=complete group=a1
baseline page=main size=3 ids=b1,b2,a1
outcome page=main op=click status=met evidence="new group a2; url {sim}/chat"
answer.result page=main status=complete group=a2
readAnswer page=main group=b2 offset=0
`,
		},
		{
			name: "an id swapped while generating keeps the answer's name",
			in: `baseline page=main size=0 ids=""
outcome page=main op=click status=met evidence="new group tmp-1"
answer.state page=main group=tmp-1 state=generating evidence=x
answer.state page=main group=msg-9 state=complete evidence=y
answer.result page=main status=complete group=msg-9 was=tmp-1
`,
			want: `baseline page=main size=0 ids=""
outcome page=main op=click status=met evidence="new group a1"
answer.state page=main group=a1 state=generating evidence=x
answer.state page=main group=a1 state=complete evidence=y
answer.result page=main status=complete group=a1 was=a1
`,
		},
		{
			name: "a position taken by another id gets a suffix",
			in: `baseline page=main size=1 ids=x
baseline page=second size=1 ids=y
answer.result page=main status=NO_NEW_ANSWER group=""
`,
			want: `baseline page=main size=1 ids=b1
baseline page=second size=1 ids=b1.2
answer.result page=main status=NO_NEW_ANSWER group=""
`,
		},
		{
			name: "text and other attributes are left alone",
			in: `answer.result page=main group=m2 text="the new group m2 said m2"
fill page=main value="new group m2"
`,
			want: `answer.result page=main group=a1 text="the new group m2 said m2"
fill page=main value="new group m2"
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := trace.Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(trace.Golden(ev)); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
			again, err := trace.Parse([]byte(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(trace.Golden(again)); got != tt.want {
				t.Fatalf("naming a named trace changed it:\n%s", got)
			}
		})
	}
}

// TestGoldensHoldLabNames: every golden under recordings/golden is named
// (LIB-1): naming it again changes nothing, so no id the page made up is
// left in one.
func TestGoldensHoldLabNames(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../recordings/golden/*/*.golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens found (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := trace.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if got := trace.Golden(ev); !bytes.Equal(got, trace.Format(ev)) {
			t.Errorf("%s holds ids that are not the lab's names; it reads after naming:\n%s", f, got)
		}
	}
}

// TestGoldenChangesAreNamesOnly checks that the goldens changed since a
// base revision differ from it by names only: each golden as it was at
// REPLAYLAB_NAMES_BASE (a git revision), named, is the golden now. It needs
// git and the base, so it runs only when the variable is set:
//
//	REPLAYLAB_NAMES_BASE=<rev> go test ./engine/trace -run TestGoldenChangesAreNamesOnly -v
func TestGoldenChangesAreNamesOnly(t *testing.T) {
	t.Parallel()
	base := os.Getenv("REPLAYLAB_NAMES_BASE")
	if base == "" {
		t.Skip("set REPLAYLAB_NAMES_BASE to the git revision the goldens are compared with")
	}
	files, err := filepath.Glob("../../recordings/golden/*/*.golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens found (%v)", err)
	}
	changed, same, added := 0, 0, 0
	for _, f := range files {
		now, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(filepath.ToSlash(f), "../../")
		old, err := exec.Command("git", "show", base+":"+rel).Output()
		if err != nil {
			added++
			continue
		}
		if bytes.Equal(old, now) {
			same++
			continue
		}
		ev, err := trace.Parse(old)
		if err != nil {
			t.Fatalf("%s at %s: %v", rel, base, err)
		}
		if named := trace.Golden(ev); !bytes.Equal(named, now) {
			t.Errorf("%s changed by more than names:\n--- named at %s\n%s\n--- now\n%s", rel, base, named, now)
			continue
		}
		changed++
	}
	t.Logf("%d goldens: %d changed by names only, %d unchanged, %d not at %s", len(files), changed, same, added, base)
}
