// The README example, run from the README's text: a traced turn printed by the console exporter.
import { expect, it, vi } from 'vitest'
import { readmeBlock, runExample } from '../../../tests/support/readme-example.js'

it('README example', async () => {
  const dumped: unknown[] = []
  // the console exporter prints each span with console.dir
  const dir = vi.spyOn(console, 'dir').mockImplementation((value: unknown) => void dumped.push(value))
  try {
    const { printed } = await runExample(readmeBlock(new URL('../README.md', import.meta.url)), import.meta.url)
    expect(printed).toEqual([['turn/end']])
  } finally {
    dir.mockRestore()
  }
  const spans = dumped as { name: string; parentSpanContext?: { spanId: string }; id: string; attributes: any }[]
  expect(spans.map((s) => s.name)).toEqual([
    'chat scripted-demo',
    'execute_tool clock',
    'chat scripted-demo',
    'invoke_agent',
  ])
  const root = spans[3]!
  expect(spans.slice(0, 3).every((s) => s.parentSpanContext?.spanId === root.id)).toBe(true)
  expect(root.attributes).toMatchObject({
    'gen_ai.operation.name': 'invoke_agent',
    'bridle.turn.end_reason': 'completed',
  })
})
