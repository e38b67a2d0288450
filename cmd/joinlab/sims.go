package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/scenario"
	"github.com/joinlab/joinlab/sims/service"
)

// listSims writes the scenarios, then the connector profiles with their caps.
func listSims(w io.Writer) {
	fmt.Fprintln(w, "scenarios (joinlab query --sim NAME):")
	for _, name := range scenario.Names() {
		sc, _ := scenario.Get(name)
		fmt.Fprintf(w, "  %-26s %s\n", sc.Name, sc.Title)
		for _, k := range sc.Knobs {
			fmt.Fprintf(w, "      --set %s=%g  %s [%g, %g]\n", k.Name, k.Default, k.Help, k.Min, k.Max)
		}
	}
	fmt.Fprintln(w, "\nconnector profiles (joinlab query --source NAME=FILE --profile NAME=PROFILE):")
	for _, name := range profile.Names() {
		p, _ := profile.Get(name)
		fmt.Fprintf(w, "  %-12s %s (%s dialect)\n      %s; a query's deadline %s of virtual time\n", p.Name, p.Title,
			p.Dialect, describeCaps(p.Caps), p.Deadline)
	}
}

func describeCaps(c connector.Caps) string {
	var parts []string
	add := func(format string, v any, set bool) {
		if set {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	add("%d rows", c.MaxRows, c.MaxRows > 0)
	add("%d bytes per response", c.MaxBytes, c.MaxBytes > 0)
	add("%d values per IN list", c.MaxInValues, c.MaxInValues > 0)
	add("%d bytes of query text", c.MaxQueryBytes, c.MaxQueryBytes > 0)
	if c.Requests > 0 {
		parts = append(parts, fmt.Sprintf("%d requests per %s (burst %d)", c.Requests, c.Window, c.Burst))
	}
	add("%d concurrent", c.Concurrent, c.Concurrent > 0)
	add("%s", "truncates oversized results", c.TruncatesResults)
	if len(parts) == 0 {
		return "no caps"
	}
	return strings.Join(parts, ", ")
}

// behindProfiles serves the named sources through simulated connectors with the given profiles
// (NAME=PROFILE, or *=PROFILE for every source), sharing one virtual clock, so a user's own file is capped,
// throttled and timed like the service it stands for.
func behindProfiles(ctx context.Context, sources map[string]source.Source, specs []string, seed uint64) error {
	want := map[string]string{}
	for _, s := range specs {
		name, prof, ok := strings.Cut(s, "=")
		if !ok || name == "" || prof == "" {
			return fmt.Errorf("--profile %q: want NAME=PROFILE or *=PROFILE", s)
		}
		name = strings.TrimPrefix(name, "@")
		if name != "*" {
			if _, ok := sources[name]; !ok {
				return fmt.Errorf("--profile %s: no --source named %s", s, name)
			}
		}
		want[name] = prof
	}
	clk := clock.New()
	for name, src := range sources {
		prof, ok := want[name]
		if !ok {
			if prof, ok = want["*"]; !ok {
				continue
			}
		}
		p, err := profile.Get(prof)
		if err != nil {
			return fmt.Errorf("--profile %s=%s: %w", name, prof, err)
		}
		schema := src.Schema(nil)
		table, err := exec.Materialize(ctx, exec.NewScan(ctx, src, schema, allLive(len(schema))))
		if err != nil {
			return fmt.Errorf("--profile %s: reading the source: %w", name, err)
		}
		mem := dataset.NewFileTable(name, schema, table)
		svc, err := service.New(p, clk, seed, mem)
		if err != nil {
			return fmt.Errorf("--profile %s: %w", name, err)
		}
		served, err := svc.Source(name, mem.Info(), seed)
		if err != nil {
			return fmt.Errorf("--profile %s: %w", name, err)
		}
		sources[name] = served
	}
	return nil
}

func allLive(n int) []bool {
	live := make([]bool, n)
	for i := range live {
		live[i] = true
	}
	return live
}
