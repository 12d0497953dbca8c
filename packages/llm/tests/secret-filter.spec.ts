/**
 * The secret filter (issue 38): whole texts, JSON values, texts that arrive in pieces, and a model's chunk stream.
 * The property that matters: however a text is split, the pieces the stream filter lets out join to `redact` of the
 * whole text, no secret survives, and nothing is held back that could not be the start of a secret.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  BlockAssembler,
  REDACTED,
  SecretFilter,
  holdSecrets,
  knownSecrets,
  redactChunks,
  redactTruncated,
  streamGrammarViolations,
  type StreamChunk,
} from '../src/index.js'
import { SecretFilter as SubEntryFilter, knownSecrets as subEntryKnown } from '../src/secrets.js'
import { splitAt } from '../../../tests/support/split-text.js'

/** Keys look like this: a prefix and a body from an alphabet that ordinary words rarely use in a row. */
const KEY_CHARS = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_+/='.split('')
const keyArb = fc
  .tuple(
    fc.constantFrom('sk-', 'gsk_', 'xai-', 'AKIA', ''),
    fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 12, maxLength: 40 }),
  )
  .map(([prefix, body]) => prefix + body)
  .filter((key) => key.length >= 12)

describe('SecretFilter.redact', () => {
  it('replaces every form of a secret: raw, JSON-escaped and percent-encoded', () => {
    const key = 'sk-a"b\\c+d/e=f-0123'
    const filter = new SecretFilter([key])
    expect(filter.redact(`raw ${key} json ${JSON.stringify(key)} url ?k=${encodeURIComponent(key)}`)).toBe(
      `raw ${REDACTED} json "${REDACTED}" url ?k=${REDACTED}`,
    )
  })

  it('takes the longest secret at the leftmost position, and the same string back when nothing matched', () => {
    const filter = new SecretFilter(['abcdefgh', 'abcdefghijkl', 'ijklmnopq'])
    expect(filter.redact('xabcdefghijklmnopq')).toBe(`x${REDACTED}mnopq`)
    const clean = 'nothing to see here, not even abcdefg'
    expect(filter.redact(clean)).toBe(clean)
  })

  it('ignores short values, non-strings and pieces of the marker; learns a trimmed value too', () => {
    const filter = new SecretFilter(['short', undefined, null, 'redacted', '[redacted]', '  spaced-key-123 \n'])
    expect(filter.size).toBe(2)
    expect(filter.has('spaced-key-123')).toBe(true)
    expect(filter.redact('a redacted spaced-key-123')).toBe(`a redacted ${REDACTED}`)
    expect(new SecretFilter().redact('anything')).toBe('anything')
  })

  it('redactJson redacts strings and keys, keeps clean containers (and their frozen state) as they are', () => {
    const filter = new SecretFilter(['sk-json-0123456789'])
    const clean = Object.freeze({ a: Object.freeze(['x', 1, null]) })
    const value = {
      keep: clean,
      text: 'k=sk-json-0123456789',
      'sk-json-0123456789': true,
      list: ['sk-json-0123456789'],
    }
    const out = filter.redactJson(value)
    expect(out).toEqual({ keep: clean, text: `k=${REDACTED}`, [REDACTED]: true, list: [REDACTED] })
    expect(out.keep).toBe(clean)
    expect(filter.redactJson(clean)).toBe(clean)
    expect(value.text).toBe('k=sk-json-0123456789')
  })

  it('redactHead drops a tail that could begin a secret (the rest was cut off)', () => {
    const filter = new SecretFilter(['sk-head-0123456789'])
    expect(filter.redactHead('body ends with sk-head-01')).toBe('body ends with ')
    expect(filter.redactHead('whole sk-head-0123456789 then s')).toBe(`whole ${REDACTED} then `)
    expect(filter.redactHead('no tail here')).toBe('no tail here')
  })
})

describe('SecretFilter.redactSlice and the script form', () => {
  it('an excerpt cut across a secret shows none of it', () => {
    const key = 'sk-slice-0123456789'
    const filter = new SecretFilter([key])
    const text = `head ${key} tail`
    const at = text.indexOf(key)
    expect(filter.redactSlice(text, at + 4, at + 12)).toBe(REDACTED)
    expect(filter.redactSlice(text, 0, at + 3)).toBe(`head ${REDACTED}`)
    expect(filter.redactSlice(text, at + 10, text.length)).toBe(`${REDACTED} tail`)
    expect(filter.redactSlice(text, 0, 4)).toBe('head')
    expect(new SecretFilter().redactSlice(text, 0, 4)).toBe('head')
  })

  it('a secret with <, > or & is caught as an HTML script carries it', () => {
    const key = 'k<e>y&0123456789'
    const inScript = JSON.stringify({ k: key }).replace(
      /[<>&]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    expect(new SecretFilter([key]).redact(inScript)).toBe(`{"k":"${REDACTED}"}`)
  })
})

describe('SecretStream', () => {
  it('a key split over any number of pieces is caught; live output waits only on a possible start', () => {
    const key = 'sk-BRIDLEKEY-7f3a9c2e41'
    const filter = new SecretFilter([key])
    const stream = filter.stream()
    const out: string[] = []
    for (const piece of ['Your key is ', 'sk-BRIDLEK', 'EY-7f3a', '9c2e41', ' — keep it.']) out.push(stream.push(piece))
    out.push(stream.end())
    expect(out).toEqual(['Your key is ', '', '', REDACTED, ' — keep it.', ''])
    // text that cannot begin a key is never held
    expect(filter.stream().push('plain words, no key')).toBe('plain words, no key')
  })

  it('property: the pieces join to redact(whole), no window of a key survives, the hold is bounded', () => {
    fc.assert(
      fc.property(
        fc.array(keyArb, { minLength: 1, maxLength: 4 }),
        // pieces of any text, of the keys' own alphabet (where tails are held most), and the keys themselves
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 12 }),
            fc.string({ unit: fc.constantFrom(...KEY_CHARS), maxLength: 12 }),
            fc.nat({ max: 3 }),
          ),
          { maxLength: 12 },
        ),
        fc.array(fc.nat(), { maxLength: 30 }),
        (keys, parts, cuts) => {
          const filter = new SecretFilter(keys)
          const whole = parts.map((p) => (typeof p === 'number' ? keys[p % keys.length]! : p)).join('')
          const stream = filter.stream()
          let joined = ''
          for (const piece of splitAt(whole, cuts)) {
            joined += stream.push(piece)
            expect(stream.pending).toBeLessThan(filter.longestForm)
          }
          joined += stream.end()
          expect(joined).toBe(filter.redact(whole))
          for (const key of keys) expect(joined.includes(key)).toBe(false)
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe('redactChunks', () => {
  const key = 'sk-chunk-4b1d9e77aa'

  async function* chunks(list: StreamChunk[]): AsyncGenerator<StreamChunk> {
    yield* list
  }

  async function collect(list: StreamChunk[], filter: SecretFilter): Promise<StreamChunk[]> {
    const out: StreamChunk[] = []
    for await (const c of redactChunks(chunks(list), filter)) out.push(c)
    return out
  }

  it('text, reasoning and tool arguments split over deltas are redacted; deltas and blocks agree', async () => {
    const filter = new SecretFilter([key])
    const args = JSON.stringify({ token: key })
    const out = await collect(
      [
        { type: 'block-start', index: 0, blockType: 'reasoning' },
        { type: 'reasoning-delta', index: 0, text: 'think sk-chu' },
        { type: 'block-start', index: 1, blockType: 'text' },
        { type: 'text-delta', index: 1, text: `say ${key.slice(0, 5)}` },
        { type: 'text-delta', index: 1, text: key.slice(5) },
        { type: 'reasoning-delta', index: 0, text: `nk-4b1d9e77aa done` },
        { type: 'block-start', index: 2, blockType: 'tool-call' },
        { type: 'tool-call-delta', index: 2, id: 'c1' as never, name: 'write', argumentsDelta: args.slice(0, 14) },
        { type: 'tool-call-delta', index: 2, id: 'c1' as never, name: 'write', argumentsDelta: args.slice(14) },
        { type: 'block-end', index: 0, block: { type: 'reasoning', text: `think ${key} done` } },
        { type: 'block-end', index: 1, block: { type: 'text', text: `say ${key}` } },
        {
          type: 'block-end',
          index: 2,
          block: { type: 'tool-call', id: 'c1' as never, name: 'write', arguments: args },
        },
        { type: 'finish', reason: { kind: 'tool-calls' } },
      ],
      filter,
    )
    expect(streamGrammarViolations(out)).toEqual([])
    expect(JSON.stringify(out)).not.toContain(key.slice(0, 8))
    const fromDeltas = new BlockAssembler()
    for (const c of out) if (c.type !== 'block-end') fromDeltas.push(c)
    const fromBlocks = new BlockAssembler()
    for (const c of out) fromBlocks.push(c)
    expect(fromDeltas.blocks()).toEqual(fromBlocks.blocks())
    expect(fromBlocks.blocks()).toEqual([
      { type: 'reasoning', text: `think ${REDACTED} done` },
      { type: 'text', text: `say ${REDACTED}` },
      { type: 'tool-call', id: 'c1', name: 'write', arguments: JSON.stringify({ token: REDACTED }) },
    ])
  })

  it('a held tail is released before an error finish that leaves its block open; the failure is redacted', async () => {
    const filter = new SecretFilter([key])
    const out = await collect(
      [
        { type: 'text-delta', index: 0, text: 'partial s' },
        { type: 'finish', reason: { kind: 'error', failure: { code: 'SERVER', message: `bad key ${key}` } } },
      ],
      filter,
    )
    expect(out).toEqual([
      { type: 'text-delta', index: 0, text: 'partial ' },
      { type: 'text-delta', index: 0, text: 's' },
      { type: 'finish', reason: { kind: 'error', failure: { code: 'SERVER', message: `bad key ${REDACTED}` } } },
    ])
  })

  it('with no secret known, chunks pass through as the same objects', async () => {
    const list: StreamChunk[] = [
      { type: 'text-delta', index: 0, text: 'hello' },
      { type: 'finish', reason: { kind: 'stop' } },
    ]
    const out = await collect(list, new SecretFilter())
    expect(out[0]).toBe(list[0])
    expect(out[1]).toBe(list[1])
  })
})

describe('the process-wide filter', () => {
  it('is one object for every copy of the module (a global symbol) and learns through holdSecrets', () => {
    expect(knownSecrets()).toBe(subEntryKnown())
    expect(SubEntryFilter).toBe(SecretFilter)
    const value = `held-${Math.random().toString(36).slice(2)}-secret`
    holdSecrets(value, undefined, 'short')
    expect(knownSecrets().has(value)).toBe(true)
    expect(redactTruncated(`a ${value} b ${value.slice(0, 9)}`)).toBe(`a ${REDACTED} b `)
  })
})
