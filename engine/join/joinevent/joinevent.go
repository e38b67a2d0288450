// Package joinevent declares the trace events of the join strategies (engine/join): one Go type per kind, in
// one file per strategy (grace.go, salted.go, sweep.go, paged.go). It imports nothing but engine/trace, so the
// page decodes and folds these events without carrying the engine; engine/trace/registry lists them.
package joinevent
