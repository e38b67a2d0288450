package site

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The patches apply to the script of the Vugu module go.mod pins, each exactly once.
func TestVuguHelpersPatched(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "vugu-render.js")
	if err := writeVuguHelpers(context.Background(), root, dst); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range renderPatches {
		if !strings.Contains(string(b), p.new) {
			t.Errorf("the patch for %s is not applied", p.what)
		}
	}
}

func TestPatchRendererRefusesAChangedScript(t *testing.T) {
	if _, err := patchRenderer("(function(){})()"); err == nil {
		t.Error("a script the patches do not match was accepted")
	}
}
