package ui

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/web/site"
)

// TestGeneratedCodeIsFresh fails when a .vugu file changed and its *_gen.go was not regenerated
// (go run mage.go build regenerates them).
func TestGeneratedCodeIsFresh(t *testing.T) {
	root, err := site.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := site.CheckGenerated(context.Background(), root); err != nil {
		t.Fatal(err)
	}
}
