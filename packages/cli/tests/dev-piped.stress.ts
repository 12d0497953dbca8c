import fc from 'fast-check'
import { describe, it } from 'vitest'
import { expectPipedPromises, pipedPlan, runPiped } from './dev-piped-input.js'
import { DEMO_YAML, makeApp } from './helpers.js'

// `pnpm test:stress`: the piped-input property of cli-dev-piped.spec.ts with longer inputs and more runs.
describe('piped bridle dev: every prompt answered in order, exit at end of input (stress)', () => {
  it('holds for up to six prompts arriving at any point', async () => {
    const app = makeApp(DEMO_YAML)
    let prompts = 0
    await fc.assert(
      fc.asyncProperty(pipedPlan(6), async (plan) => {
        prompts += plan.lines.length
        expectPipedPromises(app, plan, await runPiped(app, plan))
      }),
      { numRuns: 300 },
    )
    console.log(`piped dev property: ${prompts} prompts over 300 runs, each answered in order`)
  })
})
