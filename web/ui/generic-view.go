package ui

// GenericView is shown for a strategy with no view of its own: a tally of its trace by kind.
type GenericView struct {
	Run *Run
	// Prefix leads every id the view draws: empty in the main view, "a-" or "b-" for a side of the compare, so
	// two views of one kind on the page never share an id.
	Prefix string
}

func (c *GenericView) Title() string {
	if c.Run.Strategy == "" {
		return "Trace"
	}
	return c.Run.Strategy + " join"
}

// genericKinds bounds the tally's length.
const genericKinds = 12

func (c *GenericView) Top() []KindCount {
	k := c.Run.Trace.KindList()
	return k[:min(len(k), genericKinds)]
}
