package ui

// RunView draws one run with its strategy's view, from the same folds the playground's main view reads: the
// compare panel puts one beside the other, A's and B's.
type RunView struct {
	Run *Run
}
