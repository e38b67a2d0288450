package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/vugu/vugu"
)

// The short-link button stores the current settings through the Worker's API (POST /api/links, wasm/worker)
// and offers the short link it answers, /s/ID, which redirects to the full link. The full link needs no server
// at all; a short one needs the Worker, natively (`go run mage.go serve`) or in workerd. A page served by a
// plain file server has no API, and the button says so rather than failing quietly.

// LinksPath is the Worker's API for short links, on the page's origin.
const LinksPath = "/api/links"

// Poster is what the short-link button needs from the browser: a POST of a JSON body to a path of the page's
// origin, answered with the status and body, or an error when nothing answered. Like Fetcher it blocks until
// the answer is in, so it is called from a goroutine, never from an event handler's own stack.
type Poster interface {
	PostJSON(path string, body []byte) (status int, answer []byte, err error)
}

// ShortLink is the short-link button's state.
type ShortLink struct {
	// Busy is set while the request is out.
	Busy bool
	// URL is the short link the Worker answered; Note says why there is none.
	URL, Note string
	// For is the fragment of the settings the link stores: once the settings change, the link is stale.
	For string
	// RunAtOnce makes the stored link run when opened (share.State.Run).
	RunAtOnce bool
	Copied    bool
}

// needWorker is the note for a page with no short-link API.
const needWorker = "Short links need the Worker's API, which this server does not offer (%s). Serve the " +
	"playground with `go run mage.go serve` or run the Worker (wrangler dev), or use Copy link: the full " +
	"link carries everything in its fragment and works from any server."

// MakeShortLink asks the Worker to store the current settings and shows the short link it answers. ee is the
// render lock the answer is applied under.
func (s *State) MakeShortLink(ee vugu.EventEnv) {
	sh := s.shortLink()
	if sh.Busy {
		return
	}
	st := s.Share()
	st.Run = sh.RunAtOnce
	sh.URL, sh.Note, sh.Copied, sh.For = "", "", false, s.Fragment()
	if s.walkFragment() != "" {
		sh.Note = "A walkthrough step's link is short already: use Link to this step."
		return
	}
	p, ok := s.Env.(Poster)
	if !ok {
		sh.Note = fmt.Sprintf(needWorker, "the page cannot send requests")
		return
	}
	sh.Busy = true
	body := st.JSON()
	go func() {
		status, answer, err := p.PostJSON(LinksPath, body)
		ee.Lock()
		sh.Busy = false
		sh.URL, sh.Note = shortLinkAnswer(status, answer, err)
		s.Dirty = true
		ee.UnlockRender()
	}()
}

// shortLinkAnswer reads the API's answer: the link, or a note saying plainly why there is none.
func shortLinkAnswer(status int, answer []byte, err error) (link, note string) {
	if err != nil {
		return "", fmt.Sprintf(needWorker, "nothing answered: "+err.Error())
	}
	// HTTP statuses by number: net/http would pull a TLS stack into app.wasm for a few constants.
	const (
		ok, created, notFound, notAllowed, tooLarge, tooMany, notImplemented = 200, 201, 404, 405, 413, 429, 501
	)
	var body struct {
		ID    string `json:"id"`
		URL   string `json:"url"`
		Error string `json:"error"`
	}
	jsonErr := json.Unmarshal(answer, &body)
	switch {
	case status == notFound || status == notAllowed || status == notImplemented:
		return "", fmt.Sprintf(needWorker, fmt.Sprintf("POST %s answered %d", LinksPath, status))
	case status == tooMany:
		return "", "The Worker made too many short links for this address lately; try again in a few minutes, or use Copy link."
	case status == tooLarge:
		return "", "These settings are too large to store as a short link; Copy link still carries them."
	case status != ok && status != created:
		why := body.Error
		if jsonErr != nil || why == "" {
			why = "no reason given"
		}
		return "", fmt.Sprintf("The Worker refused the short link (%d: %s).", status, why)
	case jsonErr != nil:
		return "", fmt.Sprintf(needWorker, "POST "+LinksPath+" answered no JSON")
	}
	if err := checkShortURL(body.URL, body.ID); err != nil {
		return "", "The Worker answered a link the page does not trust: " + err.Error() + "."
	}
	return body.URL, ""
}

// checkShortURL accepts only an http(s) URL whose path is /s/ID, ID in base64url's alphabet: the answer
// becomes an href and a value to copy.
func checkShortURL(link, id string) error {
	if id == "" || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return fmt.Errorf("the id %q is not a link id", truncateText(id, 32))
	}
	u, err := url.Parse(link)
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q is not an http link", truncateText(link, 64))
	case u.Path != "/s/"+id || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("the link is not /s/ followed by its id")
	}
	return nil
}

// CopyShortLink puts the short link on the clipboard.
func (s *State) CopyShortLink() {
	if sh := s.Short; sh != nil && sh.URL != "" {
		s.Env.CopyText(sh.URL)
		sh.Copied = true
	}
}

// SetShortRun sets whether the next short link runs when opened.
func (s *State) SetShortRun(on bool) { s.shortLink().RunAtOnce = on }

// ShortStale reports whether the short link shown stores other settings than the current ones.
func (s *State) ShortStale() bool {
	sh := s.Short
	return sh != nil && sh.URL != "" && sh.For != s.Fragment()
}

func (s *State) shortLink() *ShortLink {
	if s.Short == nil {
		s.Short = &ShortLink{}
	}
	return s.Short
}
