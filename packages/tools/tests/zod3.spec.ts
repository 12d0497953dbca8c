import { describe, expect, it } from 'vitest'
import { z as z3 } from 'zod3'
import { z } from 'zod'
import { isZod3Schema } from '../src/definition.js'
import { agent, setup } from './helpers.js'

// An app that installed zod 3 next to Bridle hands us zod 3 schemas; the error must say zod 4 is required.
describe('a zod 3 schema as tool parameters', () => {
  const execute = () => 'ok'

  it('is refused with an error that names the tool and says zod 4 is required; nothing is registered', () => {
    const { root, tools, changes } = setup()
    const { agent: key } = agent(root)
    const parameters = z3.object({ path: z3.string() }) as never
    expect(() => tools.register({ name: 'read', description: 'reads', parameters, execute })).toThrow(
      'tool "read" parameters is a zod 3 schema; Bridle needs zod 4 (^4.6.7): install zod@4 in your app and build the schema with it',
    )
    expect(tools.schemas(key)).toEqual([])
    expect(changes()).toBe(0)
  })

  it('is told apart from zod 4 schemas and from plain JSON Schema objects', () => {
    expect(isZod3Schema(z3.string())).toBe(true)
    expect(isZod3Schema(z3.object({ a: z3.number() }).optional())).toBe(true)
    expect(isZod3Schema(z.object({ a: z.number() }))).toBe(false)
    expect(isZod3Schema({ type: 'object', properties: {} })).toBe(false)
    expect(isZod3Schema({ _def: { typeName: 'NotZod' } })).toBe(false)
    expect(isZod3Schema(null)).toBe(false)
  })
})
