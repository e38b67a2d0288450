// Package exec holds the engine's row operators other than joins: scan, filter, project, summarize, sort, top,
// take, distinct and count. Every operator is pull-based and works a batch at a time.
package exec

import (
	"context"
	"sync"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// Operator is a running operator: a stateful stream of batches, made fresh for each execution of a plan.
//
// Next returns the next batch, or (nil, nil) once the stream is done; a returned batch belongs to the caller.
// An error ends the stream. Next honours ctx: once ctx is done it returns ctx.Err(). Operators are used from
// one goroutine.
type Operator interface {
	Schema() column.Schema
	Next(ctx context.Context) (*column.Batch, error)
}

// Drain pulls every batch from op, passing each non-empty one to emit.
func Drain(ctx context.Context, op Operator, emit func(*column.Batch) error) error {
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		if b.N == 0 {
			continue
		}
		if err := emit(b); err != nil {
			return err
		}
	}
}

// Materialize pulls all of op into one table.
func Materialize(ctx context.Context, op Operator) (*column.Table, error) {
	var batches []*column.Batch
	err := Drain(ctx, op, func(b *column.Batch) error { batches = append(batches, b); return nil })
	return column.Concat(op.Schema(), batches), err
}

// Env is what every operator of one execution shares: the memory budget, the trace sink, the run's details,
// and the top bounds its tops publish to the joins below them (TopBound).
type Env struct {
	Budget  *memory.Budget
	Trace   trace.Sink
	Details *trace.Details

	mu   sync.Mutex
	tops map[any]*TopBound
}

// TopBound returns this execution's bound for the top that key names, made at the first call. A plan opens a
// join before the top above it, and a plan may run as several executions at once, so the top and the join it
// filters meet here: both ask for the bound of the same key, and each execution has its own.
func (e *Env) TopBound(key any) *TopBound {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tops == nil {
		e.tops = map[any]*TopBound{}
	}
	b := e.tops[key]
	if b == nil {
		b = &TopBound{}
		e.tops[key] = b
	}
	return b
}

// NewEnv returns an Env with the given budget, discarding events when sink is nil.
func NewEnv(budget *memory.Budget, sink trace.Sink) *Env {
	if sink == nil {
		sink = trace.Discard
	}
	return &Env{Budget: budget, Trace: sink, Details: &trace.Details{}}
}
