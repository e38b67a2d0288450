// Package exec holds the engine's row operators other than joins: scan, filter, project, summarize, sort, top,
// take, distinct and count. Every operator is pull-based and works a batch at a time.
package exec

import (
	"context"

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

// Env is what every operator of one execution shares: the memory budget, the trace sink and the run's details.
type Env struct {
	Budget  *memory.Budget
	Trace   trace.Sink
	Details *trace.Details
}

// NewEnv returns an Env with the given budget, discarding events when sink is nil.
func NewEnv(budget *memory.Budget, sink trace.Sink) *Env {
	if sink == nil {
		sink = trace.Discard
	}
	return &Env{Budget: budget, Trace: sink, Details: &trace.Details{}}
}
