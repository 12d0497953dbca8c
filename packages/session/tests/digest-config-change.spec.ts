/**
 * One `RequestDigester` lives as long as an agent, so it sees the route, the sampling settings, the system prompt, the
 * tools and the history change between requests. Whatever the order of those changes, each digest it records must
 * be the one an auditor recomputes from scratch: a stale cached part would make `bridle inspect --verify` report a
 * tampered step that was in fact sent as logged (or hide one that was not).
 */
import fc from 'fast-check'
import type { LlmCallConfig, Message, ToolSchema } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { RequestDigester, requestDigestParts, type DigestableRequest } from '../src/index.js'
import { assistant, user } from './helpers.js'

const tool = (name: string, description = `${name} tool`): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object' },
})

const configs: LlmCallConfig[] = [
  { provider: 'deepseek', model: 'deepseek-chat' },
  { provider: 'deepseek', model: 'deepseek-reasoner' },
  { provider: 'openai', model: 'deepseek-chat' },
  { provider: 'deepseek', model: 'deepseek-chat', temperature: 0 },
  { provider: 'deepseek', model: 'deepseek-chat', temperature: 0.7 },
  { provider: 'deepseek', model: 'deepseek-chat', maxTokens: 1024 },
  { provider: 'deepseek', model: 'deepseek-chat', reasoningEffort: 'high' as never },
  { provider: 'deepseek', model: 'deepseek-chat', stop: ['END'] },
  { provider: 'deepseek', model: 'deepseek-chat', stop: ['END', 'STOP'] },
  { provider: 'deepseek', model: 'deepseek-chat', stop: [] },
]
const systems = [undefined, 'You are Bridle.', 'You are Bridle.\nBe brief.']
const sharedTools = [tool('read_file')]
const toolLists = [
  undefined,
  sharedTools,
  [tool('read_file')],
  [tool('read_file', 'reads a file')],
  [tool('read_file'), tool('grep')],
]
const pool: Message[] = [user('a'), assistant('b'), user('c'), assistant('d'), user('e')]

describe('RequestDigester across configuration changes', () => {
  it('two requests that differ only in provider, model, temperature, stop, maxTokens or effort get different digests', () => {
    const digester = new RequestDigester()
    const messages = [user('same history')]
    const seen = new Map<string, string>()
    for (const config of configs) {
      const parts = digester.digest({ ...config, messages })
      expect(parts).toEqual(requestDigestParts({ ...config, messages }))
      expect(seen.has(parts.config)).toBe(false)
      seen.set(parts.config, JSON.stringify(config))
    }
    // and going back to an earlier config gives its earlier digest again
    expect(digester.digest({ ...configs[0]!, messages }).config).toBe([...seen.keys()][0])
  })

  it('any sequence of requests digests exactly as the from-scratch path (property)', () => {
    const request = fc.record({
      config: fc.constantFrom(...configs),
      system: fc.constantFrom(...systems),
      tools: fc.constantFrom(...toolLists),
      // a history is a prefix of the pool, optionally with one message replaced (as compaction does)
      length: fc.integer({ min: 0, max: pool.length }),
      replaced: fc.option(fc.nat(pool.length - 1), { nil: undefined }),
    })
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 12 }), (steps) => {
        const digester = new RequestDigester()
        for (const step of steps) {
          const messages = pool.slice(0, step.length)
          if (step.replaced !== undefined && step.replaced < messages.length)
            messages[step.replaced] = user(`summary ${step.replaced}`)
          const built: DigestableRequest = {
            ...step.config,
            messages,
            ...(step.system !== undefined ? { system: step.system } : {}),
            ...(step.tools !== undefined ? { tools: step.tools } : {}),
          }
          expect(digester.digest(built)).toEqual(requestDigestParts(built))
        }
      }),
      { numRuns: 200 },
    )
  })
})
