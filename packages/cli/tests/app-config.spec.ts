import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { AppConfigError, loadAppConfig, parseAppConfig } from '../src/app-config.js'

describe('parseAppConfig', () => {
  it('accepts package names, package rows and path rows', () => {
    const app = parseAppConfig(
      {
        plugins: [
          '@bridle/plugin-workspace',
          { package: '@bridle/plugin-read-file', config: { maxBytes: 10 } },
          { path: './p.js' },
        ],
      },
      '/app/bridle.yaml',
      '/app',
    )
    expect(app.plugins).toEqual([
      { package: '@bridle/plugin-workspace', config: undefined },
      { package: '@bridle/plugin-read-file', config: { maxBytes: 10 } },
      { path: './p.js' },
    ])
  })

  it('resolves the agent cwd and the harness source checkout against the config folder', () => {
    expect(parseAppConfig({ agent: { cwd: './proj' } }, '/app/bridle.yaml', '/app').agent.cwd).toBe('/app/proj')
    const app = parseAppConfig(
      { systemPrompt: { persona: 'p', harnessSource: '../bridle' } },
      '/app/bridle.yaml',
      '/app',
    )
    expect(app.systemPrompt).toEqual({ persona: 'p', harnessSource: '/bridle' })
  })

  it('names the file, the plugin and the field', () => {
    const bad = () => parseAppConfig({ plugins: [{ package: '@x/y', confg: {} }] }, '/app/bridle.yaml', '/app')
    expect(bad).toThrow(AppConfigError)
    expect(bad).toThrow(/^\/app\/bridle\.yaml: invalid app config: plugin "@x\/y": row: Unrecognized key: "confg"/)
    expect(() => parseAppConfig({ agent: { maxTokens: -1 } }, '/a.yaml', '/')).toThrow(
      /\/a\.yaml: invalid app config: agent\.maxTokens: /,
    )
    expect(() => parseAppConfig({ plugin: [] }, '/a.yaml', '/')).toThrow(/\/a\.yaml: invalid app config: .*plugin/)
  })
})

describe('loadAppConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-cli-config-'))

  it('reports unreadable files and bad YAML with the path', async () => {
    await expect(loadAppConfig(join(dir, 'missing.yaml'))).rejects.toThrow(/missing\.yaml: cannot read app config/)
    writeFileSync(join(dir, 'bad.yaml'), 'plugins: [\n')
    await expect(loadAppConfig(join(dir, 'bad.yaml'))).rejects.toThrow(/bad\.yaml: invalid YAML/)
  })

  it('reads a valid file', async () => {
    writeFileSync(join(dir, 'ok.yaml'), 'plugins:\n  - "@bridle/plugin-workspace"\nsystemPrompt:\n  persona: hi\n')
    const app = await loadAppConfig(join(dir, 'ok.yaml'))
    expect(app).toMatchObject({ file: join(dir, 'ok.yaml'), dir, systemPrompt: { persona: 'hi' } })
  })
})
