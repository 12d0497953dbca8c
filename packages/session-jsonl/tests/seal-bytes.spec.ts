/**
 * Sealed lines written straight into one buffer (issue 38): the same bytes as the string-built reference
 * (`sealLines`), and a 30 MB record encoded with two fewer copies of itself than the string-built path made (the
 * checksum's own UTF-8 copy, the joined batch) — `bridle dev` peaked near 500 MB on a 30 MB prompt.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildChild } from '../../../tests/support/build-child.js'
import { sealLines } from '../src/checksum.js'
import { encodeRecords } from '../src/seal-bytes.js'

const record = fc
  .dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), {
    minKeys: 1,
    maxKeys: 4,
  })
  .map((value) => JSON.stringify(value))

describe('encodeRecords', () => {
  it('property: sealed bytes equal the reference sealLines, for any records, any running CRC; plain lines too', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 6 }), fc.nat(), (records, running) => {
        const reference = sealLines(records.map((r) => `${r}\n`).join(''), running)
        const encoded = encodeRecords(records, running)
        expect(Buffer.from(encoded.bytes).toString('utf8')).toBe(reference.text)
        expect(encoded.running).toBe(reference.running)
        const plain = encodeRecords(records, undefined)
        expect(Buffer.from(plain.bytes).toString('utf8')).toBe(records.map((r) => `${r}\n`).join(''))
        expect(plain.running).toBeUndefined()
      }),
      { numRuns: 300 },
    )
  })

  it('refuses what cannot be sealed, naming it', () => {
    expect(() => encodeRecords(['{}'], 0)).toThrow('cannot seal "{}": a sealed line must be a JSON object')
    expect(() => encodeRecords(['[1]'], 0)).toThrow('cannot seal "[1]"')
    expect(Buffer.from(encodeRecords(['[1]'], undefined).bytes).toString()).toBe('[1]\n')
  })

  it('a 30 MB event raises peak memory by 4 times its size while it is encoded, not 6', async () => {
    const child = await buildChild(fileURLToPath(new URL('./memory/encode-child.ts', import.meta.url)))
    const out = execFileSync(process.execPath, ['--expose-gc', child], { encoding: 'utf8' })
    const { copies, bytes } = JSON.parse(out) as { copies: number; bytes: number }
    expect(bytes).toBeGreaterThan(30 * 1024 * 1024)
    // measured: 3.99 (JSON.stringify's own growth, the JSON, the bytes); the string-built path: 5.99
    expect(copies).toBeLessThan(5)
  }, 120_000)
})
