//go:build ignore

// mage.go runs the build with no mage installed: go run mage.go <target>.
package main

import (
	"os"

	"github.com/magefile/mage/mage"
)

func main() { os.Exit(mage.Main()) }
