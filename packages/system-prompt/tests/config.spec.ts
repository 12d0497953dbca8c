import { ConfigError } from '@bridle/llm'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { ConfigSchema, SystemPrompt, SystemPromptConfigSchema } from '../src/index.js'
import { takeLogLines } from '../../../tests/support/logs.js'

const Config = SystemPrompt.Config

function configError(raw: unknown): ConfigError {
  try {
    Config(raw as never)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected a ConfigError')
}

describe('SystemPrompt.Config', () => {
  it('fills defaults for undefined, null and {}', () => {
    const defaults = { includeHarnessIdentity: true, includeRuntimeContext: true, persona: '' }
    expect(Config(undefined)).toEqual(defaults)
    expect(Config(null)).toEqual(defaults)
    expect(Config({})).toEqual(defaults)
    expect('toolOrder' in Config({})).toBe(false)
  })

  it('is a plain function that works unbound', () => {
    const unbound = SystemPrompt.Config
    expect(unbound.call(undefined, { persona: 'p' }).persona).toBe('p')
  })

  it('treats null values as absent (YAML empty values)', () => {
    expect(
      Config({ persona: null, toolOrder: null, includeHarnessIdentity: null, includeRuntimeContext: null }),
    ).toEqual({ includeHarnessIdentity: true, includeRuntimeContext: true, persona: '' })
  })

  it('names the plugin and the field, with the zod issues attached', () => {
    const error = configError({ toolOrder: 'plan' })
    expect(error.message).toBe('system-prompt: invalid config: toolOrder: expected array, received string')
    expect(error.name).toBe('ConfigError')
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.issues.map((issue) => issue.path)).toEqual([['toolOrder']])
  })

  it('lists every failing field', () => {
    const error = configError({ persona: 1, includeHarnessIdentity: 'yes', toolOrder: ['a', 2] })
    expect(error.message).toContain('system-prompt: invalid config: ')
    expect(error.message).toContain('persona: expected string, received number')
    expect(error.message).toContain('includeHarnessIdentity: expected boolean, received string')
    expect(error.message).toContain('toolOrder.1: expected string, received number')
  })

  it('rejects unknown keys such as the typo tooOrder', () => {
    const error = configError({ tooOrder: ['x'] })
    expect(error.message).toContain('tooOrder')
  })

  it('rejects a non-object config', () => {
    expect(configError('yes').message).toBe('system-prompt: invalid config: (root): expected object, received string')
  })

  it('validates toolOrder with the messages (plain Errors)', () => {
    expect(() => Config({ toolOrder: [] })).toThrow(
      'toolOrder must contain the "<unlisted-tools>" rest entry (where unlisted tools are inserted)',
    )
    expect(() => Config({ toolOrder: ['a', 'a', '<unlisted-tools>'] })).toThrow('toolOrder lists "a" more than once')
    try {
      Config({ toolOrder: ['a'] })
    } catch (error) {
      expect(error).not.toBeInstanceOf(ConfigError)
    }
  })

  it('is idempotent on its own output', () => {
    const once = Config({ persona: 'x', toolOrder: ['a', '<unlisted-tools>'], includeRuntimeContext: false })
    expect(Config(once)).toEqual(once)
  })

  it('ConfigSchema is exported under both names and parses shape only', () => {
    expect(SystemPromptConfigSchema).toBe(ConfigSchema)
    expect(ConfigSchema.safeParse({ toolOrder: [] }).success).toBe(true)
    expect(ConfigSchema.safeParse({ extra: 1 }).success).toBe(false)
  })
})

describe('loading with a bad config', () => {
  it('direct construction throws synchronously with nothing provided or registered', () => {
    const root = new Context()
    let changes = 0
    root.on('system-prompt/change', () => void changes++)
    expect(() => new SystemPrompt(root, { tooOrder: [] } as never)).toThrow(ConfigError)
    expect(() => new SystemPrompt(root, { toolOrder: ['x'] })).toThrow('rest entry')
    expect(changes).toBe(0)
    expect(root.get('systemPrompt')).toBeUndefined()
  })

  it('ctx.plugin marks the fork failed and leaves ctx.systemPrompt unset', () => {
    const root = new Context()
    const errors: unknown[] = []
    root.on('internal/error', (error) => void errors.push(error))
    const fork = root.plugin(SystemPrompt, { persona: 5 } as never)
    expect(fork.error).toBeInstanceOf(ConfigError)
    expect(root.get('systemPrompt')).toBeUndefined()
    expect(errors.some((e) => e instanceof ConfigError)).toBe(true)
    expect(takeLogLines()).toEqual([
      'error app: ConfigError: system-prompt: invalid config: persona: expected string, received number',
    ])
  })

  it('a direct new SystemPrompt never sets ctx.systemPrompt, but the instance works', async () => {
    const root = new Context()
    const sp = new SystemPrompt(root, { persona: 'direct' })
    expect(root.get('systemPrompt')).toBeUndefined()
    expect(sp.config.persona).toBe('direct')
    expect((await sp.assemble()).sections.map((s) => s.text)).toContain('direct')
  })
})
