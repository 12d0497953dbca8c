/**
 * Black-box conformance with issue 5 (`@bridle/plugin-environment`): a named context with `environment` and
 * `region` from config, an agent-scope override, a `{{region}}` variable for the persona, and no secret ever
 * reaching the model or the error logs. Public entry only.
 */
import { inspect } from 'node:util'
import { ConfigError } from '@bridle/llm'
import DefaultEnvironment, { Environment } from '@bridle/plugin-environment'
import { createScope } from '@bridle/scope'
import { renderContextSections } from '@bridle/system-prompt'
import { afterEach, describe, expect, it } from 'vitest'
import { load, prod, view } from './harness.js'

describe('environment: contributions', () => {
  it('exports the plugin as named and default export', () => {
    expect(DefaultEnvironment).toBe(Environment)
  })
  it('adds one named context with environment and region, and variables usable in the persona', async () => {
    const root = load('Serving {{region}} in {{environment}}.')
    root.plugin(Environment, prod)
    const { assembly, system } = await view(root)
    expect(system).toContain('Serving eu-west-1 in production.')
    const sections = renderContextSections(assembly)
    expect(sections.map((s) => s.name)).toEqual(['environment'])
    expect(sections[0]!.text).toContain('environment: production')
    expect(sections[0]!.text).toContain('region: eu-west-1')
  })
  it('the context name is configurable', async () => {
    const root = load()
    root.plugin(Environment, { ...prod, contextName: 'deployment' })
    expect((await view(root)).assembly.contexts.map((c) => c.name)).toEqual(['deployment'])
  })
  it('an agent-scope override shows only in that agent’s assembly and goes away with the scope', async () => {
    const root = load('Region {{region}}.')
    root.plugin(Environment, prod)
    const canary = { session: { id: 'canary' } }
    const other = { session: { id: 'other' } }
    const scope = createScope(root, canary)
    createScope(root, other)
    scope.ctx.plugin(Environment, { environment: 'canary', region: 'us-east-2' })
    const mine = await view(root, canary)
    expect(mine.system).toContain('Region us-east-2.')
    expect(mine.snapshot).toContain('region: us-east-2')
    expect(mine.snapshot).not.toContain('eu-west-1')
    for (const seen of [await view(root, other), await view(root)]) {
      expect(seen.system).toContain('Region eu-west-1.')
      expect(seen.snapshot).not.toContain('us-east-2')
    }
    await scope.dispose()
    expect((await view(root, canary)).system).toContain('Region eu-west-1.')
  })
  it('disposing the plugin removes its context and variables from the next assembly', async () => {
    const root = load()
    const fork = root.plugin(Environment, prod)
    fork.dispose()
    const { assembly, snapshot } = await view(root)
    expect(snapshot).toBe('')
    expect(Object.keys(assembly.variables)).toEqual([])
  })
})

describe('environment: never leaks secrets', () => {
  afterEach(() => {
    delete process.env.BRIDLE_SPEC_SECRET_TOKEN
  })
  it('the process environment never reaches the model', async () => {
    const secret = 'spec-secret-7f3a9c'
    process.env.BRIDLE_SPEC_SECRET_TOKEN = secret
    const root = load('{{region}}')
    root.plugin(Environment, { ...prod, labels: { tier: 'gold' } })
    const { assembly, system, snapshot } = await view(root)
    const everything = JSON.stringify(assembly) + system + snapshot
    expect(everything).not.toContain(secret)
    expect(everything).not.toContain('BRIDLE_SPEC_SECRET_TOKEN')
  })
  it('only allow-listed keys are accepted: a stray secret key or secret-named label fails loudly', () => {
    const root = load()
    const errors: unknown[] = []
    root.on('internal/error', (e) => void errors.push(e))
    for (const config of [
      { ...prod, apiKey: 'x' },
      { ...prod, token: 'x' },
      { ...prod, labels: { password: 'x' } },
      { ...prod, labels: { github_token: 'x' } },
    ]) {
      const fork = root.plugin(Environment, config as never)
      expect(fork.error).toBeInstanceOf(ConfigError)
      expect((fork.error as ConfigError).message).toMatch(/^plugin-environment: invalid config: /)
    }
    expect(errors).toHaveLength(4)
  })
  it('a credential-looking value is refused, and the refusal never repeats the value', () => {
    const value = 'sk-live-ABCDEFGHIJKLMNOPQRSTUV'
    const root = load()
    const fork = root.plugin(Environment, { ...prod, labels: { dsn: value } })
    const error = fork.error as ConfigError
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toContain('labels.dsn')
    expect(error.message).not.toContain(value)
    expect(inspect(error, { depth: 10 })).not.toContain(value)
    expect(JSON.stringify(error.issues)).not.toContain(value)
  })
})
