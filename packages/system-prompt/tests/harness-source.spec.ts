import { describe, expect, it } from 'vitest'
import { HARNESS_SOURCE_SECTION, SystemPrompt, harnessSourceText, renderPrompt } from '../src/index.js'
import { setup } from './helpers.js'

describe('harnessSource (the harness:source section)', () => {
  it('adds harness:source after the identity and before the persona, naming the checkout as neither workspace nor cwd', async () => {
    const { sp } = setup({ harnessSource: '/opt/bridle', persona: 'You review invoices.' })
    const assembly = await sp.assemble()
    expect(assembly.sections.map((s) => s.name)).toEqual([
      'harness:identity',
      HARNESS_SOURCE_SECTION,
      'deployment:persona',
    ])
    const text = renderPrompt(assembly)
    expect(text).toContain('The source checkout of the harness that runs you (Bridle) is at /opt/bridle.')
    expect(text).toContain('It is not the task workspace and not your current working directory')
    expect(text).toContain('`pwd`')
    expect(harnessSourceText('/x')).toMatch(/^The source checkout .* at \/x\./)
  })

  it('is absent unless configured', async () => {
    expect((await setup().sp.assemble()).sections.map((s) => s.name)).not.toContain(HARNESS_SOURCE_SECTION)
  })

  it('rejects an empty path and one with "{{" (the section text is interpolated)', () => {
    expect(() => SystemPrompt.Config({ harnessSource: '' })).toThrow(/harnessSource: must be a non-empty path/)
    expect(() => SystemPrompt.Config({ harnessSource: '/a/{{b}}' })).toThrow(/harnessSource: must not contain "\{\{"/)
    expect(() => SystemPrompt.Config({ harnessSource: 7 } as never)).toThrow(
      /harnessSource: expected string, received number/,
    )
  })
})
