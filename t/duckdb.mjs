// duckdb.mjs FILE QUERY: QUERY in DuckDB (the npm package @duckdb/node-api,
// installed by `make test-deps`), FILE (ttv --dump --json) standing for the
// word FILE in it; each row on a line, its values joined by commas.
import { DuckDBInstance } from '@duckdb/node-api';

const [file, sql] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const source = `read_json_auto('${file.replaceAll("'", "''")}', format = 'newline_delimited')`;
const result = await con.runAndReadAll(sql.replaceAll('FILE', source));
for (const row of result.getRowsJS())
	console.log(row.map((v) => (v === null ? '' : String(v))).join(','));
