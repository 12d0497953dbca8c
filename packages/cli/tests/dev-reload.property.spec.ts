import fc from 'fast-check'
import { describe, it } from 'vitest'
import { checkEdits, editArbitrary } from './dev-reload-graph.js'

// Hot reload is equivalent to a cold start (DESIGN.md's quality bar): random edits to a graph of `.mjs` and TypeScript
// plugin modules, some shared by two plugins, under a real `bridle dev`. After every edit exactly the plugins that
// import the edited module reload, and the next request equals, byte for byte, the request of a fresh boot of the
// same files. A few runs here (CI runs this on Node 20 and 24); dev-reload.stress.ts runs many more.
describe('bridle dev: hot reload along the module graph equals a fresh boot', () => {
  it('holds over random edit sequences', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(editArbitrary, { minLength: 1, maxLength: 4 }), (edits) => checkEdits(edits)),
      { numRuns: 3, endOnFailure: true },
    )
  })
})
