/**
 * The loop logs `request/header` only when `headerEquals` says the header changed, so every way a header can change
 * must count as a change: otherwise the log keeps the old stop sequences or tool schemas while the model sees new
 * ones, and no tool can explain the request afterwards.
 */
import type { LlmCallConfig, ToolSchema } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { canonicalHeader, headerEquals, Session, type EpochHeader } from '../src/index.js'
import { header } from './helpers.js'

const readFile = (parameters: Record<string, unknown>): ToolSchema => ({
  name: 'read_file',
  description: 'Reads a file',
  parameters: parameters as ToolSchema['parameters'],
})

const schema = {
  type: 'object',
  properties: { path: { type: 'string', description: 'relative path' }, offset: { type: 'integer', minimum: 1 } },
  required: ['path'],
}

/** A change in both directions, while each side rebuilt from its JSON text is no change. */
function expectChange(a: EpochHeader, b: EpochHeader): void {
  expect(headerEquals(a, b)).toBe(false)
  expect(headerEquals(b, a)).toBe(false)
  expect(headerEquals(a, JSON.parse(JSON.stringify(a)))).toBe(true)
  expect(headerEquals(b, JSON.parse(JSON.stringify(b)))).toBe(true)
}

const withStop = (stop: string[] | undefined) =>
  header({ config: { provider: 'p', model: 'm', ...(stop ? { stop } : {}) } })
const withTool = (parameters: Record<string, unknown>) => header({ tools: [readFile(parameters)] })

describe('stop sequences: any edit is a header change', () => {
  it.each<[string, string[], string[]]>([
    ['a sequence appended', ['END'], ['END', 'STOP']],
    ['a sequence removed', ['END', 'STOP'], ['END']],
    ['the last of several changed', ['a', 'b', 'c'], ['a', 'b', 'x']],
    ['the middle of several changed', ['a', 'b', 'c'], ['a', 'x', 'c']],
    ['the first changed', ['a', 'b'], ['x', 'b']],
    ['reordered', ['a', 'b'], ['b', 'a']],
    ['emptied', ['a'], []],
  ])('%s', (_name, before, after) => {
    expectChange(withStop(before), withStop(after))
  })

  it('equal lists (distinct arrays) and two absent lists are no change', () => {
    expect(headerEquals(withStop(['a', 'b']), withStop(['a', 'b']))).toBe(true)
    expect(headerEquals(withStop(undefined), withStop(undefined))).toBe(true)
    expectChange(withStop(undefined), withStop(['a']))
  })
})

describe('tool schemas: any edit is a header change', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a top-level keyword added', { ...schema, additionalProperties: false }],
    ['a property added', { ...schema, properties: { ...schema.properties, limit: { type: 'integer' } } }],
    ['a property removed', { ...schema, properties: { path: schema.properties.path } }],
    [
      'every value of a nested object changed',
      { ...schema, properties: { ...schema.properties, path: { type: 'number', description: 'absolute path' } } },
    ],
    [
      'one nested value changed',
      { ...schema, properties: { ...schema.properties, offset: { type: 'integer', minimum: 0 } } },
    ],
    [
      'a key renamed, value kept',
      { ...schema, properties: { file: schema.properties.path, offset: schema.properties.offset } },
    ],
    ['a required entry added', { ...schema, required: ['path', 'offset'] }],
    ['the required list emptied', { ...schema, required: [] }],
    ['a required entry replaced', { ...schema, required: ['offset'] }],
    ['an array turned into an object with the same entries', { ...schema, required: { 0: 'path' } }],
    [
      'a number turned into its string',
      { ...schema, properties: { ...schema.properties, offset: { type: 'integer', minimum: '1' } } },
    ],
    ['a member set to null', { ...schema, properties: null }],
  ])('%s', (_name, changed) => {
    expectChange(withTool(schema), withTool(changed))
  })

  it('the same schema rebuilt from scratch, or sharing subtrees, is no change', () => {
    expect(headerEquals(withTool(schema), withTool(JSON.parse(JSON.stringify(schema))))).toBe(true)
    expect(headerEquals(withTool(schema), withTool({ ...schema }))).toBe(true)
    expect(headerEquals(withTool(schema), withTool(schema))).toBe(true)
  })

  it('a schema nested deeper than the fast path still compares by its JSON text', () => {
    const deep = (leaf: unknown): Record<string, unknown> => {
      let node: Record<string, unknown> = { leaf }
      for (let i = 0; i < 80; i++) node = { type: 'object', properties: { next: node } }
      return node
    }
    expect(headerEquals(withTool(deep('x')), withTool(deep('x')))).toBe(true)
    expectChange(withTool(deep('x')), withTool(deep('y')))
  })

  it('values that serialize alike compare alike (class instances, toJSON), as the model receives JSON', () => {
    class Schema {
      constructor(readonly type: string) {}
    }
    expect(headerEquals(withTool({ items: new Schema('string') }), withTool({ items: { type: 'string' } }))).toBe(true)
    expectChange(withTool({ items: new Schema('string') }), withTool({ items: { type: 'number' } }))
    const stamped = { toJSON: () => ({ type: 'string' }) }
    expect(headerEquals(withTool({ items: stamped }), withTool({ items: { type: 'string' } }))).toBe(true)
    expectChange(withTool({ items: stamped }), withTool({ items: { type: 'number' } }))
    expectChange(withTool({ items: [1, 2] }), withTool({ items: { 0: 1, 1: 2 } }))
  })

  it('a tool added, removed or replaced is a change; the same tools in the same order are not', () => {
    const other: ToolSchema = { name: 'grep', description: 'Searches', parameters: { type: 'object' } }
    expectChange(header({ tools: [readFile(schema)] }), header({ tools: [readFile(schema), other] }))
    expectChange(header({ tools: [readFile(schema)] }), header({ tools: [other] }))
    expectChange(header({ tools: [readFile(schema)] }), header({}))
    expect(
      headerEquals(header({ tools: [readFile(schema), other] }), header({ tools: [readFile(schema), other] })),
    ).toBe(true)
  })
})

describe('adapter-supplied defaults', () => {
  it('a header keeps adapterDefaults when any single flag is set, and drops them when none is', () => {
    const config = { provider: 'p', model: 'm', reasoningEffort: 'high' as never, maxTokens: 100 } as LlmCallConfig
    expect(canonicalHeader({ config, adapterDefaults: { reasoningEffort: true } }).adapterDefaults).toEqual({
      reasoningEffort: true,
    })
    expect(canonicalHeader({ config, adapterDefaults: { maxTokens: true } }).adapterDefaults).toEqual({
      maxTokens: true,
    })
    // a flag written as `false` (by a tool other than the loop) counts as not set
    const off = false as unknown as true
    expect(
      canonicalHeader({ config, adapterDefaults: { reasoningEffort: off, maxTokens: true } }).adapterDefaults,
    ).toEqual({
      reasoningEffort: false,
      maxTokens: true,
    })
    expect(
      'adapterDefaults' in canonicalHeader({ config, adapterDefaults: { reasoningEffort: off, maxTokens: off } }),
    ).toBe(false)
    expect('adapterDefaults' in canonicalHeader({ config })).toBe(false)
  })

  it('who chose a value is part of the header: the same value supplied by the adapter is a change', () => {
    const config = { provider: 'p', model: 'm', reasoningEffort: 'high' as never, maxTokens: 100 } as LlmCallConfig
    expectChange(header({ config }), header({ config, adapterDefaults: { maxTokens: true } }))
    expectChange(header({ config }), header({ config, adapterDefaults: { reasoningEffort: true } }))
    expectChange(
      header({ config, adapterDefaults: { reasoningEffort: true } }),
      header({ config, adapterDefaults: { reasoningEffort: true, maxTokens: true } }),
    )
  })
})

describe('the session folds the header the loop will compare against', () => {
  it('a logged header with a new stop list replaces the folded one; an equal one keeps comparing equal', () => {
    const s = Session.create('s')
    s.append('request/header', { header: withStop(['END']), reason: 'initial' })
    expect(headerEquals(s.requestHeader()!, withStop(['END']))).toBe(true)
    expect(headerEquals(s.requestHeader()!, withStop(['END', 'STOP']))).toBe(false)
    s.append('request/header', { header: withStop(['END', 'STOP']), reason: 'change' })
    expect(s.requestHeader()!.config.stop).toEqual(['END', 'STOP'])
    expect(headerEquals(s.requestHeader()!, withStop(['END', 'STOP']))).toBe(true)
  })
})

describe('tool objects however they were built: the comparison follows the JSON the model receives', () => {
  it('a tool that gains a field after its others (such as `strict: true`) is a change', () => {
    const strict = { ...readFile(schema), strict: true } as ToolSchema
    expectChange(header({ tools: [readFile(schema)] }), header({ tools: [strict] }))
  })

  it('the same fields in another order are a change (every field moved, values shared)', () => {
    const tool = readFile(schema)
    const rotated = { parameters: tool.parameters, name: tool.name, description: tool.description } as ToolSchema
    expectChange(header({ tools: [tool] }), header({ tools: [rotated] }))
  })

  it('dates in a schema compare by the time they serialize to', () => {
    expectChange(withTool({ ...schema, default: new Date(0) }), withTool({ ...schema, default: new Date(1000) }))
    expect(headerEquals(withTool({ default: new Date(5) }), withTool({ default: new Date(5) }))).toBe(true)
    // objects without a prototype (as some parsers build them) all the way down
    const bare = (date: Date) =>
      header({
        tools: [
          Object.assign(Object.create(null), {
            name: 't',
            description: 'd',
            parameters: Object.assign(Object.create(null), { default: date }),
          }),
        ],
      })
    expectChange(bare(new Date(0)), bare(new Date(1000)))
  })

  it('a tool that is a class instance serializing itself differently (toJSON) compares by its JSON', () => {
    class StrictTool {
      constructor(
        readonly name: string,
        readonly description: string,
        readonly parameters: ToolSchema['parameters'],
      ) {}
      toJSON() {
        return { name: this.name, description: this.description, parameters: this.parameters, strict: true }
      }
    }
    const plain = readFile(schema)
    const instance = new StrictTool(plain.name, plain.description, plain.parameters) as unknown as ToolSchema
    expectChange(header({ tools: [plain] }), header({ tools: [instance] }))
  })

  it('a shared toJSON that serializes state outside the own fields compares by its output', () => {
    // a schema builder's node: what it serializes to is not among its enumerable fields
    function toJSON(this: { spec: unknown }) {
      return this.spec
    }
    const node = (spec: unknown) => Object.defineProperty({ toJSON }, 'spec', { value: spec, enumerable: false })
    expectChange(withTool({ items: node({ type: 'string' }) }), withTool({ items: node({ type: 'number' }) }))
    expect(
      headerEquals(withTool({ items: node({ type: 'string' }) }), withTool({ items: node({ type: 'string' }) })),
    ).toBe(true)
  })
})
