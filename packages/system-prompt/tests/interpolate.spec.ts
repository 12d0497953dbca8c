import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { interpolate } from '../src/interpolate.js'

const s = (text: string, variables: Record<string, string | undefined> = {}, kind: 'section' | 'context' = 'section') =>
  interpolate({ name: 's', text }, variables, kind)

describe('interpolate: errors', () => {
  it('malformed-at: a {{ with a later }} but no complete group (spec example 5)', () => {
    expect(() => s('a {{ b {{cwd}}', { cwd: '/w' })).toThrow(
      'malformed prompt variable reference at "{{ b {{cwd}}…" in section "s" (references are complete simple {{name}} groups)',
    )
  })

  it('malformed-at slices 16 code units and always appends …', () => {
    expect(() => s('x {{abcdefghijklmnopqrstuvwxyz{ }}')).toThrow(
      'malformed prompt variable reference at "{{abcdefghijklmn…" in section "s"',
    )
    expect(() => s('{{{x}}', { x: '1' })).toThrow('malformed prompt variable reference at "{{{x}}…" in section "s"')
  })

  it('a lone {{ before a later valid group is an error', () => {
    expect(() => s('open {{ then {{cwd}}', { cwd: '/w' })).toThrow(/^malformed prompt variable reference at "\{\{ then/)
  })

  it.each([
    ['{{}}', ''],
    ['{{ cwd }}', ' cwd '],
    ['{{Cwd}}', 'Cwd'],
    ['{{1cwd}}', '1cwd'],
    ['{{a-b}}', 'a-b'],
    ['{{a\nb}}', 'a\nb'],
    ['{{_x}}', '_x'],
  ])('malformed-name: %j', (text, inner) => {
    expect(() => s(`t ${text}`, { cwd: '/w' })).toThrow(
      `malformed prompt variable reference "{{${inner}}}" in section "s" (variable names match /^[a-z][a-z0-9_]*$/)`,
    )
  })

  it('unknown variable lists registered keys in insertion order (spec example 7)', () => {
    expect(() => s('{{modle}}', { model: 'm', cwd: '/w' })).toThrow(
      'unknown prompt variable "{{modle}}" in section "s"; registered variables: model, cwd',
    )
  })

  it('unknown variable with no keys reads (none); keys with undefined values are listed', () => {
    expect(() => s('{{x}}', {})).toThrow('unknown prompt variable "{{x}}" in section "s"; registered variables: (none)')
    expect(() => s('{{x}}', { a: undefined, b: 'b' })).toThrow('registered variables: a, b')
  })

  it('never resolves through the prototype chain', () => {
    for (const name of ['constructor', 'tostring', 'valueof', 'hasownproperty']) {
      expect(() => s(`{{${name}}}`, {})).toThrow(`unknown prompt variable "{{${name}}}"`)
    }
    const inherited = Object.create({ inherited: 'x' }) as Record<string, string>
    expect(() => s('{{inherited}}', inherited)).toThrow('unknown prompt variable "{{inherited}}"')
    expect(s('{{constructor}}', { constructor: 'own' })).toBe('own')
  })

  it('registered but undefined has no value for this assembly', () => {
    expect(() => s('{{cwd}}', { cwd: undefined }, 'context')).toThrow(
      'prompt variable "{{cwd}}" has no value for this assembly (context "s")',
    )
  })

  it('uses the kind in every message', () => {
    expect(() => s('{{x}}', {}, 'context')).toThrow('in context "s"')
    expect(() => s('{{X}}', {}, 'context')).toThrow('in context "s"')
    expect(() => s('{{ x {{y}}', {}, 'context')).toThrow('in context "s"')
  })

  it('a non-string value (put there by a listener) is an error, not coerced', () => {
    expect(() => s('{{n}}', { n: 42 as unknown as string })).toThrow(
      'prompt variable "{{n}}" must be a string or undefined, got number (section "s")',
    )
  })

  it('all interpolation errors are plain Errors', () => {
    for (const text of ['{{ x {{y}}', '{{X}}', '{{x}}']) {
      try {
        s(text, {})
        expect.unreachable()
      } catch (error) {
        expect((error as Error).constructor).toBe(Error)
      }
    }
  })
})

describe('interpolate: substitution', () => {
  it('substitutes values, including empty strings', () => {
    expect(s('cwd: {{cwd}}, model={{model}}.', { cwd: '/w', model: '' })).toBe('cwd: /w, model=.')
  })

  it('a {{ with no }} anywhere after is literal (spec example 5)', () => {
    expect(s('echo {{ok')).toBe('echo {{ok')
    expect(s('{{cwd}} and {{', { cwd: '/w' })).toBe('/w and {{')
    expect(s('a {{ b {{ c')).toBe('a {{ b {{ c')
  })

  it('a }} without a preceding {{ is literal', () => {
    expect(s('}} {{cwd}} }}', { cwd: '/w' })).toBe('}} /w }}')
  })

  it('never re-scans substituted values (spec example 6)', () => {
    expect(s('N: {{note}}', { note: '{{x}}' })).toBe('N: {{x}}')
    expect(s('{{a}}{{b}}', { a: '{', b: '{x}}' })).toBe('{{x}}')
  })

  it('returns the text unchanged when there are no groups', () => {
    expect(s('plain\ntext')).toBe('plain\ntext')
    expect(s('')).toBe('')
  })
})

describe('interpolate: properties', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/)
  const prose = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '}', 'z', '-'), maxLength: 8 })
  const value = fc.string({ unit: fc.constantFrom('{', '}', 'a', 'x', ' ', '_'), maxLength: 8 })

  it('substituting registered names equals plain concatenation; values are never re-scanned', () => {
    fc.assert(
      fc.property(
        fc.dictionary(name, value, { minKeys: 1, maxKeys: 5 }),
        fc.array(fc.tuple(prose, fc.nat()), { maxLength: 6 }),
        prose,
        (vars, parts, tail) => {
          const keys = Object.keys(vars)
          let text = ''
          let expected = ''
          for (const [p, i] of parts) {
            const key = keys[i % keys.length] as string
            text += `${p}{{${key}}}`
            expected += p + (vars[key] as string)
          }
          // a trailing `}` right before a group would make `}}}`-style prose ambiguous only after the group,
          // which is fine: the group closes at the first `}}`.
          text += tail
          expected += tail
          expect(s(text, vars)).toBe(expected)
        },
      ),
    )
  })

  it('never emits an unresolved {{name}} group of the template: it either throws or resolves all', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom('{{', '}}', '{', '}', ' ', 'ab'),
            name.map((n) => `{{${n}}}`),
          ),
          {
            maxLength: 10,
          },
        ),
        fc.dictionary(name, fc.option(fc.constantFrom('', 'v', 'w w'), { nil: undefined }), { maxKeys: 4 }),
        (pieces, vars) => {
          const text = pieces.join('')
          let out: string
          try {
            out = s(text, vars)
          } catch (error) {
            expect((error as Error).constructor).toBe(Error)
            return
          }
          // values contain no braces here, so any complete group in the output came from the template
          expect(out).not.toMatch(/\{\{[^{}]*\}\}/)
        },
      ),
    )
  })
})

describe('interpolate: error codes', () => {
  it('gives each kind of interpolation error its code, on a plain Error', async () => {
    const { interpolate } = await import('../src/interpolate.js')
    const codeOf = (text: string, variables: Record<string, string | undefined>) => {
      try {
        interpolate({ name: 's', text }, variables, 'section')
      } catch (error) {
        expect((error as Error).constructor).toBe(Error)
        return (error as { code?: string }).code
      }
      return undefined
    }
    expect(codeOf('{{Bad}}', {})).toBe('PROMPT_TEMPLATE')
    expect(codeOf('a {{ b {{c}}', {})).toBe('PROMPT_TEMPLATE')
    expect(codeOf('{{nobody}}', {})).toBe('UNKNOWN_PROMPT_VARIABLE')
    expect(codeOf('{{cwd}}', { cwd: undefined })).toBe('PROMPT_VARIABLE_VALUE')
    expect(codeOf('{{cwd}}', { cwd: '/w' })).toBeUndefined()
  })
})
