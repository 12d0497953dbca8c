import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')
const folders = ['packages', 'plugins'].flatMap((g) => readdirSync(join(root, g)).map((n) => join(g, n)))

describe('workspace layout', () => {
  it.each(folders)('%s has a manifest, a README and tests', (folder) => {
    const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'))
    expect(manifest.name).toMatch(/^(@bridle\/|bridle$)/)
    expect(manifest.type).toBe('module')
    expect(existsSync(join(root, folder, 'README.md'))).toBe(true)
    expect(existsSync(join(root, folder, 'tests'))).toBe(true)
  })
})
