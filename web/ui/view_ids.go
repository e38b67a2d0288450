package ui

// The ids a view draws, each led by the view's Prefix (see HashView.Prefix): the main view's are the bare
// names (#view-paged, #paged-pages), the compare's sides' are "a-" or "b-" and the name (#a-view-paged).

func (c *HashView) ID(name string) string    { return c.Prefix + name }
func (c *GraceView) ID(name string) string   { return c.Prefix + name }
func (c *SaltedView) ID(name string) string  { return c.Prefix + name }
func (c *SweepView) ID(name string) string   { return c.Prefix + name }
func (c *PagedView) ID(name string) string   { return c.Prefix + name }
func (c *GenericView) ID(name string) string { return c.Prefix + name }
