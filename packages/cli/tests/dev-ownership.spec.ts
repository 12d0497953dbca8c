import { describe, expect, it } from 'vitest'
import { parseAppConfig } from '../src/app-config.js'
import { describeOwnership, planOwnership } from '../src/dev-ownership.js'

describe('planOwnership', () => {
  it('gives the watcher the path: rows of plugin files directly in the watched folder, and boot the rest', () => {
    const app = parseAppConfig(
      {
        plugins: [
          '@bridle/plugin-workspace',
          { path: './plugins/rules.mjs', config: { a: 1 } },
          { path: 'plugins/tool.js' },
          { path: './plugins/nested/deep.mjs' },
          { path: './plugins/types.ts' },
          { path: './plugins/types.d.ts' },
          { path: '../elsewhere.mjs' },
        ],
      },
      '/app/bridle.yaml',
      '/app',
    )
    const ownership = planOwnership(app, '/app/plugins')
    // TypeScript plugin files are watched too; a declaration file is not a plugin
    expect([...ownership.watched.keys()]).toEqual([
      '/app/plugins/rules.mjs',
      '/app/plugins/tool.js',
      '/app/plugins/types.ts',
    ])
    expect(ownership.watched.get('/app/plugins/rules.mjs')).toEqual({ path: './plugins/rules.mjs', config: { a: 1 } })
    expect(ownership.fixed.map((row) => row.path)).toEqual([
      './plugins/nested/deep.mjs',
      './plugins/types.d.ts',
      '../elsewhere.mjs',
    ])
    const lines = describeOwnership(ownership, app, '/app/plugins')
    expect(lines).toHaveLength(4)
    expect(lines[1]).toContain(
      "plugins/tool.js is a bridle.yaml row inside the watched folder: the watcher loads it (with the row's config, none)",
    )
    expect(lines[3]).toBe(
      'bridle dev: these bridle.yaml rows load once and do not hot-reload (only .js/.mjs/.ts/.mts files directly in plugins/ do): ' +
        './plugins/nested/deep.mjs, ./plugins/types.d.ts, ../elsewhere.mjs; restart bridle dev after editing them',
    )
  })

  it('refuses two rows that name the same watched file, naming both', () => {
    const app = parseAppConfig(
      {
        plugins: [
          { path: './plugins/rules.mjs', config: { a: 1 } },
          { path: 'plugins/rules.mjs', config: { a: 2 } },
        ],
      },
      '/app/bridle.yaml',
      '/app',
    )
    expect(() => planOwnership(app, '/app/plugins')).toThrow(
      '/app/bridle.yaml: plugin "plugins/rules.mjs": the watched file plugins/rules.mjs is already the row "./plugins/rules.mjs"; ' +
        'bridle dev loads a watched file once, so keep one row',
    )
    // outside the watched folder, boot loads each row as `run` does
    expect(planOwnership(app, '/app/lib').fixed).toHaveLength(2)
  })
})
