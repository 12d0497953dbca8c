import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface SourceAlias {
  find: RegExp
  replacement: string
}

/**
 * Tests import sibling packages from source, so a test run never depends on a stale dist/: for every workspace
 * package under `repo`, `@bridle/x` maps to its `src/index.ts` and a sub-entry `@bridle/x/y` to `src/y.ts`.
 */
export function sourceAliases(repo: string): SourceAlias[] {
  const alias: SourceAlias[] = []
  for (const group of ['packages', 'plugins']) {
    for (const name of readdirSync(join(repo, group))) {
      const manifest = join(repo, group, name, 'package.json')
      if (!existsSync(manifest)) continue
      const id = (JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name
      const escaped = id.replace(/[/.-]/g, (c) => `\\${c}`)
      alias.push({ find: new RegExp(`^${escaped}$`), replacement: join(repo, group, name, 'src', 'index.ts') })
      alias.push({ find: new RegExp(`^${escaped}/(.+)$`), replacement: join(repo, group, name, 'src', '$1.ts') })
    }
  }
  return alias
}
