package ui

// PagedView draws the paged join: the build side's pages along a line in sort order with the cursor after
// the last, tie groups cut by a page edge, and the probe-side filter slices against the byte cap.
type PagedView struct {
	Run *Run
	// Prefix leads every id the view draws: empty in the main view, "a-" or "b-" for a side of the compare, so
	// two views of one kind on the page never share an id.
	Prefix string
}

// Box is a rectangle of a view.
type Box struct {
	X, W, H float64
	Class   string
}

func (c *PagedView) Pages() []Box {
	pages := c.Run.Trace.Paged.Pages
	if len(pages) == 0 {
		return nil
	}
	var total float64
	for _, p := range pages {
		total += max(1, p.Rows)
	}
	out := make([]Box, len(pages))
	x := 0.0
	for i, p := range pages {
		w := 400 * max(1, p.Rows) / total
		class := "page"
		if p.Tie {
			class += " tie"
		}
		out[i] = Box{X: x, W: max(1, w-1), Class: class}
		x += w
	}
	return out
}

// CursorX is where the cursor stands: after the last page.
func (c *PagedView) CursorX() float64 {
	p := c.Pages()
	if len(p) == 0 {
		return 0
	}
	return min(399, p[len(p)-1].X+p[len(p)-1].W)
}

// Slices are the filter slices, their heights against the cap (the line at the top).
func (c *PagedView) Slices() []Box {
	sl := c.Run.Trace.Paged.Slices
	if len(sl) == 0 {
		return nil
	}
	top := c.Run.Trace.Paged.SliceCap
	for _, s := range sl {
		top = max(top, s.Bytes)
	}
	w := 400 / float64(len(sl))
	out := make([]Box, len(sl))
	for i, s := range sl {
		h := 0.0
		if top > 0 {
			h = 40 * s.Bytes / top
		}
		out[i] = Box{X: float64(i) * w, W: max(1, w-2), H: h}
	}
	return out
}

// FromPageNote says how many of the re-fetches the wide first page answered without a request.
func (c *PagedView) FromPageNote() string {
	return " (" + count(c.Run.Trace.Paged.FromPage) + " answered from the wide page, no request)"
}
