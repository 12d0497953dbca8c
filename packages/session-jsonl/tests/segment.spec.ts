import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeSegment, encodeSegment } from '../src/segment.js'

describe('encodeSegment', () => {
  it('keeps [A-Za-z0-9._-] literally and escapes every other code unit as ~XXXX', () => {
    expect(encodeSegment('abc-XYZ_0.9')).toBe('abc-XYZ_0.9')
    expect(encodeSegment('a/b')).toBe('a~002Fb')
    expect(encodeSegment('~')).toBe('~007E')
    expect(encodeSegment('é')).toBe('~00E9')
    expect(encodeSegment('\uD800')).toBe('~D800')
    expect(encodeSegment('🚀')).toBe('~D83D~DE80')
  })

  it('rejects an empty id', () => {
    expect(() => encodeSegment('')).toThrow('cannot encode an empty path segment')
    expect(() => encodeSegment(7 as never)).toThrow('session id must be a string, got number')
  })

  it('is injective and decodable (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'binary' }), fc.string({ minLength: 1, unit: 'binary' }), (a, b) => {
        expect(decodeSegment(encodeSegment(a))).toBe(a)
        if (a !== b) expect(encodeSegment(a)).not.toBe(encodeSegment(b))
        expect(encodeSegment(a)).toMatch(/^[A-Za-z0-9._~-]+$/)
      }),
    )
  })

  it('decodeSegment refuses names encodeSegment never produces', () => {
    expect(decodeSegment('~0041')).toBeUndefined()
    expect(decodeSegment('a~zz')).toBeUndefined()
    expect(decodeSegment('a b')).toBeUndefined()
    expect(decodeSegment('')).toBeUndefined()
  })
})
