// Package browser holds the playground's real-browser tests: they build the site, serve it on 127.0.0.1 and
// drive headless Chromium through the page as a person would, saving a screenshot of each test to
// build/screenshots. Chromium must be installed (`go run mage.go test` installs it when run as root).
package browser
