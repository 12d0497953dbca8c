import type { Paint } from '../terminal.js'

/** Renders `cachePrefixReport` rows; filled in against the session package's report shape. */
export function renderCacheReport(rows: readonly unknown[], p: Paint): string {
  return `${p.bold('cache')}\n${rows.map((r) => `  ${JSON.stringify(r)}`).join('\n')}\n`
}
