package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/internal/filebench"
)

// The own-data mode of the benchmark (issue 21): the users and events files of internal/filebench, fetched by
// the page as bytes, held and typed here as the playground's own tables are (source.ReadHeld and OpenHeld: a
// sample types them, each query scans the columns it reads) and joined with the file benchmark's KQL, while
// DuckDB-WASM reads the same bytes with the same queries' SQL.

// FileQuery is one query of internal/filebench as the page runs it: the files it reads, by the names the page
// serves and registers them under, and its KQL and SQL.
type FileQuery struct {
	Name, Format  string
	Users, Events string // file names, e.g. "users.jsonl"
	KQL           string
	// SQL reads the registered files and returns the digest as three VARCHAR columns (exact beyond 2⁵³).
	SQL string
	// LoadSQL makes tables jl_users and jl_events of the files, every column, with SQL's reader; TablesSQL is SQL
	// over those tables. Together they time DuckDB's load and join apart, as joinlab's are.
	LoadSQL   []string
	TablesSQL string
	// JSONTablesSQL, for a JSON-lines query, is TablesSQL over the tables jl_users and jl_events that
	// DuckDB-WASM's built-in JSON reader makes of the files turned into row arrays (insertJSONFromPath, which
	// needs no extension; files.js). That reader types every number inside a nested object as DOUBLE (a
	// struct's fields are typed from sampled values, where any number is a double), so the nested query's sums
	// come back as whole DOUBLEs, printed "12.0"; the digest casts them to BIGINT, exact below 2⁵³, as joinlab
	// prints its longs.
	JSONTablesSQL string
}

// jsonDigest is the digest's select over a query when DuckDB's sums may be whole DOUBLEs.
const jsonDigest = `SELECT n::BIGINT::VARCHAR, s1::BIGINT::VARCHAR, s2::BIGINT::VARCHAR FROM (`

// fileRead is a DuckDB table function call over a registered file in a file query's SQL: read_csv('users.csv').
var fileRead = regexp.MustCompile(`read_\w+\('(users|events)\.\w+'\)`)

// FileQueries are internal/filebench.Queries over the file names the page uses.
func FileQueries() []FileQuery {
	var out []FileQuery
	for _, q := range filebench.Queries {
		u, e := "users."+q.Format, "events."+q.Format
		inner := fmt.Sprintf(q.SQL, u, e)
		sql := `SELECT n::VARCHAR, s1::VARCHAR, s2::VARCHAR FROM (` + inner + `)`
		fq := FileQuery{Name: q.Name, Format: q.Format, Users: u, Events: e, KQL: q.KQL, SQL: sql,
			TablesSQL: fileRead.ReplaceAllString(sql, "jl_$1")}
		if q.Format == "jsonl" {
			fq.JSONTablesSQL = fileRead.ReplaceAllString(jsonDigest+inner+`)`, "jl_$1")
		}
		seen := map[string]bool{}
		for _, m := range fileRead.FindAllStringSubmatch(sql, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				fq.LoadSQL = append(fq.LoadSQL, "CREATE OR REPLACE TABLE jl_"+m[1]+" AS SELECT * FROM "+m[0])
			}
		}
		out = append(out, fq)
	}
	return out
}

// LoadFile reads r, in format "jsonl" or "csv", into a source named name as the playground loads a table, and
// returns it with the time the load took.
func LoadFile(name, format string, r io.Reader) (source.Source, time.Duration, error) {
	f, err := source.FormatOf("x." + format)
	if err != nil {
		return nil, 0, fmt.Errorf("bench: load %s: %w", name, err)
	}
	start := time.Now()
	held, err := source.ReadHeld(r)
	if err != nil {
		return nil, 0, fmt.Errorf("bench: load %s: %w", name, err)
	}
	s, err := source.OpenHeld(name, f, held, source.Options{})
	if err != nil {
		return nil, 0, fmt.Errorf("bench: load %s: %w", name, err)
	}
	return s, time.Since(start), nil
}

// RunFileQuery runs a file query's KQL over the loaded sources (Users and Events) and returns its digest and
// the time the query took, planning included.
func RunFileQuery(ctx context.Context, q FileQuery, sources map[string]source.Source) (Digest, time.Duration, error) {
	name := "files/" + q.Name + "/" + q.Format
	return runKQL(ctx, name, q.KQL, sources)
}

// fileQueryKey names a file query in the page's API and the results: "flat/jsonl".
func fileQueryKey(q FileQuery) string { return q.Name + "/" + q.Format }

// findFileQuery returns the file query named key ("flat/jsonl").
func findFileQuery(key string) (FileQuery, error) {
	for _, q := range FileQueries() {
		if fileQueryKey(q) == key {
			return q, nil
		}
	}
	return FileQuery{}, fmt.Errorf("bench: no file query %q", key)
}
