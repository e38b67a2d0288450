package ui

// RunView draws one run with its strategy's view, from the same folds the playground's main view reads: the
// compare panel puts one beside the other, A's and B's. Prefix leads the ids the view draws ("a-", "b-"), so
// A's and B's views of one kind keep ids unique in the page.
type RunView struct {
	Run    *Run
	Prefix string
}
