// DuckDB-WASM's browser module imports "apache-arrow" by its bare name. With no bundler, the bench runner
// rewrites that import to this file, which re-exports the names DuckDB uses from Arrow's browser bundle
// (loaded by index.html as a classic script that sets globalThis.Arrow).
const A = globalThis.Arrow;
export const RecordBatchReader = A.RecordBatchReader;
export const Table = A.Table;
export const tableToIPC = A.tableToIPC;
export const Type = A.Type;
export default A;
