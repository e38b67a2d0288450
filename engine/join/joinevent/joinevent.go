// Package joinevent declares the trace events of the join strategies (engine/join): one Go type per kind, in
// one file per strategy (grace.go, salted.go, sweep.go, paged.go). It imports nothing but engine/trace, so the
// page decodes and folds these events without carrying the engine; engine/trace/registry lists them.
package joinevent

// SmallSideRows is the most rows an input may have for the Grace and salted joins to list its rows in the
// trace (PartitionKeys, WorkerRows), so that the playground can draw a small run row by row: which rows sit in
// which partition, which went to which worker. Sixty rows a side is what a view shows as a table without
// scrolling, and it keeps those events a few kilobytes however the run is shaped: a larger input lists
// nothing, since its rows could not be drawn one by one anyway. The page's row-by-row drawings of the paged
// join use the same figure.
const SmallSideRows = 60
