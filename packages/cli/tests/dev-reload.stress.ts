import fc from 'fast-check'
import { describe, it } from 'vitest'
import { checkEdits, editArbitrary } from './dev-reload-graph.js'

// `pnpm test:stress`: the hot-reload property of dev-reload.property.spec.ts at full size.
describe('bridle dev: hot reload along the module graph equals a fresh boot (stress)', () => {
  it('holds over many random edit sequences', async () => {
    let edits = 0
    await fc.assert(
      fc.asyncProperty(fc.array(editArbitrary, { minLength: 1, maxLength: 10 }), async (sequence) => {
        edits += sequence.length
        await checkEdits(sequence)
      }),
      { numRuns: 25 },
    )
    console.log(`hot-reload property: ${edits} edits checked against a fresh boot`)
  })
})
