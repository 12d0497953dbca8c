import { describe, expect, it } from 'vitest'
import { foldChunks } from '../src/inspect/render.js'

describe('foldChunks', () => {
  it('folds each run of two or more chunks into one line with its chunk kinds; single chunks stay as they are', () => {
    const events = [
      { seq: 3, type: 'step/start', detail: '' },
      { seq: 4, type: 'assistant/chunk', detail: 'block-start' },
      { seq: 5, type: 'assistant/chunk', detail: 'text-delta' },
      { seq: 6, type: 'assistant/chunk', detail: 'text-delta' },
      { seq: 7, type: 'assistant/message', detail: 'text' },
      { seq: 8, type: 'assistant/chunk', detail: 'finish' },
    ]
    expect(foldChunks(events)).toEqual([
      { seq: '3', type: 'step/start', detail: '' },
      { seq: '4–6', type: 'assistant/chunk ×3', detail: 'block-start ×1, text-delta ×2' },
      { seq: '7', type: 'assistant/message', detail: 'text' },
      { seq: '8', type: 'assistant/chunk', detail: 'finish' },
    ])
  })
})
