import { createHash } from 'node:crypto'

/** A query config for node-postgres that runs `text` as a prepared statement. */
export interface PreparedQuery {
  readonly name: string
  readonly text: string
  readonly values: unknown[]
}

const names = new Map<string, string>()

/**
 * `text` with `values` as a named prepared statement: each connection parses and plans it once, then only binds and
 * runs it, which saves PostgreSQL's parse and analysis on the statements every turn sends. The name is a digest of
 * the text, so two texts never share one on a connection.
 */
export function prepared(text: string, values: unknown[]): PreparedQuery {
  let name = names.get(text)
  if (name === undefined) {
    name = `bridle_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`
    if (names.size < 1_000) names.set(text, name)
  }
  return { name, text, values }
}
